/*
 * entrypoint.c — what a container runs when its command line does not
 * say: a wrapper shell script of the repository (`bash scripts/train.sh`,
 * `./run.sh`, `sh -e launch.sh`), or, for a container with no command,
 * the ENTRYPOINT and CMD of the repository's Dockerfile nearest its
 * manifest (and the wrapper script that ENTRYPOINT names, if any).  The
 * script's or the Dockerfile's command is scanned (shell/shscan.h) and,
 * when it starts a launcher or a Python script, becomes the container's
 * launch: the linker then follows the Python it runs and the budget reads
 * its launcher and the variables it exports.  Positions point into the
 * script or the Dockerfile; the container's argv stays as written.
 *
 * A Dockerfile is linked only when nothing says the image is another
 * one: the container's image is none of the Dockerfile's FROM images, nor
 * an image of Docker's library (no registry path: `python:3.11`), nor a
 * vendor's framework image (NGC, pytorch/pytorch ...), whose own
 * entrypoint the repository does not hold.
 *
 * Runs once per run, before the group graph (group.c), over the static
 * workloads.  Owns nothing after it returns: each text it reads and each
 * path that positions name are kept by the engine (cpl_engine_keep_str()).
 */
#include "run/engine_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "git/repo.h"
#include "model/link.h"
#include "run/builds_int.h"
#include "run/config_int.h"
#include "shell/shscan.h"

/* A Dockerfile or script larger than this is not read for a command. */
#define MAX_TEXT (1u << 20)

/* One pass: the texts read so far (path → text; a missing path maps to
 * the pass itself), and the last file found. */
struct pass {
	struct cpl_engine *e;
	struct cpl_strmap texts;
	struct cpl_builds builds;	/* what the build files build */
	bool builds_read;
	const char *found_path;		/* engine-owned */
	const char *found_text;		/* engine-owned */
	bool sole_read;			/* the Dockerfiles below were listed */
	const char *sole_root;		/* below this directory of the run
					 * (engine-owned) */
	size_t npython;			/* how many of them run Python */
	const char *sole_path;		/* the first (the only, when npython
					 * is 1); engine-owned */
	const char *sole_text;		/* engine-owned */
	struct cpl_buf python_list;	/* the first three, for -v */
};

/* Says that the script or Dockerfile at path is too large to read. */
static void
too_large(struct cpl_engine *e, const char *path)
{
	struct cpl_error w = { 0 };

	cpl_error_set(&w, path, 0, 0, "larger than %u bytes: not read for "
		      "the command it runs (its launcher, exports and the "
		      "Python it starts are unknown)", MAX_TEXT);
	cpl_engine_add_warning(e, &w);
	cpl_error_clear(&w);
	cpl_engine_note(e, path, "not read: larger than %u bytes", MAX_TEXT);
}

/* The text at path, read once per pass; NULL when absent or unreadable. */
static const char *
text_at(struct pass *p, const char *path)
{
	struct cpl_error err = { 0 };
	struct stat st;
	char *key = cpl_link_join(".", path), *text = NULL;
	void *v = cpl_strmap_get(&p->texts, key);
	size_t len = 0;
	const char *kept, *kpath;
	bool big;

	if (v != NULL) {
		free(key);
		return v == (void *)p ? NULL : v;
	}
	big = !p->e->set.staged && stat(path, &st) == 0 &&
	      S_ISREG(st.st_mode) && (size_t)st.st_size > MAX_TEXT;
	if ((!p->e->set.staged &&
	     (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	      (size_t)st.st_size > MAX_TEXT)) ||
	    cpl_config_excluded(p->e->set.config, path) ||
	    cpl_engine_read_source(p->e, path, &text, &len, &err) < 0 ||
	    len > MAX_TEXT || memchr(text, '\0', len) != NULL) {
		/* Too large to read for a command: said, not silence. */
		if ((big || len > MAX_TEXT) &&
		    !cpl_config_excluded(p->e->set.config, path))
			too_large(p->e, key);
		cpl_error_clear(&err);
		free(text);
		kpath = cpl_engine_keep_str(p->e, key);
		cpl_strmap_put(&p->texts, kpath, p);
		return NULL;
	}
	cpl_engine_read_aux(p->e, path);
	kpath = cpl_engine_keep_str(p->e, key);
	kept = cpl_engine_keep_str(p->e, text);
	cpl_strmap_put(&p->texts, kpath, (void *)kept);
	return kept;
}

/* text_at() as a cpl_link_find_up() attempt; remembers what it found. */
static const void *
try_text(void *ctx, const char *path)
{
	struct pass *p = ctx;
	const char *t = text_at(p, path);

	if (t != NULL) {
		p->found_path = cpl_engine_keep_str(p->e,
						   cpl_link_join(".", path));
		p->found_text = t;
	}
	return t;
}

/*
 * Finds rel (as a command names it: "scripts/run.sh", "/app/run.sh",
 * "{{ globals.run_outputs_path }}/run.sh") next to file or above it, up
 * to the repository root (else 4 parents), trying each suffix of an
 * absolute path from the longest.  true with p->found_*.
 */
static bool
find_near(struct pass *p, const char *file, const char *rel)
{
	const char *root = p->e->set.repo ? cpl_repo_root(p->e->set.repo) :
					    NULL;
	const char *slash = strrchr(file, '/'), *next;
	char *dir = slash ? cpl_xstrndup(file, (size_t)(slash - file)) :
		    cpl_xstrdup(".");
	const void *got = NULL;

	if (strstr(rel, "}}") != NULL)
		rel = strstr(rel, "}}") + 2;
	while (*rel == '/')
		rel++;
	for (; got == NULL && *rel; rel = next + 1) {
		got = cpl_link_find_up(dir, rel, root, try_text, p);
		if ((next = strchr(rel, '/')) == NULL)
			break;
	}
	free(dir);
	return got != NULL;
}

/* Wrapper scripts followed from one command: a script whose only
 * command is another script is read too, this deep. */
#define MAX_HOPS 3

/* Puts the exports of from (a calling script) before to's own. */
static void
carry_exports(struct cpl_launch *to, const struct cpl_launch *from)
{
	struct cpl_env *v, *d;

	if (from->nexports == 0)
		return;
	v = cpl_xcalloc(from->nexports + to->nexports, sizeof(*v));
	d = cpl_envs_dup(from->exports, from->nexports);
	memcpy(v, d, from->nexports * sizeof(*v));
	free(d);
	if (to->nexports > 0)
		memcpy(v + from->nexports, to->exports,
		       to->nexports * sizeof(*v));
	free(to->exports);
	to->exports = v;
	to->nexports += from->nexports;
}

/* Puts the CPU pins of from (a calling command: `numactl -C 0-3 bash
 * train.sh`) before to's own: what it runs inherits them. */
static void
carry_pins(struct cpl_launch *to, const struct cpl_launch *from)
{
	struct cpl_pin *v;
	size_t i;

	if (from->npins == 0)
		return;
	v = cpl_xcalloc(from->npins + to->npins, sizeof(*v));
	for (i = 0; i < from->npins; i++) {
		v[i].how = from->pins[i].how;
		v[i].list = cpl_word_dup(&from->pins[i].list);
	}
	if (to->npins > 0)
		memcpy(v + from->npins, to->pins, to->npins * sizeof(*v));
	free(to->pins);
	to->pins = v;
	to->npins += from->npins;
}

/*
 * Follows the wrapper script l names (found near file: the manifest, or
 * the Dockerfile) into out, and the script that one names, up to
 * MAX_HOPS; true when one launches something.  *via receives the path of
 * the script read last.
 */
static bool
follow(struct pass *p, const char *file, const struct cpl_launch *l,
       struct cpl_launch *out, const char **via)
{
	struct cpl_launch cur;
	int hop;

	memset(out, 0, sizeof(*out));
	if (!l->has_wrapper)
		return false;
	for (hop = 0; hop < MAX_HOPS; hop++) {
		const struct cpl_launch *from = hop == 0 ? l : out;

		if (!from->has_wrapper || !find_near(p, file,
						     from->wrapper.text))
			break;
		file = p->found_path;
		*via = p->found_path;
		cpl_shscan_file(&cur, p->found_path, p->found_text);
		/* What the calling script exports reaches this one's
		 * commands, before its own exports. */
		carry_exports(&cur, from);
		carry_pins(&cur, from);
		cpl_launch_clear(out);
		*out = cur;
		if (out->launcher != CPL_LAUNCH_NONE || out->has_script)
			return true;
	}
	cpl_launch_clear(out);
	return false;
}

/* Whether a script runs its arguments as a command: a line that is
 * `exec "$@"` or `"$@"` (an entrypoint that prepares, then hands over). */
static bool
runs_args(const char *text)
{
	const char *s = text;

	while (*s) {
		const char *eol = strchrnul(s, '\n');

		while (s < eol && (*s == ' ' || *s == '\t'))
			s++;
		if (eol - s >= 5 && strncmp(s, "exec ", 5) == 0)
			for (s += 5; s < eol && *s == ' '; s++)
				;
		if ((eol - s >= 4 && strncmp(s, "\"$@\"", 4) == 0) ||
		    (eol - s >= 2 && strncmp(s, "$@", 2) == 0 &&
		     (eol - s == 2 || s[2] == ' ' || s[2] == ';')))
			return true;
		s = *eol ? eol + 1 : eol;
	}
	return false;
}

/*
 * A wrapper that prepares and then runs its arguments (`exec "$@"`):
 * the words after it in c's argv are the command.  Scanned into out,
 * after the wrapper's own exports; true when they launch something.
 */
static bool
passed_on(struct pass *p, const char *file, const struct cpl_container *c,
	  struct cpl_launch *out, const char **via)
{
	const struct cpl_launch *l = &c->launch;
	struct cpl_launch script;
	size_t k;

	if (!l->has_wrapper || !find_near(p, file, l->wrapper.text) ||
	    !runs_args(p->found_text))
		return false;
	for (k = 0; k < c->argc; k++)
		if (cpl_str_eq(c->argv[k].text, l->wrapper.text))
			break;
	if (k + 1 >= c->argc)
		return false;
	*via = p->found_path;
	cpl_shscan_file(&script, p->found_path, p->found_text);
	cpl_shscan(out, c->argv + k + 1, c->argc - k - 1, NULL, NULL);
	carry_exports(out, &script);
	carry_pins(out, &script);
	carry_pins(out, l);
	cpl_launch_clear(&script);
	if (out->launcher != CPL_LAUNCH_NONE || out->has_script)
		return true;
	cpl_launch_clear(out);
	return false;
}

/* ---- Dockerfiles ------------------------------------------------------- */

/* A command of a Dockerfile: its words with positions (engine-owned
 * texts), the exec form's, or /bin/sh -c TEXT for the shell form. */
struct dcmd {
	struct cpl_word *v;
	size_t n;
	bool shell;
};

/* A COPY or ADD of the last stage from the build context: src as
 * written (relative to the context), dest absolute in the image. */
struct dcopy {
	char *src;
	char *dest;
	bool dest_dir;		/* dest is a directory (ends in '/', or
				 * several sources) */
};

struct dockerfile {
	struct dcmd entrypoint, cmd;
	char **from;		/* FROM images of every stage */
	size_t nfrom;
	struct dcopy *copies;	/* the last stage's, in order */
	size_t ncopies;
	char *workdir;		/* the last stage's WORKDIR, absolute; NULL */
	bool python;		/* a RUN, CMD or ENTRYPOINT of any stage
				 * installs or runs Python (pip, conda,
				 * python, a launcher) */
};

static void
dcmd_clear(struct dcmd *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static void
dcmd_add(struct pass *p, struct dcmd *c, char *text, const char *path,
	 int line, int column)
{
	c->v = cpl_xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	c->v[c->n].text = (char *)cpl_engine_keep_str(p->e, text);
	c->v[c->n].pos.file = path;
	c->v[c->n].pos.line = line;
	c->v[c->n].pos.column = column;
	c->n++;
}

/*
 * Parses the JSON array of strings at s (an exec form) into c; false when
 * it is not one (Docker then runs it as the shell form).  col is s's
 * column on line.
 */
static bool
exec_form(struct pass *p, struct dcmd *c, const char *s, const char *path,
	  int line, int col)
{
	const char *q = s + 1;

	while (*q == ' ' || *q == '\t')
		q++;
	if (*q == ']')
		return true;
	for (;;) {
		struct cpl_buf b;
		int at;

		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '"')
			return false;
		at = col + (int)(q + 1 - s);
		cpl_buf_init(&b, 0);
		for (q++; *q && *q != '"'; q++) {
			if (*q == '\\' && q[1] != '\0') {
				q++;
				cpl_buf_addc(&b, *q == 'n' ? '\n' :
					     *q == 't' ? '\t' : *q);
			} else {
				cpl_buf_addc(&b, *q);
			}
		}
		if (*q != '"') {
			cpl_buf_free(&b);
			return false;
		}
		dcmd_add(p, c, cpl_buf_detach(&b), path, line, at);
		for (q++; *q == ' ' || *q == '\t'; q++)
			;
		if (*q == ']')
			return true;
		if (*q != ',')
			return false;
		q++;
	}
}

/* ENTRYPOINT or CMD's value s (on line, at col) into c. */
static void
read_command(struct pass *p, struct dcmd *c, const char *s, const char *path,
	     int line, int col)
{
	dcmd_clear(c);
	if (*s == '[' && exec_form(p, c, s, path, line, col))
		return;
	dcmd_clear(c);
	c->shell = true;
	dcmd_add(p, c, cpl_xstrdup("/bin/sh"), path, line, col);
	dcmd_add(p, c, cpl_xstrdup("-c"), path, line, col);
	dcmd_add(p, c, cpl_xstrdup(s), path, line, col);
}

/* An image path: rel against dir (absolute, or NULL for "/"), with "."
 * segments dropped; caller frees. */
static char *
image_path(const char *dir, const char *rel)
{
	struct cpl_buf b;
	const char *s;

	cpl_buf_init(&b, 0);
	if (*rel != '/' && dir != NULL && strcmp(dir, "/") != 0)
		cpl_buf_add(&b, dir, strlen(dir));
	for (s = rel; *s;) {
		size_t n;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 0)
			break;
		if (!(n == 1 && s[0] == '.')) {
			cpl_buf_addc(&b, '/');
			cpl_buf_add(&b, s, n);
		}
		s += n;
	}
	if (b.len == 0)
		cpl_buf_addc(&b, '/');
	return cpl_buf_detach(&b);
}

static void
copies_clear(struct dockerfile *d)
{
	size_t i;

	for (i = 0; i < d->ncopies; i++) {
		free(d->copies[i].src);
		free(d->copies[i].dest);
	}
	free(d->copies);
	d->copies = NULL;
	d->ncopies = 0;
	free(d->workdir);
	d->workdir = NULL;
}

/*
 * A COPY or ADD instruction's arguments (arg): each source from the build
 * context (not --from another stage, not a URL) with its destination,
 * resolved against the WORKDIR.  The JSON form and flags are read.
 */
static void
read_copy(struct dockerfile *d, const char *arg)
{
	char *words[64];
	size_t n = 0, i, len;
	const char *s = arg;
	bool json = *s == '[';

	if (json)
		s++;
	while (*s && n < CPL_ARRAY_LEN(words)) {
		while (*s == ' ' || *s == '\t' || (json && *s == ','))
			s++;
		if (*s == '\0' || (json && *s == ']'))
			break;
		if (json && *s == '"') {
			len = strcspn(s + 1, "\"");
			words[n++] = cpl_xstrndup(s + 1, len);
			s += len + 1 + (s[len + 1] == '"');
			continue;
		}
		len = strcspn(s, " \t");
		if (strncmp(s, "--", 2) == 0 && n == 0) {
			/* --from=stage copies from another stage */
			if (strncmp(s, "--from", 6) == 0)
				goto out;
			s += len;
			continue;
		}
		words[n++] = cpl_xstrndup(s, len);
		s += len;
	}
	if (n < 2)
		goto out;
	for (i = 0; i + 1 < n; i++) {
		struct dcopy *c;
		const char *dest = words[n - 1];

		if (strstr(words[i], "://") != NULL)
			continue;
		d->copies = cpl_xrealloc(d->copies, (d->ncopies + 1) *
					 sizeof(*d->copies));
		c = &d->copies[d->ncopies++];
		c->src = cpl_xstrdup(words[i]);
		c->dest = image_path(d->workdir, dest);
		c->dest_dir = n > 2 || cpl_str_ends(dest, "/") ||
			      strcmp(dest, ".") == 0;
	}
out:
	for (i = 0; i < n; i++)
		free(words[i]);
}

/*
 * Where path (in the image; relative to the WORKDIR) comes from in the
 * build context by d's COPY instructions, the last that covers it
 * winning: a path relative to the context, caller frees; NULL when no
 * COPY says.  A source that is a file lands at dest, or inside dest when
 * that is a directory; a directory's contents land under dest.
 */
static char *
copied_from(const struct dockerfile *d, const char *path)
{
	char *abs = image_path(d->workdir, path);
	char *got = NULL;
	size_t i;

	for (i = d->ncopies; got == NULL && i-- > 0;) {
		const struct dcopy *c = &d->copies[i];
		const char *base = strrchr(c->src, '/');
		size_t dl = strlen(c->dest);
		char *into;

		base = base && base[1] ? base + 1 : c->src;
		if (strcmp(abs, c->dest) == 0 && !c->dest_dir) {
			got = cpl_xstrdup(c->src);
			break;
		}
		into = image_path(c->dest, base);
		if (strcmp(abs, into) == 0)
			got = cpl_xstrdup(c->src);
		free(into);
		if (got != NULL)
			break;
		/* A directory's contents: COPY src/ /opt/ft/, COPY . /app */
		if (strncmp(abs, c->dest, dl) == 0 &&
		    (abs[dl] == '/' || strcmp(c->dest, "/") == 0))
			got = cpl_link_join(c->src, abs + dl +
					    (abs[dl] == '/'));
	}
	free(abs);
	return got;
}

/* Whether an instruction's argument installs or runs Python: a word
 * that starts with python, pip, conda, mamba, torchrun, accelerate or
 * deepspeed (python3.11, pip3, /opt/conda/bin/python). */
static bool
mentions_python(const char *arg)
{
	static const char *const words[] = {
		"python", "pip", "conda", "mamba", "micromamba", "torchrun",
		"accelerate", "deepspeed",
	};
	const char *s = arg;
	size_t i;

	while (*s) {
		size_t n = strcspn(s, " \t\"[],;&|/=");

		for (i = 0; n > 0 && i < CPL_ARRAY_LEN(words); i++)
			if (strncasecmp(s, words[i], strlen(words[i])) == 0)
				return true;
		s += n;
		while (*s && strchr(" \t\"[],;&|/=", *s) != NULL)
			s++;
	}
	return false;
}

/*
 * Reads the instructions of Dockerfile text at path: the last stage's
 * ENTRYPOINT and CMD (a FROM starts over: what a base image sets is not
 * in the text), and every FROM image.  Continuation lines are joined; a
 * command's position is its instruction's line.
 */
static void
read_dockerfile(struct pass *p, struct dockerfile *d, const char *path,
		const char *text)
{
	const char *s = text;
	int line = 1;

	while (*s) {
		const char *eol;
		struct cpl_buf b;
		int first = line;
		char *l, *word, *arg;
		size_t wl;

		cpl_buf_init(&b, 0);
		/* One instruction: lines ending in a backslash continue. */
		for (;;) {
			eol = strchrnul(s, '\n');
			if (eol > s && eol[-1] == '\\') {
				cpl_buf_add(&b, s, (size_t)(eol - 1 - s));
				cpl_buf_addc(&b, ' ');
			} else {
				cpl_buf_add(&b, s, (size_t)(eol - s));
				break;
			}
			s = *eol ? eol + 1 : eol;
			line++;
			if (*s == '\0')
				break;
		}
		s = *eol ? eol + 1 : eol;
		line++;
		l = cpl_buf_detach(&b);
		for (word = l; *word == ' ' || *word == '\t'; word++)
			;
		wl = strcspn(word, " \t");
		arg = word + wl;
		while (*arg == ' ' || *arg == '\t')
			arg++;
		if (*word == '#' || wl == 0) {
			/* a comment or a blank line */
			goto next;
		}
		if (((wl == 3 && strncasecmp(word, "RUN", 3) == 0) ||
		     (wl == 3 && strncasecmp(word, "CMD", 3) == 0) ||
		     (wl == 10 && strncasecmp(word, "ENTRYPOINT", 10) == 0)) &&
		    mentions_python(arg))
			d->python = true;
		if (wl == 4 && strncasecmp(word, "FROM", 4) == 0) {
			size_t n = strcspn(arg, " \t");

			/* --platform=... comes first */
			while (strncmp(arg, "--", 2) == 0) {
				arg += n;
				while (*arg == ' ' || *arg == '\t')
					arg++;
				n = strcspn(arg, " \t");
			}
			d->from = cpl_xrealloc(d->from, (d->nfrom + 1) *
					       sizeof(*d->from));
			d->from[d->nfrom++] = cpl_xstrndup(arg, n);
			dcmd_clear(&d->entrypoint);
			dcmd_clear(&d->cmd);
			copies_clear(d);
		} else if ((wl == 4 && strncasecmp(word, "COPY", 4) == 0) ||
			   (wl == 3 && strncasecmp(word, "ADD", 3) == 0)) {
			read_copy(d, arg);
		} else if (wl == 7 && strncasecmp(word, "WORKDIR", 7) == 0) {
			char *w;

			arg[strcspn(arg, " \t\r")] = '\0';
			w = image_path(d->workdir, arg);

			free(d->workdir);
			d->workdir = w;
		} else if (wl == 10 && strncasecmp(word, "ENTRYPOINT", 10) == 0) {
			read_command(p, &d->entrypoint, arg, path, first,
				     (int)(arg - l) + 1);
		} else if (wl == 3 && strncasecmp(word, "CMD", 3) == 0) {
			read_command(p, &d->cmd, arg, path, first,
				     (int)(arg - l) + 1);
		}
next:
		free(l);
	}
}

static void
dockerfile_free(struct dockerfile *d)
{
	size_t i;

	dcmd_clear(&d->entrypoint);
	dcmd_clear(&d->cmd);
	for (i = 0; i < d->nfrom; i++)
		free(d->from[i]);
	free(d->from);
	copies_clear(d);
}

/* An image's name without its tag or digest. */
static char *
image_name(const char *image)
{
	const char *at = strchr(image, '@');
	const char *slash = strrchr(image, '/');
	const char *colon = strrchr(slash ? slash : image, ':');
	size_t n = at ? (size_t)(at - image) :
		   colon ? (size_t)(colon - image) : strlen(image);

	return cpl_xstrndup(image, n);
}

/* Whether image is one the repository's Dockerfile d does not build. */
static bool
foreign_image(const struct dockerfile *d, const char *image)
{
	static const char *const vendors[] = {
		"nvcr.io/", "pytorch/", "tensorflow/", "huggingface/",
		"rayproject/", "docker.io/library/", "library/",
		"public.ecr.aws/docker/library/",
	};
	char *name;
	bool foreign = false;
	size_t i;

	if (image == NULL || *image == '\0')
		return false;	/* no image named: nothing says otherwise */
	name = image_name(image);
	if (strchr(name, '/') == NULL)
		foreign = true;	/* Docker's library: python, ubuntu */
	for (i = 0; !foreign && i < CPL_ARRAY_LEN(vendors); i++)
		foreign = cpl_str_starts(name, vendors[i]);
	for (i = 0; !foreign && i < d->nfrom; i++) {
		char *f = image_name(d->from[i]);

		foreign = strcmp(f, name) == 0;
		free(f);
	}
	free(name);
	return foreign;
}

/*
 * The script l runs, a path in the image, as the repository file its
 * Dockerfile d (at path) copies there from its build context (the
 * Dockerfile's folder), when that file exists: COPY src/ /opt/ft/ makes
 * /opt/ft/finetune.py src/finetune.py.  Left as written otherwise (the
 * linker then tries its suffixes).
 */
static void
map_script(struct pass *p, const struct dockerfile *d, const char *ctx,
	   struct cpl_launch *l)
{
	char *src, *file;

	if (!l->has_script || l->is_module || l->script.text == NULL ||
	    (src = copied_from(d, l->script.text)) == NULL)
		return;
	file = cpl_link_join(ctx, src);
	if (text_at(p, file) != NULL) {
		free(l->script.text);
		l->script.text = file;
		file = NULL;
	}
	free(file);
	free(src);
}

/* An image written as a placeholder the manifest's tooling fills in
 * ($IMAGE, ${IMG}, {{ .image }}): it names no image to tell apart. */
static bool
placeholder(const char *image)
{
	return image != NULL && (strchr(image, '$') != NULL ||
				 strstr(image, "{{") != NULL);
}

/*
 * The command container c runs from Dockerfile text at path (its build
 * context ctx, else ctx2 when not NULL and ctx holds not the script;
 * built: a build file names it for c's image): ENTRYPOINT,
 * then c's args when it has them, else CMD (a shell-form ENTRYPOINT
 * takes neither).  Scanned into out; true when it launches something,
 * directly or through the wrapper script it names.
 */
static bool
run_dockerfile(struct pass *p, const struct cpl_container *c,
	       const char *path, const char *text, const char *ctx,
	       const char *ctx2, bool built, struct cpl_launch *out,
	       const char **via, char **base)
{
	struct dockerfile d = { 0 };
	struct cpl_word *argv;
	size_t n = 0, i;
	bool ok = false;

	read_dockerfile(p, &d, path, text);
	if ((!built && !placeholder(c->image) &&
	     foreign_image(&d, c->image)) ||
	    (d.entrypoint.n == 0 && d.cmd.n == 0)) {
		dockerfile_free(&d);
		return false;
	}
	argv = cpl_xcalloc(d.entrypoint.n + d.cmd.n + c->argc + 1,
			   sizeof(*argv));
	for (i = 0; i < d.entrypoint.n; i++)
		argv[n++] = d.entrypoint.v[i];
	if (!d.entrypoint.shell) {
		if (c->argc > 0)
			for (i = 0; i < c->argc; i++)
				argv[n++] = c->argv[i];
		else
			for (i = 0; i < d.cmd.n; i++)
				argv[n++] = d.cmd.v[i];
	}
	*via = path;
	if (n > 0) {
		char *as_written;

		cpl_shscan(out, argv, n, NULL, NULL);
		as_written = out->script.text ?
			     cpl_xstrdup(out->script.text) : NULL;
		map_script(p, &d, ctx, out);
		if (ctx2 != NULL && cpl_str_eq(out->script.text, as_written))
			map_script(p, &d, ctx2, out);
		free(as_written);
		ok = out->launcher != CPL_LAUNCH_NONE || out->has_script;
		if (!ok) {
			struct cpl_launch first = *out;

			ok = follow(p, path, &first, out, via);
			cpl_launch_clear(&first);
		}
	}
	/* A placeholder image links only a Dockerfile that runs Python. */
	if (ok && placeholder(c->image) && !built &&
	    out->launcher == CPL_LAUNCH_NONE && !out->has_script) {
		cpl_launch_clear(out);
		ok = false;
	}
	/* The last stage's FROM: the image the command runs in. */
	if (ok && d.nfrom > 0)
		*base = cpl_xstrdup(d.from[d.nfrom - 1]);
	free(argv);
	dockerfile_free(&d);
	return ok;
}

/* The Dockerfiles under the starting folder that run Python, at most. */
#define MAX_DOCKERFILES 64

static int
cmp_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The repository's only Dockerfile that installs or runs Python, for
 * container c of w whose image is a placeholder and whose manifest has
 * no Dockerfile up the tree that links: found once per pass, kept in
 * p->sole_path/sole_text (NULL: none, or more than one, which -v says
 * for each container it leaves unlinked).
 */
static bool
sole_dockerfile(struct pass *p, const struct cpl_workload *w,
		const struct cpl_container *c)
{
	char *paths[MAX_DOCKERFILES];
	size_t n, i;

	const char *root = cpl_builds_root_of(p->e, w->file);

	/* One walk per directory the run was given: a second root starts
	 * over (a run over two repositories links neither's Dockerfile to
	 * the other's manifests). */
	if (p->sole_read && !cpl_str_eq(p->sole_root, root)) {
		p->sole_read = false;
		p->npython = 0;
		p->sole_path = NULL;
		p->sole_text = NULL;
		cpl_buf_reset(&p->python_list);
	}
	if (!p->sole_read) {
		p->sole_read = true;
		p->sole_root = root;
		n = cpl_builds_dockerfiles(paths, MAX_DOCKERFILES, p->e, root);
		qsort(paths, n, sizeof(*paths), cmp_paths);
		for (i = 0; i < n; i++) {
			struct dockerfile d = { 0 };
			const char *text = text_at(p, paths[i]);

			if (text == NULL)
				continue;
			read_dockerfile(p, &d, paths[i], text);
			if (d.python) {
				if (p->npython == 0) {
					p->sole_path = cpl_engine_keep_str(
						p->e, cpl_link_join(".",
								    paths[i]));
					p->sole_text = text;
				}
				if (p->npython < 3)
					cpl_buf_adds(&p->python_list,
						p->npython ? ", " : "");
				if (p->npython < 3)
					cpl_buf_adds(&p->python_list,
							paths[i]);
				p->npython++;
			}
			dockerfile_free(&d);
		}
		for (i = 0; i < n; i++)
			free(paths[i]);
	}
	if (p->npython > 1) {
		char *object = cpl_engine_object_name(w);

		cpl_engine_note(p->e, w->file, "%s: container \"%s\" has a "
				"placeholder image and no Dockerfile up the "
				"tree; %zu Dockerfiles of the repository run "
				"Python (%s%s): none is read for its command",
				object, c->name ? c->name : "", p->npython,
				cpl_buf_str(&p->python_list),
				p->npython > 3 ? ", ..." : "");
		free(object);
	}
	return p->npython == 1;
}

/*
 * The command container c of w runs from its image's Dockerfile: the one
 * a build file names for the image, else the nearest up the tree from
 * w's manifest, else (a placeholder image) the repository's only
 * Dockerfile that runs Python.  True when it launches something.
 */
static bool
from_dockerfile(struct pass *p, const struct cpl_workload *w,
		const struct cpl_container *c, struct cpl_launch *out,
		const char **via, char **base)
{
	const struct cpl_build *bd;
	const char *text, *slash;
	char *ctx;
	bool ok;

	if (!p->builds_read) {
		cpl_builds_read(&p->builds, p->e);
		p->builds_read = true;
	}
	/* What builds the image says which Dockerfile. */
	bd = placeholder(c->image) ? NULL :
	     cpl_builds_find(&p->builds, c->image);
	if (bd != NULL && (text = text_at(p, bd->dockerfile)) != NULL) {
		const char *path = cpl_engine_keep_str(
			p->e, cpl_link_join(".", bd->dockerfile));

		return run_dockerfile(p, c, path, text, bd->context, NULL,
				      true, out, via, base);
	}
	if (find_near(p, w->file, "Dockerfile")) {
		const char *path = p->found_path;

		slash = strrchr(path, '/');
		ctx = slash ? cpl_xstrndup(path, (size_t)(slash - path)) :
		      cpl_xstrdup(".");
		ok = run_dockerfile(p, c, path, p->found_text, ctx, NULL,
				    false, out, via, base);
		free(ctx);
		return ok;
	}
	if (!placeholder(c->image) || !sole_dockerfile(p, w, c))
		return false;
	slash = strrchr(p->sole_path, '/');
	ctx = slash ? cpl_xstrndup(p->sole_path,
				   (size_t)(slash - p->sole_path)) :
	      cpl_xstrdup(".");
	/* Its context: its folder, else the directory of the run that
	 * holds it (docker build -f docker/Dockerfile .). */
	ok = run_dockerfile(p, c, p->sole_path, p->sole_text, ctx,
			    p->sole_root, false, out, via, base);
	free(ctx);
	return ok;
}

/* ---- the pass ---------------------------------------------------------- */

/* Container c of w: what its wrapper script or Dockerfile launches, when
 * its own command line launches nothing. */
static void
resolve(struct pass *p, const struct cpl_workload *w, struct cpl_container *c)
{
	struct cpl_launch l;
	const char *via = NULL;
	char *object, *base = NULL;
	bool ok;

	if (c->launch.launcher != CPL_LAUNCH_NONE || c->launch.has_script ||
	    c->role != CPL_CROLE_MAIN)
		return;
	/* No command: the image's ENTRYPOINT runs, with the args. */
	if (c->ncommand == 0)
		ok = from_dockerfile(p, w, c, &l, &via, &base);
	else
		ok = follow(p, w->file, &c->launch, &l, &via) ||
		     passed_on(p, w->file, c, &l, &via);
	if (!ok)
		return;
	object = cpl_engine_object_name(w);
	cpl_engine_note(p->e, w->file, "%s: container \"%s\" runs %s: its "
			"%s there is read as the container's command", object,
			c->name ? c->name : "", via,
			l.launcher != CPL_LAUNCH_NONE ?
			cpl_launcher_name(l.launcher) : "script");
	free(object);
	cpl_launch_clear(&c->launch);
	c->launch = l;
	free(c->base_image);
	c->base_image = base;
}

void
cpl_engine_entrypoints(struct cpl_engine *e)
{
	struct pass p = { .e = e };
	size_t i, j;

	cpl_buf_init(&p.python_list, 0);
	for (i = 0; i < e->res.workloads.count; i++) {
		struct cpl_workload *w = e->res.workloads.items[i];

		if (w->source == CPL_SRC_LIVE || w->file == NULL ||
		    w->merged || w->context)
			continue;
		for (j = 0; j < w->ncontainers; j++)
			resolve(&p, w, &w->containers[j]);
	}
	cpl_strmap_free(&p.texts);
	cpl_builds_free(&p.builds);
	cpl_buf_free(&p.python_list);
}
