/*
 * yamlcheck.h — whether an edited YAML or JSON text still means what the
 * original meant, except where its edits intend a change.
 *
 * --fix holds itself to a formatter's standard: after the edits of a
 * file are applied, both texts are parsed (libyaml) and compared node by
 * node, with aliases resolved, merge keys as written, and every scalar's
 * type resolved (an explicit tag, else quoted and block scalars are
 * strings and plain ones follow YAML 1.1's null, bool, int and float).
 * A node may differ only where an edit says so:
 *
 *  - an edit that replaces a scalar whole (its content, an anchor or tag
 *    before it kept or not) intends the value its replacement spells:
 *    the new node must hold exactly that value, and the type the old one
 *    had;
 *  - an edit inside a scalar (a count in a command line) intends the old
 *    value with those bytes replaced, and the same type;
 *  - an insertion may add pairs to a mapping or items to a sequence, and
 *    nothing else.
 *
 * Anything else is refused and blamed on the edit's group (the caller's
 * fix): an edited anchor that an alias elsewhere reads, a block scalar
 * whose indicator alone was replaced, a tag or quoting the edit lost, a
 * key or an item that changed, an edit that changes no value.  A
 * difference no edit explains (the edited text no longer parses) is
 * reported apart, so the caller can try each group alone.
 *
 * Ownership: the result owns its reasons (cpl_ycheck_result_free); the
 * texts and edits stay the caller's.
 *
 * May include: util.h and the text wing's own headers.
 */
#ifndef CPL_TEXT_YAMLCHECK_H
#define CPL_TEXT_YAMLCHECK_H

#include <stddef.h>

/* One applied edit: bytes [old_off, old_end) of the old text became
 * [new_off, new_end) of the new one (text/patch.h fills these). */
struct cpl_ycheck_edit {
	size_t old_off, old_end;
	size_t new_off, new_end;
	size_t group;			/* the caller's: one fix */
};

/* A group whose edits must not be made, and why (one sentence). */
struct cpl_ycheck_refusal {
	size_t group;
	char *why;
};

struct cpl_ycheck_result {
	struct cpl_ycheck_refusal *v;	/* one per refused group */
	size_t n, cap;
	char *unexplained;		/* a difference no edit explains,
					 * or NULL */
};

/*
 * Compares old (olen bytes) and new (nlen bytes) under the edits (ne of
 * them, each applied).  0 when every difference is one an edit intends;
 * 1 when out holds refusals or an unexplained difference.  The old text
 * must parse (an unparsable original is an unexplained difference).
 */
int cpl_ycheck_run(struct cpl_ycheck_result *out, const char *old,
		   size_t olen, const char *neu, size_t nlen,
		   const struct cpl_ycheck_edit *ed, size_t ne);

/* The reason for group, or NULL when it was not refused. */
const char *cpl_ycheck_why(const struct cpl_ycheck_result *r, size_t group);

void cpl_ycheck_result_free(struct cpl_ycheck_result *r);	/* members */

#endif
