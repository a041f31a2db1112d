/*
 * fixcheck.c — edits applied, then proved by a re-parse (fixcheck.h).
 *
 * Invariant: the text handed back is the original with exactly the
 * edits of the groups not refused and not deferred, and, for YAML, one
 * that text/yamlcheck.h found equal to the original but for what those
 * edits intend.  Each round refuses at least one group or ends, so the
 * rounds are at most the groups plus one; the common case (nothing to
 * refuse) is one apply and one comparison.
 *
 * May include: util.h, text/ and python/.
 */
#include "fix/fixcheck.h"

#include <stdlib.h>
#include <string.h>

#include "python/pycheck.h"
#include "text/yamlcheck.h"
#include "util.h"

void
cpl_fixcheck_free(struct cpl_fixcheck *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++)
		free(c->v[i].why);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static bool
is_refused(const struct cpl_fixcheck *c, size_t group)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].group == group)
			return true;
	return false;
}

static void
add_refusal(struct cpl_fixcheck *c, size_t group, const char *why)
{
	if (is_refused(c, group))
		return;
	CPL_GROW(c->v, c->cap, c->n + 1);
	c->v[c->n].group = group;
	c->v[c->n].why = cpl_xstrdup(why);
	c->n++;
}

/*
 * Applies the edits of the groups not refused (only group `only` when it
 * is not (size_t)-1) and compares; 0 when the result is proved, else 1
 * with r filled.  out holds the result either way.
 */
static int
attempt(struct cpl_patch *out, struct cpl_ycheck_result *r,
	const struct cpl_fixcheck *c, const char *text, size_t len,
	enum cpl_fixcheck_lang lang, struct cpl_patch_edit *edits, size_t n,
	size_t only)
{
	struct cpl_patch_edit *sub = cpl_xcalloc(n ? n : 1, sizeof(*sub));
	struct cpl_ycheck_edit *ye = cpl_xcalloc(n ? n : 1, sizeof(*ye));
	size_t *from = cpl_xcalloc(n ? n : 1, sizeof(*from));
	size_t i, m = 0, k = 0;
	int rc;

	for (i = 0; i < n; i++) {
		if (is_refused(c, edits[i].group) ||
		    (only != (size_t)-1 && edits[i].group != only))
			continue;
		from[m] = i;
		sub[m++] = edits[i];
	}
	cpl_patch_apply(out, text, len, sub, m);
	for (i = 0; i < m; i++) {
		edits[from[i]].state = sub[i].state;
		edits[from[i]].old_off = sub[i].old_off;
		edits[from[i]].old_end = sub[i].old_end;
		edits[from[i]].new_off = sub[i].new_off;
		edits[from[i]].new_end = sub[i].new_end;
		if (sub[i].state != CPL_PATCH_APPLIED)
			continue;
		ye[k++] = (struct cpl_ycheck_edit){ sub[i].old_off,
			sub[i].old_end, sub[i].new_off, sub[i].new_end,
			sub[i].group };
	}
	memset(r, 0, sizeof(*r));
	if (k == 0)
		rc = 0;
	else if (lang == CPL_FIXCHECK_PYTHON)
		rc = cpl_pycheck_run(r, text, len, out->text, out->len, ye, k);
	else
		rc = cpl_ycheck_run(r, text, len, out->text, out->len, ye, k);
	free(sub);
	free(ye);
	free(from);
	return rc;
}

/* Tries each group that is left alone, refusing those that fail. */
static void
one_by_one(struct cpl_fixcheck *c, const char *text, size_t len,
	   enum cpl_fixcheck_lang lang, struct cpl_patch_edit *edits,
	   size_t n, const char *why)
{
	struct cpl_patch p;
	struct cpl_ycheck_result r;
	size_t i, j;
	bool seen;

	for (i = 0; i < n; i++) {
		if (is_refused(c, edits[i].group))
			continue;
		for (j = 0, seen = false; j < i && !seen; j++)
			seen = edits[j].group == edits[i].group;
		if (seen)
			continue;
		if (attempt(&p, &r, c, text, len, lang, edits, n,
			    edits[i].group) != 0) {
			const char *w = cpl_ycheck_why(&r, edits[i].group);

			add_refusal(c, edits[i].group,
				    w ? w : r.unexplained ? r.unexplained :
				    why);
		}
		cpl_patch_free(&p);
		cpl_ycheck_result_free(&r);
	}
}

/* An edit's place and text, as a key. */
static char *
edit_key(const struct cpl_patch_edit *e)
{
	return cpl_xasprintf("%d:%d:%d:%d:%s", e->line, e->column,
			     e->end_line, e->end_column,
			     e->text ? e->text : "");
}

/* An edit dropped as the duplicate of one whose group was refused is
 * refused with it, for the same reason (one map of the refused edits,
 * one look-up per duplicate). */
static void
dup_refusals(struct cpl_fixcheck *c, struct cpl_patch_edit *edits, size_t n)
{
	struct cpl_strmap at = { 0 };
	char **keys = cpl_xcalloc(n ? n : 1, sizeof(*keys));
	size_t i, k, nk = 0;
	const char *why;

	for (i = 0; i < n; i++) {
		if (edits[i].state != CPL_PATCH_REFUSED)
			continue;
		for (k = 0; k < c->n && c->v[k].group != edits[i].group; k++)
			;
		keys[nk] = edit_key(&edits[i]);
		cpl_strmap_put(&at, keys[nk++], c->v[k].why);
	}
	for (i = 0; i < n && nk > 0; i++) {
		char *key;

		if (edits[i].state != CPL_PATCH_DUPLICATE)
			continue;
		key = edit_key(&edits[i]);
		why = cpl_strmap_get(&at, key);
		free(key);
		if (why == NULL)
			continue;
		add_refusal(c, edits[i].group, why);
		edits[i].state = CPL_PATCH_REFUSED;
	}
	for (i = 0; i < nk; i++)
		free(keys[i]);
	free(keys);
	cpl_strmap_free(&at);
}

void
cpl_fixcheck_apply(struct cpl_patch *out, struct cpl_fixcheck *refused,
		   const char *text, size_t len, enum cpl_fixcheck_lang lang,
		   struct cpl_patch_edit *edits, size_t n)
{
	struct cpl_ycheck_result r;
	size_t i, before;
	bool traced = false;

	if (lang == CPL_FIXCHECK_TEXT) {
		cpl_patch_apply(out, text, len, edits, n);
		return;
	}
	for (;;) {
		if (attempt(out, &r, refused, text, len, lang, edits, n,
			    (size_t)-1) == 0) {
			cpl_ycheck_result_free(&r);
			break;
		}
		before = refused->n;
		for (i = 0; i < r.n; i++)
			add_refusal(refused, r.v[i].group, r.v[i].why);
		if (refused->n == before && r.unexplained != NULL) {
			if (!traced)
				one_by_one(refused, text, len, lang, edits, n,
					   r.unexplained);
			traced = true;
			/* Still unexplained with every group proved
			 * alone: together they interact; refuse them. */
			if (refused->n == before)
				for (i = 0; i < n; i++)
					add_refusal(refused, edits[i].group,
						    r.unexplained);
		}
		cpl_ycheck_result_free(&r);
		cpl_patch_free(out);
		if (refused->n == before) {
			/* Nothing more to refuse: keep the original. */
			for (i = 0; i < n; i++)
				add_refusal(refused, edits[i].group,
					    "the edited text could not be "
					    "proved");
		}
	}
	for (i = 0; i < n; i++)
		if (is_refused(refused, edits[i].group))
			edits[i].state = CPL_PATCH_REFUSED;
	dup_refusals(refused, edits, n);
}
