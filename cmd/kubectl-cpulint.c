/*
 * kubectl-cpulint.c — the main command (and serve, which reads the same
 * flags): flags (read with getopt from the table in flags.c, flagset.c),
 * target classification (paths, "-" for standard input, TYPE/NAME and
 * kubectl's TYPE NAME...), exit status.  main() (main.c) sends the other
 * subcommands elsewhere.  No lint logic lives here; see
 * lib/run/engine.h.
 *
 * Exit status: 0 nothing at or above --fail-on; 1 findings at or above
 * it (--diff: a diff was printed); 2 usage error, unreadable or invalid
 * input, cluster error, a file --fix could not write or --diff could
 * not name (after everything else has been reported).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "live/live.h"
#include "model/rule.h"
#include "report/report.h"
#include "util.h"

static int
list_rules(const char *format)
{
	const struct cpl_rule *const *rules;
	size_t n, i;

	rules = cpl_rules_all(&n);
	if (format && strcmp(format, "json") == 0) {
		json_t *a = json_array();

		for (i = 0; i < n; i++)
			json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s,s:b}",
				"id", rules[i]->id, "name", rules[i]->name,
				"severity",
				cpl_severity_name(rules[i]->severity),
				"summary", rules[i]->summary,
				"live_only", (int)rules[i]->live_only));
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
		cpl_cli_say("kubectl-cpulint: unknown rule \"%s\" (see "
			    "--list-rules)", id);
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

/* "text, json, ... or markdown": the formats, for messages. */
static char *
format_list(void)
{
	struct cpl_buf b;
	size_t i, n = 0;

	while (cpl_reporter_at(n))
		n++;
	cpl_buf_init(&b, 0);
	for (i = 0; i < n; i++) {
		if (i > 0)
			cpl_buf_adds(&b, i + 1 == n ? " or " : ", ");
		cpl_buf_adds(&b, cpl_reporter_at(i)->name);
	}
	return cpl_buf_detach(&b);
}

/* Checks -o's value; prints a usage error naming the formats when bad. */
static bool
format_ok(const char *format)
{
	char *list;

	if (cpl_reporter_find(format) != NULL)
		return true;
	list = format_list();
	cpl_cli_say("kubectl-cpulint: -o/--output takes %s, not \"%s\"%s", list,
		    format, strchr(format, '.') || strchr(format, '/') ?
		    " (to write the report to a file: --output-file FILE)" :
		    "");
	free(list);
	return false;
}

/*
 * Says what getopt found wrong, as getopt would, but through
 * cpl_cli_say: getopt prints the word raw (so opterr is 0), and a
 * file name given as an argument may start with '-'.
 */
static void
bad_option(char **argv)
{
	const struct cli_flag *all, *f = NULL;
	size_t n, i;

	all = cpl_cli_flags(&n);
	for (i = 0; optopt != 0 && i < n; i++)
		if (all[i].id == optopt)
			f = &all[i];
	if (f == NULL && optopt != 0)
		cpl_cli_say("kubectl-cpulint: invalid option -- '%c'",
			    (char)optopt);
	else if (f == NULL)
		cpl_cli_say("kubectl-cpulint: unrecognized or ambiguous "
			    "option '%s'", argv[optind - 1]);
	else if (f->arg)
		cpl_cli_say("kubectl-cpulint: option '--%s' requires an "
			    "argument", f->name);
	else
		cpl_cli_say("kubectl-cpulint: option '--%s' doesn't allow "
			    "an argument", f->name);
}

/* What main does once the flags are read. */
enum action { RUN, EXPLAIN, LIST_RULES, DONE };

/*
 * Reads the flags into o, each where the flag table says (flagset.c).
 * Returns RUN, EXPLAIN (*explain_id set) or LIST_RULES, or DONE with
 * *status set (--help, --version, a bad flag).
 */
static enum action
parse_flags(struct options *o, int argc, char **argv,
	    const char **explain_id, int *status)
{
	struct cli_walk w;
	const struct cli_flag *f;
	enum cli_next next;
	enum action act = RUN;

	*status = EXIT_TROUBLE;
	cpl_cli_walk_begin(&w, NULL);
	while ((next = cpl_cli_flag_next(&w, o, argc, argv, &f)) ==
	       CLI_FLAG) {
		switch (f->id) {
		case 'h':
			cpl_cli_usage(stdout);
			*status = EXIT_CLEAN;
			act = DONE;
			goto out;
		case OPT_EXPLAIN:
			*explain_id = optarg;
			act = EXPLAIN;
			break;
		case OPT_LIST_RULES:
			if (act != EXPLAIN)
				act = LIST_RULES;
			break;
		case OPT_VERSION:
			printf("kubectl-cpulint %s\n", CPL_VERSION);
			*status = EXIT_CLEAN;
			act = DONE;
			goto out;
		default:
			break;
		}
	}
	if (next == CLI_UNKNOWN) {
		bad_option(argv);
		cpl_cli_say("Try 'kubectl-cpulint --help'.");
	}
	if (next != CLI_END)
		act = DONE;
out:
	cpl_cli_walk_end(&w);
	return act;
}

/* True when argv[first] names a resource type alone ("pod", "deploy")
 * followed by names.  A type word that is also a file or directory here
 * (a repository's deploy/) is a type only when none of the words after
 * it is a path: "deploy trainer" is deploy/trainer, "deploy k8s/" two
 * paths. */
static bool
is_bare_type(int first, int argc, char **argv)
{
	struct stat st;
	int i;

	if (strchr(argv[first], '/') != NULL ||
	    !cpl_live_is_type(argv[first]))
		return false;
	if (stat(argv[first], &st) != 0)
		return true;
	for (i = first + 1; i < argc; i++)
		if (strchr(argv[i], '/') != NULL ||
		    strcmp(argv[i], CLI_STDIN) == 0 || stat(argv[i], &st) == 0)
			return false;
	return true;
}

/*
 * Sorts the positional arguments into paths and live targets.  As in
 * kubectl, "TYPE NAME..." (a type first, then names) is TYPE/NAME for
 * each name; a type alone stays a type (-l, -A: list its Pods).  -1 with
 * a message on a usage error.
 */
static int
classify(struct options *o, int first, int argc, char **argv)
{
	const char *type = NULL;
	int i;

	if (first < argc && first + 1 < argc &&
	    is_bare_type(first, argc, argv))
		type = argv[first++];
	for (i = first; i < argc; i++) {
		if (type) {
			if (strchr(argv[i], '/') != NULL) {
				cpl_cli_say("kubectl-cpulint: \"%s %s\": after "
					    "a TYPE come names; use TYPE/NAME, "
					    "or TYPE NAME...", type, argv[i]);
				return -1;
			}
			o->owned[o->nowned] = cpl_xasprintf("%s/%s", type,
							    argv[i]);
			o->live[o->nlive++] = o->owned[o->nowned++];
		} else if (strcmp(argv[i], CLI_STDIN) != 0 &&
			   looks_live(argv[i]) && !o->staged) {
			o->live[o->nlive++] = argv[i];
		} else {
			o->paths[o->npaths++] = argv[i];
		}
	}
	return 0;
}

/* Checks what cannot go together; prints a usage error and -1 if so. */
static int
check_targets(const struct options *o)
{
	size_t i, nstdin = 0;

	for (i = 0; i < o->npaths; i++)
		nstdin += strcmp(o->paths[i], CLI_STDIN) == 0;
	if (o->nlive > 0 && o->npaths > 0) {
		cpl_cli_say("kubectl-cpulint: \"%s\" is neither a file nor a "
			    "directory, and live targets (TYPE/NAME) cannot be "
			    "mixed with paths", o->live[0]);
		return -1;
	}
	if (nstdin > 0 && (o->staged || o->diff_base)) {
		cpl_cli_say("kubectl-cpulint: standard input (-) has no git "
			    "history, so %s cannot be used with it",
			    o->staged ? "--staged" : "--diff-base");
		return -1;
	}
	if (o->write_baseline && (o->diff_base || o->fix || o->diff)) {
		cpl_cli_say("kubectl-cpulint: --write-baseline records every "
			    "finding of the tree as it is; it does not go with "
			    "%s", o->diff_base ? "--diff-base (which keeps only "
			    "changed lines)" : o->fix ? "--fix" : "--diff");
		return -1;
	}
	if (o->baseline && (o->fix || o->diff)) {
		cpl_cli_say("kubectl-cpulint: --baseline filters the report; "
			    "--fix and --diff change files whatever it holds");
		return -1;
	}
	if (o->force && !o->fix) {
		cpl_cli_say("kubectl-cpulint: --force goes with --fix (it "
			    "lets --fix rewrite files it otherwise leaves "
			    "alone)");
		return -1;
	}
	if (o->fix && !o->diff && o->staged) {
		cpl_cli_say("kubectl-cpulint: --fix writes the working tree "
			    "and --staged lints the index: fix first, then "
			    "stage (or print the fixes with --diff --staged)");
		return -1;
	}
	if ((o->fix || o->diff) && (o->nlive > 0 ||
				    (o->npaths == 0 && (o->lo.selector ||
							o->lo.all_namespaces)))) {
		cpl_cli_say("kubectl-cpulint: --fix and --diff change files; "
			    "live objects (\"%s\") have none: fix the manifests "
			    "they came from", o->nlive ? o->live[0] : "-l/-A");
		return -1;
	}
	if (o->live_flags && o->npaths > 0) {
		cpl_cli_say("kubectl-cpulint: cluster flags (--kubeconfig, -n, "
			    "-l, -A, ...) apply to live targets, not to paths");
		return -1;
	}
	return 0;
}

/*
 * The main command (serve true: `serve`, whose word is argv[0]): reads
 * the main table's flags, then lints, serves or answers an action.
 */
static int
lint_main(int argc, char **argv, bool serve)
{
	struct options o = { .format = "text", .fail_on = CPL_SEV_WARNING,
			     .color = "auto", .serve = serve };
	const char *explain_id = NULL, *inputs[2];
	enum action act;
	int status;
	size_t i;

	o.paths = cpl_xcalloc((size_t)argc + 1, sizeof(*o.paths));
	o.helm = cpl_xcalloc((size_t)argc + 1, sizeof(*o.helm));
	o.live = cpl_xcalloc((size_t)argc + 1, sizeof(*o.live));
	o.owned = cpl_xcalloc((size_t)argc + 1, sizeof(*o.owned));
	act = parse_flags(&o, argc, argv, &explain_id, &status);
	if (act == DONE)
		goto out;
	status = EXIT_TROUBLE;
	if (!format_ok(o.format))
		goto out;
	if (act == EXPLAIN) {
		status = explain(explain_id);
		goto out;
	}
	if (act == LIST_RULES) {
		if (strcmp(o.format, "text") != 0 &&
		    strcmp(o.format, "json") != 0) {
			cpl_cli_say("kubectl-cpulint: --list-rules prints "
				    "text or json (-o json), not %s", o.format);
			goto out;
		}
		status = list_rules(o.format);
		goto out;
	}
	if (o.serve && optind < argc) {
		cpl_cli_say("kubectl-cpulint serve: takes flags only, not "
			    "\"%s\"", argv[optind]);
		goto out;
	}
	if (o.serve) {
		status = cpl_cli_serve(&o);
		goto out;
	}
	if (o.serve_flags) {
		cpl_cli_say("kubectl-cpulint: --listen, --tls-cert-file, "
			    "--tls-private-key-file, --deny-on, --mutate, "
			    "--mutate-dry-run, --no-audit, --audit-interval, "
			    "--node-proxy and --leader-elect go with serve "
			    "(kubectl-cpulint serve ...)");
		goto out;
	}
	if (classify(&o, optind, argc, argv) < 0 || check_targets(&o) < 0)
		goto out;
	/* The configuration named and the baseline read are inputs too:
	 * never written over (lint.c refuses the files the run itself
	 * read).  A baseline written over the one read is its refresh
	 * (docs/ci.md). */
	inputs[0] = o.config;
	inputs[1] = o.baseline;
	if (cpl_cli_output_guard("output-file", o.output_file, inputs, 2) < 0 ||
	    cpl_cli_output_guard("write-baseline", o.write_baseline, inputs,
				 1) < 0)
		goto out;
	/* A bad baseline is one clear error before anything is read. */
	if (o.baseline && cpl_cli_baseline_load(&o.known, o.baseline) < 0)
		goto out;
	if (o.nlive > 0 || (o.npaths == 0 && (o.lo.selector ||
					       o.lo.all_namespaces))) {
		if (o.staged || o.diff_base) {
			cpl_cli_say("kubectl-cpulint: --staged and "
				    "--diff-base work on files, not on live "
				    "objects (\"%s\" is not a file)",
				    o.nlive ? o.live[0] : "-l/-A");
			goto out;
		}
		if (o.lo.prometheus.url == NULL &&
		    getenv("CPULINT_PROMETHEUS_URL") &&
		    *getenv("CPULINT_PROMETHEUS_URL"))
			o.lo.prometheus.url = getenv("CPULINT_PROMETHEUS_URL");
		status = cpl_cli_run_live(&o, argc, argv);
		goto out;
	}
	if (o.npaths == 0 && (o.staged || o.diff_base))
		o.paths[o.npaths++] = ".";
	if (o.npaths == 0) {
		cpl_cli_usage(stderr);
		goto out;
	}
	status = cpl_cli_run_static(&o, argc, argv);
out:
	cpl_cli_baseline_free(o.known);
	for (i = 0; i < o.nowned; i++)
		free(o.owned[i]);
	free(o.owned);
	free(o.paths);
	for (i = 0; i < o.nhelm; i++)
		free((char *)o.helm[i]);
	free(o.helm);
	free(o.live);
	return status;
}

int
cpl_cli_serve_main(int argc, char **argv)
{
	return lint_main(argc, argv, true);
}

int
cpl_cli_lint_main(int argc, char **argv)
{
	return lint_main(argc, argv, false);
}
