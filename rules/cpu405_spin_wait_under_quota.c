/*
 * CPU405 spin-wait-under-quota — a container with a CPU limit tells its
 * OpenMP threads to spin while they wait: KMP_BLOCKTIME=infinite or above
 * its 200 ms default (LLVM/Intel OpenMP), OMP_WAIT_POLICY=active (libomp
 * then spins forever unless KMP_BLOCKTIME bounds it; GNU libgomp spins up
 * to 30 billion iterations unless GOMP_SPINCOUNT does: active is
 * reported unless both are set to a number), GOMP_SPINCOUNT infinite or
 * above its 300,000 default.
 *
 * A spinning thread is busy to the kernel: under a CFS quota every
 * spinning millisecond is a millisecond of the limit the working threads
 * no longer get, so the waits make the container throttled, not faster.
 * With exclusive cores (static CPU Manager policy) spinning costs nobody
 * else, but a quota is charged all the same, so the limit alone decides.
 * One finding per variable, on its definition; a value in the
 * container's env (not a shell export) gets an edit.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BLOCKTIME_MS 200	/* libomp's default KMP_BLOCKTIME */
#define SPINCOUNT 300000	/* libgomp's default GOMP_SPINCOUNT */

/* KMP_BLOCKTIME in ms ("200", "100ms", "500us", "1s"); -2 infinite, -1
 * not a value. */
static double
blocktime_ms(const char *v)
{
	char *end;
	double n;

	if (strcasecmp(v, "infinite") == 0 || strcasecmp(v, "infinity") == 0)
		return -2;
	n = strtod(v, &end);
	if (end == v || n < 0)
		return -1;
	if (*end == '\0' || strcasecmp(end, "ms") == 0)
		return n;
	if (strcasecmp(end, "us") == 0)
		return n / 1000;
	if (strcasecmp(end, "s") == 0)
		return n * 1000;
	return -1;
}

/* GOMP_SPINCOUNT ("300000", "10k", "1M"); -2 infinite, -1 not a value. */
static double
spincount(const char *v)
{
	char *end;
	double n;

	if (strcasecmp(v, "infinite") == 0 || strcasecmp(v, "infinity") == 0)
		return -2;
	n = strtod(v, &end);
	if (end == v || n < 0)
		return -1;
	if (*end == 'k' || *end == 'K')
		n *= 1e3, end++;
	else if (*end == 'M')
		n *= 1e6, end++;
	else if (*end == 'G')
		n *= 1e9, end++;
	else if (*end == 'T')
		n *= 1e12, end++;
	return *end == '\0' ? n : -1;
}

/* The variable name of c as the process sees it, known; else NULL. */
static const struct cpl_env *
known(const struct cpl_container *c, const char *name)
{
	const struct cpl_env *e = cpl_container_env_effective(c, name);

	return e && e->value ? e : NULL;
}

/* Reports e (what it makes the threads do: why) with the fix to set it
 * to good, as an edit when it is the container's own env value. */
static void
report(struct cpl_check *ck, const struct cpl_workload *w,
       const struct cpl_container *c, const struct cpl_facts *f,
       const struct cpl_env *e, const char *why, const char *good)
{
	struct cpl_finding *fd;
	char quoted[32];

	fd = cpl_check_report(ck, w, c, &e->pos,
		"%s=%s in container \"%s\" %s; spinning is CPU time, charged "
		"to the container's CPU limit of %s while the working "
		"threads wait for it", e->name, e->value, cpl_facts_cname(c),
		why, f->cpus);
	if (good == NULL) {
		cpl_finding_set_fix(fd, "remove %s (libgomp's default spins "
				    "300,000 times), or set "
				    "OMP_WAIT_POLICY=passive", e->name);
		return;
	}
	cpl_finding_set_fix(fd, "set %s to \"%s\": waiting threads then "
			    "sleep instead of burning the quota", e->name,
			    good);
	if (cpl_container_env(c, e->name) == e) {
		snprintf(quoted, sizeof(quoted), "\"%s\"", good);
		cpl_fix_scalar(fd, &e->pos, quoted);
	}
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	const struct cpl_env *bt, *wp, *sc;
	double btv = -1, scv = -1;
	struct cpl_facts f;

	if (c->role != CPL_CROLE_MAIN || c->cpu_limit < 0)
		return;
	bt = known(c, "KMP_BLOCKTIME");
	wp = known(c, "OMP_WAIT_POLICY");
	sc = known(c, "GOMP_SPINCOUNT");
	if (bt)
		btv = blocktime_ms(bt->value);
	if (sc)
		scv = spincount(sc->value);
	if (!(bt && (btv == -2 || btv > BLOCKTIME_MS)) &&
	    !(wp && strcasecmp(wp->value, "active") == 0) &&
	    !(sc && (scv == -2 || scv > SPINCOUNT)))
		return;
	cpl_facts_gather(&f, w, c);
	if (bt && btv == -2)
		report(ck, w, c, &f, bt, "makes idle OpenMP threads spin "
		       "forever instead of sleeping", "1");
	else if (bt && btv > BLOCKTIME_MS)
		report(ck, w, c, &f, bt, "makes idle OpenMP threads spin "
		       "longer than the 200 ms default before they sleep",
		       "1");
	/* Under active each runtime spins until its own variable bounds it
	 * (a bound above the default is reported on that variable). */
	if (wp && strcasecmp(wp->value, "active") == 0) {
		bool kmp = btv >= 0;
		bool gomp = scv >= 0;

		if (!kmp || !gomp)
			report(ck, w, c, &f, wp, kmp ?
			       "makes idle GNU OpenMP threads spin 30 billion "
			       "times before they sleep" : gomp ?
			       "makes idle LLVM/Intel OpenMP threads spin "
			       "forever" :
			       "makes idle OpenMP threads spin (forever in "
			       "LLVM/Intel OpenMP, 30 billion times in GNU "
			       "libgomp)", "passive");
	}
	if (sc && (scv == -2 || scv > SPINCOUNT))
		report(ck, w, c, &f, sc, "makes idle GNU OpenMP threads spin "
		       "longer than the 300,000-iteration default", NULL);
}

const struct cpl_rule cpl_rule_cpu405 = {
	.id = "CPU405",
	.name = "spin-wait-under-quota",
	.severity = CPL_SEV_WARNING,
	.summary = "KMP_BLOCKTIME, OMP_WAIT_POLICY=active or GOMP_SPINCOUNT "
		   "makes OpenMP threads spin under a CPU limit.",
	.precision = "high",
	.check_container = check,
};
