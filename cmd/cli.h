/*
 * cli.h — what the command's two files share: the parsed options and the
 * two ways to run (static paths, live objects).  Private to cmd/.
 */
#ifndef CPL_CLI_H
#define CPL_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "finding.h"
#include "live.h"

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

/* Lints the paths in o; returns the exit status. */
int cpl_cli_run_static(struct options *o, int argc, char **argv);
/* Lints the live targets in o; returns the exit status. */
int cpl_cli_run_live(struct options *o, int argc, char **argv);

#endif
