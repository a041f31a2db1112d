/*
 * run.c — the command's two runs (static paths, live objects): loads the
 * configuration, feeds the engine, renders the findings with the chosen
 * reporter, prints input errors and notes to stderr, and maps the result
 * to an exit status.  Flag parsing stays in kubectl-cpulint.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "engine.h"
#include "git/repo.h"
#include "report/report.h"
#include "util.h"

static const char *
source_text(void *ctx, const char *file, size_t *len)
{
	return cpl_engine_source_text(ctx, file, len);
}

static bool
want_color(const struct options *o, FILE *out)
{
	const char *nc = getenv("NO_COLOR");

	if (strcmp(o->color, "always") == 0)
		return true;
	if (strcmp(o->color, "never") == 0)
		return false;
	return (nc == NULL || *nc == '\0') && isatty(fileno(out)) &&
	       strcmp(o->format, "text") == 0;
}

/* Prints one problem as "path:line:col: what: message". */
static void
print_problem(const struct cpl_error *p, const char *what)
{
	if (p->path && p->line > 0)
		fprintf(stderr, "%s:%d:%d: %s: %s\n", p->path, p->line,
			p->column > 0 ? p->column : 1, what, p->message);
	else if (p->path)
		fprintf(stderr, "%s: %s: %s\n", p->path, what, p->message);
	else
		fprintf(stderr, "kubectl-cpulint: %s: %s\n", what, p->message);
}

static void
print_errors(const struct cpl_engine *e)
{
	const struct cpl_error *p;
	size_t n, i;

	p = cpl_engine_warnings(e, &n);
	for (i = 0; i < n; i++)
		print_problem(&p[i], "warning");
	p = cpl_engine_errors(e, &n);
	for (i = 0; i < n; i++)
		print_problem(&p[i], "error");
}

static char *
join_argv(int argc, char **argv)
{
	struct cpl_buf b;
	int i;

	cpl_buf_init(&b, 1 << 16);
	for (i = 0; i < argc; i++) {
		if (i)
			cpl_buf_addc(&b, ' ');
		cpl_buf_adds(&b, argv[i]);
	}
	return cpl_buf_detach(&b);
}

/*
 * Renders the findings with the chosen reporter, prints input errors to
 * stderr, and maps the result to an exit status.  srcroot: the directory
 * SARIF locations are relative to (NULL: the current directory).
 */
static int
report(const struct options *o, struct cpl_engine *e, const char *srcroot,
       int argc, char **argv)
{
	const struct cpl_reporter *rep = cpl_reporter_find(o->format);
	const struct cpl_finding *f;
	const struct cpl_error *errs;
	struct cpl_report_meta meta = { 0 };
	char cwd[PATH_MAX];
	char *cmdline = NULL;
	FILE *out = stdout;
	void *st;
	size_t n, nerr, i;
	int status = EXIT_CLEAN;

	if (o->output && (out = fopen(o->output, "w")) == NULL) {
		fprintf(stderr, "kubectl-cpulint: cannot write %s: %m\n",
			o->output);
		return EXIT_TROUBLE;
	}
	errs = cpl_engine_errors(e, &nerr);
	f = cpl_engine_findings(e, &n);
	if (srcroot) {
		snprintf(cwd, sizeof(cwd), "%s", srcroot);
	} else if (getcwd(cwd, sizeof(cwd)) == NULL) {
		cwd[0] = '\0';
	}
	cmdline = join_argv(argc, argv);
	meta.version = CPL_VERSION;
	meta.srcroot = cwd;
	meta.errors = errs;
	meta.nerrors = nerr;
	meta.color = want_color(o, out);
	meta.command_line = cmdline;
	meta.source_text = source_text;
	meta.source_ctx = e;
	st = rep->begin(out, &meta);
	for (i = 0; i < n; i++) {
		rep->emit(st, &f[i]);
		if (!f[i].suppressed && o->fail_on != CPL_SEV_OFF &&
		    f[i].severity >= o->fail_on)
			status = EXIT_FINDINGS;
	}
	if (rep->end(st) < 0 || fflush(out) != 0 ||
	    (out != stdout && fclose(out) != 0)) {
		fprintf(stderr, "kubectl-cpulint: cannot write the report\n");
		status = EXIT_TROUBLE;
	}
	print_errors(e);
	if (nerr > 0)
		status = EXIT_TROUBLE;
	free(cmdline);
	return status;
}

/* Loads .cpulint.yaml (--config, or found from dir upwards). */
static void
load_config(const struct options *o, struct cpl_engine *e, const char *dir)
{
	struct cpl_error err = { 0 };

	if (o->config) {
		if (cpl_engine_load_config(e, o->config, &err) < 0)
			cpl_engine_add_error(e, &err);
	} else if (!o->no_config) {
		if (cpl_engine_find_config(e, dir, &err) < 0)
			cpl_engine_add_error(e, &err);
	}
	cpl_error_clear(&err);
}

static void
log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "kubectl-cpulint: %s\n", line);
}

/* Lints live objects; returns the exit status. */
int
cpl_cli_run_live(struct options *o, int argc, char **argv)
{
	struct cpl_engine *e = cpl_engine_new();
	struct cpl_buf notes;
	const char *p, *nl;
	int status;

	cpl_buf_init(&notes, 1 << 20);
	load_config(o, e, ".");
	/* Exec plugins' stderr stays closed even with -v: their output may
	 * hold credentials. */
	if (o->verbose)
		o->lo.log = log_line;
	cpl_live_collect(e, o->live, o->nlive, &o->lo, &notes);
	cpl_engine_run(e);
	status = report(o, e, NULL, argc, argv);
	for (p = cpl_buf_str(&notes); *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			break;
		fprintf(stderr, "kubectl-cpulint: note: %.*s\n",
			(int)(nl - p), p);
	}
	cpl_buf_free(&notes);
	cpl_engine_free(e);
	return status;
}

/* Runs the static lint and reports; returns the exit status. */
int
cpl_cli_run_static(struct options *o, int argc, char **argv)
{
	struct cpl_engine *e = cpl_engine_new();
	struct cpl_repo *repo = NULL;
	struct cpl_error err = { 0 };
	size_t i;
	int status;

	load_config(o, e, o->paths[0]);
	switch (cpl_repo_open(&repo, o->paths[0], &err)) {
	case 0:
		break;
	case 1:
		if (o->staged || o->diff_base) {
			fprintf(stderr, "kubectl-cpulint: %s: not in a git "
				"repository, so %s cannot be used\n",
				o->paths[0], o->staged ? "--staged" :
				"--diff-base");
			cpl_engine_free(e);
			return EXIT_TROUBLE;
		}
		break;
	default:
		cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
		if (o->staged || o->diff_base) {
			print_errors(e);
			cpl_engine_free(e);
			return EXIT_TROUBLE;
		}
	}
	cpl_engine_set_repo(e, repo, o->staged);
	if (o->diff_base && cpl_engine_set_diff_base(e, o->diff_base,
						     &err) < 0) {
		fprintf(stderr, "kubectl-cpulint: --diff-base %s: %s\n",
			o->diff_base, err.message);
		cpl_error_clear(&err);
		cpl_engine_free(e);
		cpl_repo_free(repo);
		return EXIT_TROUBLE;
	}
	for (i = 0; i < o->npaths; i++)
		cpl_engine_add_path(e, o->paths[i], !o->ignore_unknown);
	cpl_engine_run(e);
	if (o->verbose) {
		const struct cpl_wlist *wl = cpl_engine_workloads(e);
		size_t nn;
		const struct cpl_error *nt = cpl_engine_notes(e, &nn);

		for (i = 0; i < nn; i++)
			fprintf(stderr, "kubectl-cpulint: %s: %s\n",
				nt[i].path, nt[i].message);
		for (i = 0; i < wl->count; i++)
			fprintf(stderr, "kubectl-cpulint: loaded %s %s "
				"(%zu container(s)) from %s\n",
				wl->items[i]->kind, wl->items[i]->name,
				wl->items[i]->ncontainers,
				wl->items[i]->file ? wl->items[i]->file : "-");
	}
	status = report(o, e, repo ? cpl_repo_root(repo) : NULL, argc, argv);
	cpl_engine_free(e);
	cpl_repo_free(repo);
	return status;
}

