/*
 * genman.c — writes the manual page kubectl-cpulint.1 (man(7) macros) on
 * standard output, at build time.  The options come from the command's
 * flag table (cmd/flags.c) and the rules from the registry, the same
 * tables --help and --list-rules print, so the page cannot drift from the
 * program; only the prose around them is written here.
 *
 *   build/genman > build/kubectl-cpulint.1
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "model/rule.h"

/* Writes s escaped for roff; dash as \- (a minus, for flags) when asked. */
static void
roff(const char *s, bool minus)
{
	bool bol = true;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", stdout);
		bol = false;
		if (*s == '\\')
			fputs("\\e", stdout);
		else if (*s == '-' && minus)
			fputs("\\-", stdout);
		else if (*s == '\n')
			putchar(' ');
		else
			putchar(*s);
	}
}

/* A paragraph of prose. */
static void
para(const char *text)
{
	puts(".PP");
	roff(text, false);
	putchar('\n');
}

/* One flag: ".TP", its forms and value in bold and italic, its help. */
static void
flag_entry(const struct cli_flag *f)
{
	puts(".TP");
	if (f->letter)
		printf("\\fB\\-%c\\fR, ", f->letter);
	fputs("\\fB\\-\\-", stdout);
	roff(f->name, true);
	fputs("\\fR", stdout);
	if (f->arg) {
		fputs(" \\fI", stdout);
		roff(f->arg, false);
		fputs("\\fR", stdout);
	}
	putchar('\n');
	roff(f->help, false);
	putchar('\n');
}

static void
options(void)
{
	size_t n, i;
	const struct cli_flag *f = cpl_cli_flags(&n);

	puts(".SH OPTIONS");
	for (i = 0; i < n; i++) {
		if (f[i].group) {
			fputs(".SS ", stdout);
			roff(f[i].group, false);
			putchar('\n');
		}
		flag_entry(&f[i]);
	}
}

/* The subcommands and their own flags (the shared ones are above). */
static void
subcommands(void)
{
	size_t n, i, k;
	const struct cli_sub *s = cpl_cli_subs(&n);

	puts(".SH SUBCOMMANDS");
	for (k = 0; k < n; k++) {
		if (s[k].synopsis == NULL)
			continue;
		fputs(".SS ", stdout);
		roff(s[k].synopsis, true);
		putchar('\n');
		for (i = 0; i < s[k].nflags; i++)
			flag_entry(&s[k].flags[i]);
	}
	para("See docs/experiment.md for the walkthrough: plan, run, "
	     "compare.");
}

static void
rules(void)
{
	size_t n, i;
	const struct cpl_rule *const *r = cpl_rules_all(&n);

	puts(".SH RULES");
	para("Each rule has a stable id and a name; --explain ID prints its "
	     "documentation, --list-rules lists them.  The default severity "
	     "is in parentheses; .cpulint.yaml may change it or turn the "
	     "rule off.");
	for (i = 0; i < n; i++) {
		puts(".TP");
		printf("\\fB%s\\fR ", r[i]->id);
		roff(r[i]->name, true);
		printf(" (%s)\n", cpl_severity_name(r[i]->severity));
		roff(r[i]->summary, false);
		putchar('\n');
	}
}

static void
example(const char *command, const char *what)
{
	puts(".TP");
	fputs(".B ", stdout);
	roff(command, true);
	putchar('\n');
	roff(what, false);
	putchar('\n');
}

int
main(void)
{
	printf(".TH KUBECTL\\-CPULINT 1 \"\" \"kubectl-cpulint %s\" "
	       "\"User Commands\"\n", CPL_VERSION);
	puts(".SH NAME");
	puts("kubectl\\-cpulint \\- find why a PyTorch job on Kubernetes "
	     "burns its CPU budget");
	puts(".SH SYNOPSIS");
	printf(".B kubectl\\-cpulint\n[\\fIflags\\fR] \\fIPATH\\fR...\n"
	       ".br\n.B kubectl cpulint\n[\\fIflags\\fR] "
	       "\\fITYPE\\fR/\\fINAME\\fR... | \\fITYPE\\fR \\fINAME\\fR...\n"
	       ".br\n.B kubectl\\-cpulint serve\n[\\fIflags\\fR]\n");
	puts(".SH DESCRIPTION");
	para("A container's CPU limit is a CFS quota, not reserved cores: "
	     "every rank's OpenMP/MKL threads and every rank's DataLoader "
	     "workers compete for it, and os.cpu_count() or nproc report the "
	     "node, not the quota.  kubectl-cpulint reads Polyaxonfiles, "
	     "Kubernetes manifests and the commands and Python they run, "
	     "and reports each mistake with the numbers that prove it and a "
	     "concrete fix.");
	para("A PATH is a file or a directory (walked for YAML, JSON and "
	     "Python files); - reads one stream of YAML/JSON documents from "
	     "standard input, so rendered charts and overlays can be piped "
	     "in.  TYPE/NAME, TYPE NAME... (as with kubectl get) or a bare "
	     "Pod name is a live target, read from the cluster with "
	     "kubectl's configuration.  Static and live targets may not be "
	     "mixed in one run.");
	options();
	subcommands();
	rules();
	puts(".SH EXIT STATUS");
	para(cpl_cli_exit_status);
	para("A walk that finds no file to lint says so on standard error "
	     "and exits 0.");
	puts(".SH ENVIRONMENT");
	puts(".TP\n.B KUBECONFIG");
	puts("kubeconfig files, merged in order (live mode).");
	puts(".TP\n.B NO_COLOR");
	puts("when set and not empty, no colour even on a terminal.");
	puts(".SH FILES");
	puts(".TP\n.B .cpulint.yaml");
	puts("configuration, looked up from the first PATH up to the "
	     "repository root: rule severities, excludes, the throttling "
	     "threshold.");
	puts(".SH EXAMPLES");
	example("kubectl-cpulint .", "lint a repository");
	example("helm template . | kubectl cpulint -f -",
		"lint a rendered chart");
	example("kubectl cpulint pod train-0 -n ml",
		"why is a running job slow");
	example("kubectl-cpulint -o sarif --output-file cpulint.sarif "
		"--diff-base origin/main .",
		"a CI gate for code scanning on a pull request");
	example("kubectl-cpulint --explain CPU401", "explain a rule");
	puts(".SH SEE ALSO");
	puts(".BR kubectl (1)");
	return fflush(stdout) == 0 ? 0 : 1;
}
