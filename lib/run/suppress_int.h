/*
 * suppress_int.h — inline suppression comments in YAML and Python sources.
 *
 *   # cpulint: disable=CPU301,CPU102     this line and the next
 *   # cpulint: disable-file=CPU201       the whole file
 *   # cpulint: disable=all               every rule
 *   # cpulint: disable=CPU202 by policy  with the reason (SARIF's
 *                                        justification)
 *
 * A comment is a '#' at the start of a line or after white space (as in
 * YAML; close enough for Python, where '#' in a string after a space is
 * rare and at worst suppresses).  Rule names may be ids or kebab-case
 * names.  The scanner owns its result; free with cpl_suppress_free().
 */
#ifndef CPL_SUPPRESS_H
#define CPL_SUPPRESS_H

#include <stddef.h>

struct cpl_suppress;

/* Scans text once; NULL when it holds no cpulint comment. */
struct cpl_suppress *cpl_suppress_scan(const char *text, size_t len);
void cpl_suppress_free(struct cpl_suppress *s);	/* NULL-safe */

/*
 * Whether rule (its id; its name is matched too) is suppressed at line:
 * the 1-based line of the comment that does so, -1 for a file-wide
 * comment, 0 when not suppressed.  A NULL s suppresses nothing.
 */
int cpl_suppress_match(const struct cpl_suppress *s, const char *rule_id,
		       int line);

/*
 * The same, and *reason (borrowed until s is freed; NULL when none) the
 * words written after the comment's rule list ("disable=CPU202 by
 * policy": "by policy"); for a file-wide match, the first disable-file
 * comment's.
 */
int cpl_suppress_match_why(const struct cpl_suppress *s, const char *rule_id,
			   int line, const char **reason);

/* A word in a comment's rule list that names no rule (nor `all`). */
struct cpl_suppress_unknown {
	int line;	/* 1-based */
	int column;	/* 1-based, in bytes */
	char *word;
};

/* The unknown words of s, in text order; borrowed until s is freed. */
const struct cpl_suppress_unknown *cpl_suppress_unknowns(
	const struct cpl_suppress *s, size_t *n);

#endif
