/*
 * common.c — gathers the budget facts rules share (see common.h).
 */
#include "common.h"

#include <stdio.h>
#include <string.h>

const char *
cpl_facts_cname(const struct cpl_container *c)
{
	return c->name && *c->name ? c->name : "(unnamed)";
}

const struct cpl_pos *
cpl_facts_where(const struct cpl_workload *w, const struct cpl_container *c)
{
	if (c->resources_pos.line > 0)
		return &c->resources_pos;
	if (c->pos.line > 0)
		return &c->pos;
	return &w->pos;
}

long
cpl_facts_needed(const struct cpl_facts *f, long *t, long *w)
{
	long r = f->ranks.n > 0 ? f->ranks.n : 1;

	*t = f->threads.state == CPL_AMT_KNOWN && f->threads.n > 0 ?
	     f->threads.n : 1;
	/* Unknown workers count as one; a known 0 stays 0. */
	*w = f->workers.state == CPL_AMT_KNOWN ? f->workers.n : 1;
	return cpl_sat_mul(r, cpl_sat_add(*t, *w));
}

const char *
cpl_plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void
cpl_facts_window(char *out, size_t size, const char **source,
		 const struct cpl_container *c)
{
	double w = c->window_seconds > 0 ? c->window_seconds :
		   c->measure_window;
	long s = (long)(w + 0.5);

	*source = c->measure_source &&
		  strcmp(c->measure_source, "prometheus") == 0 ?
		  "Prometheus" : "cAdvisor";
	if (c->since_start || c->window_seconds <= 0)
		snprintf(out, size, "since it started");
	else if (s >= 3600 && s % 3600 == 0)
		snprintf(out, size, "over the last %ldh", s / 3600);
	else if (s >= 60 && s % 60 == 0)
		snprintf(out, size, "over the last %ldm", s / 60);
	else
		snprintf(out, size, "over the last %lds", s);
}

double
cpl_facts_throttled(const struct cpl_container *c)
{
	if (c->throttle != CPL_THROTTLE_MEASURED)
		return -1;
	if (c->throttled_pct >= 0)
		return c->throttled_pct;
	if (c->periods > 0)
		return 100.0 * (double)c->throttled_periods /
		       (double)c->periods;
	return -1;
}
