/*
 * lease.c — leader election on a Lease, and the audit run by the leader
 * only (see lease.h for the rules, which are client-go's).
 *
 * State: the elector thread alone reads and writes the Lease and keeps
 * what it last saw (the spec's text and when it changed, on the
 * monotonic clock); the audit pointer changes only under the lock, and
 * an audit let go is stopped after the lock is released, so /metrics
 * never waits for an audit to stop and never sees one half-stopped.
 *
 * Invariant: this replica runs an audit only while its last successful
 * write of the Lease is younger than the renew deadline (2/3 of the
 * duration), so two replicas never audit at once unless clocks lie by
 * more than a third of the duration.
 */
#include "live/lease.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kube/kubeclient.h"
#include "kube/kubeconfig.h"

#define DEFAULT_NAME "kubectl-cpulint"
#define DEFAULT_DURATION_S 15.0
#define MAX_RETRY_S 2.0		/* client-go's RetryPeriod */

struct cpl_leader {
	struct cpl_audit_opts ao;
	char *name, *namespace, *identity, *lease;
	double duration_s;
	struct cpl_kubeconfig *kc;
	struct cpl_kubeclient *client;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	atomic_bool stopping;
	struct cpl_audit *audit;	/* under lock; NULL: not the leader */
	char *error;			/* under lock: the last failure's
					 * message, NULL after a good round */
	bool error_new;			/* under lock: not taken yet */
	/* the elector thread's alone: */
	char *seen;			/* the spec last read, compact JSON */
	double seen_at;			/* monotonic s it last changed */
	double asked_at;		/* monotonic s of the last read */
	double wake_in;			/* s until another's hold lapses
					 * (-1: not known) */
	double renewed_at;		/* monotonic s of the last good write */
	json_t *stored;			/* the Lease as last read or written */
};

static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A MicroTime, as metav1 writes it: "2026-12-07T08:00:00.123456Z";
 * caller frees. */
static char *
micro_time(double t)
{
	time_t s = (time_t)t;
	long us = (long)((t - (double)s) * 1e6);
	struct tm tm;
	char day[32];

	gmtime_r(&s, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	return cpl_xasprintf("%s.%06ldZ", day, us < 0 ? 0 : us);
}

/* Epoch seconds of an RFC 3339 time in UTC ("Z", any fraction); -1 when
 * it is not one. */
static double
parse_time(const char *text)
{
	struct tm tm = { 0 };
	const char *p;
	double frac = 0, scale = 0.1;

	if (text == NULL)
		return -1;
	p = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p == NULL)
		return -1;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	if (strcmp(p, "Z") != 0)
		return -1;
	return (double)timegm(&tm) + frac;
}

static bool
stop_asked(void *ctx)
{
	struct cpl_leader *l = ctx;

	return atomic_load(&l->stopping);
}

static struct cpl_kube_ref
lease_ref(const struct cpl_leader *l, bool named)
{
	struct cpl_kube_ref r = { "coordination.k8s.io/v1", "leases",
				  l->namespace, named ? l->name : NULL, NULL };

	return r;
}

/* The spec this replica writes: holding it from now. */
static json_t *
my_spec(const struct cpl_leader *l, const json_t *old, bool mine)
{
	double now = wall_s();
	char *t = micro_time(now);
	json_t *spec = json_pack("{s:s, s:I, s:s}", "holderIdentity",
				 l->identity, "leaseDurationSeconds",
				 (json_int_t)l->duration_s, "renewTime", t);
	json_int_t moves = json_integer_value(json_object_get(
		old, "leaseTransitions"));
	json_t *acq = json_object_get(old, "acquireTime");

	if (spec == NULL)
		abort();
	if (mine && json_is_string(acq)) {
		json_object_set(spec, "acquireTime", acq);
		json_object_set_new(spec, "leaseTransitions",
				    json_integer(moves));
	} else {
		json_object_set_new(spec, "acquireTime", json_string(t));
		json_object_set_new(spec, "leaseTransitions",
				    json_integer(old ? moves + 1 : 0));
	}
	free(t);
	return spec;
}

/*
 * Notes the spec read, and when it last changed on this replica's clock:
 * between the read before (since) and now, where the record's renewTime
 * puts it (so clocks that agree lose no time to polling, and a clock that
 * lies can move it only within that interval).
 */
static void
observe(struct cpl_leader *l, const json_t *spec, double since)
{
	char *text = json_dumps(spec ? spec : json_null(),
				JSON_COMPACT | JSON_SORT_KEYS |
				JSON_ENCODE_ANY);
	double now = mono_s(), at = now, renew;

	if (text == NULL)
		abort();
	if (l->seen == NULL || strcmp(l->seen, text) != 0) {
		renew = parse_time(json_string_value(json_object_get(
			spec, "renewTime")));
		if (renew >= 0 && l->seen != NULL) {
			at = now - (wall_s() - renew);
			if (at < since)
				at = since;
			if (at > now)
				at = now;
		}
		free(l->seen);
		l->seen = text;
		l->seen_at = at;
	} else {
		free(text);
	}
}

/* Creates the Lease, held by this replica.  0 when it did. */
static int
create(struct cpl_leader *l, struct cpl_error *err)
{
	struct cpl_kube_ref r = lease_ref(l, false);
	json_t *obj = json_pack("{s:s, s:s, s:{s:s, s:s}, s:o}", "apiVersion",
				"coordination.k8s.io/v1", "kind", "Lease",
				"metadata", "name", l->name, "namespace",
				l->namespace, "spec", my_spec(l, NULL, false));
	json_t *out = NULL;
	int rc;

	if (obj == NULL)
		abort();
	rc = cpl_kubeclient_create(&out, l->client, &r, obj, err);
	json_decref(obj);
	if (rc == 0) {
		json_decref(l->stored);
		l->stored = out;
		observe(l, json_object_get(out, "spec"), mono_s());
	}
	return rc;
}

/*
 * One round of client-go's tryAcquireOrRenew: 1 when this replica holds
 * the Lease after it, 0 when another does, <0 (err set) when the Lease
 * could not be read or written.
 */
static int
try_acquire_or_renew(struct cpl_leader *l, struct cpl_error *err)
{
	struct cpl_kube_ref r = lease_ref(l, true);
	json_t *obj = NULL, *out = NULL, *spec, *copy = NULL;
	const char *holder;
	double dur, renew, since = l->asked_at, left;
	bool mine;
	int rc;

	l->wake_in = -1;
	l->asked_at = mono_s();
	rc = cpl_kubeclient_get(&obj, NULL, l->client, &r, err);
	if (rc == CPL_KUBE_NOT_FOUND) {
		cpl_error_clear(err);
		rc = create(l, err);
		return rc == 0 ? 1 : rc == CPL_KUBE_CONFLICT ? 0 : rc;
	}
	if (rc < 0)
		return rc;
	spec = json_object_get(obj, "spec");
	observe(l, spec, since);
	holder = json_string_value(json_object_get(spec, "holderIdentity"));
	mine = holder && strcmp(holder, l->identity) == 0;
	if (holder && *holder && !mine) {
		dur = (double)json_integer_value(json_object_get(
			spec, "leaseDurationSeconds"));
		renew = parse_time(json_string_value(json_object_get(
			spec, "renewTime")));
		if (dur <= 0)
			dur = l->duration_s;
		/* Held until both clocks say it has lapsed. */
		left = l->seen_at + dur - mono_s();
		if (renew >= 0 && renew + dur - wall_s() > left)
			left = renew + dur - wall_s();
		if (left > 0) {
			l->wake_in = left;
			json_decref(obj);
			return 0;
		}
	}
	copy = json_deep_copy(obj);
	if (copy == NULL)
		abort();
	json_object_set_new(copy, "spec", my_spec(l, spec, mine));
	rc = cpl_kubeclient_update(&out, l->client, &r, copy, err);
	json_decref(copy);
	json_decref(obj);
	if (rc == CPL_KUBE_CONFLICT) {
		cpl_error_clear(err);
		return 0;		/* someone wrote first: read again */
	}
	if (rc < 0)
		return rc;
	json_decref(l->stored);
	l->stored = out;
	observe(l, json_object_get(out, "spec"), mono_s());
	return 1;
}

/* Gives the Lease up: holder empty, as client-go's ReleaseOnCancel. */
static void
release(struct cpl_leader *l)
{
	struct cpl_kube_ref r = lease_ref(l, true);
	struct cpl_error err = { 0 };
	json_t *copy, *spec, *out = NULL;
	char *t;

	if (l->stored == NULL)
		return;
	copy = json_deep_copy(l->stored);
	spec = json_object_get(copy, "spec");
	if (copy == NULL || !json_is_object(spec))
		goto out;
	t = micro_time(wall_s());
	json_object_set_new(spec, "holderIdentity", json_string(""));
	json_object_set_new(spec, "leaseDurationSeconds", json_integer(1));
	json_object_set_new(spec, "renewTime", json_string(t));
	json_object_set_new(spec, "acquireTime", json_string(t));
	free(t);
	(void)cpl_kubeclient_update(&out, l->client, &r, copy, &err);
out:
	cpl_error_clear(&err);
	json_decref(out);
	json_decref(copy);
}

/* Starts (lead true) or stops this replica's audit; whether it runs
 * after. */
static bool
set_leading(struct cpl_leader *l, bool lead)
{
	struct cpl_audit *a = NULL, *old = NULL;
	struct cpl_error err = { 0 };

	if (lead && cpl_audit_start(&a, &l->ao, &err) < 0) {
		cpl_error_clear(&err);	/* a thread: tried next round */
		return false;
	}
	pthread_mutex_lock(&l->lock);
	old = l->audit;
	l->audit = a;
	pthread_mutex_unlock(&l->lock);
	cpl_audit_stop(old);
	return a != NULL;
}

/* Keeps err's message for cpl_leader_error when it is a new one; NULL:
 * a round that worked. */
static void
note_error(struct cpl_leader *l, const struct cpl_error *err)
{
	const char *msg = err && err->message ? err->message : NULL;

	pthread_mutex_lock(&l->lock);
	if (msg == NULL) {
		free(l->error);
		l->error = NULL;
		l->error_new = false;
	} else if (l->error == NULL || strcmp(l->error, msg) != 0) {
		free(l->error);
		l->error = cpl_xstrdup(msg);
		l->error_new = true;
	}
	pthread_mutex_unlock(&l->lock);
}

/* Sleeps s seconds or until stopped. */
static void
nap(struct cpl_leader *l, double s)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)s;
	until.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&l->lock);
	while (!atomic_load(&l->stopping) &&
	       pthread_cond_timedwait(&l->wake, &l->lock, &until) !=
	       ETIMEDOUT)
		;
	pthread_mutex_unlock(&l->lock);
}

static void *
loop(void *arg)
{
	struct cpl_leader *l = arg;
	double renew_every = l->duration_s / 3;
	double retry = renew_every < MAX_RETRY_S ? renew_every : MAX_RETRY_S;
	double deadline = l->duration_s * 2 / 3;
	bool leading = false;
	struct cpl_error err = { 0 };
	int rc;

	while (!atomic_load(&l->stopping)) {
		rc = try_acquire_or_renew(l, &err);
		note_error(l, rc < 0 && !atomic_load(&l->stopping) ? &err
								   : NULL);
		cpl_error_clear(&err);
		if (atomic_load(&l->stopping))
			break;
		if (rc == 1) {
			l->renewed_at = mono_s();
			if (!leading)
				leading = set_leading(l, true);
		} else if (leading && (rc == 0 ||
			   mono_s() - l->renewed_at >= deadline)) {
			/* Taken over, or not renewed in time. */
			leading = set_leading(l, false);
		}
		/* A follower also tries the moment another's hold lapses. */
		if (leading && rc == 1)
			nap(l, renew_every);
		else if (l->wake_in >= 0 && l->wake_in + 0.05 < retry)
			nap(l, l->wake_in + 0.05);
		else
			nap(l, retry);
	}
	if (leading) {
		(void)set_leading(l, false);
		release(l);
	}
	return NULL;
}

/* Who this replica is: the option, $POD_NAME, or the host name. */
static char *
identity_of(const char *given)
{
	const char *env = getenv("POD_NAME");
	char host[256];

	if (given && *given)
		return cpl_xstrdup(given);
	if (env && *env)
		return cpl_xstrdup(env);
	if (gethostname(host, sizeof(host)) != 0)
		return cpl_xstrdup("kubectl-cpulint");
	host[sizeof(host) - 1] = '\0';
	return cpl_xstrdup(host);
}

int
cpl_leader_start(struct cpl_leader **out, const struct cpl_lease_opts *lo,
		 const struct cpl_audit_opts *ao, struct cpl_error *err)
{
	struct cpl_leader *l = cpl_xcalloc(1, sizeof(*l));
	struct cpl_kubeconfig_opts ko = ao->live.kube;
	const char *ns = lo->namespace, *env = getenv("POD_NAMESPACE");
	int rc;

	*out = NULL;
	l->ao = *ao;
	ko.namespace = NULL;	/* -n is the audit's, not the Lease's */
	if (cpl_kubeconfig_load(&l->kc, &ko, err) < 0 ||
	    cpl_kubeclient_new(&l->client, l->kc, err) < 0)
		goto fail;
	cpl_kubeclient_set_deadline(l->client, 0);
	cpl_kubeclient_set_cancel(l->client, stop_asked, l);
	if (ns == NULL || *ns == '\0')
		ns = env && *env ? env : cpl_kubeconfig_info(l->kc)->namespace;
	l->namespace = cpl_xstrdup(ns);
	l->name = cpl_xstrdup(lo->name && *lo->name ? lo->name : DEFAULT_NAME);
	l->identity = identity_of(lo->identity);
	l->lease = cpl_xasprintf("%s/%s", l->namespace, l->name);
	l->duration_s = lo->duration_s >= 1 ? lo->duration_s
					    : DEFAULT_DURATION_S;
	atomic_init(&l->stopping, false);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	rc = pthread_create(&l->thread, NULL, loop, l);
	if (rc != 0) {
		cpl_error_set(err, NULL, 0, 0, "cannot start the leader "
			      "election: %s", strerror(rc));
		pthread_mutex_destroy(&l->lock);
		pthread_cond_destroy(&l->wake);
		goto fail;
	}
	*out = l;
	return 0;
fail:
	cpl_kubeclient_free(l->client);
	cpl_kubeconfig_free(l->kc);
	free(l->namespace);
	free(l->name);
	free(l->identity);
	free(l->lease);
	free(l);
	return -1;
}

void
cpl_leader_with(struct cpl_leader *l, cpl_audit_fn fn, void *ctx)
{
	pthread_mutex_lock(&l->lock);
	if (l->audit)
		cpl_audit_with(l->audit, fn, ctx);
	else
		fn(ctx, NULL);
	pthread_mutex_unlock(&l->lock);
}

bool
cpl_leader_held(struct cpl_leader *l)
{
	bool held;

	pthread_mutex_lock(&l->lock);
	held = l->audit != NULL;
	pthread_mutex_unlock(&l->lock);
	return held;
}

char *
cpl_leader_error(struct cpl_leader *l)
{
	char *msg = NULL;

	pthread_mutex_lock(&l->lock);
	if (l->error_new && l->error)
		msg = cpl_xstrdup(l->error);
	l->error_new = false;
	pthread_mutex_unlock(&l->lock);
	return msg;
}

const char *
cpl_leader_identity(const struct cpl_leader *l)
{
	return l->identity;
}

const char *
cpl_leader_lease(const struct cpl_leader *l)
{
	return l->lease;
}

void
cpl_leader_stop(struct cpl_leader *l)
{
	if (l == NULL)
		return;
	pthread_mutex_lock(&l->lock);
	atomic_store(&l->stopping, true);
	pthread_cond_broadcast(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->wake);
	json_decref(l->stored);
	free(l->seen);
	free(l->error);
	cpl_kubeclient_free(l->client);
	cpl_kubeconfig_free(l->kc);
	free(l->namespace);
	free(l->name);
	free(l->identity);
	free(l->lease);
	free(l);
}
