/*
 * kubectl-cpulint — command line: flags, target classification, exit
 * status.  No lint logic lives here; see lib/engine.h.
 *
 * Exit status: 0 nothing at or above --fail-on; 1 findings at or above
 * it; 2 usage error, unreadable or invalid input, or cluster error (after
 * everything else has been reported).
 */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "live.h"
#include "repo.h"
#include "report.h"
#include "rule.h"
#include "util.h"

#define EXIT_CLEAN 0
#define EXIT_FINDINGS 1
#define EXIT_TROUBLE 2

/* Options, as documented in usage() and README.md. */
struct options {
	const char *format;	/* --format */
	const char *output;	/* -o */
	enum cpl_severity fail_on;	/* --fail-on */
	const char *config;	/* --config */
	bool no_config;		/* --no-config */
	const char *color;	/* --color auto|always|never */
	bool verbose;		/* -v */
	bool staged;		/* --staged: lint the index */
	bool ignore_unknown;	/* --ignore-unknown: named non-workloads
				 * are skipped, as in a directory walk */
	const char *diff_base;	/* --diff-base REF */
	const char **paths;	/* positional paths and -f */
	size_t npaths;
	const char **live;	/* TYPE/NAME targets */
	size_t nlive;
	struct cpl_live_opts lo;	/* live flags (kubectl's) */
	bool live_flags;	/* one of them was given */
};

static void
usage(FILE *out)
{
	fprintf(out,
"usage: kubectl-cpulint [flags] PATH...        lint files and directories\n"
"       kubectl cpulint [flags] TYPE/NAME...    lint live objects\n"
"  TYPE: pod (po), deploy, sts, ds, rs, job, cronjob (cj), pytorchjob,\n"
"  trainjob; a bare NAME is a Pod.  -l SEL or -A alone lint Pods.\n"
"\n"
"Static:\n"
"  -f, --filename PATH   lint PATH (file or directory); repeatable\n"
"      --config FILE     use FILE instead of the nearest .cpulint.yaml\n"
"      --no-config       ignore .cpulint.yaml files\n"
"      --ignore-unknown  skip named files that are not workloads (for\n"
"                        pre-commit, which passes every YAML file)\n"
"      --staged          lint the contents staged in the git index\n"
"      --diff-base REF   report only findings on lines changed since the\n"
"                        merge base of HEAD and REF\n"
"Live (kubectl's flags and KUBECONFIG):\n"
"      --kubeconfig FILE use FILE only\n"
"      --context NAME    use context NAME\n"
"      --cluster NAME    use cluster NAME\n"
"      --user NAME       use user NAME\n"
"  -n, --namespace NS    the namespace (default: the context's)\n"
"  -A, --all-namespaces  list Pods in every namespace\n"
"  -l, --selector SEL    lint the Pods matching a label selector\n"
"      --request-timeout DURATION  per request (0: none), e.g. 30s\n"
"      --insecure-skip-tls-verify  do not verify the server's certificate\n"
"      --sample DURATION read throttling counters twice, DURATION apart\n"
"Output:\n"
"      --format FMT      text (default), json, sarif or github\n"
"  -o, --output FILE     write the report to FILE instead of stdout\n"
"      --fail-on SEV     exit 1 on findings at or above SEV: error,\n"
"                        warning (default), note or none\n"
"      --color WHEN      auto (default: on a terminal, not with NO_COLOR),\n"
"                        always or never\n"
"  -v, --verbose         say what was read and loaded (to stderr)\n"
"Information:\n"
"      --explain ID      print the documentation of rule ID (or name)\n"
"      --list-rules      list the rules (--format json for JSON)\n"
"      --version         print the version\n"
"  -h, --help            print this help\n"
"\n"
"Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage error,\n"
"unreadable or invalid input (reported; other files are still linted).\n");
}

static int
list_rules(const char *format)
{
	const struct cpl_rule *const *rules;
	size_t n, i;

	rules = cpl_rules_all(&n);
	if (format && strcmp(format, "json") == 0) {
		json_t *a = json_array();

		for (i = 0; i < n; i++)
			json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s}",
				"id", rules[i]->id, "name", rules[i]->name,
				"severity",
				cpl_severity_name(rules[i]->severity),
				"summary", rules[i]->summary));
		json_dumpf(a, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(a);
		return EXIT_CLEAN;
	}
	for (i = 0; i < n; i++)
		printf("%-7s %-28s %-8s %s\n", rules[i]->id, rules[i]->name,
		       cpl_severity_name(rules[i]->severity),
		       rules[i]->summary);
	return EXIT_CLEAN;
}

static int
explain(const char *id)
{
	const struct cpl_rule *r = cpl_rule_find(id);
	const char *doc;

	if (r == NULL) {
		fprintf(stderr, "kubectl-cpulint: unknown rule \"%s\" "
			"(see --list-rules)\n", id);
		return EXIT_TROUBLE;
	}
	doc = cpl_rule_doc(r);
	if (doc == NULL)
		printf("%s %s (%s)\n\n%s\n", r->id, r->name,
		       cpl_severity_name(r->severity), r->summary);
	else
		fputs(doc, stdout);
	return EXIT_CLEAN;
}

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

static void
print_errors(const struct cpl_engine *e)
{
	const struct cpl_error *errs;
	size_t n, i;

	errs = cpl_engine_errors(e, &n);
	for (i = 0; i < n; i++) {
		if (errs[i].path && errs[i].line > 0)
			fprintf(stderr, "%s:%d:%d: error: %s\n", errs[i].path,
				errs[i].line, errs[i].column > 0 ?
				errs[i].column : 1, errs[i].message);
		else if (errs[i].path)
			fprintf(stderr, "%s: error: %s\n", errs[i].path,
				errs[i].message);
		else
			fprintf(stderr, "kubectl-cpulint: error: %s\n",
				errs[i].message);
	}
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
static int
run_live(struct options *o, int argc, char **argv)
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
static int
run_static(struct options *o, int argc, char **argv)
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

/*
 * A live target: TYPE/NAME with a known TYPE, or a bare name (a Pod).  An
 * argument that exists, or looks like a file (a YAML/JSON/Python name, a
 * path whose first part is not a resource type), is a path, so a typo
 * gives "cannot read", not a cluster lookup.
 */
static bool
looks_live(const char *arg)
{
	struct stat st;
	const char *slash = strchr(arg, '/');
	char *type;
	bool live;

	if (stat(arg, &st) == 0)
		return false;
	if (cpl_str_ends(arg, ".yaml") || cpl_str_ends(arg, ".yml") ||
	    cpl_str_ends(arg, ".json") || cpl_str_ends(arg, ".py"))
		return false;
	if (slash == NULL)
		return true;
	type = cpl_xstrndup(arg, (size_t)(slash - arg));
	live = cpl_live_is_type(type);
	free(type);
	return live;
}

int
main(int argc, char **argv)
{
	enum {
		OPT_FORMAT = 256, OPT_FAIL_ON, OPT_CONFIG, OPT_NO_CONFIG,
		OPT_EXPLAIN, OPT_LIST_RULES, OPT_VERSION, OPT_COLOR,
		OPT_STAGED, OPT_DIFF_BASE, OPT_IGNORE_UNKNOWN,
		OPT_KUBECONFIG, OPT_CONTEXT, OPT_CLUSTER, OPT_USER,
		OPT_REQUEST_TIMEOUT, OPT_INSECURE, OPT_SAMPLE,
	};
	static const struct option longopts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "staged", no_argument, NULL, OPT_STAGED },
		{ "ignore-unknown", no_argument, NULL, OPT_IGNORE_UNKNOWN },
		{ "diff-base", required_argument, NULL, OPT_DIFF_BASE },
		{ "explain", required_argument, NULL, OPT_EXPLAIN },
		{ "list-rules", no_argument, NULL, OPT_LIST_RULES },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "kubeconfig", required_argument, NULL, OPT_KUBECONFIG },
		{ "context", required_argument, NULL, OPT_CONTEXT },
		{ "cluster", required_argument, NULL, OPT_CLUSTER },
		{ "user", required_argument, NULL, OPT_USER },
		{ "namespace", required_argument, NULL, 'n' },
		{ "all-namespaces", no_argument, NULL, 'A' },
		{ "selector", required_argument, NULL, 'l' },
		{ "request-timeout", required_argument, NULL,
		  OPT_REQUEST_TIMEOUT },
		{ "insecure-skip-tls-verify", no_argument, NULL, OPT_INSECURE },
		{ "sample", required_argument, NULL, OPT_SAMPLE },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .format = "text", .fail_on = CPL_SEV_WARNING,
			     .color = "auto" };
	const char *explain_id = NULL;
	bool list = false;
	int c, i, status;

	o.paths = cpl_xcalloc((size_t)argc + 1, sizeof(*o.paths));
	o.live = cpl_xcalloc((size_t)argc + 1, sizeof(*o.live));
	while ((c = getopt_long(argc, argv, "f:o:vhn:Al:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			o.paths[o.npaths++] = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			usage(stdout);
			status = EXIT_CLEAN;
			goto out;
		case OPT_FORMAT:
			o.format = optarg;
			break;
		case OPT_FAIL_ON:
			if (cpl_severity_parse(&o.fail_on, optarg) < 0) {
				fprintf(stderr, "kubectl-cpulint: --fail-on "
					"takes error, warning, note or none, "
					"not \"%s\"\n", optarg);
				status = EXIT_TROUBLE;
				goto out;
			}
			break;
		case OPT_CONFIG:
			o.config = optarg;
			break;
		case OPT_NO_CONFIG:
			o.no_config = true;
			break;
		case OPT_COLOR:
			if (strcmp(optarg, "auto") != 0 &&
			    strcmp(optarg, "always") != 0 &&
			    strcmp(optarg, "never") != 0) {
				fprintf(stderr, "kubectl-cpulint: --color "
					"takes auto, always or never\n");
				status = EXIT_TROUBLE;
				goto out;
			}
			o.color = optarg;
			break;
		case OPT_KUBECONFIG:
			o.lo.kube.kubeconfig = optarg;
			o.live_flags = true;
			break;
		case OPT_CONTEXT:
			o.lo.kube.context = optarg;
			o.live_flags = true;
			break;
		case OPT_CLUSTER:
			o.lo.kube.cluster = optarg;
			o.live_flags = true;
			break;
		case OPT_USER:
			o.lo.kube.user = optarg;
			o.live_flags = true;
			break;
		case 'n':
			o.lo.kube.namespace = optarg;
			o.live_flags = true;
			break;
		case 'A':
			o.lo.all_namespaces = true;
			o.live_flags = true;
			break;
		case 'l':
			o.lo.selector = optarg;
			o.live_flags = true;
			break;
		case OPT_REQUEST_TIMEOUT:
			o.lo.kube.request_timeout = optarg;
			o.live_flags = true;
			break;
		case OPT_INSECURE:
			o.lo.kube.insecure_skip_tls_verify = true;
			o.live_flags = true;
			break;
		case OPT_SAMPLE:
			if (cpl_live_parse_duration(&o.lo.sample_seconds,
						    optarg) < 0 ||
			    o.lo.sample_seconds > 3600) {
				fprintf(stderr, "kubectl-cpulint: --sample "
					"takes a duration such as 30s or 1m "
					"(at most 1h), not \"%s\"\n", optarg);
				status = EXIT_TROUBLE;
				goto out;
			}
			o.live_flags = true;
			break;
		case OPT_STAGED:
			o.staged = true;
			break;
		case OPT_IGNORE_UNKNOWN:
			o.ignore_unknown = true;
			break;
		case OPT_DIFF_BASE:
			o.diff_base = optarg;
			break;
		case OPT_EXPLAIN:
			explain_id = optarg;
			break;
		case OPT_LIST_RULES:
			list = true;
			break;
		case OPT_VERSION:
			printf("kubectl-cpulint %s\n", CPL_VERSION);
			status = EXIT_CLEAN;
			goto out;
		default:
			fprintf(stderr, "Try 'kubectl-cpulint --help'.\n");
			status = EXIT_TROUBLE;
			goto out;
		}
	}
	if (explain_id) {
		status = explain(explain_id);
		goto out;
	}
	if (list) {
		status = list_rules(o.format);
		goto out;
	}
	if (strcmp(o.format, "json") != 0 &&
	    cpl_reporter_find(o.format) == NULL) {
		fprintf(stderr, "kubectl-cpulint: --format takes %s, not "
			"\"%s\"\n", cpl_reporter_names(), o.format);
		status = EXIT_TROUBLE;
		goto out;
	}
	for (i = optind; i < argc; i++) {
		if (looks_live(argv[i]) && !o.staged)
			o.live[o.nlive++] = argv[i];
		else
			o.paths[o.npaths++] = argv[i];
	}
	if (o.nlive > 0 && o.npaths > 0) {
		fprintf(stderr, "kubectl-cpulint: \"%s\" is neither a file nor "
			"a directory, and live targets (TYPE/NAME) cannot be "
			"mixed with paths\n", o.live[0]);
		status = EXIT_TROUBLE;
		goto out;
	}
	if (o.nlive > 0 || (o.npaths == 0 && (o.lo.selector ||
						o.lo.all_namespaces))) {
		if (o.staged || o.diff_base) {
			fprintf(stderr, "kubectl-cpulint: --staged and "
				"--diff-base work on files, not on live "
				"objects (\"%s\" is not a file)\n",
				o.nlive ? o.live[0] : "-l/-A");
			status = EXIT_TROUBLE;
			goto out;
		}
		status = run_live(&o, argc, argv);
		goto out;
	}
	if (o.live_flags && o.npaths > 0) {
		fprintf(stderr, "kubectl-cpulint: cluster flags (--kubeconfig, "
			"-n, -l, -A, ...) apply to live targets, not to "
			"paths\n");
		status = EXIT_TROUBLE;
		goto out;
	}
	if (o.npaths == 0 && (o.staged || o.diff_base))
		o.paths[o.npaths++] = ".";
	if (o.npaths == 0) {
		usage(stderr);
		status = EXIT_TROUBLE;
		goto out;
	}
	status = run_static(&o, argc, argv);
out:
	free(o.paths);
	free(o.live);
	return status;
}
