/*
 * report.h — one interface for every output format.
 *
 * A reporter renders the finding model: begin() once, emit() per finding
 * (sorted: file, line, column, rule; suppressed findings included, each
 * format decides whether to show them), end() once.  Reporters never
 * decide what is wrong.  Every format writes through one buffered writer
 * (report/wbuf.h); JSON and SARIF are streamed through report/jsonw.h
 * (never hand-escaped, never built as a tree of all findings first).
 * Input errors (files that could not be read or parsed, cluster errors)
 * are passed in meta so formats that carry them (SARIF notifications, JSON
 * "errors") can; the command prints them to stderr in every format.
 */
#ifndef CPL_REPORT_H
#define CPL_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/finding.h"
#include "model/rule.h"
#include "util.h"

/*
 * The Azure Pipelines build a SARIF log comes from (Advanced Security for
 * Azure DevOps files a run under it), all checked by the command; strings
 * borrowed.
 */
struct cpl_report_ado {
	const char *org;		/* from SYSTEM_COLLECTIONURI */
	const char *project_id;		/* SYSTEM_TEAMPROJECTID, a GUID */
	const char *definition_id;	/* BUILD_DEFINITIONID, positive */
	const char *definition_name;	/* BUILD_DEFINITIONNAME */
	const char *phase_id;		/* SYSTEM_PHASEID (SYSTEM_JOBID) */
	const char *phase_name;		/* SYSTEM_PHASENAME (SYSTEM_JOBNAME) */
	const char *branch;		/* BUILD_SOURCEBRANCH */
	const char *build_id;		/* BUILD_BUILDID, positive */
};

/*
 * A document the run skipped although it holds containers: not judged,
 * which is not clean.  Strings borrowed.
 */
struct cpl_report_skip {
	const char *file;		/* NULL: a live object */
	int line;
	int column;
	const char *kind;		/* the object's kind, or NULL */
	const char *what;		/* "Workflow \"train\"" */
	const char *reason;
};

struct cpl_report_meta {
	const char *version;		/* tool version */
	const char *srcroot;		/* absolute directory that relative
					 * file paths are relative to; SARIF
					 * %SRCROOT% */
	const struct cpl_error *errors;	/* input problems, borrowed */
	size_t nerrors;
	bool color;			/* text: ANSI colour allowed */
	const char *command_line;	/* SARIF invocation, may be NULL */
	/*
	 * The text of a linted file as the engine read it (for SARIF line
	 * hashes), or NULL when unknown; borrowed.  May itself be NULL.
	 */
	const char *(*source_text)(void *ctx, const char *file, size_t *len);
	void *source_ctx;
	/*
	 * Out (may be NULL): set by end to the number of findings a format
	 * had to leave out (SARIF: past CPL_REPORT_SARIF_MAX_RESULTS).
	 */
	size_t *dropped;
	/* The budget of every training container (JSON "budgets", SARIF
	 * run properties; text only with budget_table), borrowed. */
	const struct cpl_budget_entry *budgets;
	size_t nbudgets;
	bool budget_table;		/* text: --budget */
	/* Documents holding containers that were not judged (text: the
	 * summary counts them and names their kinds; JSON "skipped";
	 * SARIF a note notification each), borrowed. */
	const struct cpl_report_skip *skipped;
	size_t nskipped;
	/* How Helm charts were rendered ("rendered without helm",
	 * "rendered with helm template"), NULL when none was: JSON
	 * summary.helm. */
	const char *helm;
	/* Threads the report may use, the calling one included (-j); 0 or
	 * 1: the caller's alone.  JSON renders "budgets" on a second one
	 * while the findings are written. */
	size_t jobs;
	/* SARIF automationDetails.id: "CATEGORY/" or "CATEGORY/RUN";
	 * NULL: "kubectl-cpulint/". */
	const char *category;
	/* Text: the finding lines only (-q: no fix, notes or summary). */
	bool quiet;
	/* Findings left out because the baseline holds them (counted in
	 * the summaries of text, github and markdown). */
	size_t baselined;
	/* Markdown: the commit's files, "https://github.com/O/R/blob/SHA/"
	 * (the command builds it from GITHUB_SERVER_URL, GITHUB_REPOSITORY
	 * and GITHUB_SHA, checked), each place links to; NULL: no links.
	 * Paths are taken from srcroot. */
	const char *link_base;
	/* SARIF: in Azure Pipelines, automationDetails.id is
	 * "azuredevops/pipeline/build/ORG/PROJECT/DEF/PHASE/BRANCH/BUILD"
	 * and its properties name the build definition and phase (what the
	 * SARIF validator's GHAzDO1019/1020 rules ask); NULL elsewhere. */
	const struct cpl_report_ado *ado;
	/* JUnit: with gated, only findings at or above fail_on (OFF: none)
	 * are <failure>s, as the command's exit status says; without it
	 * every finding is. */
	bool gated;
	enum cpl_severity fail_on;
	/* JUnit: each testcase names its file in a file= attribute, from
	 * srcroot (GitLab links it; the strict JUnit schemas have no such
	 * attribute, so the command sets it only under GitLab CI). */
	bool junit_file;
};

/*
 * GitHub code scanning takes at most this many results per run; a SARIF
 * log keeps the most severe (then in file and line order) and says in
 * its invocation's notifications how many it left out.
 */
#define CPL_REPORT_SARIF_MAX_RESULTS 25000

/*
 * A Markdown report is at most this many bytes: GitHub refuses a
 * pull-request comment over 65,536 characters, and the room left is for
 * what a workflow adds around it.
 */
#define CPL_REPORT_MARKDOWN_MAX 60000

/*
 * The file name of standard input ("-f -") in findings.  Text and JSON
 * show it as it is; SARIF gives it the relative URI "stdin" (no base: it
 * is not a file of the repository); github leaves its file= property out.
 */
#define CPL_REPORT_STDIN "<stdin>"

struct cpl_reporter {
	const char *name;		/* "text", "json", "sarif", ... */
	/* Returns the reporter's state, passed back to emit and end. */
	void *(*begin)(FILE *out, const struct cpl_report_meta *meta);
	void (*emit)(void *state, const struct cpl_finding *f);
	/* Writes the rest, frees state; -1 when writing failed. */
	int (*end)(void *state);
};

/* The reporter called name, or NULL. */
const struct cpl_reporter *cpl_reporter_find(const char *name);
/* "text|json|sarif|github|junit|gitlab|markdown" for usage messages. */
const char *cpl_reporter_names(void);
/* The i-th reporter (from 0), or NULL past the last: to list them. */
const struct cpl_reporter *cpl_reporter_at(size_t i);

#endif
