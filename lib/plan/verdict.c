/*
 * verdict.c — the rules of verdict.h over a comparison's rows.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/sweep_int.h"
#include "plan/verdict.h"
#include "util.h"

#define TIE 0.02		/* throughput within 2% is a tie */
#define RAISE_PTS 1.0		/* throttling raised by more than 1 point */
#define LOW_CPU 0.5		/* under half the budget used */
#define STALL 0.2		/* waiting for batches 20% of the time */

static void
say(struct cpl_verdict *v, const char *kind, char *text)
{
	size_t cap = v->nlines;

	CPL_GROW(v->lines, cap, v->nlines + 1);
	v->lines[v->nlines].kind = kind;
	v->lines[v->nlines].text = text;
	v->nlines++;
}

/* Whether a is preferred to b on a tie: fewer threads, then workers. */
static bool
fewer(const struct cpl_verdict_row *a, const struct cpl_verdict_row *b)
{
	if (a->threads != b->threads)
		return a->threads < b->threads;
	return a->workers < b->workers;
}

static long
best_by_throughput(const struct cpl_verdict_row *r, size_t n)
{
	double top = -1;
	long best = -1;
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].throughput > top)
			top = r[i].throughput;
	for (i = 0; i < n; i++)
		if (r[i].throughput >= 0 && r[i].throughput >= top * (1 - TIE) &&
		    (best < 0 || fewer(&r[i], &r[best])))
			best = (long)i;
	return best;
}

static long
best_by_throttling(const struct cpl_verdict_row *r, size_t n,
		   double threshold)
{
	long best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].throttled < 0 || r[i].throttled >= threshold)
			continue;
		if (best < 0 || r[i].cpu_used > r[best].cpu_used ||
		    (r[i].cpu_used == r[best].cpu_used &&
		     fewer(&r[i], &r[best])))
			best = (long)i;
	}
	if (best >= 0)
		return best;
	for (i = 0; i < n; i++)
		if (r[i].throttled >= 0 && (best < 0 ||
		    r[i].throttled < r[best].throttled))
			best = (long)i;
	return best;
}

/* "2 threads, 1 worker" */
static char *
knobs(const struct cpl_verdict_row *r)
{
	if (r->workers < 0)
		return cpl_xasprintf("%ld thread%s", r->threads,
				     r->threads == 1 ? "" : "s");
	return cpl_xasprintf("%ld thread%s, %ld worker%s", r->threads,
			     r->threads == 1 ? "" : "s", r->workers,
			     r->workers == 1 ? "" : "s");
}

static void
workers_rule(struct cpl_verdict *v, const struct cpl_verdict_row *r,
	     size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct cpl_verdict_row *a = &r[i], *b = NULL;
		double more = -1;	/* the most any more workers gave */

		if (a->workers < 0 || a->throughput < 0 || a->throttled < 0)
			continue;
		/* b: the same threads, the next more workers */
		for (j = 0; j < n; j++) {
			if (j == i || r[j].threads != a->threads ||
			    r[j].workers <= a->workers || r[j].throughput < 0)
				continue;
			if (r[j].throughput > more)
				more = r[j].throughput;
			if (r[j].throttled >= 0 &&
			    (b == NULL || r[j].workers < b->workers))
				b = &r[j];
		}
		/* "keep a's workers" only when no count above it gains:
		 * one more worker may not help where two do. */
		if (b == NULL || !(b->throttled > a->throttled + RAISE_PTS) ||
		    more > a->throughput * (1 + TIE))
			continue;
		say(v, "workers", cpl_xasprintf("more workers raised "
			"throttling from %.0f%% to %.0f%% without raising "
			"throughput (%ld to %ld workers at %ld thread%s: %.4g "
			"to %.4g examples/s): keep %ld", a->throttled,
			b->throttled, a->workers, b->workers, a->threads,
			a->threads == 1 ? "" : "s", a->throughput,
			b->throughput, a->workers));
		return;
	}
}

static void
storage_rule(struct cpl_verdict *v, const struct cpl_verdict_row *r,
	     size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *k;

		if (r[i].wait < STALL || r[i].cpu_used < 0 ||
		    r[i].cpu_budget <= 0 ||
		    r[i].cpu_used >= LOW_CPU * r[i].cpu_budget)
			continue;
		k = knobs(&r[i]);
		say(v, "storage", cpl_xasprintf("%s (%s): CPU use %.1f of %g "
			"while loading waits %.0f%%: look at storage and "
			"decoding before adding threads", r[i].setting, k,
			r[i].cpu_used, r[i].cpu_budget, r[i].wait * 100));
		free(k);
	}
}

/* The row the plan ran as the job's current setting ("t2-w4-current"),
 * or -1; *len receives the length of its name without the suffix. */
static long
current_row(const struct cpl_verdict_row *r, size_t n, int *len)
{
	static const char sfx[] = CPL_SWEEP_CURRENT_SUFFIX;
	size_t i, l;

	for (i = 0; i < n; i++) {
		l = r[i].setting ? strlen(r[i].setting) : 0;
		if (l > sizeof(sfx) - 1 &&
		    strcmp(r[i].setting + l - (sizeof(sfx) - 1), sfx) == 0) {
			*len = (int)(l - (sizeof(sfx) - 1));
			return (long)i;
		}
	}
	return -1;
}

/* What the winner gains over the job as written, on throughput. */
static void
gain_rule(struct cpl_verdict *v, const struct cpl_verdict_row *r, size_t n)
{
	const struct cpl_verdict_row *b, *c;
	long cur, other = -1;
	int len = 0;
	size_t i;

	cur = current_row(r, n, &len);
	if (cur < 0 || v->best < 0 || !v->by_throughput ||
	    r[cur].throughput <= 0)
		return;
	b = &r[v->best];
	c = &r[cur];
	if (v->best != cur) {
		say(v, "gain", cpl_xasprintf("%s: %.2fx your %.*s (%.4g "
			"against %.4g examples/s)", b->setting,
			b->throughput / c->throughput, len, c->setting,
			b->throughput, c->throughput));
		return;
	}
	for (i = 0; i < n; i++)
		if ((long)i != cur && r[i].throughput > 0 &&
		    (other < 0 || r[i].throughput > r[other].throughput))
			other = (long)i;
	if (other < 0)
		return;
	say(v, "gain", cpl_xasprintf("your %.*s is the best of these: keep "
		"it (%.4g examples/s, %.2fx %s)", len, c->setting,
		c->throughput, c->throughput / r[other].throughput,
		r[other].setting));
}

void
cpl_verdict_judge(struct cpl_verdict *v, const struct cpl_verdict_row *rows,
		  size_t n, double threshold)
{
	size_t i;
	char *k;

	memset(v, 0, sizeof(*v));
	v->best = -1;
	for (i = 0; i < n; i++)
		if (rows[i].throughput >= 0)
			v->by_throughput = true;
	if (v->by_throughput)
		v->best = best_by_throughput(rows, n);
	else
		v->best = best_by_throttling(rows, n, threshold);
	if (v->best >= 0) {
		const struct cpl_verdict_row *b = &rows[v->best];

		k = knobs(b);
		if (v->by_throughput) {
			long tie = -1;

			for (i = 0; i < n; i++)
				if ((long)i != v->best && rows[i].throughput >= 0 &&
				    rows[i].throughput >= b->throughput *
				    (1 - TIE) && rows[i].throughput <=
				    b->throughput * (1 + TIE) && (tie < 0 ||
				    rows[i].throughput > rows[tie].throughput))
					tie = (long)i;
			if (tie >= 0)
				say(v, "best", cpl_xasprintf("best: %s (%s): "
					"%.4g examples/s, a tie with %s (%.4g, "
					"within 2%%) that goes to fewer threads, "
					"then fewer workers", b->setting, k,
					b->throughput, rows[tie].setting,
					rows[tie].throughput));
			else
				say(v, "best", cpl_xasprintf("best: %s (%s): "
					"%.4g examples/s", b->setting, k,
					b->throughput));
			if (b->runs > 1 && b->throughput_min >= 0) {
				struct cpl_verdict_line *l =
					&v->lines[v->nlines - 1];
				char *more = cpl_xasprintf("%s, the median of "
					"%zu runs (%.4g to %.4g)", l->text,
					b->runs, b->throughput_min,
					b->throughput_max);

				free(l->text);
				l->text = more;
			}
		}
		else
			say(v, "best", cpl_xasprintf("best: %s (%s), ranked by "
				"throttling, then CPU use (no --throughput "
				"figure): throttled %.0f%%, %.1f CPUs used",
				b->setting, k, b->throttled, b->cpu_used));
		free(k);
	}
	gain_rule(v, rows, n);
	workers_rule(v, rows, n);
	storage_rule(v, rows, n);
}

void
cpl_verdict_free(struct cpl_verdict *v)
{
	size_t i;

	for (i = 0; i < v->nlines; i++)
		free(v->lines[i].text);
	free(v->lines);
	memset(v, 0, sizeof(*v));
}
