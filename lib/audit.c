/*
 * audit.c — the audit loop (see audit.h).
 *
 * Invariant: snap.e is replaced only under lock, and the engine it held
 * is freed after the lock is let go, so /metrics never sees a half-made
 * pass and a pass never waits for a scrape longer than a pointer swap.
 */
#include "audit.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cpl_audit {
	struct cpl_audit_opts o;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping;
	struct cpl_audit_snapshot snap;
	struct cpl_engine *e;		/* snap.e, owned */
	char *error;			/* snap.last_error, owned */
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One pass: a new engine filled by live mode, then published. */
static void
pass(struct cpl_audit *a)
{
	struct cpl_engine *e = cpl_engine_new(), *old;
	struct cpl_buf notes;
	const struct cpl_error *errs;
	size_t nerrs = 0;
	double t0 = now_s(), t1;
	char *why = NULL;
	int rc;

	cpl_buf_init(&notes, 0);
	cpl_engine_set_jobs(e, 1);
	rc = cpl_live_collect(e, NULL, 0, &a->o.live, &notes);
	cpl_engine_run(e);
	errs = cpl_engine_errors(e, &nerrs);
	if (rc < 0 && nerrs > 0)
		why = cpl_error_format(&errs[0]);
	else if (rc < 0)
		why = cpl_xstrdup("the cluster could not be read");
	t1 = now_s();
	pthread_mutex_lock(&a->lock);
	old = a->e;
	a->e = e;
	free(a->error);
	a->error = why;
	a->snap.e = e;
	a->snap.last_time = t1;
	a->snap.last_duration = t1 - t0;
	a->snap.passes++;
	a->snap.ok = rc == 0;
	a->snap.failures += rc < 0;
	a->snap.last_error = why;
	pthread_mutex_unlock(&a->lock);
	cpl_engine_free(old);
	cpl_buf_free(&notes);
}

static void *
loop(void *arg)
{
	struct cpl_audit *a = arg;
	struct timespec until;
	double wait = a->o.interval_s > 0 ? a->o.interval_s : 60;

	for (;;) {
		pass(a);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)wait;
		until.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&a->lock);
		while (!a->stopping &&
		       pthread_cond_timedwait(&a->wake, &a->lock,
					      &until) != ETIMEDOUT)
			;
		if (a->stopping) {
			pthread_mutex_unlock(&a->lock);
			break;
		}
		pthread_mutex_unlock(&a->lock);
	}
	return NULL;
}

int
cpl_audit_start(struct cpl_audit **out, const struct cpl_audit_opts *o,
		struct cpl_error *err)
{
	struct cpl_audit *a = cpl_xcalloc(1, sizeof(*a));
	int rc;

	a->o = *o;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->wake, NULL);
	rc = pthread_create(&a->thread, NULL, loop, a);
	if (rc != 0) {
		cpl_error_set(err, NULL, 0, 0, "cannot start the audit: %s",
			      strerror(rc));
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->wake);
		free(a);
		*out = NULL;
		return -1;
	}
	*out = a;
	return 0;
}

void
cpl_audit_with(struct cpl_audit *a, cpl_audit_fn fn, void *ctx)
{
	pthread_mutex_lock(&a->lock);
	fn(ctx, &a->snap);
	pthread_mutex_unlock(&a->lock);
}

void
cpl_audit_stop(struct cpl_audit *a)
{
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	a->stopping = true;
	pthread_cond_broadcast(&a->wake);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->wake);
	cpl_engine_free(a->e);
	free(a->error);
	free(a);
}
