/*
 * livepods.c — owners read once, Pods grouped by owner and spec, compact
 * Pod records (see livepods_int.h).
 *
 * Invariant: two Pods share a group only when their top owner is the same
 * object and their canonical texts are equal byte for byte (the key is
 * the text itself, not a hash of it, so no collision can merge two
 * specs).  The canonical text is written from the JSON with lengths
 * before strings, so no two different values write the same text.
 *
 * Every field of a Pod the API server may leave out (an owner
 * reference's controller, kind or name; the Pod's kind in a list; its
 * status) is read as absent, never assumed present: an absent value
 * writes its own mark ('-'), and an owner reference's controller is a
 * boolean, absent meaning false as in Kubernetes.
 */
#include "live/livepods_int.h"

#include <stdlib.h>
#include <string.h>

#include "load/kinds.h"

#define OWNER_DEPTH 4	/* Pod → Job → JobSet → TrainJob */

static const char *
jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

const json_t *
cpl_livepods_owner_ref(const json_t *obj)
{
	const json_t *refs = json_object_get(json_object_get(obj, "metadata"),
					     "ownerReferences");
	const json_t *r, *first = NULL;
	size_t i;

	json_array_foreach(refs, i, r) {
		if (first == NULL)
			first = r;
		if (json_is_true(json_object_get(r, "controller")))
			return r;
	}
	return first;
}

/* A new owner record for kind/ns/name. */
static struct cpl_liveowner *
new_owner(struct cpl_livepods *lp, const char *kind, const char *api_version,
	  const char *ns, const char *name)
{
	struct cpl_liveowner *o = cpl_xcalloc(1, sizeof(*o));
	size_t i;

	o->kind = cpl_xstrdup(kind);
	o->api_version = api_version ? cpl_xstrdup(api_version) : NULL;
	o->name = cpl_xstrdup(name);
	o->log = cpl_xasprintf("%s/%s/%s", kind, ns, name);
	o->object = cpl_xasprintf("%s/%s/%s", kind, ns, name);
	for (i = 0; o->object[i] != '/'; i++)
		if (o->object[i] >= 'A' && o->object[i] <= 'Z')
			o->object[i] = (char)(o->object[i] - 'A' + 'a');
	CPL_GROW(lp->owners, lp->owners_cap, lp->nowners + 1);
	lp->owners[lp->nowners++] = o;
	return o;
}

/*
 * The top owner above the object kind/ns/name (itself when it is not
 * followed, cannot be read or has no owner), read once and cached.
 */
static struct cpl_liveowner *
top_of(struct cpl_livepods *lp, struct cpl_kubeclient *c, const char *kind,
       const char *api_version, const char *ns, const char *name, int depth)
{
	char *key = cpl_xasprintf("%s/%s/%s", ns, kind, name);
	void *hit = cpl_strmap_get(&lp->owner_at, key);
	struct cpl_liveowner *top = NULL;
	struct cpl_kube_ref ref;
	struct cpl_error err = { 0 };
	json_t *obj = NULL;
	const json_t *up;
	/* Owners its row says to follow up to their own (kinds.h). */
	const struct cpl_kind *k = cpl_kinds_find(api_version, kind);

	if (hit != NULL) {
		free(key);
		return hit;
	}
	if (k != NULL && k->follow && depth < OWNER_DEPTH) {
		ref = (struct cpl_kube_ref){ k->api_version, k->resource, ns,
					     name, NULL };
		lp->owner_gets++;
		if (cpl_kubeclient_get(&obj, NULL, c, &ref, &err) == 0) {
			up = cpl_livepods_owner_ref(obj);
			if (up && jstr(up, "kind") && jstr(up, "name"))
				top = top_of(lp, c, jstr(up, "kind"),
					     jstr(up, "apiVersion"), ns,
					     jstr(up, "name"), depth + 1);
		}
		json_decref(obj);
		cpl_error_clear(&err);
	}
	if (top == NULL) {
		/* Not followed, unreadable (missing, forbidden) or without
		 * an owner of its own: the top is the object itself.  An
		 * unreadable one is remembered by its own record. */
		top = new_owner(lp, kind, api_version, ns, name);
	}
	cpl_strmap_put(&lp->owner_at, key, top);
	free(key);
	return top;
}

struct cpl_liveowner *
cpl_livepods_owner(struct cpl_livepods *lp, struct cpl_kubeclient *c,
		   const json_t *pod, const char *ns)
{
	const json_t *ref = cpl_livepods_owner_ref(pod);
	const char *kind = jstr(ref, "kind"), *name = jstr(ref, "name");

	if (ref == NULL)
		return NULL;
	return top_of(lp, c, kind ? kind : "?", jstr(ref, "apiVersion"), ns,
		      name ? name : "?", 0);
}

struct cpl_liveowner *
cpl_livepods_top(struct cpl_livepods *lp, const char *kind,
		 const char *api_version, const char *ns, const char *name)
{
	/* Not followed: top_of() reads nothing. */
	return top_of(lp, NULL, kind, api_version, ns, name, OWNER_DEPTH);
}

/* ---- the canonical text ----------------------------------------------- */

/* Writes s (n bytes) with its length first, so that texts never run into
 * each other; a NUL byte is written as "\0" (the length still tells). */
static void
put_str(struct cpl_buf *b, const char *s, size_t n)
{
	char num[24];
	size_t i, from = 0, k = sizeof(num), m = n;

	/* The length, then ':' (by hand: this runs for every string of
	 * every Pod listed). */
	num[--k] = ':';
	do {
		num[--k] = (char)('0' + m % 10);
		m /= 10;
	} while (m > 0);
	cpl_buf_add(b, num + k, sizeof(num) - k);
	for (i = 0; i < n; i++) {
		if (s[i] != '\0')
			continue;
		cpl_buf_add(b, s + from, i - from);
		cpl_buf_adds(b, "\\0");
		from = i + 1;
	}
	cpl_buf_add(b, s + from, n - from);
}

/* The per-Pod service-account token volume (and its mounts). */
static bool
per_pod_volume(const json_t *v)
{
	return cpl_str_starts(jstr(v, "name") ? jstr(v, "name") : "",
			      "kube-api-access-");
}

/* An operator's rank variable with a number: it differs in every Pod
 * of a job, and no rule reads its value. */
static bool
rank_env(const json_t *v)
{
	static const char *const names[] = { "RANK", "NODE_RANK",
					     "PET_NODE_RANK", "GROUP_RANK" };
	const char *name = jstr(v, "name"), *val = jstr(v, "value");
	long n;
	size_t i;

	if (name == NULL || val == NULL || cpl_parse_long(&n, val) < 0)
		return false;
	for (i = 0; i < CPL_ARRAY_LEN(names); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static void put_value(struct cpl_buf *b, const json_t *v, int depth);

/* An array, leaving out the per-Pod volumes, mounts and rank values. */
static void
put_array(struct cpl_buf *b, const json_t *a, int depth)
{
	const json_t *v;
	size_t i;

	cpl_buf_addc(b, '[');
	json_array_foreach(a, i, v) {
		if (json_is_object(v) && per_pod_volume(v))
			continue;
		if (json_is_object(v) && rank_env(v)) {
			cpl_buf_adds(b, "rank");
			put_str(b, jstr(v, "name"), strlen(jstr(v, "name")));
			continue;
		}
		put_value(b, v, depth + 1);
	}
	cpl_buf_addc(b, ']');
}

/* Writes v (NULL: absent) with its type first, up to a depth of 64. */
static void
put_value(struct cpl_buf *b, const json_t *v, int depth)
{
	const char *k;
	const json_t *x;

	if (v == NULL) {	/* absent: json_typeof() needs a value */
		cpl_buf_addc(b, '-');
		return;
	}
	if (depth > 64) {
		cpl_buf_addc(b, '?');
		return;
	}
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		cpl_buf_addc(b, '{');
		json_object_foreach((json_t *)v, k, x) {
			put_str(b, k, strlen(k));
			/* A StatefulSet Pod's own claim (data-web-0). */
			if (strcmp(k, "claimName") != 0)
				put_value(b, x, depth + 1);
		}
		cpl_buf_addc(b, '}');
		break;
	case JSON_ARRAY:
		put_array(b, v, depth);
		break;
	case JSON_STRING:
		cpl_buf_addc(b, 's');
		put_str(b, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		cpl_buf_addf(b, "i%lld", (long long)json_integer_value(v));
		break;
	case JSON_REAL:
		cpl_buf_addf(b, "r%.17g", json_real_value(v));
		break;
	case JSON_TRUE:
		cpl_buf_addc(b, 't');
		break;
	case JSON_FALSE:
		cpl_buf_addc(b, 'f');
		break;
	default:
		cpl_buf_addc(b, 'n');
		break;
	}
}

/* Labels live mode reads: the training operators' (a replica index by
 * its key only: it differs in every Pod). */
static void
put_labels(struct cpl_buf *b, const json_t *labels)
{
	const char *k;
	const json_t *v;

	cpl_buf_adds(b, "labels{");
	json_object_foreach((json_t *)labels, k, v) {
		if (!cpl_kinds_operator_label(k))
			continue;
		put_str(b, k, strlen(k));
		if (strcmp(k, "training.kubeflow.org/replica-index") != 0)
			put_value(b, v, 1);
	}
	cpl_buf_addc(b, '}');
}

char *
cpl_livepods_key(const struct cpl_liveowner *owner, const json_t *pod)
{
	const json_t *meta = json_object_get(pod, "metadata");
	const json_t *spec = json_object_get(pod, "spec");
	const json_t *refs = json_object_get(meta, "ownerReferences");
	const json_t *v;
	const char *k;
	struct cpl_buf b;
	size_t i;

	if (owner == NULL)
		return NULL;
	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, owner->object);
	cpl_buf_adds(&b, "\nkind");
	put_value(&b, json_object_get(pod, "kind"), 0);
	cpl_buf_adds(&b, "annotations{");
	json_object_foreach(json_object_get(meta, "annotations"), k, v) {
		if (!cpl_str_starts(k, CPL_IGNORE_ANNOTATION))
			continue;
		put_str(&b, k, strlen(k));
		put_value(&b, v, 1);
	}
	cpl_buf_addc(&b, '}');
	put_labels(&b, json_object_get(meta, "labels"));
	cpl_buf_adds(&b, "owners[");
	json_array_foreach(refs, i, v) {
		/* controller is optional: absent is false. */
		put_value(&b, json_object_get(v, "kind"), 1);
		cpl_buf_addc(&b, json_is_true(json_object_get(v, "controller")) ?
			     't' : 'f');
	}
	cpl_buf_adds(&b, "]spec{");
	json_object_foreach((json_t *)spec, k, v) {
		/* Where the Pod runs and its host name differ per Pod (a
		 * DaemonSet Pod's affinity names its node); no rule reads
		 * them. */
		if (strcmp(k, "nodeName") == 0 || strcmp(k, "hostname") == 0 ||
		    strcmp(k, "affinity") == 0)
			continue;
		put_str(&b, k, strlen(k));
		put_value(&b, v, 1);
	}
	cpl_buf_addc(&b, '}');
	return cpl_buf_detach(&b);
}

/* ---- groups and Pods -------------------------------------------------- */

long
cpl_livepods_find(const struct cpl_livepods *lp, const char *key)
{
	void *hit = key ? cpl_strmap_get(&lp->group_at, key) : NULL;

	return hit ? (long)((uintptr_t)hit - 1) : -1;
}

size_t
cpl_livepods_add_group(struct cpl_livepods *lp, char *key,
		       struct cpl_liveowner *owner, const char *ns,
		       struct cpl_workload *w)
{
	struct cpl_livegroup *g;
	size_t i = lp->ngroups;

	CPL_GROW(lp->groups, lp->groups_cap, lp->ngroups + 1);
	g = &lp->groups[lp->ngroups++];
	memset(g, 0, sizeof(*g));
	g->w = w;
	g->owner = owner;
	g->namespace = cpl_xstrdup(ns);
	g->key = key;
	if (key)
		cpl_strmap_put(&lp->group_at, key, (void *)(uintptr_t)(i + 1));
	if (owner)
		owner->ngroups++;
	return i;
}

/* Seconds since the epoch of an RFC 3339 UTC time ("2025-03-11T09:14:39Z")
 * as Kubernetes writes it; 0 when it is not one. */
static uint32_t
epoch_seconds(const char *t)
{
	long y, mo, d, h, mi, s, era, yoe, doy, doe, v[6];
	static const int at[6] = { 0, 5, 8, 11, 14, 17 };
	static const int len[6] = { 4, 2, 2, 2, 2, 2 };
	long long days;
	int i, j;

	if (t == NULL || strlen(t) < 20 || t[4] != '-' || t[7] != '-' ||
	    (t[10] != 'T' && t[10] != 't') || t[13] != ':' || t[16] != ':')
		return 0;
	for (i = 0; i < 6; i++) {
		v[i] = 0;
		for (j = 0; j < len[i]; j++) {
			char ch = t[at[i] + j];

			if (ch < '0' || ch > '9')
				return 0;
			v[i] = v[i] * 10 + (ch - '0');
		}
	}
	y = v[0], mo = v[1], d = v[2], h = v[3], mi = v[4], s = v[5];
	if (y < 1970 || y > 2105 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h > 23 || mi > 59 || s > 60)
		return 0;
	/* Days from civil (H. Hinnant), proleptic Gregorian. */
	y -= mo <= 2;
	era = y / 400;
	yoe = y - era * 400;
	doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	days = (long long)era * 146097 + doe - 719468;
	return (uint32_t)(days * 86400 + h * 3600 + mi * 60 + s);
}

/* The start times of w's containers from a Pod's container statuses
 * (usually in the same order: a cursor finds each in one step). */
static uint32_t *
start_times(const struct cpl_workload *w, const json_t *statuses)
{
	uint32_t *t;
	const json_t *st;
	size_t i, j = 0, k, cur = 0;
	bool any = false;

	if (json_array_size(statuses) == 0 || w->ncontainers == 0)
		return NULL;
	t = cpl_xcalloc(w->ncontainers, sizeof(*t));
	json_array_foreach(statuses, i, st) {
		const char *n = jstr(st, "name");

		if (n == NULL)
			continue;
		for (k = 0; k < w->ncontainers; k++) {
			j = (cur + k) % w->ncontainers;
			if (cpl_str_eq(w->containers[j].name, n))
				break;
		}
		if (k == w->ncontainers)
			continue;
		t[j] = epoch_seconds(jstr(json_object_get(json_object_get(st,
			"state"), "running"), "startedAt"));
		any = any || t[j] != 0;
		cur = j + 1;
	}
	if (!any) {
		free(t);
		return NULL;
	}
	return t;
}

void
cpl_livepods_add_pod(struct cpl_livepods *lp, size_t g, const char *name,
		     const char *node, const json_t *statuses)
{
	struct cpl_livegroup *grp = &lp->groups[g];
	struct cpl_livepod *p;
	uintptr_t ix = node ? (uintptr_t)cpl_strmap_get(&lp->node_at, node) :
		       0;

	if (node && ix == 0) {
		CPL_GROW(lp->nodes, lp->nodes_cap, lp->nnodes + 1);
		ix = lp->nnodes + 1;
		lp->nodes[lp->nnodes++] = cpl_strmap_put(&lp->node_at, node,
							 (void *)ix);
	}
	CPL_GROW(lp->pods, lp->pods_cap, lp->npods + 1);
	p = &lp->pods[lp->npods++];
	p->group = g;
	p->name = cpl_xstrdup(name);
	p->node = ix ? lp->nodes[ix - 1] : NULL;
	p->node_ix = ix ? (size_t)ix - 1 : SIZE_MAX;
	p->started = start_times(grp->w, statuses);
	grp->pods++;
	if (grp->first == NULL || strcmp(name, grp->first) < 0) {
		free(grp->first);
		grp->first = cpl_xstrdup(name);
	}
}

void
cpl_livepods_finish(struct cpl_livepods *lp)
{
	size_t i;

	for (i = 0; i < lp->ngroups; i++) {
		struct cpl_livegroup *g = &lp->groups[i];

		if (g->owner == NULL || g->pods < 2)
			continue;
		free(g->w->object);
		g->w->object = g->owner->ngroups > 1 ?
			cpl_xasprintf("%s/%s", g->owner->object, g->first) :
			cpl_xstrdup(g->owner->object);
		g->w->pods = g->pods;
	}
}

void
cpl_livepods_free(struct cpl_livepods *lp)
{
	size_t i;

	if (lp == NULL)
		return;
	for (i = 0; i < lp->npods; i++) {
		free(lp->pods[i].name);
		free(lp->pods[i].started);
	}
	free(lp->pods);
	cpl_strmap_free(&lp->group_at);
	for (i = 0; i < lp->ngroups; i++) {
		free(lp->groups[i].namespace);
		free(lp->groups[i].first);
		free(lp->groups[i].key);
	}
	free(lp->groups);
	cpl_strmap_free(&lp->owner_at);
	cpl_strmap_free(&lp->node_at);
	free(lp->nodes);
	for (i = 0; i < lp->nowners; i++) {
		free(lp->owners[i]->kind);
		free(lp->owners[i]->api_version);
		free(lp->owners[i]->name);
		free(lp->owners[i]->slots);
		free(lp->owners[i]->object);
		free(lp->owners[i]->log);
		free(lp->owners[i]);
	}
	free(lp->owners);
	*lp = (struct cpl_livepods)CPL_LIVEPODS_INIT;
}
