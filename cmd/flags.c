/*
 * flags.c — the one table of the command's flags.  getopt's options,
 * --help, shell completion and the manual page (tools/genman.c) are all
 * made from it, so none of them can drift from the others; README.md's
 * flag table is checked against --help by tests/e2e/readme.sh.
 */
#include <string.h>

#include "cli.h"

static const struct cli_flag flags[] = {
	{ 'f', 'f', "filename", "PATH", CLI_FILE, "Static",
	  "lint PATH (file or directory; - reads one stream\n"
	  "of YAML/JSON documents from standard input);\n"
	  "repeatable" },
	{ OPT_CONFIG, 0, "config", "FILE", CLI_FILE, NULL,
	  "use FILE instead of the nearest .cpulint.yaml" },
	{ OPT_NO_CONFIG, 0, "no-config", NULL, CLI_NONE, NULL,
	  "ignore .cpulint.yaml files" },
	{ OPT_IGNORE_UNKNOWN, 0, "ignore-unknown", NULL, CLI_NONE, NULL,
	  "skip named files that are not workloads (for\n"
	  "pre-commit, which passes every YAML file)" },
	{ OPT_STAGED, 0, "staged", NULL, CLI_NONE, NULL,
	  "lint the contents staged in the git index" },
	{ OPT_DIFF_BASE, 0, "diff-base", "REF", CLI_TEXT, NULL,
	  "report only findings on lines changed since the\n"
	  "merge base of HEAD and REF" },
	{ OPT_FIX, 0, "fix", NULL, CLI_NONE, "Fixing",
	  "apply the safe fixes in place, then report\n"
	  "what is left (with -f -: the fixed text to stdout)" },
	{ OPT_UNSAFE_FIXES, 0, "unsafe-fixes", NULL, CLI_NONE, NULL,
	  "with --fix or --diff: unsafe fixes too (CPU\n"
	  "requests, limits); alone: count them" },
	{ OPT_DIFF, 0, "diff", NULL, CLI_NONE, NULL,
	  "print the unified diff --fix would make and\n"
	  "write nothing (exit 1 when there is one; names\n"
	  "quoted as git does)" },
	{ OPT_FORCE, 0, "force", NULL, CLI_NONE, NULL,
	  "with --fix: also rewrite read-only files (mode\n"
	  "kept), and hard-linked files or files whose\n"
	  "owner a rewrite cannot keep (written in place)" },
	{ OPT_KUBECONFIG, 0, "kubeconfig", "FILE", CLI_FILE,
	  "Live (kubectl's flags and KUBECONFIG)",
	  "use FILE only" },
	{ OPT_CONTEXT, 0, "context", "NAME", CLI_TEXT, NULL,
	  "use context NAME" },
	{ OPT_CLUSTER, 0, "cluster", "NAME", CLI_TEXT, NULL,
	  "use cluster NAME" },
	{ OPT_USER, 0, "user", "NAME", CLI_TEXT, NULL,
	  "use user NAME" },
	{ 'n', 'n', "namespace", "NS", CLI_NAMESPACE, NULL,
	  "the namespace (default: the context's)" },
	{ 'A', 'A', "all-namespaces", NULL, CLI_NONE, NULL,
	  "list Pods in every namespace" },
	{ 'l', 'l', "selector", "SEL", CLI_TEXT, NULL,
	  "lint the Pods matching a label selector" },
	{ OPT_REQUEST_TIMEOUT, 0, "request-timeout", "DURATION", CLI_TEXT,
	  NULL, "limit per request (0: none), e.g. 30s" },
	{ OPT_INSECURE, 0, "insecure-skip-tls-verify", NULL, CLI_NONE, NULL,
	  "do not verify the server's certificate" },
	{ OPT_SAMPLE, 0, "sample", "DURATION", CLI_TEXT, NULL,
	  "read throttling counters twice, DURATION apart" },
	{ OPT_LIVE_TIMEOUT, 0, "live-timeout", "DURATION", CLI_TEXT, NULL,
	  "limit for the whole live run (0: none; default 5m)" },
	{ OPT_PROMETHEUS, 0, "prometheus", "URL", CLI_TEXT, NULL,
	  "measure from this Prometheus instead of the\n"
	  "kubelets (default: $CPULINT_PROMETHEUS_URL)" },
	{ OPT_WINDOW, 0, "window", "DURATION", CLI_TEXT, NULL,
	  "Prometheus: measure over the last DURATION\n"
	  "(default 1h)" },
	{ OPT_PROM_TOKEN, 0, "prometheus-token-file", "FILE", CLI_FILE, NULL,
	  "Prometheus: send the bearer token in FILE" },
	{ OPT_PROM_CA, 0, "prometheus-ca", "FILE", CLI_FILE, NULL,
	  "Prometheus: verify its certificate with FILE" },
	{ OPT_PROM_INSECURE, 0, "prometheus-insecure-skip-tls-verify", NULL,
	  CLI_NONE, NULL,
	  "Prometheus: do not verify its certificate" },
	{ OPT_LISTEN, 0, "listen", "ADDR:PORT", CLI_TEXT,
	  "Serve (kubectl-cpulint serve; docs/serve.md)",
	  "serve HTTPS here (default 0.0.0.0:8443)" },
	{ OPT_TLS_CERT, 0, "tls-cert-file", "FILE", CLI_FILE, NULL,
	  "serve: PEM certificate (reloaded when it changes)" },
	{ OPT_TLS_KEY, 0, "tls-private-key-file", "FILE", CLI_FILE, NULL,
	  "serve: PEM private key (reloaded when it changes)" },
	{ OPT_DENY_ON, 0, "deny-on", "SEV", CLI_SEVERITY, NULL,
	  "serve: refuse objects with findings at or above\n"
	  "SEV (default: never refuse, only warn)" },
	{ OPT_NO_AUDIT, 0, "no-audit", NULL, CLI_NONE, NULL,
	  "serve: the webhook only (no audit, no cluster reads)" },
	{ OPT_AUDIT_INTERVAL, 0, "audit-interval", "DURATION", CLI_TEXT, NULL,
	  "serve: time between full lists of the Pods under the watch (default 1m)" },
	{ 'o', 'o', "output", "FORMAT", CLI_FORMAT, "Output",
	  "text (default), json, sarif or github" },
	{ OPT_FORMAT, 0, "format", "FORMAT", CLI_FORMAT, NULL,
	  "the same as -o" },
	{ OPT_OUTPUT_FILE, 0, "output-file", "FILE", CLI_FILE, NULL,
	  "write the report to FILE instead of standard\n"
	  "output (FILE is replaced only once complete)" },
	{ OPT_FAIL_ON, 0, "fail-on", "SEV", CLI_SEVERITY, NULL,
	  "exit 1 on findings at or above SEV: error,\n"
	  "warning (default), note or none" },
	{ OPT_COLOR, 0, "color", "WHEN", CLI_COLOR, NULL,
	  "auto (default: on a terminal, not with NO_COLOR),\n"
	  "always or never" },
	{ OPT_BUDGET, 0, "budget", NULL, CLI_NONE, NULL,
	  "text: a table of every training container's CPU\n"
	  "budget after the findings" },
	{ 'j', 'j', "jobs", "N", CLI_TEXT, NULL,
	  "read and parse files on N threads (default: the\n"
	  "CPUs this process may use, cgroup quota included);\n"
	  "at most 32 MiB of files are parsed at once, for any N" },
	{ 'v', 'v', "verbose", NULL, CLI_NONE, NULL,
	  "say what was read, loaded, merged and skipped (stderr)" },
	{ OPT_EXPLAIN, 0, "explain", "ID", CLI_RULE, "Information",
	  "print the documentation of rule ID (or name)" },
	{ OPT_LIST_RULES, 0, "list-rules", NULL, CLI_NONE, NULL,
	  "list the rules (-o json for JSON)" },
	{ OPT_VERSION, 0, "version", NULL, CLI_NONE, NULL,
	  "print the version" },
	{ 'h', 'h', "help", NULL, CLI_NONE, NULL,
	  "print this help" },
};

const char *const cpl_cli_synopsis[] = {
	"kubectl-cpulint [flags] PATH...",
	"lint files, directories, - (stdin)",
	"kubectl cpulint [flags] TYPE/NAME...",
	"lint live objects (or TYPE NAME...)",
	"kubectl-cpulint serve [flags]",
	"admission webhook and /metrics",
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
	size_t i;

	fprintf(out, "usage: %-36s %s\n       %-36s %s\n       %-36s %s\n",
		cpl_cli_synopsis[0], cpl_cli_synopsis[1],
		cpl_cli_synopsis[2], cpl_cli_synopsis[3],
		cpl_cli_synopsis[4], cpl_cli_synopsis[5]);
	fputs("  TYPE: pod (po), deploy, sts, ds, rs, job, cronjob (cj),\n"
	      "  pytorchjob, trainjob, mpijob; a bare NAME is a Pod.  -l SEL "
	      "or -A\n  alone lint Pods.\n\n", out);
	for (i = 0; i < CPL_ARRAY_LEN(flags); i++) {
		if (flags[i].group)
			fprintf(out, "%s:\n", flags[i].group);
		usage_flag(out, &flags[i]);
	}
	fprintf(out, "\nExit status: %s\n", cpl_cli_exit_status);
}
