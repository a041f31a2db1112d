/*
 * flags.c — the one table of the command's flags.  getopt's options,
 * --help, shell completion and the manual page (tools/genman.c) are all
 * made from it, so none of them can drift from the others; README.md's
 * flag table is checked against --help by tests/e2e/readme.sh.  Each
 * row also says where its value goes in struct options and how it is
 * checked (flagset.c stores it), and which subcommands take it.  The
 * subcommands are one table here too: their words, their own flags and
 * the function that runs each, which main() dispatches to.
 */
#include <stddef.h>
#include <string.h>

#include "cli.h"

/* Where a flag's value goes in struct options. */
#define AT(member) offsetof(struct options, member)

/* The table's also is 0 for "none": no bool lives there. */
_Static_assert(offsetof(struct options, format) == 0,
	       "struct options starts with a pointer, not a bool");

static const char *const colors[] = { "auto", "always", "never", NULL };

static const struct cli_flag flags[] = {
	{ 'f', 'f', "filename", "PATH", CLI_FILE, "Static",
	  "lint PATH (file or directory; - reads one stream\n"
	  "of YAML/JSON documents from standard input);\n"
	  "repeatable",
	  .kind = CLI_STRS, .dest = AT(paths), .count = AT(npaths) },
	{ OPT_CONFIG, 0, "config", "FILE", CLI_FILE, NULL,
	  "use FILE instead of the nearest .cpulint.yaml",
	  .kind = CLI_STR, .dest = AT(config), .subs = CLI_PLAN },
	{ OPT_NO_CONFIG, 0, "no-config", NULL, CLI_NONE, NULL,
	  "ignore .cpulint.yaml files",
	  .kind = CLI_BOOL, .dest = AT(no_config), .subs = CLI_PLAN },
	{ OPT_IGNORE_UNKNOWN, 0, "ignore-unknown", NULL, CLI_NONE, NULL,
	  "skip named files that are not workloads (for\n"
	  "pre-commit, which passes every YAML file)",
	  .kind = CLI_BOOL, .dest = AT(ignore_unknown) },
	{ OPT_STAGED, 0, "staged", NULL, CLI_NONE, NULL,
	  "lint the contents staged in the git index",
	  .kind = CLI_BOOL, .dest = AT(staged) },
	{ OPT_DIFF_BASE, 0, "diff-base", "REF", CLI_TEXT, NULL,
	  "report only findings on lines changed since the\n"
	  "merge base of HEAD and REF",
	  .kind = CLI_STR, .dest = AT(diff_base) },
	{ OPT_BASELINE, 0, "baseline", "FILE", CLI_FILE, NULL,
	  "report only findings not in FILE (written by\n"
	  "--write-baseline, or a SARIF log of this tool;\n"
	  "matched by fingerprint, so moved lines match)",
	  .kind = CLI_STR, .dest = AT(baseline) },
	{ OPT_WRITE_BASELINE, 0, "write-baseline", "FILE", CLI_FILE, NULL,
	  "write every finding to FILE as the baseline; the\n"
	  "findings then do not fail the run (exit 0)",
	  .kind = CLI_STR, .dest = AT(write_baseline) },
	{ OPT_HELM_VALUES, 0, "helm-values", "FILE", CLI_FILE, NULL,
	  "render the Helm charts a walk meets with FILE's\n"
	  "values over the chart's own (helm's -f);\n"
	  "repeatable, later files win",
	  .kind = CLI_STRS, .dest = AT(helm), .count = AT(nhelm),
	  .tag = 'f' },
	{ OPT_HELM_SET, 0, "helm-set", "K=V", CLI_TEXT, NULL,
	  "and with K=V over those (as helm's set flag:\n"
	  "dotted keys); repeatable",
	  .kind = CLI_STRS, .dest = AT(helm), .count = AT(nhelm),
	  .tag = 's' },
	{ OPT_FIX, 0, "fix", NULL, CLI_NONE, "Fixing",
	  "apply the safe fixes in place, then report\n"
	  "what is left (with -f -: the fixed text to stdout)",
	  .kind = CLI_BOOL, .dest = AT(fix) },
	{ OPT_UNSAFE_FIXES, 0, "unsafe-fixes", NULL, CLI_NONE, NULL,
	  "with --fix or --diff: unsafe fixes too (CPU\n"
	  "requests, limits); alone: count them",
	  .kind = CLI_BOOL, .dest = AT(unsafe_fixes) },
	{ OPT_DIFF, 0, "diff", NULL, CLI_NONE, NULL,
	  "print the unified diff --fix would make and\n"
	  "write nothing (exit 1 when there is one; names\n"
	  "quoted as git does)",
	  .kind = CLI_BOOL, .dest = AT(diff) },
	{ OPT_FORCE, 0, "force", NULL, CLI_NONE, NULL,
	  "with --fix: also rewrite read-only files (mode\n"
	  "kept), and hard-linked files or files whose\n"
	  "owner a rewrite cannot keep (written in place)",
	  .kind = CLI_BOOL, .dest = AT(force) },
	{ OPT_KUBECONFIG, 0, "kubeconfig", "FILE", CLI_FILE,
	  "Live (kubectl's flags and KUBECONFIG)",
	  "use FILE only",
	  .kind = CLI_STR, .dest = AT(lo.kube.kubeconfig), .mark = CLI_MARK_LIVE, .subs = CLI_COMPARE },
	{ OPT_CONTEXT, 0, "context", "NAME", CLI_TEXT, NULL,
	  "use context NAME",
	  .kind = CLI_STR, .dest = AT(lo.kube.context), .mark = CLI_MARK_LIVE, .subs = CLI_COMPARE },
	{ OPT_CLUSTER, 0, "cluster", "NAME", CLI_TEXT, NULL,
	  "use cluster NAME",
	  .kind = CLI_STR, .dest = AT(lo.kube.cluster), .mark = CLI_MARK_LIVE, .subs = CLI_COMPARE },
	{ OPT_USER, 0, "user", "NAME", CLI_TEXT, NULL,
	  "use user NAME",
	  .kind = CLI_STR, .dest = AT(lo.kube.user), .mark = CLI_MARK_LIVE, .subs = CLI_COMPARE },
	{ 'n', 'n', "namespace", "NS", CLI_NAMESPACE, NULL,
	  "the namespace (default: the context's)",
	  .kind = CLI_STR, .dest = AT(lo.kube.namespace), .mark = CLI_MARK_LIVE,
	  .subs = CLI_COMPARE },
	{ 'A', 'A', "all-namespaces", NULL, CLI_NONE, NULL,
	  "list Pods in every namespace",
	  .kind = CLI_BOOL, .dest = AT(lo.all_namespaces), .mark = CLI_MARK_LIVE },
	{ 'l', 'l', "selector", "SEL", CLI_TEXT, NULL,
	  "lint the Pods matching a label selector",
	  .kind = CLI_STR, .dest = AT(lo.selector), .mark = CLI_MARK_LIVE, .subs = CLI_COMPARE },
	{ OPT_REQUEST_TIMEOUT, 0, "request-timeout", "DURATION", CLI_TEXT,
	  NULL, "limit per request (0: none), e.g. 30s",
	  .kind = CLI_STR, .dest = AT(lo.kube.request_timeout),
	  .mark = CLI_MARK_LIVE, .subs = CLI_COMPARE },
	{ OPT_INSECURE, 0, "insecure-skip-tls-verify", NULL, CLI_NONE, NULL,
	  "do not verify the server's certificate",
	  .kind = CLI_BOOL,
	  .dest = AT(lo.kube.insecure_skip_tls_verify), .mark = CLI_MARK_LIVE,
	  .subs = CLI_COMPARE },
	{ OPT_SAMPLE, 0, "sample", "DURATION", CLI_TEXT, NULL,
	  "read throttling counters twice, DURATION apart",
	  .kind = CLI_DUR, .dest = AT(lo.sample_seconds), .max = 3600,
	  .takes = "a duration such as 30s or 1m (at most 1h)", .mark = CLI_MARK_LIVE },
	{ OPT_LIVE_TIMEOUT, 0, "live-timeout", "DURATION", CLI_TEXT, NULL,
	  "limit for the whole live run (0: none; default 5m)",
	  .kind = CLI_DUR, .dest = AT(lo.run_timeout_seconds),
	  .also = AT(lo.run_timeout_set),
	  .takes = "a duration such as 90s or 10m (0: no limit)", .mark = CLI_MARK_LIVE,
	  .subs = CLI_COMPARE },
	{ OPT_PROMETHEUS, 0, "prometheus", "URL", CLI_TEXT, NULL,
	  "measure from this Prometheus instead of the\n"
	  "kubelets (default: $CPULINT_PROMETHEUS_URL)",
	  .kind = CLI_STR, .dest = AT(lo.prometheus.url), .mark = CLI_MARK_LIVE, .subs = CLI_COMPARE },
	{ OPT_WINDOW, 0, "window", "DURATION", CLI_TEXT, NULL,
	  "Prometheus: measure over the last DURATION\n"
	  "(default 1h)",
	  .kind = CLI_DUR, .dest = AT(lo.window_seconds), .min = 1,
	  .takes = "a duration such as 1h or 30m", .mark = CLI_MARK_LIVE },
	{ OPT_PROM_TOKEN, 0, "prometheus-token-file", "FILE", CLI_FILE, NULL,
	  "Prometheus: send the bearer token in FILE",
	  .kind = CLI_STR, .dest = AT(lo.prometheus.token_file), .mark = CLI_MARK_LIVE,
	  .subs = CLI_COMPARE },
	{ OPT_PROM_CA, 0, "prometheus-ca", "FILE", CLI_FILE, NULL,
	  "Prometheus: verify its certificate with FILE",
	  .kind = CLI_STR, .dest = AT(lo.prometheus.ca_file), .mark = CLI_MARK_LIVE,
	  .subs = CLI_COMPARE },
	{ OPT_PROM_INSECURE, 0, "prometheus-insecure-skip-tls-verify", NULL,
	  CLI_NONE, NULL,
	  "Prometheus: do not verify its certificate",
	  .kind = CLI_BOOL,
	  .dest = AT(lo.prometheus.insecure), .mark = CLI_MARK_LIVE, .subs = CLI_COMPARE },
	{ OPT_LISTEN, 0, "listen", "ADDR:PORT", CLI_TEXT,
	  "Serve (kubectl-cpulint serve; docs/serve.md)",
	  "serve HTTPS here (default 0.0.0.0:8443)",
	  .kind = CLI_STR, .dest = AT(listen), .mark = CLI_MARK_SERVE },
	{ OPT_TLS_CERT, 0, "tls-cert-file", "FILE", CLI_FILE, NULL,
	  "serve: PEM certificate (reloaded when it changes)",
	  .kind = CLI_STR, .dest = AT(tls_cert), .mark = CLI_MARK_SERVE },
	{ OPT_TLS_KEY, 0, "tls-private-key-file", "FILE", CLI_FILE, NULL,
	  "serve: PEM private key (reloaded when it changes)",
	  .kind = CLI_STR, .dest = AT(tls_key), .mark = CLI_MARK_SERVE },
	{ OPT_DENY_ON, 0, "deny-on", "SEV", CLI_SEVERITY, NULL,
	  "serve: refuse objects with findings at or above\n"
	  "SEV (default: never refuse, only warn)",
	  .kind = CLI_SEV, .dest = AT(deny_on), .mark = CLI_MARK_SERVE },
	{ OPT_MUTATE, 0, "mutate", NULL, CLI_NONE, NULL,
	  "serve: answer /mutate with a JSONPatch setting the\n"
	  "suggested thread variables (docs/serve.md)",
	  .kind = CLI_BOOL, .dest = AT(mutate), .mark = CLI_MARK_SERVE },
	{ OPT_MUTATE_DRY_RUN, 0, "mutate-dry-run", NULL, CLI_NONE, NULL,
	  "serve: /mutate only annotates what it would set",
	  .kind = CLI_BOOL, .dest = AT(mutate_dry_run),
	  .also = AT(mutate), .mark = CLI_MARK_SERVE },
	{ OPT_NO_AUDIT, 0, "no-audit", NULL, CLI_NONE, NULL,
	  "serve: the webhook only (no audit, no cluster reads)",
	  .kind = CLI_BOOL, .dest = AT(no_audit), .mark = CLI_MARK_SERVE },
	{ OPT_AUDIT_INTERVAL, 0, "audit-interval", "DURATION", CLI_TEXT, NULL,
	  "serve: time between full lists of the Pods under the watch (default 1m)",
	  .kind = CLI_DUR, .dest = AT(audit_interval), .min = 1,
	  .takes = "a duration such as 30s or 5m", .mark = CLI_MARK_SERVE },
	{ OPT_NODE_PROXY, 0, "node-proxy", NULL, CLI_NONE, NULL,
	  "serve: measure through the kubelets' cAdvisor\n"
	  "(nodes/proxy, which also allows exec: deploy/\n"
	  "rbac-node-proxy.yaml); default: --prometheus or\n"
	  "nothing",
	  .kind = CLI_BOOL, .dest = AT(node_proxy), .mark = CLI_MARK_SERVE },
	{ OPT_LEADER_ELECT, 0, "leader-elect", NULL, CLI_NONE, NULL,
	  "serve: audit only in the replica that holds the\n"
	  "Lease kubectl-cpulint (replicas > 1)",
	  .kind = CLI_BOOL, .dest = AT(leader_elect), .mark = CLI_MARK_SERVE },
	{ OPT_LEASE_DURATION, 0, "leader-elect-lease-duration", "DURATION",
	  CLI_TEXT, NULL,
	  "serve: the Lease's duration (default 15s)",
	  .kind = CLI_DUR, .dest = AT(lease_duration), .min = 3,
	  .takes = "a duration of 3s or more", .mark = CLI_MARK_SERVE },
	{ 'o', 'o', "output", "FORMAT", CLI_FORMAT, "Output",
	  "the format: text (default), json, sarif\n"
	  "(code scanning), github (annotations), junit,\n"
	  "gitlab (Code Quality) or markdown",
	  .kind = CLI_STR, .dest = AT(format), .subs = CLI_COMPARE },
	{ OPT_FORMAT, 0, "format", "FORMAT", CLI_FORMAT, NULL,
	  "the same as -o",
	  .kind = CLI_STR, .dest = AT(format) },
	{ OPT_OUTPUT_FILE, 0, "output-file", "FILE", CLI_FILE, NULL,
	  "write the report to FILE instead of standard\n"
	  "output (FILE is replaced only once complete)",
	  .kind = CLI_STR, .dest = AT(output_file),
	  .subs = CLI_PLAN | CLI_COMPARE },
	{ OPT_FAIL_ON, 0, "fail-on", "SEV", CLI_SEVERITY, NULL,
	  "exit 1 on findings at or above SEV: error,\n"
	  "warning (default), note or none",
	  .kind = CLI_SEV, .dest = AT(fail_on) },
	{ OPT_COLOR, 0, "color", "WHEN", CLI_COLOR, NULL,
	  "auto (default: on a terminal, not with NO_COLOR),\n"
	  "always or never",
	  .kind = CLI_ENUM, .dest = AT(color), .choices = colors,
	  .takes = "auto, always or never" },
	{ OPT_BUDGET, 0, "budget", NULL, CLI_NONE, NULL,
	  "text: a table of every training container's CPU\n"
	  "budget after the findings",
	  .kind = CLI_BOOL, .dest = AT(budget) },
	{ 'j', 'j', "jobs", "N", CLI_TEXT, NULL,
	  "read and parse files on N threads (default: the\n"
	  "CPUs this process may use, cgroup quota included);\n"
	  "at most 32 MiB of files are parsed at once, for any N",
	  .kind = CLI_INT, .dest = AT(jobs), .min = 1, .max = 1024,
	  .takes = "a number from 1 to 1024" },
	{ 'q', 'q', "quiet", NULL, CLI_NONE, NULL,
	  "text: the finding lines only (no fix lines,\n"
	  "notes or summary)",
	  .kind = CLI_BOOL, .dest = AT(quiet) },
	{ 'v', 'v', "verbose", NULL, CLI_NONE, NULL,
	  "say what was read, loaded, merged and skipped (stderr)",
	  .kind = CLI_BOOL, .dest = AT(verbose), .subs = CLI_COMPARE },
	{ OPT_EXPLAIN, 0, "explain", "ID", CLI_RULE, "Information",
	  "print the documentation of rule ID (or name)",
	  .kind = CLI_OWN },
	{ OPT_LIST_RULES, 0, "list-rules", NULL, CLI_NONE, NULL,
	  "list the rules (-o json for JSON)",
	  .kind = CLI_OWN },
	{ OPT_VERSION, 0, "version", NULL, CLI_NONE, NULL,
	  "print the version",
	  .kind = CLI_OWN },
	{ 'h', 'h', "help", NULL, CLI_NONE, NULL,
	  "print this help",
	  .subs = CLI_PLAN | CLI_COMPARE },
};

static void usage_flag(FILE *out, const struct cli_flag *f);

/* The subcommands' own flags (help text is the flag's documentation). */
static const struct cli_flag plan_flags[] = {
	{ OPT_MAX, 0, "max", "N", CLI_TEXT,
	  "Plan (kubectl cpulint plan [flags] FILE...)",
	  "plan: each knob (threads, workers) at most N",
	  .kind = CLI_INT, .dest = AT(max), .min = 1, .max = 4096,
	  .takes = "a number from 1 to 4096" },
	{ OPT_SEGMENT, 0, "segment", "NAME=VALUE", CLI_TEXT, NULL,
	  "plan: run a short segment: set the input NAME\n"
	  "(Polyaxon) or the script's --NAME flag to VALUE",
	  .kind = CLI_KV, .dest = AT(segment),
	  .takes = "NAME=VALUE (an input or flag of the training "
		   "script, such as steps=200)" },
	{ OPT_PLAN_JOBS, 0, "jobs", NULL, CLI_NONE, NULL,
	  "plan, Kubeflow: one plain manifest per setting\n"
	  "instead of a Katib Experiment",
	  .kind = CLI_BOOL, .dest = AT(plan_jobs) },
	{ OPT_REPEAT, 0, "repeat", "N", CLI_TEXT, NULL,
	  "plan: run each setting N times (labelled\n"
	  "cpulint.io/repeat); compare ranks by the median",
	  .kind = CLI_INT, .dest = AT(repeat), .min = 1, .max = 9,
	  .takes = "a number from 1 to 9" },
};

static const struct cli_flag compare_flags[] = {
	{ OPT_THROUGHPUT, 0, "throughput", "EXPR", CLI_TEXT,
	  "Compare (kubectl cpulint compare [flags] -l cpulint.io/plan=ID\n"
	  "| TYPE/NAME... | experiment/NAME)",
	  "compare: PromQL of a run's examples per second\n"
	  "($pod, $namespace, $window substituted)",
	  .kind = CLI_STR, .dest = AT(throughput) },
	{ OPT_WAIT, 0, "wait", "EXPR", CLI_TEXT, NULL,
	  "compare: PromQL of the share of time (0..1) the\n"
	  "loop waits for batches ($pod, $namespace, $window)",
	  .kind = CLI_STR, .dest = AT(wait) },
	{ OPT_KEEP_FIX, 0, "fix", "FILE", CLI_FILE, NULL,
	  "compare: write the best setting (threads,\n"
	  "workers) into FILE, the verdict beside it",
	  .kind = CLI_OWN },
	{ OPT_KEEP_DIFF, 0, "diff", "FILE", CLI_FILE, NULL,
	  "compare: print the diff --fix FILE would make\n"
	  "(exit 1 when there is one)",
	  .kind = CLI_OWN },
	{ OPT_PLOT, 0, "plot", "FILE", CLI_FILE, NULL,
	  "compare: write the chart of the table as an SVG\n"
	  "to FILE (-o html prints a page with it)",
	  .kind = CLI_STR, .dest = AT(plot) },
};

/*
 * The subcommands, in --help order.  serve takes the main table's flags
 * (and its own group of it); plan and compare have flags of their own
 * and take the main table's rows marked with their bit.  __complete is
 * what the shell completion scripts run (complete.c), with the words
 * typed so far after it.
 */
static const struct cli_sub subs[] = {
	{ "serve", "kubectl-cpulint serve [flags]",
	  "admission webhook and /metrics",
	  .run = cpl_cli_serve_main, .skip = 1 },
	{ "plan", "kubectl cpulint plan [flags] FILE...",
	  "write a sweep (plan --help)",
	  "kubectl cpulint plan [flags] FILE...",
	  plan_flags, CPL_ARRAY_LEN(plan_flags), CLI_PLAN,
	  cpl_cli_plan, 1 },
	{ "compare", "kubectl cpulint compare [flags] ...",
	  "judge its runs (compare --help)",
	  "kubectl cpulint compare [flags] -l cpulint.io/plan=ID | "
	  "TYPE/NAME... | experiment/NAME",
	  compare_flags, CPL_ARRAY_LEN(compare_flags), CLI_COMPARE,
	  cpl_cli_compare, 1 },
	{ "__complete", .run = cpl_cli_complete, .skip = 2 },
};

const struct cli_sub *
cpl_cli_subs(size_t *n)
{
	*n = CPL_ARRAY_LEN(subs);
	return subs;
}

const struct cli_sub *
cpl_cli_sub_find(const char *word)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(subs); i++)
		if (strcmp(subs[i].name, word) == 0)
			return &subs[i];
	return NULL;
}

bool
cpl_cli_sub_shares(const struct cli_sub *sub, const struct cli_flag *f)
{
	return (f->subs & sub->bit) != 0;
}

void
cpl_cli_sub_usage(FILE *out, const struct cli_sub *sub)
{
	size_t i;

	fprintf(out, "usage: %s\n\n", sub->synopsis);
	for (i = 0; i < sub->nflags; i++)
		usage_flag(out, &sub->flags[i]);
	fputs("Shared:\n", out);
	for (i = 0; i < CPL_ARRAY_LEN(flags); i++)
		if (cpl_cli_sub_shares(sub, &flags[i]))
			usage_flag(out, &flags[i]);
}

const char *const cpl_cli_synopsis[] = {
	"kubectl-cpulint [flags] PATH...",
	"lint files, directories, - (stdin)",
	"kubectl cpulint [flags] TYPE/NAME...",
	"lint live objects (or TYPE NAME...)",
	NULL,
};

const char cpl_cli_exit_status[] =
	"0 clean, 1 findings at or above --fail-on (--diff: a diff), 2\n"
	"usage error, unreadable or invalid input, a cluster error\n"
	"(reported; other files are still linted), a file --fix could\n"
	"not write, or one --diff could not name for patch -p1.";

const struct cli_flag *
cpl_cli_flags(size_t *n)
{
	*n = CPL_ARRAY_LEN(flags);
	return flags;
}

const struct cli_flag *
cpl_cli_flag_long(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(flags); i++)
		if (strlen(flags[i].name) == len &&
		    strncmp(flags[i].name, name, len) == 0)
			return &flags[i];
	return NULL;
}

const struct cli_flag *
cpl_cli_flag_id(int id)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(flags); i++)
		if (flags[i].id == id)
			return &flags[i];
	return NULL;
}

const struct cli_flag *
cpl_cli_flag_short(char c)
{
	size_t i;

	for (i = 0; c && i < CPL_ARRAY_LEN(flags); i++)
		if (flags[i].letter == c)
			return &flags[i];
	return NULL;
}

/* Prints "  -f, --filename PATH" padded to the help column, then help. */
static void
usage_flag(FILE *out, const struct cli_flag *f)
{
	enum { HELP_COL = 24 };
	const char *h = f->help, *nl;
	int n;

	n = fprintf(out, "  %c%c%s--%s%s%s", f->letter ? '-' : ' ',
		    f->letter ? f->letter : ' ', f->letter ? ", " : "  ",
		    f->name, f->arg ? " " : "", f->arg ? f->arg : "");
	if (n < 0)
		return;
	fprintf(out, "%*s", n <= HELP_COL - 2 ? HELP_COL - n : 2, "");
	for (;;) {
		nl = strchr(h, '\n');
		if (nl == NULL)
			break;
		fprintf(out, "%.*s\n%*s", (int)(nl - h), h, HELP_COL, "");
		h = nl + 1;
	}
	fprintf(out, "%s\n", h);
}

void
cpl_cli_usage(FILE *out)
{
	size_t i, k;

	fprintf(out, "usage: %-36s %s\n       %-36s %s\n",
		cpl_cli_synopsis[0], cpl_cli_synopsis[1],
		cpl_cli_synopsis[2], cpl_cli_synopsis[3]);
	for (i = 0; i < CPL_ARRAY_LEN(subs); i++)
		if (subs[i].usage)
			fprintf(out, "       %-36s %s\n", subs[i].usage,
				subs[i].what);
	fputs("  TYPE: pod (po), deploy, sts, ds, rs, job, cronjob (cj),\n"
	      "  pytorchjob, trainjob, mpijob; a bare NAME is a Pod.  -l SEL "
	      "or -A\n  alone lint Pods.\n\n", out);
	for (i = 0; i < CPL_ARRAY_LEN(flags); i++) {
		if (flags[i].group)
			fprintf(out, "%s:\n", flags[i].group);
		usage_flag(out, &flags[i]);
	}
	for (k = 0; k < CPL_ARRAY_LEN(subs); k++)
		for (i = 0; i < subs[k].nflags; i++) {
			if (subs[k].flags[i].group)
				fprintf(out, "%s:\n", subs[k].flags[i].group);
			usage_flag(out, &subs[k].flags[i]);
		}
	fprintf(out, "\nExit status: %s\n", cpl_cli_exit_status);
}
