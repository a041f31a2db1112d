/*
 * report.h — one interface for every output format.
 *
 * A reporter renders the finding model: begin() once, emit() per finding
 * (sorted: file, line, column, rule; suppressed findings included, each
 * format decides whether to show them), end() once.  Reporters never
 * decide what is wrong, and JSON/SARIF are built only through jansson.
 * Input errors (files that could not be read or parsed, cluster errors)
 * are passed in meta so formats that carry them (SARIF notifications, JSON
 * "errors") can; the command prints them to stderr in every format.
 */
#ifndef CPL_REPORT_H
#define CPL_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "finding.h"
#include "rule.h"
#include "util.h"

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
};

struct cpl_reporter {
	const char *name;		/* "text", "json", "sarif", "github" */
	/* Returns the reporter's state, passed back to emit and end. */
	void *(*begin)(FILE *out, const struct cpl_report_meta *meta);
	void (*emit)(void *state, const struct cpl_finding *f);
	/* Writes the rest, frees state; -1 when writing failed. */
	int (*end)(void *state);
};

/* The reporter called name, or NULL. */
const struct cpl_reporter *cpl_reporter_find(const char *name);
/* "text|json|sarif|github" for usage messages. */
const char *cpl_reporter_names(void);

#endif
