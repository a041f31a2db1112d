/*
 * helm.c — Helm charts met in a walk, rendered once per run and judged
 * as the objects they render, their findings placed at template lines.
 *
 * Two ways to render, chosen once per run: `helm template` when helm is
 * on PATH (run directly, never through a shell, with a timeout; the
 * chart's values, then --helm-values files, then --helm-set pairs), else
 * the built-in subset of Go templates (text/gotmpl.h), said in -v.  A
 * template the subset cannot render exactly, a chart whose dependencies
 * are not fetched, or helm failing is listed as not judged with the
 * command to run; a template with a syntax or execution error is one
 * error at its file, line and column, and the run goes on.
 *
 * Each rendered template is a source under the template's own path, so
 * every reader and rule sees an ordinary manifest; a line map per source
 * (exact from the evaluator, by each line's key path in the document for
 * helm's output) moves findings to the template lines after the rules
 * and suppressions ran, with values.yaml's line as a related place where
 * the value came from there.  Edits computed on rendered text are
 * dropped: the fix sentence stays, the edit would land on other lines.
 */
#include "run/engine_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <stdint.h>
#include <unistd.h>

#include "text/gotmpl.h"
#include "text/lines.h"
#include "text/yamldoc.h"

#define MAX_CHART_FILES 2000
#define HELM_TIMEOUT_MS 60000
#define HELM_MAX_OUTPUT (64u << 20)

/* Where each line of one rendered source came from. */
struct rendered {
	char *path;			/* the template, as the walk names it */
	struct cpl_gotmpl_line *lines;	/* owned; file and vfile point into
					 * the chart's strings */
	size_t nlines;
};

struct cpl_helm {
	struct rendered **v;
	size_t n, cap;
	struct cpl_strmap by_path;	/* path → struct rendered */
	struct cpl_gotmpl **charts;	/* evaluators kept for their strings */
	size_t ncharts, charts_cap;
	char **strings;			/* other strings lines point at */
	size_t nstrings, strings_cap;
	int have_helm;			/* 0 not looked, 1 yes, 2 no */
};

static bool has_subcharts(const char *chart);

/* A file of the chart, spelled as a walk spells it ("x" in ".").
 * Caller frees. */
static char *
in_chart(const char *chart, const char *name)
{
	return strcmp(chart, ".") == 0 ? cpl_xstrdup(name) :
	       cpl_xasprintf("%s/%s", chart, name);
}

static struct cpl_helm *
helm_state(struct cpl_engine *e)
{
	if (e->load.helm == NULL)
		e->load.helm = cpl_xcalloc(1, sizeof(*e->load.helm));
	return e->load.helm;
}

static const char *
keep_string(struct cpl_helm *h, char *s)
{
	CPL_GROW(h->strings, h->strings_cap, h->nstrings + 1);
	h->strings[h->nstrings++] = s;
	return s;
}

void
cpl_engine_helm_free(struct cpl_engine *e)
{
	struct cpl_helm *h = e->load.helm;
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->n; i++) {
		free(h->v[i]->path);
		free(h->v[i]->lines);
		free(h->v[i]);
	}
	free(h->v);
	cpl_strmap_free(&h->by_path);
	for (i = 0; i < h->ncharts; i++)
		cpl_gotmpl_free(h->charts[i]);
	free(h->charts);
	for (i = 0; i < h->nstrings; i++)
		free(h->strings[i]);
	free(h->strings);
	for (i = 0; i < e->set.nhelm_args; i++)
		free(e->set.helm_args[i]);
	free(e->set.helm_args);
	free(h);
	e->load.helm = NULL;
}

void
cpl_engine_helm_option(struct cpl_engine *e, bool set, const char *value)
{
	CPL_GROW(e->set.helm_args, e->set.helm_args_cap, e->set.nhelm_args + 1);
	e->set.helm_args[e->set.nhelm_args++] =
		cpl_xasprintf("%c%s", set ? 's' : 'f', value);
}

/* ---- the chart's files ------------------------------------------------- */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files under dir (recursively), sorted; paths joined to dir. */
static void
list_files(const char *dir, char ***out, size_t *n, size_t *cap, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t first = *n;

	if (d == NULL || depth > 8)
		goto out;
	while ((de = readdir(d)) != NULL && *n < MAX_CHART_FILES) {
		char *p;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		p = cpl_xasprintf("%s/%s", dir, de->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			list_files(p, out, n, cap, depth + 1);
			free(p);
			continue;
		}
		*out = cpl_xgrow_to(*out, cap, *n + 1, sizeof(**out));
		(*out)[(*n)++] = p;
	}
	qsort(*out + first, *n - first, sizeof(**out), cmp_str);
out:
	if (d != NULL)
		closedir(d);
}

static const char *
base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* .Files.Get: a file of the chart (not under templates/), by name. */
struct files_ctx {
	const char *chart;
};

/* Whether the chart's .helmignore leaves name out of the chart (its
 * patterns as shell globs: on the whole name, on the base name when the
 * pattern has no '/', a "dir/" pattern on what lies under it). */
static bool
helm_ignored(const char *chart, const char *name)
{
	char *path = cpl_xasprintf("%s/.helmignore", chart), *text = NULL;
	struct cpl_error err = { 0 };
	const char *base = strrchr(name, '/'), *l;
	size_t len;
	bool hit = false;

	base = base ? base + 1 : name;
	if (cpl_read_file(&text, &len, path, 1u << 20, &err) < 0) {
		cpl_error_clear(&err);
		free(path);
		return false;
	}
	for (l = text; !hit && *l;) {
		size_t n = strcspn(l, "\n");
		char *pat = cpl_xstrndup(l, n);
		size_t pl = strlen(pat);

		while (pl > 0 && (pat[pl - 1] == ' ' || pat[pl - 1] == '\r'))
			pat[--pl] = '\0';
		if (pl > 0 && pat[0] != '#' && pat[0] != '!') {
			if (pat[pl - 1] == '/') {
				pat[--pl] = '\0';
				hit = strncmp(name, pat, pl) == 0 &&
				      name[pl] == '/';
			} else {
				hit = fnmatch(pat, name, 0) == 0 ||
				      (strchr(pat, '/') == NULL &&
				       fnmatch(pat, base, 0) == 0);
			}
		}
		free(pat);
		l += n + (l[n] == '\n');
	}
	free(text);
	free(path);
	return hit;
}

static int
files_get(void *ctx, const char *name, char **text, size_t *len)
{
	const struct files_ctx *f = ctx;
	struct cpl_error err = { 0 };
	char *path;
	int rc;

	if (name[0] == '/' || strstr(name, "..") != NULL ||
	    strncmp(name, "templates/", 10) == 0 ||
	    strncmp(name, "charts/", 7) == 0 ||
	    strcmp(name, "Chart.yaml") == 0 ||
	    strcmp(name, "values.yaml") == 0 ||
	    strcmp(name, "values.schema.json") == 0 ||
	    helm_ignored(f->chart, name))
		return -1;	/* not among the chart's .Files: "" */
	path = cpl_xasprintf("%s/%s", f->chart, name);
	rc = cpl_read_file(text, len, path, CPL_ENGINE_MAX_FILE_BYTES, &err);
	cpl_error_clear(&err);
	free(path);
	return rc < 0 ? -1 : 0;
}

/* Lists a template (or the chart) as not judged, with the command: in
 * the summary when it may hold containers, else in -v only. */
static void
not_judged(struct cpl_engine *e, const char *path, int line, int col,
	   const char *chart, const char *why, bool containers)
{
	struct cpl_skip *k;
	char *reason = cpl_xasprintf("%s; render it with helm template %s | "
				     "kubectl cpulint -f -", why, chart);

	if (!containers) {
		cpl_engine_note(e, path, "skipped: %s", reason);
		free(reason);
		return;
	}
	if (cpl_str_ends(path, "Chart.yaml"))
		k = cpl_wlist_skip(&e->res.workloads, path, line, col, reason,
				   "Helm chart %s", chart);
	else
		k = cpl_wlist_skip(&e->res.workloads, path, line, col, reason,
				   "Helm template %s", base_of(path));
	k->containers = true;
	k->kind = cpl_xstrdup("Helm template");
	free(reason);
}

/* Adds a rendered text (taken) as the source of path with its map: read
 * as a file met in a walk would be. */
static void
add_rendered(struct cpl_engine *e, const char *path, char *text, size_t len,
	     struct cpl_gotmpl_line *lines, size_t nlines)
{
	struct cpl_helm *h = helm_state(e);
	struct rendered *r;

	if (cpl_engine_find_source(e, path) != NULL) {
		free(text);
		free(lines);
		return;
	}
	r = cpl_xcalloc(1, sizeof(*r));
	r->path = cpl_xstrdup(path);
	r->lines = lines;
	r->nlines = nlines;
	CPL_GROW(h->v, h->cap, h->n + 1);
	h->v[h->n++] = r;
	cpl_strmap_put(&h->by_path, r->path, r);
	cpl_engine_flush(e);	/* after the files met before it */
	cpl_engine_load_yaml(e, cpl_engine_add_source(e, path, FILE_YAML,
						      text, len), false);
}

/* The chart's Chart.yaml: name, version, appVersion; whether it lists
 * dependencies.  -1 when it cannot be read. */
static int
read_chart_yaml(const char *chart, char **name, char **version,
		char **app, bool *deps, struct cpl_error *err)
{
	char *path = in_chart(chart, "Chart.yaml"), *text = NULL;
	struct cpl_ystream *s = NULL;
	const struct cpl_ynode *doc, *d;
	size_t len;
	int rc = -1;

	if (cpl_read_file(&text, &len, path, CPL_ENGINE_MAX_FILE_BYTES,
			  err) < 0 ||
	    cpl_yaml_parse(&s, path, text, len, err) < 0)
		goto out;
	doc = cpl_ystream_count(s) ? cpl_ystream_doc(s, 0) : NULL;
	if (!cpl_ynode_is_map(doc)) {
		cpl_error_set(err, path, 1, 1, "Chart.yaml is not a mapping");
		goto out;
	}
	*name = cpl_xstrdup(cpl_ynode_gets(doc, "name"));
	*version = cpl_xstrdup(cpl_ynode_gets(doc, "version"));
	*app = cpl_xstrdup(cpl_ynode_gets(doc, "appVersion"));
	d = cpl_ynode_get(doc, "dependencies");
	*deps = d != NULL && cpl_ynode_is_seq(d) && d->count > 0;
	rc = 0;
out:
	cpl_ystream_free(s);
	free(text);
	free(path);
	return rc;
}

/* The text of a file, or NULL with an error recorded. */
static char *
read_text(struct cpl_engine *e, const char *path, size_t *len)
{
	struct cpl_error err = { 0 };
	char *text = NULL;

	if (cpl_read_file(&text, len, path, CPL_ENGINE_MAX_FILE_BYTES,
			  &err) < 0) {
		if (err.path == NULL)
			err.path = cpl_xstrdup(path);
		cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
		return NULL;
	}
	return text;
}

static bool
rendered_kind(const char *base)
{
	return base[0] != '_' && (cpl_str_ends(base, ".yaml") ||
				  cpl_str_ends(base, ".yml") ||
				  cpl_str_ends(base, ".json"));
}

/* ---- the built-in evaluator -------------------------------------------- */

/*
 * The chart's templates parsed and its values read (the chart's, then
 * --helm-values, then --helm-set) into an evaluator the helm state keeps.
 * ok[i]: files[i] is a template to render; holds[i]: its text names
 * containers.  With report false (helm renders), nothing is reported.
 */
static struct cpl_gotmpl *
builtin_chart(struct cpl_engine *e, const char *chart, char **files,
	      size_t nfiles, const char *const meta[3], bool report,
	      bool *ok, bool *holds)
{
	struct cpl_helm *h = helm_state(e);
	struct cpl_gotmpl *g = cpl_gotmpl_new();
	struct files_ctx *fc = cpl_xcalloc(1, sizeof(*fc));
	struct cpl_error err = { 0 };
	char *path, *text;
	size_t i, len;
	int rc;

	CPL_GROW(h->charts, h->charts_cap, h->ncharts + 1);
	h->charts[h->ncharts++] = g;
	fc->chart = keep_string(h, cpl_xstrdup(chart));
	keep_string(h, (char *)fc);
	cpl_gotmpl_files(g, files_get, fc);
	cpl_gotmpl_builtin(g, "Chart", "Name", meta[0] ? meta[0] : "");
	cpl_gotmpl_builtin(g, "Chart", "Version", meta[1] ? meta[1] : "");
	cpl_gotmpl_builtin(g, "Chart", "AppVersion", meta[2] ? meta[2] : "");
	path = in_chart(chart, "values.yaml");
	if (access(path, F_OK) == 0 &&
	    (text = read_text(e, path, &len)) != NULL) {
		if (cpl_gotmpl_values(g, path, text, len, &err) < 0 &&
		    report)
			cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
		free(text);
	}
	free(path);
	for (i = 0; i < 2 * e->set.nhelm_args; i++) {
		const char *arg = e->set.helm_args[i % e->set.nhelm_args];
		const char *a = arg + 1;

		if ((arg[0] == 's') != (i >= e->set.nhelm_args))
			continue;	/* files first, then --set */
		if (arg[0] == 's') {
			rc = cpl_gotmpl_set(g, a, &err);
		} else if ((text = read_text(e, a, &len)) != NULL) {
			rc = cpl_gotmpl_values(g, a, text, len, &err);
			free(text);
		} else {
			continue;
		}
		if (rc < 0 && report)
			cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
	}
	/* every template parsed first: defines are shared */
	for (i = 0; i < nfiles; i++) {
		const char *b = base_of(files[i]);

		if (!rendered_kind(b) && !cpl_str_ends(b, ".tpl"))
			continue;
		if ((text = read_text(e, files[i], &len)) == NULL)
			continue;
		rc = cpl_gotmpl_add(g, files[i], text, len, &err);
		holds[i] = strstr(text, "containers") != NULL;
		if (rc < 0 && report)
			cpl_engine_add_error(e, &err);
		else if (rc > 0 && report)
			not_judged(e, files[i], err.line, err.column, chart,
				   err.message, holds[i]);
		cpl_error_clear(&err);
		ok[i] = rc == 0 && rendered_kind(b);
		free(text);
	}
	return g;
}

/* s as one of the helm state's own strings, once per text (kept). */
static const char *
intern(struct cpl_helm *h, struct cpl_strmap *kept, const char *s)
{
	const char *k;

	if (s == NULL)
		return NULL;
	k = cpl_strmap_get(kept, s);
	if (k == NULL) {
		k = keep_string(h, cpl_xstrdup(s));
		cpl_strmap_put(kept, k, (void *)k);
	}
	return k;
}

/* A rendered template waiting for its chart's evaluator to be freed. */
struct pending {
	const char *path;	/* borrowed from the walk's list */
	char *text;
	size_t len;
	struct cpl_gotmpl_line *lines;
	size_t nlines;
};

/*
 * Frees a chart's evaluator (the last the helm state keeps) once its
 * templates are rendered, before the rendered text is parsed: the places
 * named by their line maps become the helm state's own strings, so the
 * evaluation's memory is gone when the run's begins.
 */
static void
let_go(struct cpl_engine *e, struct cpl_gotmpl *g, struct pending *v,
       size_t n)
{
	struct cpl_helm *h = helm_state(e);
	struct cpl_strmap kept = { 0 };
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < v[i].nlines; j++) {
			struct cpl_gotmpl_line *l = &v[i].lines[j];

			l->file = intern(h, &kept, l->file);
			l->vfile = intern(h, &kept, l->vfile);
		}
	cpl_strmap_free(&kept);
	if (h->ncharts > 0 && h->charts[h->ncharts - 1] == g)
		h->ncharts--;
	cpl_gotmpl_free(g);
}

static void
builtin_render(struct cpl_engine *e, const char *chart, char **files,
	       size_t nfiles, const char *const meta[3])
{
	struct cpl_error err = { 0 };
	size_t i;
	bool *ok = cpl_xcalloc(nfiles ? nfiles : 1, sizeof(*ok));
	bool *holds = cpl_xcalloc(nfiles ? nfiles : 1, sizeof(*holds));
	struct cpl_gotmpl *g = builtin_chart(e, chart, files, nfiles, meta,
					     true, ok, holds);
	struct pending *pend = cpl_xcalloc(nfiles ? nfiles : 1,
					   sizeof(*pend));
	size_t npend = 0;
	int rc;

	for (i = 0; i < nfiles; i++) {
		struct cpl_gotmpl_out out;
		struct cpl_gotmpl_line *lines;

		if (!ok[i])
			continue;
		rc = cpl_gotmpl_render(g, files[i], &out, &err);
		if (rc < 0 && err.message != NULL &&
		    strncmp(err.message, "nil pointer evaluating", 22) == 0) {
			/* A value the template reads is not in the chart's
			 * own values (a chart meant for -f VALUES): helm
			 * fails the same way; not a broken file. */
			char *why = cpl_xasprintf("%s: a value it reads is "
				"not set in the chart's own values (give them "
				"with --helm-values FILE)", err.message);

			not_judged(e, files[i], err.line, err.column, chart,
				   why, holds[i]);
			free(why);
			rc = 1;
		} else if (rc < 0) {
			cpl_engine_add_error(e, &err);
		} else if (rc > 0) {
			not_judged(e, files[i], err.line, err.column, chart,
				   err.message, holds[i]);
		}
		cpl_error_clear(&err);
		if (rc != 0)
			continue;
		lines = cpl_xcalloc(out.nlines, sizeof(*lines));
		memcpy(lines, out.lines, out.nlines * sizeof(*lines));
		pend[npend].path = files[i];
		pend[npend].text = cpl_xstrndup(out.text, out.len);
		pend[npend].len = out.len;
		pend[npend].lines = lines;
		pend[npend++].nlines = out.nlines;
	}
	let_go(e, g, pend, npend);
	for (i = 0; i < npend; i++)
		add_rendered(e, pend[i].path, pend[i].text, pend[i].len,
			     pend[i].lines, pend[i].nlines);
	free(pend);
	free(ok);
	free(holds);
}

/* ---- helm template ----------------------------------------------------- */

/* The helm to run (caller frees), or NULL: $CPULINT_HELM when set
 * ("none": never helm; else the program to run), else the helm on PATH. */
static char *
helm_path(void)
{
	const char *path = getenv("PATH"), *p, *env = getenv("CPULINT_HELM");

	if (env != NULL && *env != '\0') {
		struct stat st;

		if (strcmp(env, "none") == 0 || stat(env, &st) < 0 ||
		    !S_ISREG(st.st_mode) || access(env, X_OK) < 0)
			return NULL;
		return cpl_xstrdup(env);
	}

	for (p = path; p != NULL && *p;) {
		size_t n = strcspn(p, ":");
		char *cand = cpl_xasprintf("%.*s%shelm", (int)n, p,
					   n ? "/" : "./");
		struct stat st;

		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return cand;
		free(cand);
		p += n;
		if (*p == ':')
			p++;
	}
	return NULL;
}

static bool
helm_on_path(void)
{
	char *p = helm_path();

	free(p);
	return p != NULL;
}

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Runs argv (argv[0] a path) with no shell, stdin from /dev/null, and
 * collects stdout and stderr (each bounded) for at most timeout_ms.  0
 * with *status the exit status (-1: killed at the timeout), -1 when it
 * could not start.
 */
static int
run_bounded(char *const argv[], struct cpl_buf *out, struct cpl_buf *err,
	    int *status)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, st = 0;
	long deadline = now_ms() + HELM_TIMEOUT_MS;
	bool open_o = true, open_e = true, killed = false;
	pid_t pid;

	if (pipe(po) < 0 || pipe(pe) < 0)
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	while (open_o || open_e) {
		struct pollfd fds[2] = { { po[0], POLLIN, 0 },
					 { pe[0], POLLIN, 0 } };
		long left = deadline - now_ms();
		char buf[8192];
		int k;

		if (left <= 0) {
			kill(pid, SIGKILL);
			killed = true;
			break;
		}
		fds[0].fd = open_o ? po[0] : -1;
		fds[1].fd = open_e ? pe[0] : -1;
		if (poll(fds, 2, (int)left) < 0 && errno != EINTR)
			break;
		for (k = 0; k < 2; k++) {
			ssize_t n;

			if (fds[k].fd < 0 || fds[k].revents == 0)
				continue;
			n = read(fds[k].fd, buf, sizeof(buf));
			if (n <= 0) {
				if (k == 0)
					open_o = false;
				else
					open_e = false;
				continue;
			}
			cpl_buf_add(k == 0 ? out : err, buf, (size_t)n);
		}
	}
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = killed ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return 0;
fail:
	if (po[0] >= 0) {
		close(po[0]);
		close(po[1]);
	}
	if (pe[0] >= 0) {
		close(pe[0]);
		close(pe[1]);
	}
	return -1;
}

/*
 * The key path of each line of YAML-like text ("spec/template/-/name"),
 * or NULL for lines that are blank, comments or template actions alone;
 * a key that holds an action is "*".  Caller frees each and the array.
 */
static char **
key_paths(const char *text, size_t len, size_t *nlines)
{
	struct keyframe { int indent; size_t at; } stack[64];
	struct cpl_buf path = { 0 };
	char **v = NULL;
	size_t n = 0, cap = 0, depth = 0, pos = 0;

	while (pos <= len) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - l) : len - pos;
		size_t i = 0;
		char *mine = NULL;

		while (i < ll && l[i] == ' ')
			i++;
		if (i < ll && l[i] != '#' &&
		    !(ll - i >= 4 && memcmp(l + i, "{{", 2) == 0 &&
		      memcmp(l + ll - 2 - (l[ll - 1] == '\r'), "}}", 2) == 0 &&
		      memmem(l + i + 2, ll - i - 2, "{{", 2) == NULL) &&
		    !(ll - i >= 3 && memcmp(l + i, "---", 3) == 0)) {
			for (;;) {
				int ind = (int)i;
				size_t k = i, kend;
				bool item = ll - i >= 1 && l[i] == '-' &&
					    (i + 1 == ll || l[i + 1] == ' ');

				while (depth > 0 && stack[depth - 1].indent >=
				       ind) {
					depth--;
					path.len = stack[depth].at;
					path.data[path.len] = '\0';
				}
				if (item) {
					if (depth < 64) {
						stack[depth].indent = ind;
						stack[depth++].at = path.len;
						cpl_buf_adds(&path, "/-");
					}
					i += 2;
					while (i < ll && l[i] == ' ')
						i++;
					if (i >= ll)
						break;
					continue;
				}
				/* a key? */
				while (k < ll && l[k] != ':' && l[k] != ' ' &&
				       l[k] != '"' && l[k] != '\'')
					k++;
				if (k < ll && l[k] == '"') {
					k = i + 1;
					while (k < ll && l[k] != '"')
						k++;
					k++;
				}
				kend = k;
				if (k < ll && l[k] == ':' &&
				    (k + 1 == ll || l[k + 1] == ' ' ||
				     l[k + 1] == '\r') && depth < 64) {
					bool act = memmem(l + i, kend - i,
							  "{{", 2) != NULL;

					stack[depth].indent = ind;
					stack[depth++].at = path.len;
					cpl_buf_addc(&path, '/');
					if (act)
						cpl_buf_addc(&path, '*');
					else
						cpl_buf_add(&path, l + i,
							    kend - i);
				}
				break;
			}
			mine = cpl_xstrdup(cpl_buf_str(&path));
		}
		CPL_GROW(v, cap, n + 1);
		v[n++] = mine;
		if (nl == NULL)
			break;
		pos += ll + 1;
	}
	cpl_buf_free(&path);
	*nlines = n;
	return v;
}

static void
free_paths(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The chart's values.yaml key paths, for .Values look-ups. */
struct values_map {
	const char *file;	/* kept in the helm state */
	char **paths;
	size_t n;
	struct cpl_strmap first;	/* path → its first line (as a
					 * pointer-sized number) */
};

/* Indexes the values file's paths (each first line). */
static void
values_index(struct values_map *vm)
{
	size_t i;

	for (i = 0; i < vm->n; i++)
		if (vm->paths[i] && !cpl_strmap_get(&vm->first, vm->paths[i]))
			cpl_strmap_put(&vm->first, vm->paths[i],
				       (void *)(uintptr_t)(i + 1));
}

/* The values line of the first .Values.a.b the template line reads. */
static int
values_line(const struct values_map *vm, const char *l, size_t ll)
{
	const char *p = memmem(l, ll, ".Values.", 8);
	struct cpl_buf want = { 0 };
	size_t k;
	int line;

	if (p == NULL || vm->paths == NULL)
		return 0;
	p += 8;
	cpl_buf_addc(&want, '/');
	for (k = 0; p + k < l + ll && (isalnum((unsigned char)p[k]) ||
				       p[k] == '_' || p[k] == '.'); k++)
		cpl_buf_addc(&want, p[k] == '.' ? '/' : p[k]);
	line = (int)(uintptr_t)cpl_strmap_get(&vm->first, cpl_buf_str(&want));
	cpl_buf_free(&want);
	return line;
}

/* Maps rendered lines to template lines by their key paths: the k-th
 * line with a path goes to the k-th template line with it (the last
 * when fewer), else to the nearest enclosing key the template writes. */
/* The template lines that write one key path, in order. */
struct occ {
	size_t *lines;		/* 0-based */
	size_t n, cap;
};

static struct cpl_gotmpl_line *
map_by_path(const char *file, const char *out, size_t olen,
	    const char *tmpl, size_t tlen, const struct values_map *vm,
	    size_t *nlines)
{
	size_t no, nt = 0, i, nocc = 0;
	char **po = key_paths(out, olen, &no);
	char **pt = tmpl ? key_paths(tmpl, tlen, &nt) : NULL;
	struct cpl_gotmpl_line *lines = cpl_xcalloc(no, sizeof(*lines));
	struct cpl_strmap seen = { 0 }, where = { 0 };
	size_t *counts = cpl_xcalloc(no + 1, sizeof(*counts)), ncounts = 0;
	struct occ *occs = cpl_xcalloc(nt + 1, sizeof(*occs));
	struct cpl_lines tl = { 0 };
	int last = 1;

	/* each path the template writes → its lines: one pass */
	for (i = 0; i < nt; i++) {
		struct occ *o;

		if (pt[i] == NULL)
			continue;
		o = cpl_strmap_get(&where, pt[i]);
		if (o == NULL) {
			o = &occs[nocc++];
			cpl_strmap_put(&where, pt[i], o);
		}
		CPL_GROW(o->lines, o->cap, o->n + 1);
		o->lines[o->n++] = i;
	}
	if (tmpl != NULL)
		cpl_lines_index(&tl, tmpl, tlen);
	for (i = 0; i < no; i++) {
		char *want = po[i] ? cpl_xstrdup(po[i]) : NULL;
		size_t hit = 0, k, *cnt;
		bool exact = true;

		lines[i].file = file;
		lines[i].line = last;
		lines[i].column = 1;
		if (want == NULL)
			continue;
		cnt = cpl_strmap_get(&seen, po[i]);
		if (cnt == NULL) {
			cnt = &counts[ncounts++];
			cpl_strmap_put(&seen, po[i], cnt);
		}
		k = (*cnt)++;
		while (want != NULL) {
			const struct occ *o = cpl_strmap_get(&where, want);
			char *slash;

			if (o != NULL) {	/* the k-th, else the last */
				hit = o->lines[k < o->n ? k : o->n - 1] + 1;
				break;
			}
			exact = false;
			k = 0;
			slash = strrchr(want, '/');
			if (slash == NULL || slash == want) {
				free(want);
				want = NULL;
			} else {
				*slash = '\0';
			}
		}
		free(want);
		if (hit && hit <= tl.n) {
			size_t j = tl.at[hit - 1], c = 0;

			while (j + c < tlen && (tmpl[j + c] == ' ' ||
						tmpl[j + c] == '-'))
				c++;
			lines[i].line = (int)hit;
			lines[i].column = (int)c + 1;
			if (exact && vm != NULL) {
				size_t e = j;

				while (e < tlen && tmpl[e] != '\n')
					e++;
				lines[i].vline = values_line(vm, tmpl + j,
							     e - j);
				if (lines[i].vline > 0)
					lines[i].vfile = vm->file;
			}
		}
		last = lines[i].line;
	}
	for (i = 0; i < nocc; i++)
		free(occs[i].lines);
	free(occs);
	cpl_lines_free(&tl);
	cpl_strmap_free(&where);
	cpl_strmap_free(&seen);
	free(counts);
	free_paths(po, no);
	if (pt)
		free_paths(pt, nt);
	*nlines = no;
	return lines;
}

/* The documents of a rendered text as Helm splits them: at "---" lines,
 * each trimmed of surrounding whitespace, empty ones dropped. */
struct doc {
	const char *s;
	size_t len;
	size_t line;		/* 0-based line of s[0] */
};

static struct doc *
split_docs(const char *t, size_t len, size_t *n)
{
	struct doc *v = NULL;
	size_t cap = 0, pos = 0, start = 0, line = 0, sline = 0;

	*n = 0;
	for (;;) {
		const char *nl = pos < len ? memchr(t + pos, '\n', len - pos) :
				 NULL;
		size_t ll = nl ? (size_t)(nl - (t + pos)) : len - pos;
		bool sep = ll >= 3 && memcmp(t + pos, "---", 3) == 0 &&
			   strspn(t + pos + 3, " \t") >= ll - 3;

		if (sep || pos >= len || nl == NULL) {
			size_t a = start, b = sep ? pos : len, al = sline;

			while (a < b && isspace((unsigned char)t[a])) {
				if (t[a] == '\n')
					al++;
				a++;
			}
			while (b > a && isspace((unsigned char)t[b - 1]))
				b--;
			if (b > a) {
				CPL_GROW(v, cap, *n + 1);
				v[*n].s = t + a;
				v[*n].len = b - a;
				v[(*n)++].line = al;
			}
			if (!sep)
				break;
			start = pos + ll + (nl != NULL);
			sline = line + 1;
		}
		if (nl == NULL)
			break;
		pos += ll + 1;
		line++;
	}
	return v;
}

/* When helm's text for a template is the evaluator's, document for
 * document, the evaluator's exact line map laid over helm's lines. */
static struct cpl_gotmpl_line *
map_by_render(const char *out, size_t olen, const struct cpl_gotmpl_out *r,
	      size_t *nlines)
{
	size_t nh, nb, i, k, total = 1;
	struct doc *dh = split_docs(out, olen, &nh);
	struct doc *db = split_docs(r->text, r->len, &nb);
	struct cpl_gotmpl_line *lines = NULL;
	bool same = nh == nb && nh > 0;

	for (i = 0; same && i < nh; i++)
		same = dh[i].len == db[i].len &&
		       memcmp(dh[i].s, db[i].s, dh[i].len) == 0;
	if (same) {
		for (i = 0; i < olen; i++)
			total += out[i] == '\n';
		lines = cpl_xcalloc(total, sizeof(*lines));
		for (i = 0; i < total; i++)
			lines[i] = r->lines[0];
		for (i = 0; i < nh; i++) {
			size_t n = 1;

			for (k = 0; k < dh[i].len; k++)
				n += dh[i].s[k] == '\n';
			for (k = 0; k < n && dh[i].line + k < total &&
				    db[i].line + k < r->nlines; k++)
				lines[dh[i].line + k] =
					r->lines[db[i].line + k];
		}
		for (i = 1; i < total; i++)	/* separators: the line above */
			if (lines[i].line == 0)
				lines[i] = lines[i - 1];
		*nlines = total;
	}
	free(dh);
	free(db);
	return lines;
}

/* One source's rendered documents, mapped and added: by the evaluator's
 * map when it renders the same text (g, may be NULL), else by key path. */
static void
helm_source(struct cpl_engine *e, const char *chart, const char *rel,
	    const char *text, size_t len, const struct values_map *vm,
	    struct cpl_gotmpl *g)
{
	struct cpl_helm *h = helm_state(e);
	const char *slash = strchr(rel, '/');
	char *path, *tmpl = NULL;
	const char *file;
	size_t tlen = 0, nlines;
	struct cpl_gotmpl_line *lines;

	if (slash == NULL || strstr(rel, "..") != NULL)
		return;
	path = in_chart(chart, slash + 1);
	if (cpl_engine_find_source(e, path) != NULL) {
		free(path);
		return;
	}
	{
		struct cpl_error err = { 0 };

		if (cpl_read_file(&tmpl, &tlen, path,
				  CPL_ENGINE_MAX_FILE_BYTES, &err) < 0)
			tmpl = NULL;
		cpl_error_clear(&err);
	}
	file = keep_string(h, cpl_xstrdup(path));
	lines = NULL;
	if (g != NULL) {
		struct cpl_gotmpl_out r;
		struct cpl_error err = { 0 };

		if (cpl_gotmpl_render(g, path, &r, &err) == 0)
			lines = map_by_render(text, len, &r, &nlines);
		cpl_error_clear(&err);
	}
	if (lines == NULL)
		lines = map_by_path(file, text, len, tmpl, tlen, vm, &nlines);
	add_rendered(e, path, cpl_xstrndup(text, len), len, lines, nlines);
	free(tmpl);
	free(path);
}

/* Splits helm's output at its "# Source:" comments, one source each. */
static void
helm_split(struct cpl_engine *e, const char *chart, const char *out,
	   size_t len, const struct values_map *vm, struct cpl_gotmpl *g)
{
	struct cpl_strmap idx = { 0 };
	struct cpl_buf *texts = NULL;
	char **names = NULL;
	size_t n = 0, cap = 0, tcap = 0, pos = 0, i;
	struct cpl_buf *cur = NULL;

	while (pos < len) {
		const char *l = out + pos, *nl = memchr(l, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - l) + 1 : len - pos;

		if (ll >= 10 && memcmp(l, "# Source: ", 10) == 0) {
			char *name = cpl_xstrndup(l + 10, ll - 10 -
						  (nl != NULL));
			size_t *at = cpl_strmap_get(&idx, name);

			if (at == NULL) {
				CPL_GROW(names, cap, n + 1);
				CPL_GROW(texts, tcap, n + 1);
				memset(&texts[n], 0, sizeof(texts[n]));
				cpl_buf_init(&texts[n], HELM_MAX_OUTPUT);
				names[n] = name;
				at = cpl_xmalloc(sizeof(*at));
				*at = n++;
				cpl_strmap_put(&idx, name, at);
			} else {
				free(name);
				cpl_buf_adds(&texts[*at], "---\n");
			}
			cur = &texts[*at];
		} else if (cur != NULL && !(ll >= 3 && memcmp(l, "---", 3)
					    == 0 && (ll == 3 || l[3] == '\n' ||
						     l[3] == ' '))) {
			cpl_buf_add(cur, l, ll);
		}
		pos += ll;
	}
	for (i = 0; i < n; i++) {
		helm_source(e, chart, names[i], cpl_buf_str(&texts[i]),
			    texts[i].len, vm, g);
		free(cpl_strmap_get(&idx, names[i]));
		free(names[i]);
		cpl_buf_free(&texts[i]);
	}
	free(names);
	free(texts);
	cpl_strmap_free(&idx);
}

static void
helm_render(struct cpl_engine *e, const char *chart, char **files,
	    size_t nfiles, bool deps, const char *const meta[3])
{
	struct cpl_helm *h = helm_state(e);
	struct cpl_buf out = { 0 }, err = { 0 };
	struct values_map vm = { 0 };
	char **argv = NULL, *exe = helm_path(), *vpath, *vtext;
	size_t argc = 0, cap = 0, i, vlen;
	int status = 0;

	if (deps && !has_subcharts(chart)) {
		char *dir = in_chart(chart, "Chart.yaml");

		not_judged(e, dir, 1, 1, chart, "dependencies not fetched "
			   "(helm dependency build, which needs the "
			   "network)", true);
		free(dir);
		free(exe);
		return;
	}
	CPL_GROW(argv, cap, e->set.nhelm_args * 2 + 5);
	argv[argc++] = cpl_xstrdup(exe);
	argv[argc++] = cpl_xstrdup("template");
	argv[argc++] = cpl_xstrdup(chart);
	for (i = 0; i < 2 * e->set.nhelm_args; i++) {
		const char *arg = e->set.helm_args[i % e->set.nhelm_args];

		if ((arg[0] == 's') != (i >= e->set.nhelm_args))
			continue;	/* files first, then --set */
		argv[argc++] = cpl_xstrdup(arg[0] == 's' ? "--set" :
					   "--values");
		argv[argc++] = cpl_xstrdup(arg + 1);
	}
	argv[argc] = NULL;
	cpl_buf_init(&out, HELM_MAX_OUTPUT);
	cpl_buf_init(&err, 1u << 16);
	if (exe == NULL || run_bounded(argv, &out, &err, &status) < 0 ||
	    status != 0 || out.overflow) {
		const char *msg = cpl_buf_str(&err);
		size_t ml = strcspn(msg, "\n");
		char *why = cpl_xasprintf("helm template %s%s%.*s",
					  status < 0 ? "timed out" :
					  out.overflow ? "wrote too much" :
					  "failed", ml ? ": " : "",
					  (int)(ml > 300 ? 300 : ml), msg);
		char *dir = in_chart(chart, "Chart.yaml");

		not_judged(e, dir, 1, 1, chart, why, true);
		free(dir);
		free(why);
		goto out;
	}
	vpath = in_chart(chart, "values.yaml");
	{
		struct cpl_error verr = { 0 };

		if (cpl_read_file(&vtext, &vlen, vpath,
				  CPL_ENGINE_MAX_FILE_BYTES, &verr) == 0) {
			vm.file = keep_string(h, vpath);
			vm.paths = key_paths(vtext, vlen, &vm.n);
			values_index(&vm);
			free(vtext);
		} else {
			free(vpath);
		}
		cpl_error_clear(&verr);
	}
	{
		bool *ok = cpl_xcalloc(nfiles ? nfiles : 1, sizeof(*ok));
		bool *holds = cpl_xcalloc(nfiles ? nfiles : 1,
					  sizeof(*holds));
		size_t from = h->n;
		struct cpl_gotmpl *g = deps ? NULL :
			builtin_chart(e, chart, files, nfiles, meta, false,
				      ok, holds);

		helm_split(e, chart, cpl_buf_str(&out), out.len, &vm, g);
		if (g != NULL) {
			struct pending *pv = cpl_xcalloc(h->n - from + 1,
							 sizeof(*pv));
			size_t k;

			for (k = from; k < h->n; k++) {
				pv[k - from].lines = h->v[k]->lines;
				pv[k - from].nlines = h->v[k]->nlines;
			}
			let_go(e, g, pv, h->n - from);
			free(pv);
		}
		free(ok);
		free(holds);
	}
	if (vm.paths)
		free_paths(vm.paths, vm.n);
	cpl_strmap_free(&vm.first);
out:
	cpl_buf_free(&out);
	cpl_buf_free(&err);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	free(exe);
}

/* Whether the chart has subcharts in charts/ (any entry there). */
static bool
has_subcharts(const char *chart)
{
	char *dir = cpl_xasprintf("%s/charts", chart);
	DIR *d = opendir(dir);
	struct dirent *de;
	bool any = false;

	free(dir);
	if (d == NULL)
		return false;
	while (!any && (de = readdir(d)) != NULL)
		any = de->d_name[0] != '.';
	closedir(d);
	return any;
}

char *
cpl_engine_chart_root(const char *chart)
{
	char *c = cpl_xstrdup(chart);

	/* ".../PARENT/charts/NAME" with PARENT/Chart.yaml: the parent's */
	for (;;) {
		char *slash = strrchr(c, '/'), *parent, *file;
		bool yes;

		if (slash == NULL || slash - c < 7 ||
		    strncmp(slash - 7, "/charts", 7) != 0)
			break;
		parent = cpl_xstrndup(c, (size_t)(slash - 7 - c));
		file = cpl_xasprintf("%s/Chart.yaml", parent);
		yes = access(file, F_OK) == 0;
		free(file);
		if (!yes) {
			free(parent);
			break;
		}
		free(c);
		c = parent;
	}
	if (strncmp(c, "charts/", 7) == 0 && access("Chart.yaml", F_OK) == 0) {
		free(c);
		c = cpl_xstrdup(".");
	}
	return c;
}

void
cpl_engine_chart(struct cpl_engine *e, const char *chart)
{
	struct cpl_helm *h = helm_state(e);
	struct cpl_error err = { 0 };
	char *name = NULL, *version = NULL, *app = NULL, *dir;
	char **files = NULL;
	size_t nfiles = 0, cap = 0, i;
	bool deps = false;
	const char *meta[3];

	cpl_engine_flush(e);
	if (read_chart_yaml(chart, &name, &version, &app, &deps, &err) < 0) {
		cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
		return;
	}
	meta[0] = name;
	meta[1] = version;
	meta[2] = app;
	dir = in_chart(chart, "templates");
	list_files(dir, &files, &nfiles, &cap, 0);
	if (h->have_helm == 0)
		h->have_helm = helm_on_path() ? 1 : 2;
	if (h->have_helm == 1) {
		cpl_engine_note(e, chart, "read: Helm chart rendered with helm "
				"template");
		helm_render(e, chart, files, nfiles, deps, meta);
	} else if (deps || has_subcharts(chart)) {
		char *cy = in_chart(chart, "Chart.yaml");

		not_judged(e, cy, 1, 1, chart, "a chart with subcharts or "
			   "dependencies (outside the template subset the "
			   "tool evaluates without helm)", true);
		free(cy);
	} else {
		cpl_engine_note(e, chart, "read: Helm chart rendered without "
				"helm (the built-in subset of Go templates)");
		builtin_render(e, chart, files, nfiles, meta);
	}
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	free(dir);
	free(name);
	free(version);
	free(app);
}

bool
cpl_engine_chart_rendered(const struct cpl_engine *e, const char *path)
{
	return e->load.helm != NULL &&
	       cpl_strmap_get(&e->load.helm->by_path, path) != NULL;
}

const char *
cpl_engine_chart_how(const struct cpl_engine *e)
{
	if (e->load.helm == NULL || e->load.helm->n == 0)
		return NULL;
	return e->load.helm->have_helm == 1 ? "rendered with helm template" :
	       "rendered without helm";
}

/* ---- findings moved to template lines ---------------------------------- */

/* Moves file:line:col (file owned) to the template place it came from. */
static void
move(const struct rendered *r, char **file, int *line, int *col)
{
	const struct cpl_gotmpl_line *l;

	if (*line < 1 || (size_t)*line > r->nlines)
		return;
	l = &r->lines[*line - 1];
	if (l->file != NULL && strcmp(l->file, *file) != 0) {
		free(*file);
		*file = cpl_xstrdup(l->file);
	}
	*line = l->line;
	if ((l->literal || *col < l->literal_to) && *col >= l->out_column)
		*col = l->column + (*col - l->out_column);
	else
		*col = l->column;
}

void
cpl_engine_chart_relocate(struct cpl_engine *e)
{
	struct cpl_helm *h = e->load.helm;
	size_t i, j;

	if (h == NULL || h->n == 0)
		return;
	for (i = 0; i < e->res.nfindings; i++) {
		struct cpl_finding *f = &e->res.findings[i];
		const struct rendered *r = f->file ?
			cpl_strmap_get(&h->by_path, f->file) : NULL;

		for (j = 0; j < f->nrelated; j++) {
			const struct rendered *rr = f->related[j].file ?
				cpl_strmap_get(&h->by_path,
					       f->related[j].file) : NULL;

			if (rr != NULL)
				move(rr, &f->related[j].file,
				     &f->related[j].line,
				     &f->related[j].column);
		}
		if (r == NULL)
			continue;
		if (f->line >= 1 && (size_t)f->line <= r->nlines &&
		    r->lines[f->line - 1].vfile != NULL) {
			const struct cpl_gotmpl_line *l =
				&r->lines[f->line - 1];

			f->related = cpl_xrealloc(f->related, (f->nrelated + 1)
						  * sizeof(*f->related));
			f->related[f->nrelated].file = cpl_xstrdup(l->vfile);
			f->related[f->nrelated].line = l->vline;
			f->related[f->nrelated].column = 1;
			f->related[f->nrelated++].message =
				cpl_xstrdup("the value comes from here");
		}
		move(r, &f->file, &f->line, &f->column);
	}
	for (i = 0; i < e->res.nbudgets; i++) {
		struct cpl_budget_entry *b = &e->res.budgets[i];
		struct cpl_budget_how *how[] = { &b->how_cpu, &b->how_ranks,
						 &b->how_threads,
						 &b->how_workers };
		const struct rendered *r = b->file ?
			cpl_strmap_get(&h->by_path, b->file) : NULL;
		int col = 1;

		if (r != NULL)
			move(r, &b->file, &b->line, &col);
		for (j = 0; j < CPL_ARRAY_LEN(how); j++) {
			r = how[j]->file ? cpl_strmap_get(&h->by_path,
							  how[j]->file) : NULL;
			if (r != NULL)
				move(r, &how[j]->file, &how[j]->line,
				     &how[j]->column);
		}
		/* The other pools' env settings (model/pools.h). */
		for (j = 0; j < b->npools; j++) {
			struct cpl_budget_how *ph = &b->pools[j].how;

			r = ph->file ? cpl_strmap_get(&h->by_path, ph->file) :
			    NULL;
			if (r != NULL)
				move(r, &ph->file, &ph->line, &ph->column);
		}
	}
}
