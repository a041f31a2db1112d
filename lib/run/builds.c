/*
 * builds.c — which Dockerfile builds an image, from what builds it: a
 * Makefile's `docker build` (or `docker buildx build`, `podman build`)
 * with its `-t`, `-f` and context, a docker-compose file's services
 * (`image` beside `build`), skaffold's artifacts (`image`, `context`,
 * `docker.dockerfile`), and a GitHub workflow's docker/build-push-action
 * steps (`tags`, `context`, `file`) or `run:` lines that build.  Read
 * once per run, from the folder the run starts in, for the containers
 * with no command (entrypoint.c), so a Dockerfile that is not up the
 * tree from the manifest still says what its image runs.
 *
 * Vendored folders (vendor/, third_party/, node_modules/ ...) never
 * link: a build file there builds another project's image, and a build
 * whose Dockerfile is there is skipped.  A name is matched without its
 * registry and tag when either side holds a variable the file does not
 * set (`$(REGISTRY)/resnet:$(TAG)` builds resnet), else whole.
 *
 * It also lists the repository's Dockerfiles under the starting folder
 * (cpl_builds_dockerfiles), for an image written as a placeholder that
 * no build file names: entrypoint.c links the only one that runs Python.
 *
 * Owns its list; cpl_builds_free() frees it.
 */
#include "run/builds_int.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/link.h"
#include "run/config_int.h"
#include "run/engine_int.h"
#include "text/yamldoc.h"

/* A build file larger than this is not read. */
#define MAX_BUILD_TEXT (1u << 20)
/* Workflows read from .github/workflows, at most. */
#define MAX_WORKFLOWS 64
/* The Dockerfile walk: this deep, this many directory entries at most. */
#define MAX_DF_DEPTH 8
#define MAX_DF_ENTRIES 20000

bool
cpl_builds_vendored(const char *path)
{
	static const char *const dirs[] = {
		"vendor", "vendored", "third_party", "third-party",
		"thirdparty", "external", "node_modules", "site-packages",
		".venv", "venv", "_vendor", "deps",
	};
	const char *s = path;
	size_t i, n;

	while (*s) {
		n = strcspn(s, "/");
		for (i = 0; i < CPL_ARRAY_LEN(dirs); i++)
			if (n == strlen(dirs[i]) &&
			    strncmp(s, dirs[i], n) == 0 && s[n] == '/')
				return true;
		s += n;
		while (*s == '/')
			s++;
	}
	return false;
}

/* Adds a build of image from dockerfile (NULL: context/Dockerfile) with
 * context (NULL: "."), both relative to the folder of from (the build
 * file); skipped when either is vendored or a word is missing. */
static void
add(struct cpl_builds *b, const char *from, const char *image,
    const char *dockerfile, const char *context)
{
	const char *slash = strrchr(from, '/');
	char *dir = slash ? cpl_xstrndup(from, (size_t)(slash - from)) :
		    cpl_xstrdup(".");
	char *ctx, *df;
	struct cpl_build *e;

	if (image == NULL || *image == '\0' || cpl_builds_vendored(from)) {
		free(dir);
		return;
	}
	ctx = cpl_link_join(dir, context && *context ? context : ".");
	/* docker's -f is relative to the working folder (the build
	 * file's); compose's and skaffold's to the context. */
	df = dockerfile && *dockerfile ? cpl_link_join(dir, dockerfile) :
	     cpl_link_join(ctx, "Dockerfile");
	free(dir);
	if (cpl_builds_vendored(df) || cpl_builds_vendored(ctx)) {
		free(ctx);
		free(df);
		return;
	}
	CPL_GROW(b->v, b->cap, b->n + 1);
	e = &b->v[b->n++];
	e->image = cpl_xstrdup(image);
	e->dockerfile = df;
	e->context = ctx;
}

/* The value of make variable name in text (NAME ?= v, := v, = v), or
 * NULL; caller frees. */
static char *
make_var(const char *text, const char *name, size_t nlen)
{
	const char *s = text;

	while (*s) {
		const char *eol = strchrnul(s, '\n'), *p = s;

		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(eol - p) > nlen && strncmp(p, name, nlen) == 0) {
			p += nlen;
			while (p < eol && (*p == ' ' || *p == '\t'))
				p++;
			if (p < eol && (*p == '?' || *p == ':' || *p == '+'))
				p++;
			if (p < eol && *p == ':')
				p++;
			if (p < eol && *p == '=') {
				for (p++; p < eol && (*p == ' ' ||
						     *p == '\t'); p++)
					;
				return cpl_xstrndup(p, (size_t)(eol - p));
			}
		}
		s = *eol ? eol + 1 : eol;
	}
	return NULL;
}

static char *expand_at(const char *word, const char *text, int depth);

/* word with $(VAR) / ${VAR} of a Makefile text expanded where the file
 * sets them (a few levels deep; $(shell ...) and the unset stay as
 * written); caller frees. */
static char *
expand(const char *word, const char *text)
{
	return expand_at(word, text, 0);
}

static char *
expand_at(const char *word, const char *text, int depth)
{
	struct cpl_buf b;
	const char *s = word;

	cpl_buf_init(&b, 0);
	while (*s) {
		if (s[0] == '$' && (s[1] == '(' || s[1] == '{')) {
			char close = s[1] == '(' ? ')' : '}';
			const char *e = strchr(s + 2, close);
			char *v = e && text ? make_var(text, s + 2,
					       (size_t)(e - s - 2)) : NULL;

			if (v != NULL && depth < 4 &&
			    strstr(v, "$(shell") == NULL) {
				char *x = expand_at(v, text, depth + 1);

				cpl_buf_adds(&b, x);
				free(x);
				free(v);
				s = e + 1;
				continue;
			}
			free(v);
		}
		cpl_buf_addc(&b, *s++);
	}
	return cpl_buf_detach(&b);
}

/* Words of a command line: split at blanks, quotes kept together and
 * removed (no expansion); at most CPL_ARRAY_LEN(w->v). */
struct words {
	char *v[96];
	size_t n;
};

static void
split(struct words *w, const char *s)
{
	w->n = 0;
	while (*s && w->n < CPL_ARRAY_LEN(w->v)) {
		struct cpl_buf b;
		char q = 0;

		while (*s == ' ' || *s == '\t' || *s == '\\')
			s++;
		if (*s == '\0')
			break;
		cpl_buf_init(&b, 0);
		for (; *s && (q || (*s != ' ' && *s != '\t')); s++) {
			if (q ? *s == q : (*s == '"' || *s == '\''))
				q = q ? 0 : *s;
			else
				cpl_buf_addc(&b, *s);
		}
		cpl_buf_addc(&b, '\0');
		w->v[w->n++] = cpl_buf_detach(&b);
	}
}

static void
words_free(struct words *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->v[i]);
	w->n = 0;
}

/* The docker build commands of shell text (a Makefile recipe line, a
 * workflow's run:): each -t with its -f and context. */
static void
read_shell(struct cpl_builds *b, const char *from, const char *text,
	   const char *vars)
{
	const char *s = text;

	while (*s) {
		const char *eol = strchrnul(s, '\n');
		char *line = cpl_xstrndup(s, (size_t)(eol - s));
		char *at = strstr(line, " build");

		s = *eol ? eol + 1 : eol;
		if (at == NULL || (strstr(line, "docker") == NULL &&
				   strstr(line, "podman") == NULL)) {
			free(line);
			continue;
		}
		{
			struct words w;
			char *tag = NULL, *file = NULL, *ctx = NULL;
			size_t i;
			bool in = false;

			split(&w, line);
			for (i = 0; i < w.n; i++) {
				const char *t = w.v[i];

				if (!in) {
					in = strcmp(t, "build") == 0 && i > 0 &&
					     (strstr(w.v[i - 1], "docker") ||
					      strstr(w.v[i - 1], "podman") ||
					      strcmp(w.v[i - 1], "buildx") ==
					      0);
					continue;
				}
				if (strcmp(t, "&&") == 0 ||
				    strcmp(t, ";") == 0 || strcmp(t, "|") == 0)
					break;
				if ((strcmp(t, "-t") == 0 ||
				     strcmp(t, "--tag") == 0 ||
				     strcmp(t, "-f") == 0 ||
				     strcmp(t, "--file") == 0) && i + 1 < w.n) {
					char **to = t[1] == 't' || t[2] == 't' ?
						    &tag : &file;

					if (*to == NULL)
						*to = expand(w.v[i + 1], vars);
					i++;
				} else if (strncmp(t, "--tag=", 6) == 0) {
					free(tag);
					tag = expand(t + 6, vars);
				} else if (strncmp(t, "--file=", 7) == 0) {
					free(file);
					file = expand(t + 7, vars);
				} else if (t[0] == '-') {
					/* --build-arg X=Y, --platform P */
					if (strchr(t, '=') == NULL &&
					    i + 1 < w.n && w.v[i + 1][0] != '-' &&
					    (strcmp(t, "--build-arg") == 0 ||
					     strcmp(t, "--platform") == 0 ||
					     strcmp(t, "--target") == 0 ||
					     strcmp(t, "--label") == 0))
						i++;
				} else if (ctx == NULL) {
					ctx = expand(t, vars);
				}
			}
			if (tag != NULL && ctx != NULL)
				add(b, from, tag, file, ctx);
			free(tag);
			free(file);
			free(ctx);
			words_free(&w);
		}
		free(line);
	}
}

/* A scalar or the first item of a sequence of scalars (tags). */
static const char *
first_str(const struct cpl_ynode *n)
{
	if (cpl_ynode_is_seq(n) && n->count > 0)
		return cpl_ynode_str(n->items[0]);
	if (cpl_ynode_is_scalar(n)) {
		const char *s = cpl_ynode_str(n);

		return s;
	}
	return NULL;
}

/* docker-compose services: image beside build (a context string, or
 * context and dockerfile). */
static void
read_compose(struct cpl_builds *b, const char *from,
	     const struct cpl_ynode *doc)
{
	const struct cpl_ynode *svcs = cpl_ynode_get(doc, "services");
	size_t i;

	if (!cpl_ynode_is_map(svcs))
		return;
	for (i = 0; i < svcs->count; i++) {
		const struct cpl_ynode *s = svcs->pairs[i].value;
		const struct cpl_ynode *bd = cpl_ynode_get(s, "build");
		const char *image = cpl_ynode_gets(s, "image");

		if (bd == NULL || image == NULL)
			continue;
		if (cpl_ynode_is_scalar(bd))
			add(b, from, image, NULL, cpl_ynode_str(bd));
		else {
			const char *ctx = cpl_ynode_gets(bd, "context");
			const char *df = cpl_ynode_gets(bd, "dockerfile");
			char *file = df ? cpl_link_join(ctx ? ctx : ".", df) :
				     NULL;

			add(b, from, image, file, ctx);
			free(file);
		}
	}
}

/* skaffold: build.artifacts[] of image, context, docker.dockerfile. */
static void
read_skaffold(struct cpl_builds *b, const char *from,
	      const struct cpl_ynode *doc)
{
	const struct cpl_ynode *arts =
		cpl_ynode_path(doc, "build", "artifacts", NULL);
	size_t i;

	if (!cpl_ynode_is_seq(arts))
		return;
	for (i = 0; i < arts->count; i++) {
		const struct cpl_ynode *a = arts->items[i];
		const char *ctx = cpl_ynode_gets(a, "context");
		const char *df = cpl_ynode_gets(cpl_ynode_get(a, "docker"),
						"dockerfile");
		char *file = df ? cpl_link_join(ctx ? ctx : ".", df) : NULL;

		add(b, from, cpl_ynode_gets(a, "image"), file, ctx);
		free(file);
	}
}

/* A GitHub workflow: each job's steps, docker/build-push-action's with
 * (tags, context, file; file relative to the repository) and run: text. */
static void
read_workflow(struct cpl_builds *b, const char *from,
	      const struct cpl_ynode *doc)
{
	const struct cpl_ynode *jobs = cpl_ynode_get(doc, "jobs");
	size_t i, j;

	if (!cpl_ynode_is_map(jobs))
		return;
	for (i = 0; i < jobs->count; i++) {
		const struct cpl_ynode *steps =
			cpl_ynode_get(jobs->pairs[i].value, "steps");

		if (!cpl_ynode_is_seq(steps))
			continue;
		for (j = 0; j < steps->count; j++) {
			const struct cpl_ynode *st = steps->items[j];
			const char *uses = cpl_ynode_gets(st, "uses");
			const struct cpl_ynode *with = cpl_ynode_get(st, "with");
			const char *run = cpl_ynode_gets(st, "run");

			if (uses && strstr(uses, "build-push-action")) {
				const char *tags = first_str(
					cpl_ynode_get(with, "tags"));
				char *tag = tags ? cpl_xstrndup(tags,
					strcspn(tags, ",\n")) : NULL;

				/* The workflow runs at the repository's
				 * root, two folders up. */
				add(b, "./x", tag,
				    cpl_ynode_gets(with, "file"),
				    cpl_ynode_gets(with, "context"));
				free(tag);
			}
			if (run != NULL)
				read_shell(b, "./x", run, NULL);
		}
	}
	(void)from;
}

/* Reads path and hands its text to the reader of its kind. */
static void
read_file(struct cpl_engine *e, struct cpl_builds *b, const char *path,
	  char kind)
{
	struct cpl_error err = { 0 };
	struct cpl_ystream *s = NULL;
	char *text = NULL;
	size_t len = 0, i;

	if (cpl_engine_read_source(e, path, &text, &len, &err) < 0 ||
	    len > MAX_BUILD_TEXT || memchr(text, '\0', len) != NULL)
		goto out;
	if (kind == 'm') {
		read_shell(b, path, text, text);
		goto out;
	}
	if (cpl_yaml_parse(&s, path, text, len, &err) < 0)
		goto out;
	for (i = 0; i < cpl_ystream_count(s); i++) {
		const struct cpl_ynode *doc = cpl_ystream_doc(s, i);

		if (kind == 'c')
			read_compose(b, path, doc);
		else if (kind == 's')
			read_skaffold(b, path, doc);
		else
			read_workflow(b, path, doc);
	}
out:
	cpl_ystream_free(s);
	cpl_error_clear(&err);
	free(text);
}

void
cpl_builds_read(struct cpl_builds *b, struct cpl_engine *e)
{
	static const struct { const char *path; char kind; } files[] = {
		{ "Makefile", 'm' }, { "makefile", 'm' },
		{ "GNUmakefile", 'm' },
		{ "docker-compose.yml", 'c' }, { "docker-compose.yaml", 'c' },
		{ "compose.yml", 'c' }, { "compose.yaml", 'c' },
		{ "skaffold.yaml", 's' }, { "skaffold.yml", 's' },
	};
	DIR *d;
	struct dirent *de;
	size_t i, n = 0;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < CPL_ARRAY_LEN(files); i++)
		read_file(e, b, files[i].path, files[i].kind);
	if (e->set.staged || (d = opendir(".github/workflows")) == NULL)
		return;
	while ((de = readdir(d)) != NULL && n < MAX_WORKFLOWS) {
		char *p;

		if (!cpl_str_ends(de->d_name, ".yml") &&
		    !cpl_str_ends(de->d_name, ".yaml"))
			continue;
		p = cpl_xasprintf(".github/workflows/%s", de->d_name);
		read_file(e, b, p, 'w');
		free(p);
		n++;
	}
	closedir(d);
}

/* Whether a file's name is a Dockerfile's. */
static bool
dockerfile_name(const char *name)
{
	return strcmp(name, "Dockerfile") == 0 ||
	       strcmp(name, "Containerfile") == 0 ||
	       cpl_str_starts(name, "Dockerfile.") ||
	       cpl_str_ends(name, ".Dockerfile") ||
	       cpl_str_ends(name, ".dockerfile");
}

/* The walk of cpl_builds_dockerfiles() below dir (a path from the
 * starting folder, "." itself); *budget counts entries left. */
static void
list_dockerfiles(struct cpl_engine *e, const char *dir, int depth,
		 char **out, size_t max, size_t *n, size_t *budget)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (d == NULL)
		return;
	while (*n < max && *budget > 0 && (de = readdir(d)) != NULL) {
		char *path, *probe;
		struct stat st;

		(*budget)--;
		if (de->d_name[0] == '.')
			continue;	/* ., .., .git, .venv, .github */
		path = strcmp(dir, ".") == 0 ? cpl_xstrdup(de->d_name) :
		       cpl_xasprintf("%s/%s", dir, de->d_name);
		probe = cpl_xasprintf("%s/", path);
		if (lstat(path, &st) < 0 || cpl_builds_vendored(probe) ||
		    cpl_config_excluded(e->set.config, path)) {
			/* not ours to read */
		} else if (S_ISDIR(st.st_mode) && depth < MAX_DF_DEPTH) {
			list_dockerfiles(e, path, depth + 1, out, max, n,
					 budget);
		} else if (S_ISREG(st.st_mode) &&
			   dockerfile_name(de->d_name)) {
			out[(*n)++] = path;
			path = NULL;
		}
		free(probe);
		free(path);
	}
	closedir(d);
}

size_t
cpl_builds_dockerfiles(char **out, size_t max, struct cpl_engine *e,
		       const char *root)
{
	size_t n = 0, budget = MAX_DF_ENTRIES;

	if (!e->set.staged)
		list_dockerfiles(e, root ? root : ".", 0, out, max, &n,
				 &budget);
	return n;
}

/* Whether directory dir holds a git repository's .git (a folder, or a
 * file for a worktree or submodule). */
static bool
holds_git(const char *dir)
{
	char *probe = cpl_xasprintf("%s/.git", dir);
	struct stat st;
	bool yes = lstat(probe, &st) == 0;

	free(probe);
	return yes;
}

const char *
cpl_builds_root_of(struct cpl_engine *e, const char *file)
{
	const char *walk = ".";
	size_t i, n, walk_n = 0;
	bool inside;
	char *dir, *slash;

	for (i = 0; file != NULL && i < e->load.nroots; i++) {
		n = strlen(e->load.roots[i]);
		if (n > walk_n && strncmp(file, e->load.roots[i], n) == 0 &&
		    file[n] == '/') {
			walk = e->load.roots[i];
			walk_n = n;
		}
	}
	if (file == NULL)
		return ".";
	/* Below the starting folder: the repository that holds the file
	 * (its nearest folder with .git, up to the starting folder), else
	 * the starting folder itself.  Elsewhere (an absolute path, ../):
	 * its repository, else the directory the run was given. */
	inside = file[0] != '/' && strncmp(file, "../", 3) != 0;
	dir = cpl_xstrdup(file);
	while ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		if (*dir == '\0')
			break;
		if (holds_git(dir))
			return cpl_engine_keep_str(e, dir);
	}
	free(dir);
	if (inside)
		return ".";
	return walk;
}

/* An image's name without registry host and tag or digest: its last
 * path component ("resnet" of "$(REGISTRY)/resnet:$(TAG)"). */
static char *
short_name(const char *image)
{
	const char *slash = strrchr(image, '/');
	const char *s = slash ? slash + 1 : image;

	return cpl_xstrndup(s, strcspn(s, ":@"));
}

/* An image's name without tag or digest. */
static char *
long_name(const char *image)
{
	const char *slash = strrchr(image, '/');
	const char *colon = strrchr(slash ? slash : image, ':');
	const char *at = strchr(image, '@');
	size_t n = at ? (size_t)(at - image) :
		   colon ? (size_t)(colon - image) : strlen(image);

	return cpl_xstrndup(image, n);
}

const struct cpl_build *
cpl_builds_find(const struct cpl_builds *b, const char *image)
{
	const struct cpl_build *got = NULL;
	char *want_long, *want_short;
	size_t i;

	if (image == NULL || *image == '\0')
		return NULL;
	want_long = long_name(image);
	want_short = short_name(image);
	for (i = 0; got == NULL && i < b->n; i++) {
		char *l = long_name(b->v[i].image);
		char *s = short_name(b->v[i].image);
		bool vars = strchr(b->v[i].image, '$') != NULL ||
			    strchr(image, '$') != NULL ||
			    strstr(b->v[i].image, "{{") != NULL;

		if (strcmp(l, want_long) == 0 ||
		    (vars && *s && strchr(s, '$') == NULL &&
		     strcmp(s, want_short) == 0))
			got = &b->v[i];
		free(l);
		free(s);
	}
	free(want_long);
	free(want_short);
	return got;
}

void
cpl_builds_free(struct cpl_builds *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		free(b->v[i].image);
		free(b->v[i].dockerfile);
		free(b->v[i].context);
	}
	free(b->v);
	memset(b, 0, sizeof(*b));
}
