/*
 * render_int.h — the little the reporters share: severity tallies, a UTF-8
 * decoder and the "budgets" array of JSON and SARIF.
 *
 * Only helpers that more than one format needs live here; each format's
 * layout stays in its own file (text.c, json.c, sarif.c, github.c), and
 * every format writes through one buffered writer (wbuf.h), JSON and
 * SARIF through the streaming JSON writer (jsonw.h).  Nothing here
 * prints.
 */
#ifndef CPL_REPORT_RENDER_H
#define CPL_REPORT_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "model/finding.h"
#include "report/utf8_int.h"

/* Where the tool and each rule's documentation live (SARIF helpUri,
 * the links of -o markdown). */
#define CPL_REPORT_TOOL_URI "https://github.com/kubectl-cpulint/kubectl-cpulint"
#define CPL_REPORT_HELP_URI CPL_REPORT_TOOL_URI "/blob/main/rules/"

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

struct cpl_jsonw;

/*
 * Writes the "budgets" array of JSON and SARIF (n entries, see
 * cpl_budget_entry) as the next value of j: object, container, file,
 * line, cpu_request, cpu_limit, ranks, threads, workers, busy, per_rank,
 * suggested_threads, suggested_workers, how and, for measured containers,
 * measured; unknowns are null.
 */
void cpl_report_budgets(struct cpl_jsonw *j, const struct cpl_budget_entry *b,
			size_t n);

#endif
