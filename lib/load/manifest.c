/*
 * manifest.c — Kubernetes objects (YAML or JSON) → workloads.
 *
 * One workload per Pod template: a Pod, a controller's template, each
 * replica type of a Kubeflow job, a TrainJob's trainer, each replicated
 * job of a training runtime.  The container reader at the bottom is shared
 * with the Polyaxon loader (cpl_manifest_container).
 *
 * Invariant: a workload enters the caller's list only once it is complete;
 * when reading it fails it is freed here, so the list never holds a
 * half-read object.  Every string taken from the tree is copied (the
 * stream may be freed before the workloads); positions borrow the owning
 * workload's file name.  Unknown fields are ignored; only a wrong type
 * where a structure is required, or an invalid CPU quantity, is an error.
 */
#include "load/loader.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "text/quantity.h"
#include "shell/shscan.h"

/* Lists of objects nested deeper than this are not followed. */
#define MAX_LIST_DEPTH 8

/* The value of the first of two spellings of a key (camelCase first). */
static const struct cpl_ynode *
get2(const struct cpl_ynode *map, const char *key, const char *alt)
{
	const struct cpl_ynode *n = cpl_ynode_get(map, key);

	return n ? n : cpl_ynode_get(map, alt);
}

/* text through the hook, as a new string; *unknown when unresolved. */
static char *
expand(const struct cpl_expand *ex, const char *text, bool *unknown)
{
	*unknown = false;
	if (ex == NULL || ex->expand == NULL)
		return cpl_xstrdup(text);
	return ex->expand(ex->ctx, text, unknown);
}

/* ---- container -------------------------------------------------------- */

/* The scalar node each argv word came from, parallel to the argv. */
struct word_nodes {
	const struct cpl_ynode **v;
	size_t cap;
};

/*
 * Appends scalar n as one word, expanded; an unresolved word keeps its
 * text as written.  Its node is kept only when the text is unchanged.
 */
static void
add_word(struct cpl_container *c, struct word_nodes *wn,
	 const struct cpl_ynode *n, const struct cpl_expand *ex)
{
	bool unknown;
	char *text = expand(ex, n->value, &unknown);

	if (unknown) {
		free(text);
		text = cpl_xstrdup(n->value);
	}
	cpl_xgrow((void **)&wn->v, &wn->cap, c->argc + 1, sizeof(*wn->v));
	wn->v[c->argc] = strcmp(text, n->value) == 0 ? n : NULL;
	cpl_container_add_arg(c, text, cpl_loader_pos(c->pos.file, n));
	free(text);
}

/* Reads command or args: a list of strings, or one string (one word). */
static int
read_words(struct cpl_container *c, struct word_nodes *wn,
	   const struct cpl_ynode *n, const char *field, const char *path,
	   const struct cpl_expand *ex, struct cpl_error *err)
{
	size_t i;

	if (cpl_loader_absent(n))
		return 0;
	if (n->kind == CPL_Y_SCALAR) {
		add_word(c, wn, n, ex);
		return 0;
	}
	if (n->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, n, "%s must be a list of strings",
			       field);
	for (i = 0; i < n->count; i++) {
		if (n->items[i]->kind != CPL_Y_SCALAR)
			return cpl_loader_fail(err, path, n->items[i],
				       "%s items must be strings", field);
		add_word(c, wn, n->items[i], ex);
	}
	return 0;
}

/* Sets one variable from a scalar value node v (NULL: empty string). */
static void
set_env_value(struct cpl_container *c, const char *name,
	      const struct cpl_ynode *v, const struct cpl_ynode *at,
	      const struct cpl_expand *ex)
{
	bool unknown;
	char *text;

	if (cpl_loader_absent(v)) {
		cpl_container_set_env(c, name, "", cpl_loader_pos(c->pos.file, at));
		return;
	}
	if (v->kind != CPL_Y_SCALAR) {
		cpl_container_set_env(c, name, NULL, cpl_loader_pos(c->pos.file, v));
		return;
	}
	text = expand(ex, v->value, &unknown);
	cpl_container_set_env(c, name, unknown ? NULL : text,
			      cpl_loader_pos(c->pos.file, v));
	free(text);
}

/*
 * Reads env: the Kubernetes list of {name, value | valueFrom} (valueFrom
 * is unknown), or a {NAME: value} mapping.  Later definitions win.
 */
static int
read_env(struct cpl_container *c, const struct cpl_ynode *env,
	 const char *path, const struct cpl_expand *ex,
	 struct cpl_error *err)
{
	size_t i;

	if (cpl_loader_absent(env))
		return 0;
	if (env->kind == CPL_Y_MAP) {
		for (i = 0; i < env->count; i++) {
			const struct cpl_ypair *p = &env->pairs[i];

			if (p->key->kind == CPL_Y_SCALAR)
				set_env_value(c, p->key->value, p->value,
					      p->key, ex);
		}
		return 0;
	}
	if (env->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, env, "env must be a list");
	for (i = 0; i < env->count; i++) {
		const struct cpl_ynode *e = env->items[i];
		const struct cpl_ynode *v, *from;
		const char *name;

		if (e->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, e,
				       "env entries must be mappings");
		name = cpl_ynode_gets(e, "name");
		if (name == NULL)
			continue;
		v = cpl_ynode_get(e, "value");
		from = cpl_ynode_get(e, "valueFrom");
		if (!cpl_loader_absent(from))
			cpl_container_set_env(c, name, NULL,
					      cpl_loader_pos(c->pos.file,
						       v ? v : e));
		else
			set_env_value(c, name, v, e, ex);
	}
	return 0;
}

/* Reads one CPU quantity node into *out (millicores) and *pos. */
static int
read_cpu(int64_t *out, struct cpl_pos *pos, const char *file,
	 const struct cpl_ynode *n, const char *path,
	 const struct cpl_expand *ex, struct cpl_error *err)
{
	const char *why;
	bool unknown;
	char *text;
	int rc = 0;

	if (cpl_loader_absent(n))
		return 0;
	if (n->kind != CPL_Y_SCALAR)
		return cpl_loader_fail(err, path, n,
			       "CPU quantity must be a string or number");
	text = expand(ex, n->value, &unknown);
	if (unknown)
		*out = CPL_CPU_UNKNOWN;
	else if (cpl_quantity_cpu(out, text, &why) < 0)
		rc = cpl_loader_fail(err, path, n, "invalid CPU quantity \"%s\": %s",
			     text, why);
	*pos = cpl_loader_pos(file, n);
	free(text);
	return rc;
}

/*
 * The GPU count in a requests or limits mapping: the first resource whose
 * name after the last '/' is "gpu".  An unresolved count is 1.
 */
static long
read_gpus(const struct cpl_ynode *map, const struct cpl_expand *ex)
{
	size_t i;

	if (!cpl_ynode_is_map(map))
		return 0;
	for (i = 0; i < map->count; i++) {
		const struct cpl_ynode *k = map->pairs[i].key;
		const struct cpl_ynode *v = map->pairs[i].value;
		const char *slash, *why;
		int64_t millis;
		bool unknown;
		char *text;
		long n = 0;

		if (k->kind != CPL_Y_SCALAR || !cpl_ynode_is_scalar(v))
			continue;
		slash = strrchr(k->value, '/');
		if (strcmp(slash ? slash + 1 : k->value, "gpu") != 0)
			continue;
		text = expand(ex, v->value, &unknown);
		if (unknown)
			n = 1;
		else if (cpl_quantity_cpu(&millis, text, &why) == 0)
			n = (long)((millis + 999) / 1000);
		free(text);
		if (n > 0)
			return n;
	}
	return 0;
}

/* Reads the resources mapping under key (CPU request, limit, GPUs). */
static int
read_resources(struct cpl_container *c, const struct cpl_ynode *node,
	       const char *key, const char *path,
	       const struct cpl_expand *ex, struct cpl_error *err)
{
	const struct cpl_ynode *res = cpl_ynode_get(node, key);
	const struct cpl_ynode *keyn = cpl_ynode_key(node, key);
	const struct cpl_ynode *req, *lim;

	c->resources_pos = keyn ? cpl_loader_pos(c->pos.file, keyn) : c->pos;
	if (cpl_loader_absent(res))
		return 0;
	if (res->kind != CPL_Y_MAP)
		return cpl_loader_fail(err, path, res, "%s must be a mapping", key);
	req = cpl_ynode_get(res, "requests");
	lim = cpl_ynode_get(res, "limits");
	if (!cpl_loader_absent(req) && req->kind != CPL_Y_MAP)
		return cpl_loader_fail(err, path, req, "%s.requests must be a mapping",
			       key);
	if (!cpl_loader_absent(lim) && lim->kind != CPL_Y_MAP)
		return cpl_loader_fail(err, path, lim, "%s.limits must be a mapping",
			       key);
	if (read_cpu(&c->cpu_request, &c->request_pos, c->pos.file,
		     cpl_ynode_get(req, "cpu"), path, ex, err) < 0 ||
	    read_cpu(&c->cpu_limit, &c->limit_pos, c->pos.file,
		     cpl_ynode_get(lim, "cpu"), path, ex, err) < 0)
		return -1;
	c->gpus = read_gpus(lim, ex);
	if (c->gpus == 0)
		c->gpus = read_gpus(req, ex);
	return 0;
}

/* The Pod volume named name, or NULL. */
static const struct cpl_ynode *
find_volume(const struct cpl_ynode *volumes, const char *name)
{
	size_t i;

	if (!cpl_ynode_is_seq(volumes) || name == NULL)
		return NULL;
	for (i = 0; i < volumes->count; i++)
		if (cpl_str_eq(cpl_ynode_gets(volumes->items[i], "name"),
			       name))
			return volumes->items[i];
	return NULL;
}

/* Checks one volumeMount for a memory-backed emptyDir at /dev/shm. */
static void
read_shm_mount(struct cpl_container *c, const struct cpl_ynode *m,
	       const struct cpl_ynode *volumes)
{
	const char *mp = cpl_ynode_str(get2(m, "mountPath", "mount_path"));
	const struct cpl_ynode *vol, *ed;
	const char *size, *why;
	int64_t millis;

	if (!cpl_str_eq(mp, "/dev/shm") && !cpl_str_eq(mp, "/dev/shm/"))
		return;
	vol = find_volume(volumes, cpl_ynode_gets(m, "name"));
	ed = get2(vol, "emptyDir", "empty_dir");
	if (!cpl_str_eq(cpl_ynode_gets(ed, "medium"), "Memory"))
		return;
	c->shm = true;
	c->shm_bytes = -1;
	size = cpl_ynode_str(get2(ed, "sizeLimit", "size_limit"));
	if (size && cpl_quantity_cpu(&millis, size, &why) == 0)
		c->shm_bytes = millis / 1000;
}

/* Looks for /dev/shm among the volumeMounts (a list, or one mapping). */
static void
read_shm(struct cpl_container *c, const struct cpl_ynode *node,
	 const struct cpl_ynode *volumes)
{
	const struct cpl_ynode *mounts = get2(node, "volumeMounts",
					      "volume_mounts");
	size_t i;

	if (cpl_ynode_is_map(mounts)) {
		read_shm_mount(c, mounts, volumes);
		return;
	}
	if (!cpl_ynode_is_seq(mounts))
		return;
	for (i = 0; i < mounts->count; i++)
		read_shm_mount(c, mounts->items[i], volumes);
}

/*
 * Reads a container mapping whose resources sit under res_key ("resources"
 * for a container, "resourcesPerNode" for a TrainJob trainer).  A name
 * already set in c is kept when the mapping has none.
 */
static int
read_container(struct cpl_container *c, const struct cpl_ystream *s,
	       const struct cpl_ynode *node, const char *res_key,
	       const struct cpl_ynode *volumes, const char *path,
	       const struct cpl_expand *ex, struct cpl_error *err)
{
	struct word_nodes wn = { NULL, 0 };
	const char *name, *image;
	bool unknown;
	int rc = -1;

	if (!cpl_ynode_is_map(node)) {
		cpl_loader_fail(err, path, node, "a container must be a mapping");
		goto out;
	}
	c->pos = cpl_loader_pos(c->pos.file, node);
	if ((name = cpl_ynode_gets(node, "name")) != NULL) {
		free(c->name);
		c->name = cpl_xstrdup(name);
	} else if (c->name == NULL) {
		c->name = cpl_xstrdup("");
	}
	if ((image = cpl_ynode_gets(node, "image")) != NULL) {
		free(c->image);
		c->image = expand(ex, image, &unknown);
		if (unknown) {
			free(c->image);
			c->image = cpl_xstrdup(image);
		}
	}
	if (read_words(c, &wn, cpl_ynode_get(node, "command"), "command",
		       path, ex, err) < 0)
		goto out;
	c->ncommand = c->argc;
	if (read_words(c, &wn, cpl_ynode_get(node, "args"), "args", path, ex,
		       err) < 0 ||
	    read_env(c, cpl_ynode_get(node, "env"), path, ex, err) < 0)
		goto out;
	if (!cpl_loader_absent(get2(node, "envFrom", "env_from")))
		c->env_from = true;
	if (read_resources(c, node, res_key, path, ex, err) < 0)
		goto out;
	read_shm(c, node, volumes);
	cpl_launch_clear(&c->launch);
	cpl_shscan(&c->launch, c->argv, c->argc, wn.v, s);
	rc = 0;
out:
	free(wn.v);
	return rc;
}

int
cpl_manifest_container(struct cpl_container *c, const struct cpl_ystream *s,
		       const struct cpl_ynode *node,
		       const struct cpl_ynode *volumes, const char *path,
		       const struct cpl_expand *ex, struct cpl_error *err)
{
	return read_container(c, s, node, "resources", volumes, path, ex,
			      err);
}

/* ---- Pod specs -------------------------------------------------------- */

/* Appends the containers of one list of a Pod spec with role role. */
static int
add_containers(struct cpl_workload *w, const struct cpl_ystream *s,
	       const struct cpl_ynode *list, const char *field,
	       enum cpl_crole role, const struct cpl_ynode *volumes,
	       const char *path, struct cpl_error *err)
{
	size_t i;

	if (cpl_loader_absent(list))
		return 0;
	if (list->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, list, "%s must be a list", field);
	for (i = 0; i < list->count; i++) {
		const struct cpl_ynode *n = list->items[i];
		struct cpl_container *c = cpl_workload_add_container(w);

		c->role = role;
		if (role == CPL_CROLE_INIT &&
		    cpl_str_eq(cpl_ynode_gets(n, "restartPolicy"), "Always"))
			c->role = CPL_CROLE_SIDECAR;
		if (read_container(c, s, n, "resources", volumes, path, NULL,
				   err) < 0)
			return -1;
	}
	return 0;
}

/*
 * Marks the run container of a job replica: the first main container
 * named one of names (in order of preference), else the first main one.
 */
static void
mark_run(struct cpl_workload *w, const char *const *names)
{
	size_t i;

	for (; names && *names; names++) {
		for (i = 0; i < w->ncontainers; i++) {
			struct cpl_container *c = &w->containers[i];

			if (c->role == CPL_CROLE_MAIN &&
			    cpl_str_eq(c->name, *names)) {
				c->run_container = true;
				return;
			}
		}
	}
	for (i = 0; i < w->ncontainers; i++) {
		if (w->containers[i].role == CPL_CROLE_MAIN) {
			w->containers[i].run_container = true;
			return;
		}
	}
}

/*
 * Reads a Pod spec into w: init containers (native sidecars among them)
 * then containers.  For a job, run_names picks the run container.
 */
static int
load_pod_spec(struct cpl_workload *w, const struct cpl_ystream *s,
	      const struct cpl_ynode *spec, bool job,
	      const char *const *run_names, const char *path,
	      struct cpl_error *err)
{
	const struct cpl_ynode *volumes = cpl_ynode_get(spec, "volumes");

	if (add_containers(w, s, cpl_ynode_get(spec, "initContainers"),
			   "initContainers", CPL_CROLE_INIT, volumes, path,
			   err) < 0 ||
	    add_containers(w, s, cpl_ynode_get(spec, "containers"),
			   "containers", CPL_CROLE_MAIN, volumes, path,
			   err) < 0)
		return -1;
	if (job)
		mark_run(w, run_names);
	return 0;
}

/*
 * Follows keys (NULL-terminated) from n.  *out is the mapping at the end,
 * or NULL when a key is absent; a non-mapping on the way is an error.
 */
static int
walk(const struct cpl_ynode **out, const struct cpl_ynode *n,
     const char *const *keys, const char *path, struct cpl_error *err)
{
	const char *const *k;

	*out = NULL;
	for (k = keys; *k; k++) {
		const struct cpl_ynode *next = cpl_ynode_get(n, *k);

		if (cpl_loader_absent(next))
			return 0;
		if (next->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, next,
				       "%s must be a mapping", *k);
		n = next;
	}
	*out = n;
	return 0;
}

/* ---- objects ---------------------------------------------------------- */

/* A new workload for object obj of kind kind, named from its metadata. */
static struct cpl_workload *
new_workload(const struct cpl_ynode *obj, const char *kind, const char *path)
{
	const struct cpl_ynode *md = cpl_ynode_get(obj, "metadata");
	const char *name = cpl_ynode_gets(md, "name");
	struct cpl_workload *w = cpl_workload_new(CPL_SRC_MANIFEST, path);

	w->kind = cpl_xstrdup(kind);
	w->name = cpl_xstrdup(name ? name : "");
	w->namespace = cpl_xstrdup(cpl_ynode_gets(md, "namespace"));
	w->pos = cpl_loader_pos(w->file, obj);
	return w;
}

/*
 * Reads the ignore-check annotations of an object's metadata, then of its
 * Pod template's metadata (tmpl: the template mapping, holding metadata
 * and spec; NULL when there is none or it is the object itself).
 */
static void
read_annotations(struct cpl_workload *w, const struct cpl_ynode *obj,
		 const struct cpl_ynode *tmpl)
{
	const struct cpl_ynode *from[2] = { obj, tmpl };
	size_t i, j;

	for (i = 0; i < 2; i++) {
		const struct cpl_ynode *a = cpl_ynode_path(from[i], "metadata",
							  "annotations", NULL);

		for (j = 0; cpl_ynode_is_map(a) && j < a->count; j++) {
			const struct cpl_ynode *k = a->pairs[j].key;

			cpl_workload_add_annotation(w, cpl_ynode_str(k),
				cpl_ynode_str(a->pairs[j].value),
				cpl_loader_pos(w->file, k));
		}
	}
}

/* The Pod template on the way to a Pod spec (keys without the last), or
 * NULL when the Pod spec is the object's own (a Pod). */
static const struct cpl_ynode *
template_of(const struct cpl_ynode *obj, const char *const *keys)
{
	const struct cpl_ynode *n = obj;

	if (keys[0] == NULL || keys[1] == NULL)
		return NULL;
	for (; keys[1] != NULL && n != NULL; keys++)
		n = cpl_ynode_get(n, *keys);
	return n;
}

/* Integer field key of map, or def when absent or not an integer. */
static long
get_long(const struct cpl_ynode *map, const char *key, long def)
{
	long v;

	return cpl_ynode_long(cpl_ynode_get(map, key), &v) == 0 ? v : def;
}

/* Records a rank-count node (nprocPerNode ...) on w; false when absent. */
static bool
set_nproc(struct cpl_workload *w, const struct cpl_ynode *n)
{
	if (!cpl_ynode_is_scalar(n) || cpl_ynode_is_null(n))
		return false;
	w->has_nproc = true;
	w->nproc.text = cpl_xstrdup(n->value);
	w->nproc.pos = cpl_loader_pos(w->file, n);
	return true;
}

/* Appends w to out, or frees it when rc says reading it failed. */
static int
finish(struct cpl_wlist *out, struct cpl_workload *w, int rc)
{
	if (rc < 0)
		cpl_workload_free(w);
	else
		cpl_wlist_add(out, w);
	return rc;
}

/* Where the Pod spec sits in a core kind. */
static const char *const k_pod[] = { "spec", NULL };
static const char *const k_tmpl[] = { "spec", "template", "spec", NULL };
static const char *const k_podtmpl[] = { "template", "spec", NULL };
static const char *const k_cron[] = { "spec", "jobTemplate", "spec",
				      "template", "spec", NULL };

/* A built-in kind that holds one Pod template. */
struct core_kind {
	const char *kind;
	const char *group;	/* API group, "" for the core group */
	const char *old_group;	/* an older group that served it, or NULL */
	const char *const *keys;	/* path to the Pod spec */
	bool scaled;			/* spec.replicas counts its Pods */
};

static const struct core_kind core_kinds[] = {
	{ "Pod", "", NULL, k_pod, false },
	{ "Deployment", "apps", "extensions", k_tmpl, true },
	{ "StatefulSet", "apps", NULL, k_tmpl, true },
	{ "DaemonSet", "apps", "extensions", k_tmpl, false },
	{ "ReplicaSet", "apps", "extensions", k_tmpl, true },
	{ "ReplicationController", "", NULL, k_tmpl, true },
	{ "PodTemplate", "", NULL, k_podtmpl, false },
	{ "Job", "batch", NULL, k_tmpl, false },
	{ "CronJob", "batch", NULL, k_cron, false },
};

/* apiVersion api is in group ("" = core: no group prefix). */
static bool
in_group(const char *api, const char *group)
{
	size_t n;

	if (group == NULL)
		return false;
	if (*group == '\0')
		return strchr(api, '/') == NULL;
	n = strlen(group);
	return strncmp(api, group, n) == 0 && api[n] == '/';
}

/* Loads a built-in kind: one workload, when it has a Pod spec. */
static int
load_core(struct cpl_wlist *out, const struct cpl_ystream *s,
	  const struct cpl_ynode *obj, const struct core_kind *k,
	  const char *path, struct cpl_error *err)
{
	const struct cpl_ynode *spec;
	struct cpl_workload *w;

	if (walk(&spec, obj, k->keys, path, err) < 0)
		return -1;
	if (spec == NULL)
		return 0;
	w = new_workload(obj, k->kind, path);
	read_annotations(w, obj, template_of(obj, k->keys));
	if (k->scaled)
		w->replicas = get_long(cpl_ynode_get(obj, "spec"), "replicas",
				       1);
	return finish(out, w, load_pod_spec(w, s, spec, false, NULL, path,
					    err));
}

/* The main container names of the Kubeflow v1 frameworks. */
struct kf_kind {
	const char *kind;
	const char *const names[5];
};

static const struct kf_kind kf_kinds[] = {
	{ "PyTorchJob", { "pytorch", NULL } },
	{ "TFJob", { "tensorflow", NULL } },
	{ "MPIJob", { "mpi", "launcher", "mpi-launcher", "worker", NULL } },
	{ "XGBoostJob", { "xgboost", NULL } },
	{ "PaddleJob", { "paddle", NULL } },
	{ "JAXJob", { "jax", NULL } },
	{ "MXJob", { "mxnet", NULL } },
};

/* The run container names for a Kubeflow kind, or NULL (first one). */
static const char *const *
kf_names(const char *kind)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(kf_kinds); i++)
		if (strcmp(kf_kinds[i].kind, kind) == 0)
			return kf_kinds[i].names;
	return NULL;
}

/* The spec's "*ReplicaSpecs" mapping (first one), NULL when none. */
static int
find_replica_specs(const struct cpl_ynode **out, const struct cpl_ynode *spec,
		   const char *path, struct cpl_error *err)
{
	size_t i;

	*out = NULL;
	for (i = 0; i < spec->count; i++) {
		const struct cpl_ypair *p = &spec->pairs[i];

		if (p->key->kind != CPL_Y_SCALAR ||
		    !cpl_str_ends(p->key->value, "ReplicaSpecs") ||
		    cpl_loader_absent(p->value))
			continue;
		if (p->value->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, p->value,
				       "%s must be a mapping", p->key->value);
		*out = p->value;
		return 0;
	}
	return 0;
}

/*
 * A Kubeflow v1 job (PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob,
 * JAXJob ...): one workload per replica type of spec.*ReplicaSpecs.
 */
static int
load_kubeflow(struct cpl_wlist *out, const struct cpl_ystream *s,
	      const struct cpl_ynode *obj, const char *kind, const char *path,
	      struct cpl_error *err)
{
	static const char *const k_spec[] = { "spec", NULL };
	static const char *const k_rtmpl[] = { "template", "spec", NULL };
	const struct cpl_ynode *spec, *specs, *nproc;
	bool pytorch = strcmp(kind, "PyTorchJob") == 0;
	size_t i;

	if (walk(&spec, obj, k_spec, path, err) < 0)
		return -1;
	if (spec == NULL)
		return 0;
	if (find_replica_specs(&specs, spec, path, err) < 0)
		return -1;
	if (specs == NULL)
		return 0;
	nproc = cpl_ynode_get(spec, "nprocPerNode");
	if (cpl_loader_absent(nproc))
		nproc = cpl_ynode_path(spec, "elasticPolicy", "nProcPerNode",
				       NULL);
	for (i = 0; i < specs->count; i++) {
		const struct cpl_ynode *key = specs->pairs[i].key;
		const struct cpl_ynode *rs = specs->pairs[i].value;
		const struct cpl_ynode *pod;
		struct cpl_workload *w;

		if (cpl_loader_absent(rs))
			continue;
		if (rs->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, rs,
				       "a replica spec must be a mapping");
		if (walk(&pod, rs, k_rtmpl, path, err) < 0)
			return -1;
		if (pod == NULL)
			continue;
		w = new_workload(obj, kind, path);
		read_annotations(w, obj, cpl_ynode_get(rs, "template"));
		w->replica = cpl_xstrdup(cpl_ynode_str(key));
		w->replicas = get_long(rs, "replicas", 1);
		w->training_job = true;
		if (pytorch && !set_nproc(w, nproc))
			w->nproc_default_auto = true;
		if (finish(out, w, load_pod_spec(w, s, pod, true,
						 kf_names(kind), path,
						 err)) < 0)
			return -1;
	}
	return 0;
}

/* A Trainer v2 TrainJob: one workload, one "node" container. */
static int
load_trainjob(struct cpl_wlist *out, const struct cpl_ystream *s,
	      const struct cpl_ynode *obj, const char *kind, const char *path,
	      struct cpl_error *err)
{
	static const char *const k_trainer[] = { "spec", "trainer", NULL };
	const struct cpl_ynode *trainer;
	struct cpl_workload *w;
	struct cpl_container *c;

	if (walk(&trainer, obj, k_trainer, path, err) < 0)
		return -1;
	if (trainer == NULL)
		return 0;
	w = new_workload(obj, kind, path);
	read_annotations(w, obj, NULL);
	w->replicas = get_long(trainer, "numNodes", 1);
	w->training_job = true;
	set_nproc(w, cpl_ynode_get(trainer, "numProcPerNode"));
	c = cpl_workload_add_container(w);
	c->name = cpl_xstrdup("node");
	c->run_container = true;
	return finish(out, w, read_container(c, s, trainer,
					     "resourcesPerNode", NULL, path,
					     NULL, err));
}

/*
 * A TrainingRuntime or ClusterTrainingRuntime: one workload per replicated
 * job of its JobSet template.  The "node" job takes mlPolicy's numNodes
 * and numProcPerNode.
 */
static int
load_runtime(struct cpl_wlist *out, const struct cpl_ystream *s,
	     const struct cpl_ynode *obj, const char *kind, const char *path,
	     struct cpl_error *err)
{
	static const char *const k_js[] = { "spec", "template", "spec", NULL };
	static const char *const k_jspod[] = { "template", "spec", "template",
					     "spec", NULL };
	static const char *const run_names[] = { "node", NULL };
	const struct cpl_ynode *js, *jobs, *policy, *nproc;
	size_t i;

	if (walk(&js, obj, k_js, path, err) < 0)
		return -1;
	jobs = cpl_ynode_get(js, "replicatedJobs");
	if (cpl_loader_absent(jobs))
		return 0;
	if (jobs->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, jobs,
			       "replicatedJobs must be a list");
	policy = cpl_ynode_path(obj, "spec", "mlPolicy", NULL);
	nproc = cpl_ynode_path(policy, "torch", "numProcPerNode", NULL);
	if (nproc == NULL)
		nproc = cpl_ynode_path(policy, "mpi", "numProcPerNode", NULL);
	for (i = 0; i < jobs->count; i++) {
		const struct cpl_ynode *job = jobs->items[i];
		const char *name = cpl_ynode_gets(job, "name");
		const struct cpl_ynode *pod;
		struct cpl_workload *w;

		if (job->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, job,
				       "a replicated job must be a mapping");
		if (walk(&pod, job, k_jspod, path, err) < 0)
			return -1;
		if (pod == NULL)
			continue;
		w = new_workload(obj, kind, path);
		read_annotations(w, obj, cpl_ynode_path(job, "template",
							"spec", "template",
							NULL));
		w->replica = cpl_xstrdup(name);
		w->replicas = get_long(job, "replicas", 1);
		w->training_job = true;
		if (cpl_str_eq(name, "node")) {
			w->replicas = get_long(policy, "numNodes",
					       w->replicas);
			set_nproc(w, nproc);
		}
		if (finish(out, w, load_pod_spec(w, s, pod, true, run_names,
						 path, err)) < 0)
			return -1;
	}
	return 0;
}

static int load_object(struct cpl_wlist *out, const struct cpl_ystream *s,
		       const struct cpl_ynode *obj, const char *kind_hint,
		       const char *api_hint, int depth, const char *path,
		       struct cpl_error *err);

/*
 * A List (kubectl get -o yaml) or a typed list (PodList, whose items may
 * omit apiVersion and kind): each item is an object.
 */
static int
load_list(struct cpl_wlist *out, const struct cpl_ystream *s,
	  const struct cpl_ynode *obj, const char *kind, const char *api,
	  int depth, const char *path, struct cpl_error *err)
{
	const struct cpl_ynode *items = cpl_ynode_get(obj, "items");
	char *item_kind = NULL;
	size_t i;
	int rc = 0;

	if (cpl_loader_absent(items))
		return 0;
	if (items->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, items, "items must be a list");
	if (strcmp(kind, "List") != 0)
		item_kind = cpl_xstrndup(kind, strlen(kind) - 4);
	for (i = 0; i < items->count && rc == 0; i++) {
		if (items->items[i]->kind != CPL_Y_MAP) {
			rc = cpl_loader_fail(err, path, items->items[i],
				     "list items must be mappings");
			break;
		}
		rc = load_object(out, s, items->items[i], item_kind, api,
				 depth + 1, path, err);
	}
	free(item_kind);
	return rc;
}

/* Loads one object (or list of objects) by its apiVersion and kind. */
static int
load_object(struct cpl_wlist *out, const struct cpl_ystream *s,
	    const struct cpl_ynode *obj, const char *kind_hint,
	    const char *api_hint, int depth, const char *path,
	    struct cpl_error *err)
{
	const char *kind = cpl_ynode_gets(obj, "kind");
	const char *api = cpl_ynode_gets(obj, "apiVersion");
	size_t i;

	if (kind == NULL)
		kind = kind_hint;
	if (api == NULL)
		api = api_hint;
	if (kind == NULL || api == NULL || depth > MAX_LIST_DEPTH)
		return 0;
	if (strcmp(kind, "List") == 0 ||
	    (cpl_str_ends(kind, "List") &&
	     cpl_ynode_is_seq(cpl_ynode_get(obj, "items"))))
		return load_list(out, s, obj, kind, api, depth, path, err);
	for (i = 0; i < CPL_ARRAY_LEN(core_kinds); i++) {
		const struct core_kind *k = &core_kinds[i];

		if (strcmp(k->kind, kind) == 0 &&
		    (in_group(api, k->group) || in_group(api, k->old_group)))
			return load_core(out, s, obj, k, path, err);
	}
	if (in_group(api, "kubeflow.org"))
		return load_kubeflow(out, s, obj, kind, path, err);
	if (in_group(api, "trainer.kubeflow.org")) {
		if (strcmp(kind, "TrainJob") == 0)
			return load_trainjob(out, s, obj, kind, path, err);
		if (strcmp(kind, "TrainingRuntime") == 0 ||
		    strcmp(kind, "ClusterTrainingRuntime") == 0)
			return load_runtime(out, s, obj, kind, path, err);
	}
	return 0;
}

bool
cpl_manifest_detect(const struct cpl_ynode *doc)
{
	return cpl_ynode_is_map(doc) &&
	       cpl_ynode_is_scalar(cpl_ynode_get(doc, "apiVersion")) &&
	       cpl_ynode_is_scalar(cpl_ynode_get(doc, "kind"));
}

int
cpl_manifest_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		  const struct cpl_ynode *doc, const char *path,
		  struct cpl_error *err)
{
	if (!cpl_manifest_detect(doc))
		return 0;
	return load_object(out, s, doc, NULL, NULL, 0, path, err);
}
