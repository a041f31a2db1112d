/*
 * lint.c — one lint and its report, below the runs that call it (run.c,
 * fix.c): the engine fed with the configuration, the paths and standard
 * input's text; the findings rendered with the chosen reporter (to stdout
 * or --output-file, see output.c); input errors and notes printed to
 * stderr through cpl_cli_say; the exit status the result maps to.  It
 * calls nothing of run.c or fix.c, which both call it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "report/fingerprint.h"
#include "report/report.h"
#include "run/engine.h"
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
void
cpl_cli_print_problem(const struct cpl_error *p, const char *what)
{
	if (p->path && p->line > 0)
		cpl_cli_say("%s:%d:%d: %s: %s", p->path, p->line,
			    p->column > 0 ? p->column : 1, what, p->message);
	else if (p->path)
		cpl_cli_say("%s: %s: %s", p->path, what, p->message);
	else
		cpl_cli_say("kubectl-cpulint: %s: %s", what, p->message);
}

void
cpl_cli_print_errors(const struct cpl_engine *e)
{
	const struct cpl_error *p;
	size_t n, i;

	p = cpl_engine_warnings(e, &n);
	for (i = 0; i < n; i++)
		cpl_cli_print_problem(&p[i], "warning");
	p = cpl_engine_errors(e, &n);
	for (i = 0; i < n; i++)
		cpl_cli_print_problem(&p[i], "error");
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

/* The documents of wl that hold containers and were not judged, for the
 * report (strings borrowed from wl); caller frees the array. */
static struct cpl_report_skip *
not_judged(const struct cpl_wlist *wl, size_t *n)
{
	struct cpl_report_skip *v;
	size_t i;

	*n = 0;
	if (wl == NULL || cpl_wlist_not_judged(wl) == 0)
		return NULL;
	v = cpl_xcalloc(cpl_wlist_not_judged(wl), sizeof(*v));
	for (i = 0; i < wl->nskipped; i++) {
		const struct cpl_skip *k = &wl->skipped[i];

		if (!k->containers)
			continue;
		v[*n].file = k->file;
		v[*n].line = k->line;
		v[*n].column = k->column;
		v[*n].kind = k->kind;
		v[*n].what = k->what;
		v[*n].reason = k->why;
		(*n)++;
	}
	return v;
}

/* Adds f to the baseline being written: its path from the source root. */
static void
baseline_add(struct cli_baseline_out *b, struct cpl_report_prints *p,
	     const struct cpl_finding *f)
{
	char *rel = NULL;

	if (b->path == NULL)
		return;
	if (f->file)
		rel = cpl_report_relpath(NULL, cpl_report_prints_root(p),
					 f->file);
	cpl_cli_baseline_add(b, f->rule ? f->rule->id : NULL,
			     rel ? rel : f->file, f->line, f->fingerprint,
			     f->message);
	free(rel);
}

/*
 * Renders the findings with the chosen reporter (to std, or to
 * --output-file), prints input errors to stderr, and maps the result to
 * an exit status.  srcroot: the directory
 * SARIF locations are relative to (NULL: the current directory).  When
 * the run failed before anything was read (a cluster error, no readable
 * file), there is nothing to report: stdout stays empty, no file is
 * written, and the errors alone say what happened.
 */
int
cpl_cli_report(const struct options *o, struct cpl_engine *e,
	       const char *srcroot, int argc, char **argv, FILE *std)
{
	const struct cpl_reporter *rep = cpl_reporter_find(o->format);
	const struct cpl_finding *f;
	const struct cpl_error *errs;
	struct cpl_report_meta meta = { 0 };
	struct cpl_report_skip *skipped = NULL;
	struct cli_output out;
	struct cli_baseline_out base = { 0 };
	struct cpl_report_prints *prints;
	struct stat ost;
	char cwd[PATH_MAX];
	char *cmdline = NULL;
	char *link_base = NULL;
	struct cpl_report_ado ado;
	char ado_org[128];
	void *st;
	size_t n, nerr, i, dropped = 0;
	int status = EXIT_CLEAN;
	bool failed;

	errs = cpl_engine_errors(e, &nerr);
	f = cpl_engine_findings(e, &n);
	if (nerr > 0 && cpl_engine_ntargets(e) == 0 &&
	    cpl_engine_workloads(e)->count == 0) {
		cpl_cli_print_errors(e);
		return EXIT_TROUBLE;
	}
	if (o->output_file && stat(o->output_file, &ost) == 0 &&
	    S_ISREG(ost.st_mode) &&
	    cpl_engine_judged_file(e, o->output_file, &ost)) {
		cpl_cli_print_errors(e);
		cpl_cli_say("kubectl-cpulint: --output-file %s is a file this "
			    "run read: the report would replace it (write the "
			    "report elsewhere)", o->output_file);
		return EXIT_TROUBLE;
	}
	if (o->write_baseline && stat(o->write_baseline, &ost) == 0 &&
	    S_ISREG(ost.st_mode) &&
	    cpl_engine_judged_file(e, o->write_baseline, &ost)) {
		cpl_cli_print_errors(e);
		cpl_cli_say("kubectl-cpulint: --write-baseline %s is a file "
			    "this run read: the baseline would replace it",
			    o->write_baseline);
		return EXIT_TROUBLE;
	}
	if (cpl_cli_output_open(&out, o->output_file, std) < 0) {
		cpl_cli_print_errors(e);
		return EXIT_TROUBLE;
	}
	if (o->write_baseline &&
	    cpl_cli_baseline_begin(&base, o->write_baseline) < 0) {
		cpl_cli_output_abort(&out);
		cpl_cli_print_errors(e);
		return EXIT_TROUBLE;
	}
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
	meta.color = want_color(o, out.fp);
	meta.command_line = cmdline;
	meta.source_text = source_text;
	meta.source_ctx = e;
	meta.dropped = &dropped;
	meta.budgets = cpl_engine_budgets(e, &meta.nbudgets);
	meta.budget_table = o->budget;
	meta.jobs = cpl_engine_threads(e, meta.nbudgets);
	skipped = not_judged(cpl_engine_workloads(e), &meta.nskipped);
	meta.skipped = skipped;
	meta.helm = cpl_engine_chart_how(e);
	meta.quiet = o->quiet;
	meta.category = o->npaths == 0 ? "kubectl-cpulint/live/" : NULL;
	/* -o github: annotations attach to paths from the workspace;
	 * -o markdown links to them there. */
	if (strcmp(o->format, "markdown") == 0)
		link_base = cpl_cli_link_base();
	meta.link_base = link_base;
	if (cpl_cli_ado(&ado, ado_org, sizeof(ado_org)))
		meta.ado = &ado;
	meta.gated = true;
	meta.fail_on = o->fail_on;
	meta.junit_file = getenv("GITLAB_CI") != NULL &&
			  strcmp(getenv("GITLAB_CI"), "true") == 0;
	if ((strcmp(o->format, "github") == 0 || link_base) &&
	    getenv("GITHUB_WORKSPACE") &&
	    *getenv("GITHUB_WORKSPACE"))
		meta.srcroot = getenv("GITHUB_WORKSPACE");
	prints = cpl_report_prints_new(&meta);
	st = rep->begin(out.fp, &meta);
	for (i = 0; i < n; i++) {
		struct cpl_finding view, shown;
		char *msg, *fp;
		bool counts;

		/* A live finding shared by the Pods of one owner is
		 * reported once, with their count. */
		shown = *cpl_live_finding_view(&view, &msg, &f[i]);
		/* Every finding is fingerprinted, in order, whether shown
		 * or not: the prints do not depend on the baseline. */
		fp = cpl_report_prints_finding(prints, &shown);
		shown.fingerprint = fp;
		counts = !f[i].suppressed && f[i].severity != CPL_SEV_OFF;
		if (counts)
			baseline_add(&base, prints, &shown);
		if (counts && cpl_cli_baseline_has(o->known, fp)) {
			meta.baselined++;
		} else {
			rep->emit(st, &shown);
			if (counts && o->fail_on != CPL_SEV_OFF &&
			    f[i].severity >= o->fail_on)
				status = EXIT_FINDINGS;
		}
		free(fp);
		free(msg);
	}
	/* Writing the baseline accepts the findings: they do not fail. */
	if (o->write_baseline)
		status = EXIT_CLEAN;
	errno = 0;
	failed = rep->end(st) < 0;
	cpl_report_prints_free(prints);
	if (cpl_cli_output_close(&out, failed) < 0) {
		status = EXIT_TROUBLE;
		cpl_cli_baseline_end(&base, true);
	} else if (cpl_cli_baseline_end(&base, false) < 0) {
		status = EXIT_TROUBLE;
	}
	if (dropped > 0)
		cpl_cli_say("kubectl-cpulint: warning: code scanning takes at "
			    "most %d results per run: the SARIF log keeps the "
			    "most severe and leaves %zu out",
			    CPL_REPORT_SARIF_MAX_RESULTS, dropped);
	cpl_cli_print_errors(e);
	if (nerr > 0)
		status = EXIT_TROUBLE;
	free(cmdline);
	free(link_base);
	free(skipped);
	return status;
}

/* Loads .cpulint.yaml (--config, or found from dir upwards). */
void
cpl_cli_load_config(const struct options *o, struct cpl_engine *e,
		    const char *dir)
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

/* -v: the workloads loaded (and merged), then the documents skipped. */
static void
print_loaded(const struct cpl_wlist *wl)
{
	size_t i;

	for (i = 0; i < wl->count; i++) {
		const struct cpl_workload *w = wl->items[i];
		char *name = w->replica ?
			     cpl_xasprintf("%s[%s]", w->name, w->replica) :
			     cpl_xstrdup(w->name);

		if (w->merged)
			cpl_cli_say("kubectl-cpulint: merged %s %s from %s %s",
				    w->kind, name, w->file ? w->file : "-",
				    w->merged_into);
		else
			cpl_cli_say("kubectl-cpulint: loaded %s %s (%zu "
				    "container(s)) from %s%s%s%s", w->kind, name,
				    w->ncontainers, w->file ? w->file : "-",
				    w->template_only ? " (a template: no "
				    "TrainJob here uses it)" : "",
				    w->note ? "; " : "", w->note ? w->note : "");
		free(name);
	}
	for (i = 0; i < wl->nskipped; i++) {
		const struct cpl_skip *k = &wl->skipped[i];
		const char *nj = k->containers ? "not judged (it holds "
				 "containers): " : "";

		if (k->file)
			cpl_cli_say("kubectl-cpulint: skipped %s (%s:%d): %s%s",
				    k->what, k->file, k->line, nj, k->why);
		else
			cpl_cli_say("kubectl-cpulint: skipped %s: %s%s",
				    k->what, nj, k->why);
	}
}

struct cpl_engine *
cpl_cli_lint(const struct cli_static *st, const struct cli_fixfile *fx,
	     size_t nfx)
{
	const struct options *o = st->o;
	struct cpl_engine *e = cpl_engine_new();
	struct cpl_error err = { 0 };
	const char *stdin_text = st->stdin_text;
	size_t stdin_len = st->stdin_len, i;
	bool stdin_read = false;
	/* Edits only where they are used: --fix and --diff, the JSON and
	 * SARIF reports, --unsafe-fixes' count. */
	bool edits = o->fix || o->diff || o->unsafe_fixes ||
		     strcmp(o->format, "json") == 0 ||
		     strcmp(o->format, "sarif") == 0;

	cpl_cli_load_config(o, e, st->first);
	if (st->repo_err.message)
		cpl_engine_add_error(e, &st->repo_err);
	cpl_engine_set_repo(e, st->repo, o->staged);
	cpl_engine_set_jobs(e, o->jobs);
	if (edits)
		cpl_engine_want_edits(e);
	/* Only SARIF (line fingerprints) and fixes read texts again once
	 * files are judged. */
	if (!o->fix && !o->diff && strcmp(o->format, "sarif") != 0 &&
	    strcmp(o->format, "gitlab") != 0 && !o->baseline &&
	    !o->write_baseline)
		cpl_engine_drop_texts(e);
	if (o->diff_base && cpl_engine_set_diff_base(e, o->diff_base,
						     &err) < 0) {
		cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
	}
	for (i = 0; i < nfx; i++) {
		if (strcmp(fx[i].path, CLI_STDIN_NAME) == 0) {
			stdin_text = fx[i].text;
			stdin_len = fx[i].len;
		} else {
			cpl_engine_set_text(e, fx[i].path, fx[i].text,
					    fx[i].len);
		}
	}
	for (i = 0; i < o->nhelm; i++)
		cpl_engine_helm_option(e, o->helm[i][0] == 's', o->helm[i] + 1);
	for (i = 0; i < o->npaths; i++) {
		if (strcmp(o->paths[i], CLI_STDIN) != 0)
			cpl_engine_add_path(e, o->paths[i],
					    !o->ignore_unknown);
		else if (!stdin_read && st->stdin_err.message)
			cpl_engine_add_error(e, &st->stdin_err);
		else if (!stdin_read)
			cpl_engine_add_buffer(e, CLI_STDIN_NAME, stdin_text,
					      stdin_len, !o->ignore_unknown);
		stdin_read |= strcmp(o->paths[i], CLI_STDIN) == 0;
	}
	cpl_engine_run(e);
	if (edits)
		cpl_engine_resolve_fixes(e);	/* what the groups left */
	return e;
}

void
cpl_cli_verbose(const struct cpl_engine *e)
{
	size_t nn, i;
	const struct cpl_error *nt = cpl_engine_notes(e, &nn);

	for (i = 0; i < nn; i++)
		cpl_cli_say("kubectl-cpulint: %s: %s", nt[i].path,
			    nt[i].message);
	print_loaded(cpl_engine_workloads(e));
}

void
cpl_cli_no_files(const struct cpl_engine *e)
{
	size_t n;

	/* Like ruff: an empty walk is not an error, but it is said. */
	cpl_engine_errors(e, &n);
	if (cpl_engine_ntargets(e) == 0 && n == 0)
		cpl_cli_say("kubectl-cpulint: no files to lint (no YAML, JSON "
			    "or Python file among the paths given)");
}
