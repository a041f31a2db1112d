/*
 * compare.c — `kubectl cpulint compare [flags] -l cpulint.io/plan=ID |
 * TYPE/NAME... | experiment/NAME`: the runs of a plan, one row per
 * setting (lib/plan/compare.h) and the verdict of the guidance's rules
 * (lib/plan/verdict.h), as text with a chart (comparechart.c), JSON
 * (-o json) or an HTML page (-o html); --plot FILE writes the chart as
 * an SVG; with --fix FILE or
 * --diff FILE the best setting is kept in FILE (keep.c).  Exit status: 0
 * with a verdict, 2 on a usage or cluster error, when Prometheus fails
 * or has no figure for any run (nothing to compare); with --fix/--diff
 * FILE, keep.c's.  --output-file never names FILE.
 */
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "plan/compare.h"
#include "plan/verdict.h"
#include "report/escape.h"
#include "run/engine.h"

#define THRESHOLD 10.0	/* the throttling threshold, as CPU501's */

static void
log_line(void *ctx, const char *line)
{
	(void)ctx;
	cpl_cli_say("kubectl-cpulint compare: %s", line);
}

/* Reads the flags into o (flags.c's compare row and the shared ones);
 * -1 (status set) to stop. */
static int
parse(struct options *o, int argc, char **argv, int *status)
{
	struct cli_walk w;
	const struct cli_flag *f;
	enum cli_next next = CLI_END;
	int rc = 0;

	*status = EXIT_TROUBLE;
	cpl_cli_walk_begin(&w, cpl_cli_sub_find("compare"));
	while (rc == 0 && (next = cpl_cli_flag_next(&w, o, argc, argv,
						    &f)) == CLI_FLAG) {
		switch (f->id) {
		case 'o':
			if (strcmp(optarg, "text") != 0 &&
			    strcmp(optarg, "json") != 0 &&
			    strcmp(optarg, "html") != 0) {
				cpl_cli_say("kubectl-cpulint compare: -o takes "
					    "text, json or html, not \"%s\"",
					    optarg);
				rc = -1;
			}
			break;
		case OPT_KEEP_FIX:
		case OPT_KEEP_DIFF:
			if (o->keep && (strcmp(o->keep, optarg) != 0 ||
					o->keep_diff !=
					(f->id == OPT_KEEP_DIFF))) {
				cpl_cli_say("kubectl-cpulint compare: give one "
					    "of --fix FILE and --diff FILE");
				rc = -1;
			}
			o->keep = optarg;
			o->keep_diff = f->id == OPT_KEEP_DIFF;
			break;
		case 'h':
			cpl_cli_sub_usage(stdout, w.sub);
			*status = EXIT_CLEAN;
			rc = -1;
			break;
		default:
			break;
		}
	}
	if (rc == 0 && next == CLI_UNKNOWN)
		cpl_cli_say("kubectl-cpulint compare: unknown or incomplete "
			    "option \"%s\" (see compare --help)",
			    argv[optind - 1]);
	if (rc == 0 && next != CLI_END)
		rc = -1;
	cpl_cli_walk_end(&w);
	return rc;
}

/* A figure for the table: "-" when unknown. */
static void
cell(char *out, size_t size, const char *fmt, double v)
{
	if (v < 0)
		cpl_format(out, size, "-");
	else
		cpl_format(out, size, fmt, v);
}

static void
text(FILE *fp, const struct cpl_compare *c, const struct cpl_verdict *v,
     bool color)
{
	struct cpl_buf b;
	bool runs = false;
	size_t i;

	/* plan --repeat: each row the median of its runs, and their
	 * throughput from the lowest to the highest */
	for (i = 0; i < c->nrows; i++)
		runs = runs || c->rows[i].r.runs > 1;
	cpl_buf_init(&b, 0);
	cpl_buf_addf(&b, "%-16s %7s %7s %11s %6s %14s %9s %7s%s\n", "SETTING",
		     "THREADS", "WORKERS", "EXAMPLES/S", "WAIT", "CPU USED",
		     "THROTTLED", "PODS", runs ? "  RUNS  EXAMPLES/S RANGE" :
		     "");
	for (i = 0; i < c->nrows; i++) {
		const struct cpl_compare_row *r = &c->rows[i];
		char ex[32], wt[16], cpu[40], thr[16], used[16], bud[16];
		char wk[24];
		size_t len = strlen(r->setting);

		cell(ex, sizeof(ex), "%.1f", r->r.throughput);
		cell(wt, sizeof(wt), "%.0f%%", r->r.wait < 0 ? -1 :
		     r->r.wait * 100);
		cell(used, sizeof(used), "%.1f", r->r.cpu_used);
		cell(bud, sizeof(bud), "%g", r->r.cpu_budget);
		cpl_format(cpu, sizeof(cpu), "%s of %s", used, bud);
		cell(thr, sizeof(thr), "%.0f%%", r->r.throttled);
		cell(wk, sizeof(wk), "%.0f", r->r.workers < 0 ? -1 :
		     (double)r->r.workers);
		cpl_escape_str(&b, r->setting, 0);
		cpl_buf_addf(&b, "%*s %7ld %7s %11s %6s %14s %9s %7zu",
			     (int)(len < 16 ? 16 - len : 0), "",
			     r->r.threads, wk, ex, wt, cpu, thr, r->pods);
		if (runs && r->r.throughput_min >= 0)
			cpl_buf_addf(&b, " %5zu  %.1f-%.1f", r->r.runs,
				     r->r.throughput_min, r->r.throughput_max);
		else if (runs)
			cpl_buf_addf(&b, " %5zu  -", r->r.runs);
		cpl_buf_addc(&b, '\n');
	}
	cpl_cli_compare_chart(&b, c, v, color);
	fputs(cpl_buf_str(&b), fp);
	cpl_buf_free(&b);
	fputs("verdict:\n", fp);
	for (i = 0; i < v->nlines; i++) {
		cpl_buf_init(&b, 0);
		cpl_escape_str(&b, v->lines[i].text, 0);
		fprintf(fp, "  %s\n", cpl_buf_str(&b));
		cpl_buf_free(&b);
	}
}

static json_t *
num(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

static void
json_out(FILE *fp, const struct cpl_compare *c, const struct cpl_verdict *v)
{
	json_t *rows = json_array(), *lines = json_array(), *doc;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct cpl_compare_row *r = &c->rows[i];

		json_array_append_new(rows, json_pack(
			"{s:s,s:o,s:o,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,"
			"s:o}",
			"setting", r->setting,
			"threads", r->r.threads < 0 ? json_null() :
				   json_integer(r->r.threads),
			"workers", r->r.workers < 0 ? json_null() :
				   json_integer(r->r.workers),
			"pods", (json_int_t)r->pods,
			"runs", (json_int_t)r->r.runs,
			"examples_per_s", num(r->r.throughput),
			"examples_per_s_min", num(r->r.throughput_min),
			"examples_per_s_max", num(r->r.throughput_max),
			"wait_pct", num(r->r.wait < 0 ? -1 :
					r->r.wait * 100),
			"cpu_used", num(r->r.cpu_used),
			"cpu_budget", num(r->r.cpu_budget),
			"throttled_pct", num(r->r.throttled),
			"threads_measured", num(r->threads_seen),
			"window_s", num(r->window)));
	}
	for (i = 0; i < v->nlines; i++)
		json_array_append_new(lines, json_pack("{s:s,s:s}", "kind",
			v->lines[i].kind, "message", v->lines[i].text));
	doc = json_pack("{s:i,s:o,s:o,s:s,s:o,s:o}", "version", 1,
		"plan", c->plan ? json_string(c->plan) : json_null(),
		"rows", rows, "ranked_by", v->by_throughput ? "throughput" :
		"throttling", "best", v->best < 0 ? json_null() :
		json_string(c->rows[v->best].setting), "verdict", lines);
	json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', fp);
	json_decref(doc);
}

/* Refuses (-1, said) an --output-file that is the .cpulint.yaml the
 * lint of --fix/--diff FILE reads (comparefix.c finds it the same way). */
static int
keep_config_guard(const struct options *o)
{
	struct cpl_engine *e;
	struct cpl_error err = { 0 };
	struct stat st;
	char *dir;
	bool read;

	if (o->keep == NULL || o->output_file == NULL ||
	    stat(o->output_file, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	e = cpl_engine_new();
	dir = cpl_xstrdup(o->keep);
	cpl_engine_find_config(e, dirname(dir), &err);
	cpl_error_clear(&err);
	read = cpl_engine_judged_file(e, o->output_file, &st);
	free(dir);
	cpl_engine_free(e);
	if (!read)
		return 0;
	cpl_cli_say("kubectl-cpulint: --output-file %s is the configuration "
		    "the lint of %s reads: the report would replace it (write "
		    "the report elsewhere)", o->output_file, o->keep);
	return -1;
}

/* Whether any row has a figure measured (not only its settings). */
static bool
any_figure(const struct cpl_compare *c)
{
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct cpl_verdict_row *r = &c->rows[i].r;

		if (r->throughput >= 0 || r->wait >= 0 || r->cpu_used >= 0 ||
		    r->throttled >= 0 || c->rows[i].threads_seen >= 0)
			return true;
	}
	return false;
}

/* NO_COLOR set to anything but "" (no-color.org). */
static bool
no_color(void)
{
	const char *e = getenv("NO_COLOR");

	return e != NULL && *e != '\0';
}

/* -o html: a page with the chart, the table and the verdict. */
static void
html(FILE *fp, const struct cpl_compare *c, const struct cpl_verdict *v)
{
	struct cpl_buf b;

	cpl_buf_init(&b, 0);
	cpl_cli_compare_html(&b, c, v);
	fputs(cpl_buf_str(&b), fp);
	cpl_buf_free(&b);
}

/* --plot FILE: the chart as an SVG, written whole or not at all. */
static int
plot(const char *file, const struct cpl_compare *c,
     const struct cpl_verdict *v)
{
	struct cli_output out = { 0 };
	struct cpl_buf b;

	if (cpl_cli_output_open(&out, file, stdout) < 0)
		return -1;
	cpl_buf_init(&b, 0);
	cpl_cli_compare_svg(&b, c, v);
	fputs(cpl_buf_str(&b), out.fp);
	cpl_buf_free(&b);
	return cpl_cli_output_close(&out, ferror(out.fp) != 0);
}

int
cpl_cli_compare(int argc, char **argv)
{
	struct options o = { .format = "text" };
	struct cpl_compare_opts co = { 0 };
	struct cpl_compare c = { 0 };
	struct cpl_verdict v = { 0 };
	struct cpl_error err = { 0 };
	struct cli_output out = { 0 };
	struct cpl_verdict_row *rows = NULL;
	const char *nl, *p;
	size_t i;
	int status;

	if (parse(&o, argc, argv, &status) < 0)
		return status;
	status = EXIT_TROUBLE;
	if (o.plot && o.keep &&
	    cpl_cli_output_guard("plot", o.plot, &o.keep, 1) < 0)
		return status;
	if (optind >= argc && o.lo.selector == NULL) {
		cpl_cli_say("kubectl-cpulint compare: name the runs: -l "
			    "cpulint.io/plan=ID, TYPE/NAME... or "
			    "experiment/NAME (see compare --help)");
		return status;
	}
	/* --fix FILE or --diff FILE is an input, and so is the
	 * .cpulint.yaml its lint reads: the table never replaces them. */
	if (cpl_cli_output_guard("output-file", o.output_file, &o.keep,
				 1) < 0 || keep_config_guard(&o) < 0)
		return status;
	if (o.lo.prometheus.url == NULL && getenv("CPULINT_PROMETHEUS_URL") &&
	    *getenv("CPULINT_PROMETHEUS_URL"))
		o.lo.prometheus.url = getenv("CPULINT_PROMETHEUS_URL");
	if (o.verbose)
		o.lo.log = log_line;
	co.lo = &o.lo;
	co.throughput = o.throughput;
	co.wait = o.wait;
	co.now = (double)time(NULL);
	if (cpl_compare_run(&c, (const char *const *)argv + optind,
			    (size_t)(argc - optind), &co, &err) < 0) {
		cpl_cli_say("kubectl-cpulint compare: %s", err.message);
		cpl_error_clear(&err);
		goto out;
	}
	for (p = cpl_buf_str(&c.notes); *p; p = nl + 1) {
		struct cpl_buf line;

		nl = strchr(p, '\n');
		if (nl == NULL)
			break;
		cpl_buf_init(&line, 0);
		cpl_escape(&line, p, (size_t)(nl - p), 0);
		cpl_cli_say("kubectl-cpulint compare: %s", cpl_buf_str(&line));
		cpl_buf_free(&line);
	}
	if (!any_figure(&c)) {
		cpl_cli_say("kubectl-cpulint compare: Prometheus has no figure "
			    "for any run: nothing to compare (are the runs' "
			    "series scraped, and is --prometheus the server "
			    "that scrapes them?)");
		goto out;
	}
	rows = cpl_xcalloc(c.nrows + 1, sizeof(*rows));
	for (i = 0; i < c.nrows; i++)
		rows[i] = c.rows[i].r;
	cpl_verdict_judge(&v, rows, c.nrows, THRESHOLD);
	/* --diff FILE: standard output is the diff's; the table goes only
	 * to --output-file. */
	if (!o.keep_diff || o.output_file) {
		if (cpl_cli_output_open(&out, o.output_file, stdout) < 0)
			goto out;
		if (strcmp(o.format, "json") == 0)
			json_out(out.fp, &c, &v);
		else if (strcmp(o.format, "html") == 0)
			html(out.fp, &c, &v);
		else
			text(out.fp, &c, &v, o.output_file == NULL &&
			     isatty(fileno(out.fp)) && !no_color());
		if (cpl_cli_output_close(&out, ferror(out.fp) != 0) < 0)
			goto out;
	}
	if (o.plot && plot(o.plot, &c, &v) < 0)
		goto out;
	status = o.keep ? cpl_cli_compare_keep(o.keep, o.keep_diff, &c, &v) :
		 EXIT_CLEAN;
out:
	free(rows);
	cpl_verdict_free(&v);
	cpl_compare_free(&c);
	return status;
}
