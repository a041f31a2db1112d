/*
 * audit.c — the audit loop (see audit.h): list, then watch, Pods; one row
 * per top owner, judged again only when one of its Pods changed.
 *
 * State (the audit thread's alone, except rows[] and each row's engine,
 * which /metrics reads under the lock):
 *   pods    "ns/name" → a compact record of the Pod: its owner, grouping
 *           key, resourceVersion, name, node and container statuses
 *           (what measuring reads), and the list generation it was seen in
 *   rows[]  one per top owner: its specs (grouping key → one Pod's JSON
 *           standing for every Pod of that spec, and how many), its
 *           Pods' records, and the engine of its last judgement
 * A judgement rebuilds the owner's Pods from the records and the spec
 * they share, and runs them through live mode (cpl_live_judge_pods), so
 * findings and names are those of `kubectl cpulint -A`.
 *
 * Invariant: rows[] and row->e change only under lock; an engine
 * replaced or a row removed is freed after the lock is let go, so
 * /metrics never sees a half-made judgement and never waits for one.
 */
#include "live/audit.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WATCH_TIMEOUT_S 300L	/* one watch request, at most */
/*
 * Between a trouble (a failed list or watch, a 410 Gone, a watch that
 * ended under SHORT_WATCH_S with no event) and the next list, as
 * client-go's reflector waits: 0.8 s doubling to 30 s, each wait
 * stretched by a random 0 to 100 % (jitter), back to 0.8 s after two
 * minutes without trouble.
 */
#define BACKOFF_FIRST_S 0.8
#define BACKOFF_MAX_S 30.0
#define BACKOFF_RESET_S 120.0
#define SHORT_WATCH_S 1.0

/* The next wait after a trouble. */
struct backoff {
	double base;		/* unjittered; 0 before the first trouble */
	double last;		/* when the last trouble was */
	unsigned seed;		/* rand_r's */
};

struct row {
	char *owner;		/* "deployment/ns/x" */
	json_t *specs;		/* spec key → {"pod": JSON, "n": Pods} */
	json_t *pods;		/* "ns/name" → record (shared with pods) */
	struct cpl_engine *e;	/* last judgement; NULL before the first */
	bool dirty;
};

struct cpl_audit {
	struct cpl_audit_opts o;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	atomic_bool stopping;
	/* under lock */
	struct row **rows;
	size_t nrows, rows_cap;
	struct cpl_audit_snapshot snap;
	char *error;			/* snap.last_error, owned */
	/* the audit thread's */
	json_t *pods;			/* "ns/name" → record */
	json_t *row_at;			/* owner → index in rows */
	struct cpl_live_session *s;	/* while listing or watching */
	long gen;			/* list generation */
	unsigned long watch_events;	/* events read, bookmarks too */
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits up to seconds, or until the audit stops; true when it stops. */
static bool
pause_for(struct cpl_audit *a, double seconds)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)seconds;
	until.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&a->lock);
	while (!atomic_load(&a->stopping) &&
	       pthread_cond_timedwait(&a->wake, &a->lock, &until) !=
	       ETIMEDOUT)
		;
	pthread_mutex_unlock(&a->lock);
	return atomic_load(&a->stopping);
}

/* The seconds to wait after a trouble now (see BACKOFF_FIRST_S). */
static double
backoff_next(struct backoff *b)
{
	double now = now_s(), d;

	if (b->base <= 0 || now - b->last > BACKOFF_RESET_S)
		b->base = BACKOFF_FIRST_S;
	d = b->base;
	b->base = b->base * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : b->base * 2;
	b->last = now;
	return d + d * ((double)rand_r(&b->seed) / ((double)RAND_MAX + 1));
}

static bool
stop_asked(void *ctx)
{
	struct cpl_audit *a = ctx;

	return atomic_load(&a->stopping);
}

/* ---- rows --------------------------------------------------------------- */

static struct row *
row_of(struct cpl_audit *a, const char *owner, bool make)
{
	json_t *at = json_object_get(a->row_at, owner);
	struct row *r;

	if (at)
		return a->rows[json_integer_value(at)];
	if (!make)
		return NULL;
	r = cpl_xcalloc(1, sizeof(*r));
	r->owner = cpl_xstrdup(owner);
	r->specs = json_object();
	r->pods = json_object();
	if (r->specs == NULL || r->pods == NULL)
		abort();
	pthread_mutex_lock(&a->lock);
	CPL_GROW(a->rows, a->rows_cap, a->nrows + 1);
	a->rows[a->nrows] = r;
	json_object_set_new(a->row_at, owner,
			    json_integer((json_int_t)a->nrows));
	a->nrows++;
	pthread_mutex_unlock(&a->lock);
	return r;
}

/* Removes a row with no Pods left: its series go with it. */
static void
drop_row(struct cpl_audit *a, struct row *r)
{
	size_t i = (size_t)json_integer_value(json_object_get(a->row_at,
							      r->owner));

	pthread_mutex_lock(&a->lock);
	a->rows[i] = a->rows[--a->nrows];
	if (i < a->nrows)
		json_object_set_new(a->row_at, a->rows[i]->owner,
				    json_integer((json_int_t)i));
	json_object_del(a->row_at, r->owner);
	pthread_mutex_unlock(&a->lock);
	cpl_engine_free(r->e);
	json_decref(r->specs);
	json_decref(r->pods);
	free(r->owner);
	free(r);
}

/* Takes the record of Pod key out of its row (and its spec's count). */
static void
unlink_pod(struct cpl_audit *a, const char *key, json_t *rec)
{
	struct row *r = row_of(a, json_string_value(json_object_get(rec,
						    "owner")), false);
	const char *spec = json_string_value(json_object_get(rec, "spec"));
	json_t *sp;

	if (r == NULL)
		return;
	sp = json_object_get(r->specs, spec);
	if (sp) {
		json_int_t n = json_integer_value(json_object_get(sp, "n"));

		if (n <= 1)
			json_object_del(r->specs, spec);
		else
			json_object_set_new(sp, "n", json_integer(n - 1));
	}
	json_object_del(r->pods, key);
	r->dirty = true;
}

/* "ns/name" of a Pod, or NULL; caller frees. */
static char *
pod_key(const json_t *pod)
{
	const json_t *meta = json_object_get(pod, "metadata");
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	const char *name = json_string_value(json_object_get(meta, "name"));

	return name ? cpl_xasprintf("%s/%s", ns ? ns : "", name) : NULL;
}

/* The Pod as its spec's stand-in keeps it: no status, no managedFields. */
static json_t *
stand_in(const json_t *pod)
{
	json_t *p = json_copy((json_t *)pod), *meta;

	if (p == NULL)
		abort();
	meta = json_copy(json_object_get(p, "metadata"));
	if (meta) {
		json_object_del(meta, "managedFields");
		json_object_set_new(p, "metadata", meta);
	}
	json_object_del(p, "status");
	return p;
}

/* A Pod added or changed (from the list or the watch). */
static void
upsert(struct cpl_audit *a, json_t *pod)
{
	char *key = pod_key(pod), *spec = NULL, *owner;
	json_t *rec = key ? json_object_get(a->pods, key) : NULL;
	const char *rv = json_string_value(json_object_get(
		json_object_get(pod, "metadata"), "resourceVersion"));
	const json_t *st = json_object_get(json_object_get(pod, "status"),
					   "containerStatuses");
	const char *node = json_string_value(json_object_get(
		json_object_get(pod, "spec"), "nodeName"));
	struct row *r;
	json_t *sp;

	if (key == NULL)
		return;
	if (rec) {
		json_object_set_new(rec, "gen", json_integer(a->gen));
		if (rv && cpl_str_eq(rv, json_string_value(
			json_object_get(rec, "rv")))) {
			free(key);
			return;		/* seen as it is */
		}
		unlink_pod(a, key, rec);
		json_object_del(a->pods, key);
	}
	owner = cpl_live_pod_keys(a->s, pod, &spec);
	if (owner == NULL) {
		free(key);
		return;
	}
	if (spec == NULL)
		spec = cpl_xstrdup(key);	/* an unowned Pod */
	rec = json_pack("{s:s, s:s, s:s?, s:s, s:s?, s:O?, s:I}",
			"owner", owner, "spec", spec, "rv", rv,
			"name", strchr(key, '/') + 1, "node", node,
			"statuses", st, "gen", (json_int_t)a->gen);
	if (rec == NULL)
		abort();
	r = row_of(a, owner, true);
	sp = json_object_get(r->specs, spec);
	if (sp == NULL)
		json_object_set_new(r->specs, spec,
				    json_pack("{s:o, s:I}", "pod",
					      stand_in(pod), "n",
					      (json_int_t)1));
	else
		json_object_set_new(sp, "n", json_integer(json_integer_value(
			json_object_get(sp, "n")) + 1));
	json_object_set(r->pods, key, rec);
	json_object_set_new(a->pods, key, rec);
	r->dirty = true;
	free(owner);
	free(spec);
	free(key);
}

/* A Pod deleted (from the watch, or missing from a list). */
static void
forget(struct cpl_audit *a, const char *key)
{
	json_t *rec = json_object_get(a->pods, key);

	if (rec == NULL)
		return;
	json_incref(rec);
	unlink_pod(a, key, rec);
	json_object_del(a->pods, key);
	json_decref(rec);
}

/* One Pod as judged: the spec's stand-in with this Pod's name, node and
 * statuses; first, a deep copy (its env gets resolved in place). */
static json_t *
rebuilt(const json_t *stand, const json_t *rec, bool first)
{
	json_t *p = first ? json_deep_copy(stand) : json_copy((json_t *)stand);
	json_t *meta, *spec, *status = json_object();

	if (p == NULL || status == NULL)
		abort();
	meta = json_copy(json_object_get(p, "metadata"));
	spec = json_copy(json_object_get(p, "spec"));
	if (meta) {
		json_object_set(meta, "name", json_object_get(rec, "name"));
		json_object_set_new(p, "metadata", meta);
	}
	if (spec) {
		if (json_is_string(json_object_get(rec, "node")))
			json_object_set(spec, "nodeName",
					json_object_get(rec, "node"));
		else
			json_object_del(spec, "nodeName");
		json_object_set_new(p, "spec", spec);
	}
	if (json_is_array(json_object_get(rec, "statuses")))
		json_object_set(status, "containerStatuses",
				json_object_get(rec, "statuses"));
	json_object_set_new(p, "status", status);
	return p;
}

/* Judges a row again from its Pods' records, and publishes it. */
static void
judge(struct cpl_audit *a, struct row *r)
{
	struct cpl_engine *e = cpl_engine_new(), *old;
	json_t **pods = cpl_xcalloc(json_object_size(r->pods) + 1,
				    sizeof(*pods));
	const char *skey, *pkey;
	json_t *sp, *rec;
	struct cpl_buf notes;
	size_t n = 0, i;

	cpl_buf_init(&notes, 0);
	cpl_engine_set_jobs(e, 1);
	/* Spec by spec, so a spec's first Pod is the one loaded. */
	json_object_foreach(r->specs, skey, sp) {
		bool first = true;

		json_object_foreach(r->pods, pkey, rec) {
			if (!cpl_str_eq(json_string_value(json_object_get(rec,
					"spec")), skey))
				continue;
			pods[n++] = rebuilt(json_object_get(sp, "pod"), rec,
					    first);
			first = false;
		}
	}
	cpl_live_judge_pods(a->s, e, pods, n, &notes);
	cpl_engine_run(e);
	for (i = 0; i < n; i++)
		json_decref(pods[i]);
	free(pods);
	cpl_buf_free(&notes);
	pthread_mutex_lock(&a->lock);
	old = r->e;
	r->e = e;
	a->snap.judgements++;
	pthread_mutex_unlock(&a->lock);
	cpl_engine_free(old);
	r->dirty = false;
}

/* Judges every changed owner; drops those with no Pod left. */
static void
judge_rows(struct cpl_audit *a)
{
	size_t i = 0;

	while (i < a->nrows) {
		struct row *r = a->rows[i];

		if (atomic_load(&a->stopping))
			return;
		if (r->dirty && json_object_size(r->pods) == 0) {
			drop_row(a, r);	/* rows[i] is another row now */
			continue;
		}
		if (r->dirty)
			judge(a, r);
		i++;
	}
}

/* judge_rows, as one cycle: each node's cAdvisor metrics are read once
 * for all the owners judged, and let go after them. */
static void
judge_dirty(struct cpl_audit *a)
{
	cpl_live_new_cycle(a->s);
	judge_rows(a);
	cpl_live_new_cycle(a->s);
}

/* Records the outcome of a list or a watch for /metrics. */
static void
publish(struct cpl_audit *a, bool listed, double t0, struct cpl_error *err)
{
	double t1 = now_s();
	char *why = NULL;

	if (err && err->message)
		why = cpl_error_format(err);
	pthread_mutex_lock(&a->lock);
	free(a->error);
	a->error = why;
	a->snap.last_error = why;
	a->snap.ok = why == NULL;
	if (why)
		a->snap.failures++;
	else
		a->snap.last_time = t1;
	if (listed) {
		a->snap.passes++;
		a->snap.last_duration = t1 - t0;
	}
	pthread_mutex_unlock(&a->lock);
}

/* ---- list and watch ----------------------------------------------------- */

static void
list_item(void *ctx, json_t *pod)
{
	upsert(ctx, pod);
}

/* Lists the Pods: what changed since the state was last known is
 * judged, what is gone forgotten.  0, or -1 with err. */
static int
relist(struct cpl_audit *a, char **rv, struct cpl_error *err)
{
	const char *key;
	json_t *rec, *tmp;
	double t0 = now_s();

	a->gen++;
	free(*rv);
	*rv = NULL;
	if (cpl_live_list_pods(a->s, list_item, a, rv, err) < 0) {
		publish(a, true, t0, err);
		return -1;
	}
	json_object_foreach_safe(a->pods, tmp, key, rec) {
		if (json_integer_value(json_object_get(rec, "gen")) != a->gen)
			forget(a, key);
	}
	judge_dirty(a);
	publish(a, true, t0, NULL);
	return 0;
}

static void
on_event(void *ctx, const char *type, json_t *obj)
{
	struct cpl_audit *a = ctx;
	char *key;

	if (type == NULL) {	/* the end of a batch */
		judge_dirty(a);
		publish(a, false, 0, NULL);
		return;
	}
	a->watch_events++;
	if (strcmp(type, "BOOKMARK") == 0)
		return;		/* its resourceVersion is kept by the watch */
	pthread_mutex_lock(&a->lock);
	a->snap.events++;
	pthread_mutex_unlock(&a->lock);
	if (!json_object_get(obj, "apiVersion"))
		json_object_set_new(obj, "apiVersion", json_string("v1"));
	if (!json_object_get(obj, "kind"))
		json_object_set_new(obj, "kind", json_string("Pod"));
	if (strcmp(type, "ADDED") == 0 || strcmp(type, "MODIFIED") == 0) {
		upsert(a, obj);
	} else if (strcmp(type, "DELETED") == 0) {
		key = pod_key(obj);
		if (key)
			forget(a, key);
		free(key);
	}
}

/*
 * One session: list, then watch from the list's resourceVersion until
 * the interval ends (then list again at once), or a trouble (list again
 * after the backoff): a failure, a 410 Gone, a watch the server ended
 * under SHORT_WATCH_S with no event (as client-go's "very short watch").
 * Returns the seconds to wait before the next session.
 */
static double
session(struct cpl_audit *a, struct backoff *backoff)
{
	double interval = a->o.interval_s > 0 ? a->o.interval_s : 60;
	double resync = now_s() + interval, wait = 0;
	struct cpl_kube_watch_opts wo = { 0 };
	struct cpl_error err = { 0 };
	unsigned long events;
	char *rv = NULL;
	double t0;
	int rc;

	if (cpl_live_open(&a->s, &a->o.live, &err) < 0) {
		publish(a, true, now_s(), &err);
		goto failed;
	}
	cpl_live_set_stop(a->s, stop_asked, a);
	if (relist(a, &rv, &err) < 0)
		goto failed;
	wo.stop = stop_asked;
	wo.stop_ctx = a;
	wo.last_rv = &rv;
	while (!atomic_load(&a->stopping)) {
		double left = resync - now_s();

		if (left <= 0)
			break;		/* the interval's full list */
		wo.resource_version = rv;
		wo.timeout_s = left >= WATCH_TIMEOUT_S ? WATCH_TIMEOUT_S :
			       left < 1 ? 1 : (long)(left + 0.999);
		t0 = now_s();
		events = a->watch_events;
		rc = cpl_live_watch_pods(a->s, &wo, on_event, a, &err);
		if (rc == 0 && a->watch_events == events &&
		    now_s() - t0 < SHORT_WATCH_S &&
		    !atomic_load(&a->stopping)) {
			cpl_error_set(&err, NULL, 0, 0, "the API server ended "
				      "the watch at once (no event in under "
				      "%g s)", SHORT_WATCH_S);
			publish(a, false, 0, &err);
			goto failed;
		}
		if (rc == 0) {
			publish(a, false, 0, NULL);
			continue;	/* the server ended it: go on */
		}
		if (rc == CPL_KUBE_STOPPED)
			break;
		pthread_mutex_lock(&a->lock);
		a->snap.relists += rc == CPL_KUBE_GONE;
		pthread_mutex_unlock(&a->lock);
		if (rc == CPL_KUBE_GONE)
			goto failed;	/* too old: list again, after a pause */
		if (rc == CPL_KUBE_FORBIDDEN) {
			/* RBAC grants list but not watch: the lists of every
			 * interval alone, as before there was a watch. */
			pthread_mutex_lock(&a->lock);
			a->snap.failures++;
			pthread_mutex_unlock(&a->lock);
			wait = resync - now_s();
			goto out;
		}
		publish(a, false, 0, &err);
		goto failed;
	}
	goto out;
failed:
	wait = backoff_next(backoff);
out:
	cpl_error_clear(&err);
	free(rv);
	cpl_live_close(a->s);
	a->s = NULL;
	return wait;
}

static void *
loop(void *arg)
{
	struct cpl_audit *a = arg;
	struct backoff backoff = { 0, 0, 0 };
	double wait;

	backoff.seed = (unsigned)now_s() ^ (unsigned)(uintptr_t)a;
	while (!atomic_load(&a->stopping)) {
		wait = session(a, &backoff);
		if (wait > 0 && pause_for(a, wait))
			break;
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
	a->pods = json_object();
	a->row_at = json_object();
	if (a->pods == NULL || a->row_at == NULL)
		abort();
	atomic_init(&a->stopping, false);
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->wake, NULL);
	rc = pthread_create(&a->thread, NULL, loop, a);
	if (rc != 0) {
		cpl_error_set(err, NULL, 0, 0, "cannot start the audit: %s",
			      strerror(rc));
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->wake);
		json_decref(a->pods);
		json_decref(a->row_at);
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
	const struct cpl_engine **es;
	size_t i, n = 0;

	pthread_mutex_lock(&a->lock);
	es = cpl_xcalloc(a->nrows + 1, sizeof(*es));
	for (i = 0; i < a->nrows; i++)
		if (a->rows[i]->e)
			es[n++] = a->rows[i]->e;
	a->snap.engines = es;
	a->snap.nengines = n;
	a->snap.owners = a->nrows;
	fn(ctx, &a->snap);
	a->snap.engines = NULL;
	a->snap.nengines = 0;
	pthread_mutex_unlock(&a->lock);
	free(es);
}

void
cpl_audit_stop(struct cpl_audit *a)
{
	size_t i;

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	atomic_store(&a->stopping, true);
	pthread_cond_broadcast(&a->wake);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->wake);
	for (i = 0; i < a->nrows; i++) {
		cpl_engine_free(a->rows[i]->e);
		json_decref(a->rows[i]->specs);
		json_decref(a->rows[i]->pods);
		free(a->rows[i]->owner);
		free(a->rows[i]);
	}
	free(a->rows);
	json_decref(a->pods);
	json_decref(a->row_at);
	free(a->error);
	free(a);
}
