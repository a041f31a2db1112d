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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "live.h"
#include "report/report.h"
#include "rule.h"
#include "util.h"

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
"  -v, --verbose         say what was loaded, merged and skipped (stderr)\n"
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
		status = cpl_cli_run_live(&o, argc, argv);
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
	status = cpl_cli_run_static(&o, argc, argv);
out:
	free(o.paths);
	free(o.live);
	return status;
}
