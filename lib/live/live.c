/*
 * live.c — live targets → workloads (see live.h).
 *
 * Objects arrive as JSON; a Pod's containers resized in place take the
 * CPU its status says was allocated (Kubernetes 1.33+); a controller
 * with no Pods yet is judged with its namespace's LimitRanges (read once
 * per namespace), which admission has not applied to anything yet.
 * Env from ConfigMaps is resolved in the JSON
 * itself (configMapKeyRef → value, envFrom configMapRef → env entries that
 * explicit env overrides, as the kubelet does), then the object goes
 * through the same manifest loader as a file, so static and live findings
 * come from the same model.  Caches: one GET per ConfigMap and per owner
 * (an MPIJob is read for its workers' slotsPerWorker), one metrics read
 * per node (per sample, livemeasure.c), so a 1,000-pod list costs a
 * handful of requests beyond the list itself.
 *
 * At scale (livepods_int.h): a Pod list is read item by item as each page
 * arrives; a Pod whose top owner already has a Pod of the same spec is
 * only counted and recorded for measuring (name, node, start times), so
 * one workload stands for the group and memory follows the distinct
 * workloads, not the Pods.  Measuring them is livemeasure.c's: a group's
 * measured figures are its most throttled Pod's, named (measured_pod).
 */
#include "live/live.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/livemeasure_int.h"
#include "live/livepods_int.h"
#include "load/kinds.h"
#include "load/loader.h"
#include "model/budget.h"
#include "model/rule.h"
#include "text/quantity.h"
#include "text/yamldoc.h"

/* The maps of a struct live own their keys. */
#define LIVE_OWN_KEYS \
	.configmaps.own_keys = true, .seen.own_keys = true, \
	.lr_read.own_keys = true, .lp = CPL_LIVEPODS_INIT

struct live {
	struct cpl_engine *e;
	const struct cpl_live_opts *o;
	struct cpl_kubeconfig *kc;
	struct cpl_kubeclient *client;
	const struct cpl_kubeconfig_info *info;
	struct cpl_buf *notes;
	struct cpl_strmap configmaps;	/* "ns/name" → json_t * or &missing
					 * (keys owned, as in seen, lr_read) */
	struct cpl_livepods lp;		/* Pods read, by owner and spec */
	struct cpl_strmap seen;		/* "ns/name" of pods already read */
	bool cm_forbidden_noted;
	struct cpl_livemeasure_cache *cache;	/* a session's; NULL */
	struct cpl_workload **added;	/* what the last add_object() added
					 * (borrowed from the engine) */
	size_t nadded;
	size_t added_cap;
	size_t listed;			/* Pods list_pod() was given */
	struct cpl_strmap lr_read;	/* namespaces whose LimitRanges
					 * were read */
};

static int missing_cm;	/* sentinel value in the ConfigMap cache */

static void
live_error(struct live *l, const struct cpl_error *err)
{
	cpl_engine_add_error(l->e, err);
}

static void
live_errorf(struct live *l, const char *fmt, ...) CPL_PRINTF(2, 3);

static void
live_errorf(struct live *l, const char *fmt, ...)
{
	struct cpl_error err = { 0 };
	va_list ap;

	va_start(ap, fmt);
	err.message = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	live_error(l, &err);
	cpl_error_clear(&err);
}

static const char *
jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* ---- ConfigMaps -------------------------------------------------------- */

/* The ConfigMap ns/name (cached), or NULL when missing or not readable. */
static json_t *
configmap(struct live *l, const char *ns, const char *name)
{
	char *key = cpl_xasprintf("%s/%s", ns, name);
	struct cpl_kube_ref ref = { "v1", "configmaps", ns, name, NULL };
	struct cpl_error err = { 0 };
	json_t *cm = NULL;
	void *hit = cpl_strmap_get(&l->configmaps, key);
	int rc;

	if (hit != NULL) {
		free(key);
		return hit == &missing_cm ? NULL : hit;
	}
	rc = cpl_kubeclient_get(&cm, NULL, l->client, &ref, &err);
	if (rc == CPL_KUBE_FORBIDDEN) {
		if (!l->cm_forbidden_noted)
			cpl_buf_addf(l->notes, "env from ConfigMaps was not "
				     "resolved: %s\n", err.message);
		l->cm_forbidden_noted = true;
	} else if (rc < 0 && rc != CPL_KUBE_NOT_FOUND) {
		live_error(l, &err);
	}
	cpl_error_clear(&err);
	cpl_strmap_put(&l->configmaps, key, rc == 0 ? (void *)cm :
		       (void *)&missing_cm);
	free(key);
	return rc == 0 ? cm : NULL;
}

static json_t *
env_entry(const char *name, const char *value)
{
	return json_pack("{s:s,s:s}", "name", name, "value", value);
}

/*
 * Resolves one container's env in place: configMapKeyRef values become
 * literal values, envFrom configMapRef entries become env entries placed
 * before the explicit ones (explicit env wins, as in the kubelet), and are
 * removed from envFrom.  Secrets are left alone (unknown).
 */
static void
resolve_container_env(struct live *l, json_t *c, const char *ns)
{
	json_t *env = json_object_get(c, "env");
	json_t *from = json_object_get(c, "envFrom");
	json_t *fresh = json_array(), *keep = json_array();
	size_t i;
	json_t *v;

	json_array_foreach(from, i, v) {
		json_t *ref = json_object_get(v, "configMapRef");
		const char *prefix = jstr(v, "prefix");
		const char *key;
		json_t *cm, *data, *val;

		if (ref == NULL || jstr(ref, "name") == NULL) {
			json_array_append(keep, v);
			continue;
		}
		cm = configmap(l, ns, jstr(ref, "name"));
		if (cm == NULL) {
			if (!json_is_true(json_object_get(ref, "optional")))
				json_array_append(keep, v);
			continue;
		}
		data = json_object_get(cm, "data");
		json_object_foreach(data, key, val) {
			char *name = cpl_xasprintf("%s%s", prefix ? prefix :
						   "", key);

			if (json_is_string(val))
				json_array_append_new(fresh, env_entry(name,
					json_string_value(val)));
			free(name);
		}
	}
	json_array_foreach(env, i, v) {
		json_t *ref = json_object_get(json_object_get(v, "valueFrom"),
					      "configMapKeyRef");
		const char *name = jstr(v, "name");
		json_t *cm;
		const char *val;

		if (ref == NULL || name == NULL) {
			json_array_append(fresh, v);
			continue;
		}
		cm = jstr(ref, "name") ? configmap(l, ns, jstr(ref, "name")) :
		     NULL;
		val = cm && jstr(ref, "key") ?
		      jstr(json_object_get(cm, "data"), jstr(ref, "key")) : NULL;
		if (val)
			json_array_append_new(fresh, env_entry(name, val));
		else if (!(cm && json_is_true(json_object_get(ref,
							      "optional"))))
			json_array_append(fresh, v);	/* stays unknown */
	}
	json_object_set_new(c, "env", fresh);
	if (json_array_size(keep) > 0)
		json_object_set(c, "envFrom", keep);
	else
		json_object_del(c, "envFrom");
	json_decref(keep);
}

/* Walks an object for containers/initContainers arrays (any depth: Pod
 * specs, templates, replica specs) and resolves their env. */
static void
resolve_env(struct live *l, json_t *o, const char *ns, int depth)
{
	const char *key;
	json_t *v;
	size_t i;

	if (depth > 12)
		return;
	if (json_is_object(o)) {
		json_object_foreach(o, key, v) {
			if ((strcmp(key, "containers") == 0 ||
			     strcmp(key, "initContainers") == 0) &&
			    json_is_array(v)) {
				json_t *c;

				json_array_foreach(v, i, c)
					if (json_is_object(c))
						resolve_container_env(l, c, ns);
			} else if (strcmp(key, "status") != 0 &&
				   strcmp(key, "metadata") != 0) {
				resolve_env(l, v, ns, depth + 1);
			}
		}
	} else if (json_is_array(o)) {
		json_array_foreach(o, i, v)
			resolve_env(l, v, ns, depth + 1);
	}
}

/* ---- objects → workloads ----------------------------------------------- */

/*
 * The kind whose run container a Pod's trains (kinds.h): its top
 * owner's when that kind's replicas train; else the kind whose operator
 * labelled it (a Pod whose owner was not read); NULL: not a training
 * pod by kind (the workload model may still find it one on evidence).
 */
static const struct cpl_kind *
training_kind(const json_t *pod, const struct cpl_liveowner *owner)
{
	json_t *labels = json_object_get(json_object_get(pod, "metadata"),
					 "labels");
	const struct cpl_kind *k = owner ? cpl_kinds_find(owner->api_version,
							  owner->kind) : NULL;
	const char *key;
	json_t *v;
	size_t i;

	if (k != NULL && k->trains)
		return k;
	json_object_foreach(labels, key, v)
		for (i = 0; (k = cpl_kinds_at(i)) != NULL; i++)
			if (k->trains && k->labels &&
			    cpl_str_starts(key, k->labels))
				return k;
	return NULL;
}

/* Whether name is a run container name of k or of another training
 * kind of the same operator: a Pod known by its operator's labels alone
 * may be of any of its kinds (a TFJob's "tensorflow"). */
static bool
run_name(const struct cpl_kind *k, const char *name)
{
	const struct cpl_kind *o;
	size_t i;

	if (cpl_kinds_is_run(k, name))
		return true;
	for (i = 0; k->labels && (o = cpl_kinds_at(i)) != NULL; i++)
		if (o->trains && cpl_str_eq(o->labels, k->labels) &&
		    cpl_kinds_is_run(o, name))
			return true;
	return false;
}

/* In a training pod the run container of its kind (pytorch, node ...),
 * else the first main container, is the run container. */
static void
mark_run_container(struct cpl_workload *w, const struct cpl_kind *k)
{
	size_t i, pick = w->ncontainers;

	for (i = 0; i < w->ncontainers; i++) {
		if (w->containers[i].run_container)
			return;		/* the loader knew */
		if (w->containers[i].role != CPL_CROLE_MAIN)
			continue;
		if (pick == w->ncontainers)
			pick = i;
		if (run_name(k, w->containers[i].name))
			pick = i;
	}
	if (pick < w->ncontainers)
		w->containers[pick].run_container = true;
}

/* The value of label key on obj, or NULL. */
static const char *
label(const json_t *obj, const char *key)
{
	return jstr(json_object_get(json_object_get(obj, "metadata"),
				    "labels"), key);
}

/*
 * Whether a role label of some kind (kinds.h: PyTorchJob's replica-type,
 * the MPI operator's job-role, JobSet's replicatedjob-name, Trainer's
 * ancestor step) holds on pod the role want (exactly), or a role holding
 * want (part, when !exact).
 */
static bool
pod_role(const json_t *pod, const char *want, bool exact)
{
	const struct cpl_kind *k;
	char key[128];
	size_t i;

	for (i = 0; (k = cpl_kinds_at(i)) != NULL; i++) {
		const char *p = k->role_labels;

		while (p != NULL && *p != '\0') {
			const char *bar = strchr(p, '|'), *v;
			size_t n = bar ? (size_t)(bar - p) : strlen(p);

			if (n < sizeof(key)) {
				memcpy(key, p, n);
				key[n] = '\0';
				v = label(pod, key);
				if (v && (exact ? strcmp(v, want) == 0 :
					  strstr(v, want) != NULL))
					return true;
			}
			p = bar ? bar + 1 : NULL;
		}
	}
	return false;
}

/* What an MPIJob read says its Pods run: slotsPerWorker (the ranks the
 * operator's hostfile gives each worker, and the launcher with
 * runLauncherAsNode). */
static void
mpijob_spec(struct cpl_liveowner *o, const json_t *job)
{
	const json_t *spec = json_object_get(job, "spec");
	const json_t *slots = json_object_get(spec, "slotsPerWorker");

	o->mpi_read = 1;
	free(o->slots);		/* a target named twice */
	o->slots = NULL;
	if (json_is_integer(slots))
		o->slots = cpl_xasprintf("%" JSON_INTEGER_FORMAT,
					 json_integer_value(slots));
	o->launcher_node = json_is_true(json_object_get(spec,
							"runLauncherAsNode"));
}

/*
 * Reads an MPIJob once (mpijob_spec()), unless it was read as a target.
 * Not readable (no RBAC, gone), the ranks of its Pods are unknown, not 1,
 * and a note says why.
 */
static void
mpijob_read(struct live *l, struct cpl_liveowner *o, const char *ns)
{
	const struct cpl_kind *k = cpl_kinds_find(NULL, o->kind);
	struct cpl_kube_ref ref = { o->api_version, k ? k->resource : NULL,
				    ns, o->name, NULL };
	struct cpl_error err = { 0 };
	json_t *job = NULL;

	if (o->mpi_read != 0)
		return;
	o->mpi_read = -1;
	if (o->api_version == NULL ||
	    cpl_kinds_find(o->api_version, o->kind) != k) {
		cpl_buf_addf(l->notes, "%s: not a Kubeflow MPIJob (apiVersion "
			     "%s); the ranks of its Pods are unknown\n",
			     o->object, o->api_version ? o->api_version :
			     "not given");
		return;
	}
	if (cpl_kubeclient_get(&job, NULL, l->client, &ref, &err) < 0) {
		cpl_buf_addf(l->notes, "%s was not read (%s); its worker Pods' "
			     "ranks (slotsPerWorker) are unknown\n",
			     o->object, err.message ? err.message : "error");
		cpl_error_clear(&err);
		return;
	}
	mpijob_spec(o, job);
	json_decref(job);
}

/* Forgets the ranks the Pod loader counted in w from a local mpirun -np:
 * an operator decides where they run. */
static void
forget_local_ranks(struct cpl_workload *w)
{
	size_t i;

	for (i = 0; i < w->ncontainers; i++) {
		struct cpl_container *c = &w->containers[i];

		if (c->role != CPL_CROLE_MAIN || !c->has_slots)
			continue;
		free(c->slots.text);
		memset(&c->slots, 0, sizeof(c->slots));
		c->slots_from = NULL;
		c->has_slots = false;
	}
}

/* The run container of an MPIJob's node Pod runs slotsPerWorker ranks
 * (1 when the spec leaves it out, as the operator defaults it), as a
 * manifest's MPIJob does (lib/load/manifest.c); unknown when the MPIJob
 * was not read. */
static void
mpi_node(const struct cpl_liveowner *o, struct cpl_workload *w)
{
	if (o->mpi_read < 0)
		cpl_loader_mpi_slots(w, NULL, NULL, "slotsPerWorker");
	else if (o->slots != NULL)
		cpl_loader_mpi_slots(w, o->slots, NULL, "slotsPerWorker");
	else
		cpl_loader_mpi_slots(w, "1", NULL, "slotsPerWorker (default)");
}

/*
 * What an operator's labels and owner say a Pod is: a Trainer
 * initializer (dataset or model) never trains; an MPI launcher (MPIJob,
 * Trainer's MPI launcher) starts its ranks in the workers' Pods when it
 * only runs mpirun, unless its MPIJob runs it as a node too
 * (runLauncherAsNode); an MPIJob's worker runs slotsPerWorker ranks.
 */
static void
judge_pod_role(struct live *l, struct cpl_liveowner *owner, const char *ns,
	       struct cpl_workload *w, const json_t *pod)
{
	const struct cpl_kind *k = owner ? cpl_kinds_find(NULL, owner->kind) :
				       NULL;
	bool mpijob = k != NULL && k->launch == CPL_KLAUNCH_MPI;
	size_t i;

	if (pod_role(pod, "initializer", false)) {
		for (i = 0; i < w->ncontainers; i++) {
			w->containers[i].not_training = true;
			w->containers[i].run_container = false;
		}
		return;
	}
	if (mpijob)
		mpijob_read(l, owner, ns);
	if (pod_role(pod, "launcher", true)) {
		forget_local_ranks(w);
		if (mpijob && owner->launcher_node)
			mpi_node(owner, w);
		else
			cpl_loader_mpi(w, true);
	} else if (mpijob) {
		mpi_node(owner, w);
	}
}

/*
 * obj's JSON text for the YAML reader.  jansson writes DEL, the C1
 * controls U+0080..U+009F and U+FFFE/U+FFFF raw, and libyaml refuses
 * them anywhere in its input ("control characters are not allowed"), so
 * an object whose name or env held one was an error instead of being
 * linted; they are written as \u escapes, which the double-quoted
 * strings of JSON (and YAML) read back.  Outside strings JSON is ASCII.
 * NULL when jansson cannot serialise; caller frees.
 */
static char *
object_text(const json_t *obj)
{
	char *text = json_dumps(obj, JSON_COMPACT);
	const unsigned char *p;
	struct cpl_buf b;

	if (text == NULL || strpbrk(text, "\x7f\xc2\xef") == NULL)
		return text;
	cpl_buf_init(&b, 0);
	for (p = (const unsigned char *)text; *p; p++) {
		if (*p == 0x7f) {
			cpl_buf_adds(&b, "\\u007f");
		} else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			cpl_buf_addf(&b, "\\u%04x", p[1]);
			p++;
		} else if (p[0] == 0xef && p[1] == 0xbf &&
			   (p[2] == 0xbe || p[2] == 0xbf)) {
			cpl_buf_adds(&b, p[2] == 0xbe ? "\\ufffe" : "\\uffff");
			p += 2;
		} else {
			cpl_buf_addc(&b, (char)*p);
		}
	}
	free(text);
	return cpl_buf_detach(&b);
}

/*
 * Loads one object's JSON through the manifest loader and adds its
 * workloads (named after object) to the engine, as training replicas of
 * kind training when it is not NULL.  For a Pod, the new workload is
 * returned in *pod_w (NULL otherwise).
 */
static void
add_object(struct live *l, json_t *obj, const char *object,
	   const struct cpl_kind *training, struct cpl_workload **pod_w)
{
	struct cpl_wlist wl = { 0 };
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	char *text = object_text(obj);
	size_t i;

	if (pod_w)
		*pod_w = NULL;
	l->nadded = 0;
	if (text == NULL) {
		live_errorf(l, "%s: cannot serialise the object", object);
		return;
	}
	if (cpl_yaml_parse(&s, object, text, strlen(text), &err) < 0 ||
	    cpl_manifest_load(&wl, s, cpl_ystream_doc(s, 0), NULL,
			      &err) < 0) {
		if (err.message) {
			struct cpl_error e2 = { 0 };

			cpl_error_set(&e2, NULL, 0, 0, "%s: %s", object,
				      err.message);
			live_error(l, &e2);
			cpl_error_clear(&e2);
		}
	}
	for (i = 0; i < wl.count; i++) {
		struct cpl_workload *w = wl.items[i];

		w->source = CPL_SRC_LIVE;
		w->object = w->replica ?
			    cpl_xasprintf("%s/%s", object, w->replica) :
			    cpl_xstrdup(object);
		if (training) {
			w->training_job = true;
			mark_run_container(w, training);
		}
		if (pod_w && *pod_w == NULL)
			*pod_w = w;
		CPL_GROW(l->added, l->added_cap, l->nadded + 1);
		l->added[l->nadded++] = w;
		cpl_engine_add_workload(l->e, w);
	}
	/* The workloads went to the engine; the rest of the list
	 * (skipped-document records) is freed here. */
	wl.count = 0;
	cpl_wlist_free(&wl);
	cpl_error_clear(&err);
	cpl_ystream_free(s);
	free(text);
}

/*
 * In-place resize (Kubernetes 1.33+): the CPU the kubelet allocated to a
 * container is its status.containerStatuses[].resources when that
 * differs from its spec.  The spec's JSON c is given the allocated
 * limits and requests in res (so the budget is what runs); returns the
 * note that says both (caller frees), or NULL when nothing differs.  A
 * request's change is said only when the container has no limit (the
 * budget is then the request).
 */
static char *
resize_container(json_t *c, const json_t *res)
{
	static const char *const which[] = { "limits", "requests" };
	json_t *r = json_object_get(c, "resources");
	char *note = NULL, was_s[16];
	size_t k;

	for (k = 0; k < CPL_ARRAY_LEN(which); k++) {
		const char *now = jstr(json_object_get(res, which[k]), "cpu");
		const char *was = jstr(json_object_get(r, which[k]), "cpu");
		const char *why;
		int64_t a, b = -1;
		json_t *m;

		if (now == NULL || cpl_quantity_cpu(&a, now, &why) < 0 ||
		    (was != NULL && cpl_quantity_cpu(&b, was, &why) == 0 &&
		     a == b))
			continue;
		if (!json_is_object(r)) {
			r = json_object();
			json_object_set_new(c, "resources", r);
		}
		m = json_object_get(r, which[k]);
		if (!json_is_object(m)) {
			m = json_object();
			json_object_set_new(r, which[k], m);
		}
		json_object_set_new(m, "cpu", json_string(now));
		if (note != NULL || (k == 1 && jstr(json_object_get(r,
						"limits"), "cpu") != NULL))
			continue;
		if (b >= 0)
			cpl_budget_cpus_str(was_s, sizeof(was_s), b);
		note = cpl_xasprintf("as resized in place, not the spec's "
				     "%s%s", k == 1 ? "request of " : "",
				     b >= 0 ? was_s : "(unset)");
	}
	return note;
}

/* The resized containers of pod (resize_container()): their names and
 * notes into names/notes (caller frees each), at most max; the count. */
static size_t
resize_pod(json_t *pod, char **names, char **notes, size_t max)
{
	const json_t *sts = json_object_get(json_object_get(pod, "status"),
					    "containerStatuses");
	json_t *cs = json_object_get(json_object_get(pod, "spec"),
				     "containers");
	const json_t *st;
	json_t *c;
	size_t i, j, n = 0;

	json_array_foreach(sts, i, st) {
		const json_t *res = json_object_get(st, "resources");
		const char *name = jstr(st, "name");

		if (!json_is_object(res) || name == NULL)
			continue;
		json_array_foreach(cs, j, c) {
			char *note;

			if (n >= max || !cpl_str_eq(jstr(c, "name"), name) ||
			    (note = resize_container(c, res)) == NULL)
				continue;
			names[n] = cpl_xstrdup(name);
			notes[n++] = note;
		}
	}
	return n;
}

/* Gives the containers of w that resize_pod() found their notes. */
static void
resize_notes(struct cpl_workload *w, char **names, char **notes, size_t n)
{
	size_t i, j;

	for (i = 0; w != NULL && i < n; i++)
		for (j = 0; j < w->ncontainers; j++)
			if (cpl_str_eq(w->containers[j].name, names[i]) &&
			    w->containers[j].cpu_note == NULL)
				w->containers[j].cpu_note =
					cpl_xstrdup(notes[i]);
}

/* Containers of one Pod whose resize is said, at most. */
#define MAX_RESIZED 16

/*
 * Adds one live Pod (once, however many targets name it).  A Pod whose
 * top owner already has a Pod of the same spec is only counted and
 * recorded for measuring: it is not loaded again.
 */
static void
add_pod(struct live *l, json_t *pod)
{
	json_t *meta = json_object_get(pod, "metadata");
	const char *ns = jstr(meta, "namespace");
	const char *name = jstr(meta, "name");
	struct cpl_liveowner *owner;
	struct cpl_workload *w;
	char *key, *spec_key, *object;
	char *rnames[MAX_RESIZED], *rnotes[MAX_RESIZED];
	size_t nres, i;
	long g;

	if (ns == NULL)
		ns = l->info->namespace;
	if (name == NULL)
		return;
	key = cpl_xasprintf("%s/%s", ns, name);
	if (cpl_strmap_get(&l->seen, key) != NULL) {
		free(key);
		return;
	}
	cpl_strmap_put(&l->seen, key, l);
	free(key);
	owner = cpl_livepods_owner(&l->lp, l->client, pod, ns);
	if (l->o->log && owner) {
		char *line = cpl_xasprintf("pod/%s/%s is owned by %s", ns,
					   name, owner->log);

		l->o->log(l->o->log_ctx, line);
		free(line);
	}
	nres = resize_pod(pod, rnames, rnotes, MAX_RESIZED);
	spec_key = cpl_livepods_key(owner, pod);
	g = cpl_livepods_find(&l->lp, spec_key);
	if (g < 0) {
		resolve_env(l, pod, ns, 0);
		object = cpl_xasprintf("pod/%s/%s", ns, name);
		add_object(l, pod, object, training_kind(pod, owner), &w);
		free(object);
		resize_notes(w, rnames, rnotes, nres);
		for (i = 0; i < nres; i++) {
			free(rnames[i]);
			free(rnotes[i]);
		}
		nres = 0;
		if (w == NULL) {
			free(spec_key);
			return;
		}
		judge_pod_role(l, owner, ns, w, pod);
		g = (long)cpl_livepods_add_group(&l->lp, spec_key, owner, ns,
						 w);
	} else {
		free(spec_key);
	}
	for (i = 0; i < nres; i++) {
		free(rnames[i]);
		free(rnotes[i]);
	}
	cpl_livepods_add_pod(&l->lp, (size_t)g, name,
			     jstr(json_object_get(pod, "spec"), "nodeName"),
			     json_object_get(json_object_get(pod, "status"),
					     "containerStatuses"));
}

/* One Pod of a list, linted or counted as it is read (the list keeps no
 * Pod's JSON). */
static void
list_pod(void *ctx, json_t *pod)
{
	struct live *l = ctx;

	/* A real API server leaves apiVersion and kind out of list items:
	 * the list (a PodList of v1) implies them. */
	if (json_is_object(pod) && !json_object_get(pod, "apiVersion"))
		json_object_set_new(pod, "apiVersion", json_string("v1"));
	if (json_is_object(pod) && !json_object_get(pod, "kind"))
		json_object_set_new(pod, "kind", json_string("Pod"));
	l->listed++;
	add_pod(l, pod);
}

/* Lists Pods (in ns, or everywhere when ns is NULL) matching selector. */
static void
list_pods(struct live *l, const char *ns, const char *selector)
{
	struct cpl_kube_ref ref = { "v1", "pods", ns, NULL, NULL };
	struct cpl_kube_list_opts lo = { .label_selector = selector };
	struct cpl_error err = { 0 };

	if (cpl_kubeclient_list_each(l->client, &ref, &lo, list_pod, l,
				     &err) < 0)
		live_error(l, &err);
	cpl_error_clear(&err);
}

/* matchLabels as a label selector ("a=b,c=d"); NULL when there is none. */
static char *
selector_of(const json_t *obj)
{
	const json_t *sel = json_object_get(json_object_get(obj, "spec"),
					    "selector");
	const json_t *ml = json_object_get(sel, "matchLabels");
	const json_t *me = json_object_get(sel, "matchExpressions");
	struct cpl_buf b;
	const char *k;
	json_t *v;
	size_t i;

	cpl_buf_init(&b, 4096);
	json_object_foreach((json_t *)ml, k, v) {
		if (!json_is_string(v))
			continue;
		cpl_buf_addf(&b, "%s%s=%s", b.len ? "," : "", k,
			     json_string_value(v));
	}
	json_array_foreach(me, i, v) {
		const char *key = jstr(v, "key"), *op = jstr(v, "operator");
		const json_t *vals = json_object_get(v, "values");
		const json_t *x;
		size_t j;

		if (key == NULL || op == NULL)
			continue;
		if (strcmp(op, "Exists") == 0) {
			cpl_buf_addf(&b, "%s%s", b.len ? "," : "", key);
		} else if (strcmp(op, "DoesNotExist") == 0) {
			cpl_buf_addf(&b, "%s!%s", b.len ? "," : "", key);
		} else if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
			cpl_buf_addf(&b, "%s%s %s (", b.len ? "," : "", key,
				     strcmp(op, "In") == 0 ? "in" : "notin");
			json_array_foreach(vals, j, x)
				cpl_buf_addf(&b, "%s%s", j ? "," : "",
					     json_string_value(x) ?
					     json_string_value(x) : "");
			cpl_buf_addc(&b, ')');
		}
	}
	if (b.len == 0) {
		cpl_buf_free(&b);
		return NULL;
	}
	return cpl_buf_detach(&b);
}

/* The Pods of a controller: its selector, or the operator's labels. */
static void
controller_pods(struct live *l, const struct cpl_kind *k,
		const json_t *obj, const char *ns, const char *name)
{
	char *sel = NULL;

	if (k->pods == CPL_KPODS_LABEL)
		sel = cpl_xasprintf("%s=%s", k->pod_label, name);
	else if (k->pods == CPL_KPODS_SELECTOR)
		sel = selector_of(obj);
	if (k->pods == CPL_KPODS_JOBS) {
		/* The CronJob's Pods are those of the Jobs it owns. */
		struct cpl_kube_ref ref = { "batch/v1", "jobs", ns, NULL,
					    NULL };
		struct cpl_error err = { 0 };
		json_t *jobs = NULL, *job;
		size_t i;

		if (cpl_kubeclient_list(&jobs, l->client, &ref, NULL,
					&err) < 0) {
			live_error(l, &err);
			cpl_error_clear(&err);
			return;
		}
		json_array_foreach(jobs, i, job) {
			const json_t *o = cpl_livepods_owner_ref(job);

			if (o && cpl_str_eq(jstr(o, "kind"), k->kind) &&
			    cpl_str_eq(jstr(o, "name"), name)) {
				char *js = selector_of(job);

				if (js)
					list_pods(l, ns, js);
				free(js);
			}
		}
		json_decref(jobs);
		return;
	}
	if (sel)
		list_pods(l, ns, sel);
	free(sel);
}

/*
 * The runtime a TrainJob names (spec.runtimeRef), read so that the engine
 * lints the TrainJob merged with it.  Without it (not found, no RBAC) the
 * TrainJob is linted from what it says, and a note says why.
 */
static void
add_runtime(struct live *l, const json_t *tj, const char *ns,
	    const char *object)
{
	const json_t *ref = json_object_get(json_object_get(tj, "spec"),
					    "runtimeRef");
	const char *kind = jstr(ref, "kind"), *name = jstr(ref, "name");
	const char *group = jstr(ref, "apiGroup");
	const char *api = jstr(tj, "apiVersion");
	struct cpl_kube_ref r;
	struct cpl_error err = { 0 };
	json_t *rt = NULL;
	bool cluster;
	char *label_ns;

	if (name == NULL || api == NULL ||
	    (group && strcmp(group, "trainer.kubeflow.org") != 0))
		return;
	if (kind == NULL)
		kind = "ClusterTrainingRuntime";
	cluster = strcmp(kind, "ClusterTrainingRuntime") == 0;
	if (!cluster && strcmp(kind, "TrainingRuntime") != 0)
		return;
	r = (struct cpl_kube_ref){ api, cluster ? "clustertrainingruntimes" :
				   "trainingruntimes", cluster ? NULL : ns,
				   name, NULL };
	if (cpl_kubeclient_get(&rt, NULL, l->client, &r, &err) < 0) {
		cpl_buf_addf(l->notes, "%s: its %s \"%s\" was not read (%s); "
			     "linted from what the TrainJob says\n", object,
			     kind, name, err.message ? err.message : "error");
		cpl_error_clear(&err);
		return;
	}
	resolve_env(l, rt, ns, 0);
	label_ns = cpl_xasprintf(cluster ? "%s/%s" : "%s/%s/%s",
				 cluster ? "clustertrainingruntime" :
				 "trainingruntime", cluster ? name : ns, name);
	add_object(l, rt, label_ns, NULL, NULL);
	free(label_ns);
	json_decref(rt);
}

/*
 * The LimitRanges of namespace ns (read once per run), for the template
 * of object, whose Pods do not exist yet: admission will give them the
 * defaults and hold them to the bounds, which run/limitrange.c applies
 * to the workloads marked unadmitted.  Not read (no RBAC ...): a note.
 */
static void
limitranges(struct live *l, const char *ns, const char *object)
{
	struct cpl_kube_ref ref = { "v1", "limitranges", ns, NULL, NULL };
	struct cpl_error err = { 0 };
	json_t *items = NULL, *it;
	size_t i;

	if (cpl_strmap_get(&l->lr_read, ns) != NULL)
		return;
	cpl_strmap_put(&l->lr_read, ns, l);
	if (cpl_kubeclient_list(&items, l->client, &ref, NULL, &err) < 0) {
		cpl_buf_addf(l->notes, "%s: no Pods yet, and the LimitRanges "
			     "of namespace %s were not read (%s): its template "
			     "is judged without their defaults and bounds\n",
			     object, ns, err.message ? err.message : "error");
		cpl_error_clear(&err);
		return;
	}
	json_array_foreach(items, i, it) {
		const char *name = jstr(json_object_get(it, "metadata"),
					"name");
		char *lr;

		if (name == NULL)
			continue;
		lr = cpl_xasprintf("limitrange/%s/%s", ns, name);
		add_object(l, it, lr, NULL, NULL);
		free(lr);
	}
	json_decref(items);
}

/* One TYPE/NAME target (or a bare Pod name). */
static void
add_target(struct live *l, const char *target)
{
	const char *slash = strchr(target, '/');
	char *type = slash ? cpl_xstrndup(target, (size_t)(slash - target)) :
			     cpl_xstrdup("pod");
	const char *name = slash ? slash + 1 : target;
	const struct cpl_kind *k = cpl_kinds_by_type(type);
	const char *ns = l->info->namespace;
	struct cpl_kube_ref ref;
	struct cpl_error err = { 0 };
	json_t *obj = NULL;
	struct cpl_workload **tmpl;
	char *object;
	size_t ntmpl, listed, i;
	int rc;

	if (k == NULL) {
		struct cpl_buf use;
		const char *label;

		cpl_buf_init(&use, 0);
		for (i = 0; (label = cpl_live_type_label(i)) != NULL; i++)
			cpl_buf_addf(&use, "%s%s", i == 0 ? "" :
				     cpl_live_type_label(i + 1) ? ", " :
				     " or ", label);
		live_errorf(l, "%s: unknown resource type \"%s\" (use %s)",
			    target, type, use.data ? use.data : "");
		cpl_buf_free(&use);
		goto out;
	}
	if (*name == '\0' || strchr(name, '/') != NULL) {
		live_errorf(l, "%s: expected TYPE/NAME", target);
		goto out;
	}
	ref = (struct cpl_kube_ref){ k->api_version, k->resource, ns, name,
				     NULL };
	rc = cpl_kubeclient_get(&obj, NULL, l->client, &ref, &err);
	if (rc == CPL_KUBE_NOT_FOUND && k->old_api_version != NULL) {
		/* Not served at its version (an MPIJob's v2beta1): the older
		 * one (training-operator 1.x's v1).  Not there either: the
		 * first answer is the one to show. */
		struct cpl_error v1 = { 0 };

		ref.api_version = k->old_api_version;
		rc = cpl_kubeclient_get(&obj, NULL, l->client, &ref, &v1);
		if (rc != CPL_KUBE_NOT_FOUND) {
			cpl_error_clear(&err);
			err = v1;
		} else {
			cpl_error_clear(&v1);
		}
	}
	if (rc < 0) {
		live_error(l, &err);
		goto out;
	}
	if (k->pods == CPL_KPODS_SELF) {
		add_pod(l, obj);
		goto out;
	}
	resolve_env(l, obj, ns, 0);
	object = cpl_xasprintf("%s/%s/%s", k->singular, ns, name);
	add_object(l, obj, object, k->trains ? k : NULL, NULL);
	/* The template's workloads, before another object is added. */
	ntmpl = l->nadded;
	tmpl = cpl_xcalloc(ntmpl + 1, sizeof(*tmpl));
	for (i = 0; i < ntmpl; i++)
		tmpl[i] = l->added[i];
	listed = l->listed;
	if (k->merge != NULL)
		/* What it is merged with (a TrainJob's runtime). */
		add_runtime(l, obj, ns, object);
	if (k->launch == CPL_KLAUNCH_MPI)
		/* Its Pods find this read in their owner's record. */
		mpijob_spec(cpl_livepods_top(&l->lp, k->kind, ref.api_version,
					     ns, name), obj);
	controller_pods(l, k, obj, ns, name);
	/* No Pods yet: admission has not applied the namespace's
	 * LimitRanges to them, so they apply to the template. */
	if (l->listed == listed && ntmpl > 0) {
		for (i = 0; i < ntmpl; i++)
			tmpl[i]->unadmitted = true;
		limitranges(l, ns, object);
	}
	free(tmpl);
	free(object);
out:
	json_decref(obj);
	cpl_error_clear(&err);
	free(type);
}

/* ---- entry points ------------------------------------------------------ */

bool
cpl_live_is_type(const char *word)
{
	return cpl_kinds_by_type(word) != NULL;
}

const char *
cpl_live_type_label(size_t i)
{
	const struct cpl_kind *k;
	size_t j;

	for (j = 0; (k = cpl_kinds_at(j)) != NULL; j++)
		if (k->singular != NULL && i-- == 0)
			return k->singular;
	return NULL;
}

/* Orders strings for qsort. */
static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
cpl_live_names(char ***names, size_t *n, const char *type,
	       const struct cpl_live_opts *o, struct cpl_error *err)
{
	static const struct cpl_kind namespaces = {
		.group = "", .kind = "Namespace", .api_version = "v1",
		.resource = "namespaces", .singular = "namespace" };
	const struct cpl_kind *k = strcmp(type, "namespace") == 0 ?
				   &namespaces : cpl_kinds_by_type(type);
	struct cpl_kubeconfig *kc = NULL;
	struct cpl_kubeclient *client = NULL;
	struct cpl_kubeconfig_opts ko = o->kube;
	struct cpl_kube_ref ref;
	json_t *items = NULL, *item;
	size_t i;
	int rc = -1;

	*names = NULL;
	*n = 0;
	if (k == NULL) {
		cpl_error_set(err, NULL, 0, 0, "unknown resource type \"%s\"",
			      type);
		return -1;
	}
	if (ko.request_timeout == NULL)
		ko.request_timeout = "5s";
	if (ko.exec_timeout_ms == 0)
		ko.exec_timeout_ms = 5000;
	if (cpl_kubeconfig_load(&kc, &ko, err) < 0 ||
	    cpl_kubeconfig_credentials(kc, false, err) < 0 ||
	    cpl_kubeclient_new(&client, kc, err) < 0)
		goto out;
	ref = (struct cpl_kube_ref){ k->api_version, k->resource,
		k == &namespaces || o->all_namespaces ? NULL :
		cpl_kubeconfig_info(kc)->namespace, NULL, NULL };
	if (cpl_kubeclient_list(&items, client, &ref, NULL, err) < 0)
		goto out;
	*names = cpl_xcalloc(json_array_size(items) + 1, sizeof(**names));
	json_array_foreach(items, i, item) {
		const char *name = jstr(json_object_get(item, "metadata"),
					"name");

		if (name)
			(*names)[(*n)++] = cpl_xstrdup(name);
	}
	if (*n > 1)
		qsort(*names, *n, sizeof(**names), cmp_name);
	rc = 0;
out:
	json_decref(items);
	cpl_kubeclient_free(client);
	cpl_kubeconfig_free(kc);
	return rc;
}

const struct cpl_finding *
cpl_live_finding_view(struct cpl_finding *view, char **msg,
		      const struct cpl_finding *f)
{
	const struct cpl_workload *w = f->workload;
	const struct cpl_container *c = f->origin;

	*msg = NULL;
	if (w == NULL || w->pods < 2 || f->file != NULL)
		return f;
	*view = *f;
	view->pods = w->pods;
	if (f->rule && f->rule->live_only && c && c->measured_pod)
		*msg = cpl_xasprintf("%s (%lu Pods; measured: the most "
				     "throttled, %s)", f->message ?
				     f->message : "", w->pods,
				     c->measured_pod);
	else
		*msg = cpl_xasprintf("%s (%lu Pods)", f->message ?
				     f->message : "", w->pods);
	view->message = *msg;
	return view;
}

int
cpl_live_parse_duration(double *seconds, const char *text)
{
	long ms;

	if (cpl_kubeconfig_parse_timeout(&ms, text) < 0 || ms < 0)
		return -1;
	*seconds = (double)ms / 1000.0;
	return 0;
}

/* Frees what one collection or judgement kept (not the client). */
static void
live_clear(struct live *l)
{
	size_t i;

	cpl_livepods_free(&l->lp);
	for (i = 0; i < l->configmaps.cap; i++) {
		void *v = l->configmaps.slots ? l->configmaps.slots[i].value :
			  NULL;

		if (v && v != &missing_cm)
			json_decref(v);
	}
	cpl_strmap_free(&l->configmaps);
	cpl_strmap_free(&l->seen);
	cpl_strmap_free(&l->lr_read);
	free(l->added);
	l->added = NULL;
	l->nadded = l->added_cap = 0;
}

/* Groups, names and measures the Pods read (after the last one). */
static void
live_finish(struct live *l)
{
	struct cpl_livemeasure lm;

	cpl_livepods_finish(&l->lp);
	lm = (struct cpl_livemeasure){ l->e, l->o, l->client, &l->lp,
				       l->notes, (double)time(NULL), l->cache };
	cpl_livemeasure_run(&lm);
}

int
cpl_live_collect(struct cpl_engine *e, const char *const *targets,
		 size_t ntargets, const struct cpl_live_opts *o,
		 struct cpl_buf *notes)
{
	struct live l = { .e = e, .o = o, .notes = notes,
			  LIVE_OWN_KEYS };
	struct cpl_error err = { 0 };
	size_t i;
	int rc = -1;

	/* The client first: its time limit (--live-timeout) bounds the
	 * exec plugin that the credentials may run, too. */
	if (cpl_kubeconfig_load(&l.kc, &o->kube, &err) < 0 ||
	    cpl_kubeclient_new(&l.client, l.kc, &err) < 0) {
		live_error(&l, &err);
		goto out;
	}
	if (o->run_timeout_set)
		cpl_kubeclient_set_deadline(l.client,
					    (long)(o->run_timeout_seconds *
						   1000));
	if (cpl_kubeconfig_credentials(l.kc, false, &err) < 0) {
		live_error(&l, &err);
		goto out;
	}
	l.info = cpl_kubeconfig_info(l.kc);
	if (o->log)
		cpl_kubeclient_set_log(l.client, o->log, o->log_ctx);
	if (ntargets == 0) {
		list_pods(&l, o->all_namespaces ? NULL : l.info->namespace,
			  o->selector);
	}
	for (i = 0; i < ntargets; i++) {
		const struct cpl_kind *k = strchr(targets[i], '/') ? NULL :
					   cpl_kinds_by_type(targets[i]);

		/* A type alone lists, as `kubectl get pods` does: Pods
		 * only, since a controller is linted by name. */
		if (k) {
			if (k->pods != CPL_KPODS_SELF) {
				live_errorf(&l, "%s: only pods can be listed; "
					    "name the %s (%s NAME or %s/NAME)",
					    targets[i], k->singular, targets[i],
					    targets[i]);
				continue;
			}
			list_pods(&l, o->all_namespaces ? NULL :
				  l.info->namespace, o->selector);
			continue;
		}
		add_target(&l, targets[i]);
	}
	live_finish(&l);
	rc = 0;
out:
	cpl_error_clear(&err);
	live_clear(&l);
	cpl_kubeclient_free(l.client);
	cpl_kubeconfig_free(l.kc);
	return rc;
}

/* ---- sessions (serve's audit) ------------------------------------------ */

struct cpl_live_session {
	const struct cpl_live_opts *o;
	struct cpl_kubeconfig *kc;
	struct cpl_kubeclient *client;	/* GETs, LISTs, measuring */
	struct cpl_kubeclient *watcher;	/* the watch's own handle */
	const struct cpl_kubeconfig_info *info;
	struct cpl_livepods owners;	/* top owners, each read once */
	struct cpl_livemeasure_cache *cache;	/* this cycle's nodes */
};

int
cpl_live_open(struct cpl_live_session **out, const struct cpl_live_opts *o,
	      struct cpl_error *err)
{
	struct cpl_live_session *s = cpl_xcalloc(1, sizeof(*s));

	s->o = o;
	s->owners = (struct cpl_livepods)CPL_LIVEPODS_INIT;
	*out = NULL;
	if (cpl_kubeconfig_load(&s->kc, &o->kube, err) < 0 ||
	    cpl_kubeclient_new(&s->client, s->kc, err) < 0 ||
	    cpl_kubeclient_new(&s->watcher, s->kc, err) < 0 ||
	    cpl_kubeconfig_credentials(s->kc, false, err) < 0) {
		cpl_live_close(s);
		return -1;
	}
	s->info = cpl_kubeconfig_info(s->kc);
	if (o->log) {
		cpl_kubeclient_set_log(s->client, o->log, o->log_ctx);
		cpl_kubeclient_set_log(s->watcher, o->log, o->log_ctx);
	}
	cpl_kubeclient_set_deadline(s->watcher, 0);
	s->cache = cpl_livemeasure_cache_new();
	*out = s;
	return 0;
}

void
cpl_live_new_cycle(struct cpl_live_session *s)
{
	cpl_livemeasure_cache_clear(s->cache);
}


void
cpl_live_close(struct cpl_live_session *s)
{
	if (s == NULL)
		return;
	cpl_livepods_free(&s->owners);
	cpl_livemeasure_cache_free(s->cache);
	cpl_kubeclient_free(s->watcher);
	cpl_kubeclient_free(s->client);
	cpl_kubeconfig_free(s->kc);
	free(s);
}

void
cpl_live_set_stop(struct cpl_live_session *s, bool (*fn)(void *ctx),
		  void *ctx)
{
	cpl_kubeclient_set_cancel(s->client, fn, ctx);
}

/* The session's time limit, from now: --live-timeout, else 5 minutes. */
static void
session_deadline(struct cpl_live_session *s)
{
	cpl_kubeclient_set_deadline(s->client, s->o->run_timeout_set ?
				    (long)(s->o->run_timeout_seconds * 1000) :
				    300000L);
}

int
cpl_live_list_pods(struct cpl_live_session *s, cpl_kube_item_fn fn,
		   void *ctx, char **rv, struct cpl_error *err)
{
	struct cpl_kube_ref ref = { "v1", "pods", s->o->all_namespaces ? NULL :
				    s->info->namespace, NULL, NULL };
	struct cpl_kube_list_opts lo = { .label_selector = s->o->selector,
					 .resource_version = rv };

	session_deadline(s);
	return cpl_kubeclient_list_each(s->client, &ref, &lo, fn, ctx, err);
}

int
cpl_live_watch_pods(struct cpl_live_session *s,
		    const struct cpl_kube_watch_opts *wo, cpl_kube_event_fn fn,
		    void *ctx, struct cpl_error *err)
{
	struct cpl_kube_ref ref = { "v1", "pods", s->o->all_namespaces ? NULL :
				    s->info->namespace, NULL, NULL };
	struct cpl_kube_watch_opts o = *wo;

	o.label_selector = s->o->selector;
	return cpl_kubeclient_watch(s->watcher, &ref, &o, fn, ctx, err);
}

char *
cpl_live_pod_keys(struct cpl_live_session *s, const json_t *pod,
		  char **spec_key)
{
	const json_t *meta = json_object_get(pod, "metadata");
	const char *ns = jstr(meta, "namespace");
	const char *name = jstr(meta, "name");
	struct cpl_liveowner *owner;

	*spec_key = NULL;
	if (name == NULL)
		return NULL;
	if (ns == NULL)
		ns = s->info->namespace;
	session_deadline(s);
	owner = cpl_livepods_owner(&s->owners, s->client, pod, ns);
	if (owner == NULL)
		return cpl_xasprintf("pod/%s/%s", ns, name);
	*spec_key = cpl_livepods_key(owner, pod);
	return cpl_xstrdup(owner->object);
}

void
cpl_live_judge_pods(struct cpl_live_session *s, struct cpl_engine *e,
		    json_t *const *pods, size_t n, struct cpl_buf *notes)
{
	struct live l = { .e = e, .o = s->o, .notes = notes, .kc = s->kc,
			  .client = s->client, .info = s->info,
			  .cache = s->cache, LIVE_OWN_KEYS };
	size_t i;

	session_deadline(s);
	for (i = 0; i < n; i++)
		list_pod(&l, pods[i]);
	live_finish(&l);
	live_clear(&l);
}
