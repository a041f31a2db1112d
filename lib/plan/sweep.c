/*
 * sweep.c — the settings of a plan (sweep_int.h): the values of each knob are
 * the powers of two below its bound, the bound and the suggestion,
 * ascending and once each.
 */
#include <stdio.h>

#include "plan/sweep_int.h"
#include "util.h"

/* Values from lo (0 or 1) to hi: powers of two, hi, and also. */
static size_t
values(long *out, long lo, long hi, long also)
{
	long v, cand[72];
	size_t n = 0, m = 0, i, j;

	if (hi < lo)
		return 0;
	if (lo == 0)
		cand[n++] = 0;
	for (v = 1; v <= hi && n < 64; v *= 2)
		cand[n++] = v;
	cand[n++] = hi;
	if (also >= lo && also <= hi)
		cand[n++] = also;
	/* sort ascending, once each (n is small) */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (cand[j] < cand[i]) {
				v = cand[i];
				cand[i] = cand[j];
				cand[j] = v;
			}
	for (i = 0; i < n; i++)
		if (m == 0 || cand[i] != out[m - 1])
			out[m++] = cand[i];
	return m;
}

static void
name(struct cpl_sweep_setting *s)
{
	const char *sfx = s->knob == CPL_SWEEP_CURRENT ?
			  CPL_SWEEP_CURRENT_SUFFIX : "";

	if (s->workers >= 0)
		cpl_format(s->id, sizeof(s->id), "t%ld-w%ld%s", s->threads,
			   s->workers, sfx);
	else
		cpl_format(s->id, sizeof(s->id), "t%ld%s", s->threads, sfx);
}

/* The job's current setting, when it is known and not already out[0, n). */
static size_t
current(struct cpl_sweep_setting *out, size_t n,
	const struct cpl_sweep_in *in, long w)
{
	long cw = w >= 0 ? in->cur_workers : -1;
	size_t i;

	if (in->cur_threads < 1 || (w >= 0 && in->cur_workers < 0) ||
	    n >= CPL_SWEEP_MAX)
		return n;
	/* --max: no knob above it, the job's own included */
	if (in->max > 0 && (in->cur_threads > in->max || cw > in->max))
		return n;
	for (i = 0; i < n; i++)
		if (out[i].threads == in->cur_threads && out[i].workers == cw)
			return n;
	out[n].threads = in->cur_threads;
	out[n].workers = cw;
	out[n].knob = CPL_SWEEP_CURRENT;
	name(&out[n]);
	return n + 1;
}

size_t
cpl_sweep_make(struct cpl_sweep_setting *out, const struct cpl_sweep_in *in)
{
	long t, w, tmax, wmax, v[72];
	size_t n = 0, k, i;

	if (in->per_rank < 1)
		return 0;
	t = in->threads < 1 ? 1 : in->threads;
	w = in->set_workers ? (in->workers < 0 ? 0 : in->workers) : -1;
	if (w >= 0 && w < in->min_workers)
		w = in->min_workers;
	if (in->max > 0 && t > in->max)
		t = in->max;
	if (in->max > 0 && w > in->max)
		w = in->max;
	out[n].threads = t;
	out[n].workers = w;
	out[n].knob = CPL_SWEEP_BASE;
	name(&out[n++]);
	/* the workers' share is kept for them even when the plan cannot
	 * set them: the code runs some; the suggestion itself may pass it
	 * (a decoding loader's workers) */
	tmax = in->per_rank - (w >= 0 ? w : in->workers > 0 ? in->workers : 0);
	if (tmax < t)
		tmax = t;
	if (in->max > 0 && tmax > in->max)
		tmax = in->max;
	k = values(v, 1, tmax, t);
	for (i = 0; i < k && n < CPL_SWEEP_MAX; i++) {
		if (v[i] == t)
			continue;
		out[n].threads = v[i];
		out[n].workers = w;
		out[n].knob = CPL_SWEEP_THREADS;
		name(&out[n++]);
	}
	if (w < 0)
		return current(out, n, in, w);
	wmax = in->per_rank - t;
	if (in->loader) {
		/* past the budget: the loader waits while compute runs */
		if (wmax < w)
			wmax = w;
		wmax += in->per_rank / 2 > 2 ? in->per_rank / 2 : 2;
	}
	if (in->max > 0 && wmax > in->max)
		wmax = in->max;
	k = values(v, in->min_workers > 0 ? 1 : 0, wmax, w);
	for (i = 0; i < k && n < CPL_SWEEP_MAX; i++) {
		if (v[i] == w)
			continue;
		out[n].threads = t;
		out[n].workers = v[i];
		out[n].knob = CPL_SWEEP_WORKERS;
		name(&out[n++]);
	}
	return current(out, n, in, w);
}
