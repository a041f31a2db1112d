/*
 * run.c — the command's two runs (static paths, live objects): loads the
 * configuration, feeds the engine, renders the findings with the chosen
 * reporter (to stdout or --output-file, see output.c), prints input
 * errors and notes to stderr, and maps the result to an exit status.
 * Standard input ("-") is read here, once.  Flag parsing stays in
 * kubectl-cpulint.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "engine.h"
#include "git/repo.h"
#include "kube/curlso.h"
#include "report/fingerprint.h"
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
			    "run linted: the report would replace it (write the "
			    "report elsewhere)", o->output_file);
		return EXIT_TROUBLE;
	}
	if (o->write_baseline && stat(o->write_baseline, &ost) == 0 &&
	    S_ISREG(ost.st_mode) &&
	    cpl_engine_judged_file(e, o->write_baseline, &ost)) {
		cpl_cli_print_errors(e);
		cpl_cli_say("kubectl-cpulint: --write-baseline %s is a file "
			    "this run linted: the baseline would replace it",
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
	meta.quiet = o->quiet;
	meta.category = o->npaths == 0 ? "kubectl-cpulint/live/" : NULL;
	/* -o github: annotations attach to paths from the workspace. */
	if (strcmp(o->format, "github") == 0 && getenv("GITHUB_WORKSPACE") &&
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
	free(skipped);
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
	cpl_cli_say("kubectl-cpulint: %s", line);
}

/* Lints live objects; returns the exit status. */
int
cpl_cli_run_live(struct options *o, int argc, char **argv)
{
	const struct cpl_curlso *cu;
	struct cpl_error err = { 0 };
	struct cpl_engine *e;
	struct cpl_buf notes;
	const char *p, *nl;
	int status;

	/* libcurl is loaded only now; without it, one line says so before
	 * anything else (kubeconfig, cluster) can fail. */
	if (cpl_curlso_load(&cu, &err) < 0) {
		cpl_cli_say("kubectl-cpulint: error: %s", err.message);
		cpl_error_clear(&err);
		return EXIT_TROUBLE;
	}
	e = cpl_engine_new();
	cpl_buf_init(&notes, 1 << 20);
	load_config(o, e, ".");
	/* Exec plugins' stderr stays closed even with -v: their output may
	 * hold credentials. */
	if (o->verbose)
		o->lo.log = log_line;
	cpl_live_collect(e, o->live, o->nlive, &o->lo, &notes);
	cpl_engine_run(e);
	status = cpl_cli_report(o, e, NULL, argc, argv, stdout);
	for (p = cpl_buf_str(&notes); *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			break;
		cpl_cli_say("kubectl-cpulint: note: %.*s", (int)(nl - p), p);
	}
	cpl_buf_free(&notes);
	cpl_engine_free(e);
	return status;
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

/*
 * Reads standard input once, at most the engine's file limit (*buf NULL
 * and err set when it cannot): a stream of YAML/JSON documents (helm
 * template, kustomize build, kubectl get -o yaml), linted as one source
 * named <stdin>.
 */
static void
read_stdin(char **out, size_t *outlen, struct cpl_error *err)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = cpl_xmalloc(cap);
	ssize_t got;

	*out = NULL;
	*outlen = 0;
	for (;;) {
		if (len == cap) {
			if (cap > CPL_ENGINE_MAX_FILE_BYTES) {
				cpl_error_set(err, CLI_STDIN_NAME, 0, 0,
					      "standard input is larger than "
					      "the limit of %zu bytes",
					      CPL_ENGINE_MAX_FILE_BYTES);
				goto out;
			}
			cap *= 2;
			if (cap > CPL_ENGINE_MAX_FILE_BYTES)
				cap = CPL_ENGINE_MAX_FILE_BYTES + 1;
			buf = cpl_xrealloc(buf, cap);
		}
		got = read(STDIN_FILENO, buf + len, cap - len);
		if (got == 0)
			break;
		if (got < 0) {
			if (errno == EINTR)
				continue;
			cpl_error_set(err, CLI_STDIN_NAME, 0, 0, "cannot "
				      "read standard input: %s",
				      strerror(errno));
			goto out;
		}
		len += (size_t)got;
	}
	*out = buf;
	*outlen = len;
	buf = NULL;
out:
	free(buf);
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

	load_config(o, e, st->first);
	if (st->repo_err.message)
		cpl_engine_add_error(e, &st->repo_err);
	cpl_engine_set_repo(e, st->repo, o->staged);
	cpl_engine_set_jobs(e, o->jobs);
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
	return e;
}

/*
 * Opens the repository and reads standard input, once for every pass.
 * -1 after a message when the run cannot start.
 */
static int
static_open(struct cli_static *st, struct options *o, int argc,
	    char **argv)
{
	struct cpl_error err = { 0 };
	struct cpl_engine *probe;
	size_t i;

	memset(st, 0, sizeof(*st));
	st->o = o;
	st->argc = argc;
	st->argv = argv;
	/* Standard input has no directory: look from the current one. */
	st->first = strcmp(o->paths[0], CLI_STDIN) == 0 ? "." : o->paths[0];
	switch (cpl_repo_open(&st->repo, st->first, &err)) {
	case 0:
		break;
	case 1:
		if (o->staged || o->diff_base) {
			cpl_cli_say("kubectl-cpulint: %s: not in a git "
				    "repository, so %s cannot be used",
				    st->first, o->staged ? "--staged" :
				    "--diff-base");
			return -1;
		}
		break;
	default:
		if (o->staged || o->diff_base) {
			print_problem(&err, "error");
			cpl_error_clear(&err);
			return -1;
		}
		st->repo_err = err;
		memset(&err, 0, sizeof(err));
	}
	if (o->diff_base) {
		probe = cpl_engine_new();
		cpl_engine_set_repo(probe, st->repo, o->staged);
		if (cpl_engine_set_diff_base(probe, o->diff_base,
					     &err) < 0) {
			cpl_cli_say("kubectl-cpulint: --diff-base %s: %s",
				    o->diff_base, err.message);
			cpl_error_clear(&err);
			cpl_engine_free(probe);
			return -1;
		}
		cpl_engine_free(probe);
	}
	for (i = 0; i < o->npaths; i++) {
		if (strcmp(o->paths[i], CLI_STDIN) == 0) {
			read_stdin(&st->stdin_text, &st->stdin_len,
				   &st->stdin_err);
			break;
		}
	}
	return 0;
}

void
cpl_cli_static_close(struct cli_static *st)
{
	cpl_repo_free(st->repo);
	cpl_error_clear(&st->repo_err);
	cpl_error_clear(&st->stdin_err);
	free(st->stdin_text);
	memset(st, 0, sizeof(*st));
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

/*
 * The engine of a static run once its report is out: the process ends
 * next and its memory goes with it, so it is not freed block by block (a
 * twentieth of a run over a large tree).  It stays reachable from here,
 * so a leak checker counts it as held, not lost.  Sanitizer builds
 * (CPL_FREE_AT_EXIT: make asan, make tsan) free it, and the free path
 * stays checked; --fix and live runs always free theirs.
 */
#ifndef CPL_FREE_AT_EXIT
/* The engine held to the end (volatile: the compiler may not drop the
 * store as never read, so a leak checker still sees it). */
static struct cpl_engine *volatile held_engine;
#endif

static void
engine_done(struct cpl_engine *e)
{
#ifdef CPL_FREE_AT_EXIT
	cpl_engine_free(e);
#else
	held_engine = e;
#endif
}

/* Runs the static lint and reports; returns the exit status. */
int
cpl_cli_run_static(struct options *o, int argc, char **argv)
{
	struct cli_static st;
	struct cpl_engine *e;
	int status;

	if (cpl_cli_output_guard("output-file", o->output_file, o->paths,
				 o->npaths) < 0 ||
	    cpl_cli_output_guard("write-baseline", o->write_baseline,
				 o->paths, o->npaths) < 0)
		return EXIT_TROUBLE;
	if (static_open(&st, o, argc, argv) < 0) {
		cpl_cli_static_close(&st);
		return EXIT_TROUBLE;
	}
	if (o->fix || o->diff) {
		status = cpl_cli_run_fix(&st);
		cpl_cli_static_close(&st);
		return status;
	}
	e = cpl_cli_lint(&st, NULL, 0);
	if (o->verbose)
		cpl_cli_verbose(e);
	status = cpl_cli_report(o, e, st.repo ? cpl_repo_root(st.repo) :
				NULL, argc, argv, stdout);
	if (o->unsafe_fixes)
		cpl_cli_fix_hint(e);
	cpl_cli_no_files(e);
	engine_done(e);
	cpl_cli_static_close(&st);
	return status;
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
