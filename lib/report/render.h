/*
 * render.h — the little the reporters share: severity tallies, a
 * UTF-8 decoder, and jansson building under the out-of-memory policy.
 *
 * Only helpers that more than one format needs live here; each format's
 * layout stays in its own file (text.c, json.c, sarif.c, github.c).  Nothing here prints.  Every json_t
 * returned is a new reference the caller owns (json_decref); the set/push
 * helpers steal the value they are given.
 */
#ifndef CPL_REPORT_RENDER_H
#define CPL_REPORT_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "finding.h"

/* Counts of rendered findings by severity, and of suppressed ones. */
struct cpl_report_tally {
	size_t errors;
	size_t warnings;
	size_t notes;
	size_t suppressed;
};

/* Counts f: suppressed ones only as suppressed, OFF ones not at all. */
void cpl_report_tally_add(struct cpl_report_tally *t,
			  const struct cpl_finding *f);

/*
 * Decodes one code point from s (len >= 1 bytes) and stores the bytes it
 * used in *adv.  Ill-formed input yields U+FFFD for each maximal invalid
 * subpart (the WHATWG / Unicode "substitution of maximal subparts" rule),
 * so *adv is always at least 1.
 */
uint32_t cpl_report_utf8_next(size_t *adv, const char *s, size_t len);

/* A JSON string of s (ill-formed UTF-8 repaired), or JSON null for NULL. */
json_t *cpl_report_jstr(const char *s);
/* JSON integer. */
json_t *cpl_report_jint(long long v);
/* obj[key] = v, stealing v; aborts when jansson cannot (out of memory). */
void cpl_report_jset(json_t *obj, const char *key, json_t *v);
/* Appends v to arr, stealing v; aborts when jansson cannot. */
void cpl_report_jpush(json_t *arr, json_t *v);
/* A new empty object or array; aborts when jansson cannot. */
json_t *cpl_report_jobject(void);
json_t *cpl_report_jarray(void);

/*
 * The "budgets" array of JSON and SARIF (n entries, see cpl_budget_entry):
 * object, container, file, line, cpu_request, cpu_limit, ranks, threads,
 * workers, busy, per_rank, suggested_threads, suggested_workers, how and,
 * for measured containers, measured; unknowns are null.
 */
json_t *cpl_report_budgets(const struct cpl_budget_entry *b, size_t n);

/*
 * Writes root pretty-printed (2-space indent, keys in insertion order)
 * with a trailing newline.  -1 when writing failed.
 */
int cpl_report_jdump(FILE *out, const json_t *root);

#endif
