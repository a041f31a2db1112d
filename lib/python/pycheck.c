/*
 * pycheck.c — the token comparison that proves a Python edit
 * (pycheck.h).
 *
 * One walk over the original's tokens with the edits sorted by offset
 * (applied edits never overlap): each token before which edits ended is
 * looked for at its offset shifted by what they added, among the edited
 * text's tokens, found by halving.  Linear in tokens plus edits (times a
 * logarithm).
 *
 * May include: util.h, text/ and python/.
 */
#include "python/pycheck.h"

#include <stdlib.h>
#include <string.h>

#include "python/pytoken.h"
#include "util.h"

/* Tokens that carry code (layout tokens shift with any edit). */
static bool
significant(const struct cpl_pytoken *t)
{
	switch (t->kind) {
	case CPL_PYTOK_NAME:
	case CPL_PYTOK_KEYWORD:
	case CPL_PYTOK_NUMBER:
	case CPL_PYTOK_STRING:
	case CPL_PYTOK_OP:
	case CPL_PYTOK_COMMENT:
	case CPL_PYTOK_ERRORTOKEN:
		return true;
	default:
		return false;
	}
}

static int
off_cmp(const void *a, const void *b)
{
	const struct cpl_ycheck_edit *x = *(const struct cpl_ycheck_edit *
					    const *)a;
	const struct cpl_ycheck_edit *y = *(const struct cpl_ycheck_edit *
					    const *)b;

	if (x->old_off != y->old_off)
		return x->old_off < y->old_off ? -1 : 1;
	return x->new_off < y->new_off ? -1 : x->new_off > y->new_off;
}

/* Whether bytes [s, e) meet edit x's range (old or new side): overlap,
 * or an insertion strictly inside. */
static bool
meets(size_t from, size_t to, size_t s, size_t e)
{
	if (from == to)
		return from > s && from < e;
	return from < e && to > s;
}

/* The index of the first token at or after byte off. */
static size_t
token_at(const struct cpl_pytokens *t, size_t off)
{
	size_t lo = 0, hi = t->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->toks[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
refuse(struct cpl_ycheck_result *r, size_t group, const char *why)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].group == group)
			return;
	CPL_GROW(r->v, r->cap, r->n + 1);
	r->v[r->n].group = group;
	r->v[r->n].why = cpl_xstrdup(why);
	r->n++;
}

int
cpl_pycheck_run(struct cpl_ycheck_result *out, const char *old, size_t olen,
		const char *neu, size_t nlen,
		const struct cpl_ycheck_edit *ed, size_t ne)
{
	struct cpl_pytokens to = { 0 }, tn = { 0 };
	struct cpl_error err = { 0 };
	const struct cpl_ycheck_edit **by = NULL;
	size_t i, k = 0, kept = 0, fresh = 0;
	long delta = 0;
	char *why;

	memset(out, 0, sizeof(*out));
	/* An original that does not tokenize is no yardstick. */
	if (cpl_pytoken_scan(&to, old, olen, "", &err) < 0)
		goto out;
	cpl_error_clear(&err);
	if (cpl_pytoken_scan(&tn, neu, nlen, "", &err) < 0) {
		out->unexplained = cpl_xasprintf("the edited Python would not "
						 "tokenize: %s at line %d, "
						 "column %d", err.message,
						 err.line, err.column);
		goto out;
	}
	by = cpl_xcalloc(ne ? ne : 1, sizeof(*by));
	for (i = 0; i < ne; i++)
		by[i] = &ed[i];
	qsort(by, ne, sizeof(*by), off_cmp);
	for (i = 0; i < to.count; i++) {
		const struct cpl_pytoken *t = &to.toks[i], *u;
		size_t s = t->off, e = t->off + t->len, j, nj;
		bool touched = false;

		if (!significant(t))
			continue;
		while (k < ne && by[k]->old_end <= s) {
			delta += (long)(by[k]->new_end - by[k]->new_off) -
				 (long)(by[k]->old_end - by[k]->old_off);
			k++;
		}
		for (j = k; j < ne && by[j]->old_off < e + 1 && !touched; j++)
			touched = meets(by[j]->old_off, by[j]->old_end, s, e);
		if (touched)
			continue;
		nj = token_at(&tn, (size_t)((long)s + delta));
		/* A DEDENT (no bytes) may stand at the same offset. */
		while (nj < tn.count && !significant(&tn.toks[nj]) &&
		       tn.toks[nj].off == (size_t)((long)s + delta))
			nj++;
		u = nj < tn.count ? &tn.toks[nj] : NULL;
		if (u != NULL && u->off == (size_t)((long)s + delta) &&
		    u->kind == t->kind && u->len == t->len &&
		    memcmp(neu + u->off, old + s, t->len) == 0) {
			kept++;
			continue;
		}
		why = cpl_xasprintf("the edit would change how the Python at "
				    "line %d reads", (int)t->line);
		if (k > 0)
			refuse(out, by[k - 1]->group, why);
		else
			out->unexplained = cpl_xstrdup(why);
		free(why);
		goto out;
	}
	/* No token may appear outside what the edits wrote. */
	for (i = 0, k = 0; i < tn.count; i++) {
		const struct cpl_pytoken *u = &tn.toks[i];
		bool touched = false;
		size_t j;

		if (!significant(u))
			continue;
		while (k < ne && by[k]->new_end < u->off)
			k++;
		for (j = k; j < ne && by[j]->new_off <= u->off + u->len &&
		     !touched; j++)
			touched = meets(by[j]->new_off, by[j]->new_end, u->off,
					u->off + u->len) ||
				  (by[j]->new_off <= u->off &&
				   u->off < by[j]->new_end);
		fresh += !touched;
	}
	if (fresh != kept)
		out->unexplained = cpl_xstrdup("the edit would add Python "
					       "outside what it writes");
out:
	cpl_error_clear(&err);
	free(by);
	cpl_pytoken_clear(&to);
	cpl_pytoken_clear(&tn);
	return out->n > 0 || out->unexplained != NULL;
}
