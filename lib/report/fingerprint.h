/*
 * fingerprint.h — what identifies a finding across runs: the line hash
 * GitHub code scanning computes, and the finding's own fingerprint that
 * SARIF (partialFingerprints "cpulint/v1"), GitLab Code Quality and the
 * baseline carry.
 *
 * The line hash is the value GitHub's upload action (codeql-action,
 * src/fingerprints.ts) would compute for a line: a polynomial rolling
 * hash (base 37, modulo 2^64) over the next 100 characters from the
 * start of the line, spaces and tabs skipped, line endings folded to LF,
 * the text read as UTF-16 code units; then "hex:n", n being the
 * occurrence of that hash in the file, from 1.  It moves with its line:
 * an edit elsewhere in the file leaves it as it was.
 *
 * The finding's fingerprint is FNV-1a (64 bits, a fixed published hash,
 * so a baseline written on one machine matches on another) over the rule
 * id, the file's path relative to meta->srcroot, a hash of the line's
 * own text without blanks and its occurrence among the file's lines (the
 * line number only when the text is unknown), the object and the
 * container;
 * then ":k", k counting the findings with the same key at the same place
 * (from 1), so two results on one line differ.  It is stable under moved
 * lines, re-indenting and edits to other lines (even the next one,
 * which GitHub's line hash reads); it changes when the line itself
 * does.
 * Findings must be fingerprinted in report order (file, line, column,
 * rule) for k to be stable.
 *
 * The handle caches one file's line hashes (findings come by file).  It
 * borrows meta until freed; strings returned are the caller's.
 */
#ifndef CPL_REPORT_FINGERPRINT_H
#define CPL_REPORT_FINGERPRINT_H

#include "report/report.h"

struct cpl_report_prints;

/* A new handle over meta (its srcroot and source_text). */
struct cpl_report_prints *cpl_report_prints_new(
	const struct cpl_report_meta *meta);
void cpl_report_prints_free(struct cpl_report_prints *p);	/* NULL-safe */

/* "hex:n" for line of file, or NULL when its text is unknown.  Caller
 * frees. */
char *cpl_report_prints_line(struct cpl_report_prints *p, const char *file,
			     int line);

/* The absolute source root paths are made relative to (borrowed). */
const char *cpl_report_prints_root(const struct cpl_report_prints *p);

/* The fingerprint of f (the next in report order).  Caller frees. */
char *cpl_report_prints_finding(struct cpl_report_prints *p,
				const struct cpl_finding *f);

/*
 * file's path relative to root (both as given: absolute or relative to
 * the working directory cwd, which may be NULL), "/" separated, with no
 * "." or ".." segments; NULL when file lies outside root.  Caller frees.
 */
char *cpl_report_relpath(const char *cwd, const char *root, const char *file);

/* path made absolute against base (when relative) and normalised
 * lexically (no ".", "..", doubled or trailing slashes).  Caller frees. */
char *cpl_report_path_absolute(const char *base, const char *path);

#endif
