/*
 * manifest.c — Kubernetes objects (YAML or JSON) → workloads.
 *
 * One workload per Pod template: a Pod, a controller's template, each
 * replica type of a Kubeflow job, each replicated job of a JobSet, each
 * task of a Volcano Job, a LeaderWorkerSet's leader and workers, the
 * objects an AppWrapper wraps; Kubeflow Trainer kinds are read by
 * trainer.c with the pieces exported here.  Every object that gives no
 * workload is recorded as skipped, with why.  The container reader is
 * shared with the Polyaxon loader (cpl_manifest_container).
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

int
cpl_manifest_pod_spec(struct cpl_workload *w, const struct cpl_ystream *s,
		      const struct cpl_ynode *spec, const char *path,
		      struct cpl_error *err)
{
	return load_pod_spec(w, s, spec, false, NULL, path, err);
}

int
cpl_manifest_trainer(struct cpl_container *c, const struct cpl_ystream *s,
		     const struct cpl_ynode *node, const char *path,
		     struct cpl_error *err)
{
	return read_container(c, s, node, "resourcesPerNode", NULL, path,
			      NULL, err);
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

int
cpl_manifest_walk(const struct cpl_ynode **out, const struct cpl_ynode *n,
		  const char *const *keys, const char *path,
		  struct cpl_error *err)
{
	return walk(out, n, keys, path, err);
}

/* ---- objects ---------------------------------------------------------- */

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

struct cpl_workload *
cpl_manifest_workload(const struct cpl_ynode *obj, const char *kind,
		      const struct cpl_ynode *tmpl, const char *path)
{
	const struct cpl_ynode *md = cpl_ynode_get(obj, "metadata");
	const char *name = cpl_ynode_gets(md, "name");
	struct cpl_workload *w = cpl_workload_new(CPL_SRC_MANIFEST, path);

	w->kind = cpl_xstrdup(kind);
	w->name = cpl_xstrdup(name ? name : "");
	w->namespace = cpl_xstrdup(cpl_ynode_gets(md, "namespace"));
	w->pos = cpl_loader_pos(w->file, obj);
	read_annotations(w, obj, tmpl != obj ? tmpl : NULL);
	return w;
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


/* Records that object obj of kind kind was skipped, and why. */
static void
skip(struct cpl_wlist *out, const struct cpl_ynode *obj, const char *kind,
     const char *path, const char *why)
{
	const char *name = cpl_ynode_gets(cpl_ynode_get(obj, "metadata"),
					  "name");

	if (name)
		cpl_wlist_skip(out, path, obj->line, obj->column, why,
			       "%s \"%s\"", kind, name);
	else
		cpl_wlist_skip(out, path, obj->line, obj->column, why, "%s",
			       kind);
}

/* Somewhere under n (a few levels down) is a list of containers. */
static bool
holds_containers(const struct cpl_ynode *n, int depth)
{
	size_t i;

	if (n == NULL || depth > 10)
		return false;
	if (n->kind == CPL_Y_SEQ) {
		for (i = 0; i < n->count; i++)
			if (holds_containers(n->items[i], depth + 1))
				return true;
		return false;
	}
	if (n->kind != CPL_Y_MAP)
		return false;
	for (i = 0; i < n->count; i++) {
		const struct cpl_ynode *k = n->pairs[i].key;
		const struct cpl_ynode *v = n->pairs[i].value;

		if (cpl_str_eq(cpl_ynode_str(k), "containers") &&
		    cpl_ynode_is_seq(v))
			return true;
		if (!cpl_str_eq(cpl_ynode_str(k), "status") &&
		    holds_containers(v, depth + 1))
			return true;
	}
	return false;
}

/* Skips an object no loader reads, saying whether it holds Pods. */
static int
skip_unknown(struct cpl_wlist *out, const struct cpl_ynode *obj,
	     const char *kind, const char *path)
{
	skip(out, obj, kind, path,
	     holds_containers(cpl_ynode_get(obj, "spec"), 0) ?
	     "a kind cpulint does not read (it holds containers)" :
	     "not a workload");
	return 0;
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
	bool completes;			/* runs to completion (a Pod and a
					 * PodTemplate: by restartPolicy) */
};

static const struct core_kind core_kinds[] = {
	{ "Pod", "", NULL, k_pod, false, false },
	{ "Deployment", "apps", "extensions", k_tmpl, true, false },
	{ "StatefulSet", "apps", NULL, k_tmpl, true, false },
	{ "DaemonSet", "apps", "extensions", k_tmpl, false, false },
	{ "ReplicaSet", "apps", "extensions", k_tmpl, true, false },
	{ "ReplicationController", "", NULL, k_tmpl, true, false },
	{ "PodTemplate", "", NULL, k_podtmpl, false, false },
	{ "Job", "batch", NULL, k_tmpl, false, true },
	{ "CronJob", "batch", NULL, k_cron, false, true },
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

/* An owner that runs to completion: a Job, CronJob, JobSet or any
 * operator's *Job (PyTorchJob, MPIJob, TrainJob, RayJob ...). */
static bool
owned_by_job(const struct cpl_ynode *obj)
{
	const struct cpl_ynode *refs = cpl_ynode_path(obj, "metadata",
						      "ownerReferences",
						      NULL);
	size_t i;

	if (!cpl_ynode_is_seq(refs))
		return false;
	for (i = 0; i < refs->count; i++) {
		const char *k = cpl_ynode_gets(refs->items[i], "kind");

		if (k && (cpl_str_ends(k, "Job") ||
			  strcmp(k, "JobSet") == 0))
			return true;
	}
	return false;
}

/*
 * Whether a Pod (spec: its spec) runs to completion: restartPolicy Never
 * or OnFailure, or a job owns it.  A bare Pod's default is Always: it is
 * restarted like a server's.
 */
static bool
pod_completes(const struct cpl_ynode *obj, const struct cpl_ynode *spec)
{
	const char *rp = cpl_ynode_gets(spec, "restartPolicy");

	return cpl_str_eq(rp, "Never") || cpl_str_eq(rp, "OnFailure") ||
	       owned_by_job(obj);
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
	if (spec == NULL) {
		skip(out, obj, k->kind, path, "no Pod template");
		return 0;
	}
	w = cpl_manifest_workload(obj, k->kind, template_of(obj, k->keys),
				  path);
	if (k->scaled)
		w->replicas = get_long(cpl_ynode_get(obj, "spec"), "replicas",
				       1);
	w->run_to_completion = k->completes ||
		((k->keys == k_pod || k->keys == k_podtmpl) &&
		 pod_completes(obj, spec));
	if (load_pod_spec(w, s, spec, false, NULL, path, err) < 0)
		return cpl_loader_finish(out, w, -1);
	cpl_loader_mpi(w, false);
	return cpl_loader_finish(out, w, 0);
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

/* Gives every run container of w the MPI slots node n says (text def
 * when n is absent). */
static void
set_slots(struct cpl_workload *w, const struct cpl_ynode *n,
	  const char *def, const char *from, const char *def_from)
{
	struct cpl_pos pos;

	if (cpl_ynode_is_scalar(n) && !cpl_ynode_is_null(n)) {
		pos = cpl_loader_pos(w->file, n);
		cpl_loader_mpi_slots(w, n->value, &pos, from);
	} else {
		cpl_loader_mpi_slots(w, def, NULL, def_from);
	}
}

/*
 * An MPIJob replica (kubeflow.org v1 and v2beta1): the workers are the
 * nodes, slotsPerWorker ranks each; the launcher only starts them with
 * mpirun unless runLauncherAsNode puts it in the hostfile too.
 */
static void
mpijob_replica(struct cpl_workload *w, const struct cpl_ynode *spec)
{
	const struct cpl_ynode *slots = cpl_ynode_get(spec, "slotsPerWorker");
	bool launcher = cpl_str_eq(w->replica, "Launcher") ||
			cpl_str_eq(w->replica, "launcher");

	if (launcher && cpl_ynode_bool(cpl_ynode_get(spec,
						     "runLauncherAsNode")) != 1) {
		cpl_loader_mpi(w, true);
		return;
	}
	set_slots(w, slots, "1", "slotsPerWorker",
		  "slotsPerWorker (default)");
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
	bool mpi = strcmp(kind, "MPIJob") == 0;
	size_t i, first = out->count;

	if (walk(&spec, obj, k_spec, path, err) < 0)
		return -1;
	if (spec != NULL && find_replica_specs(&specs, spec, path, err) < 0)
		return -1;
	if (spec == NULL || specs == NULL)
		return skip_unknown(out, obj, kind, path);
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
		w = cpl_manifest_workload(obj, kind,
					  cpl_ynode_get(rs, "template"), path);
		w->replica = cpl_xstrdup(cpl_ynode_str(key));
		w->replicas = get_long(rs, "replicas", 1);
		w->training_job = true;
		w->run_to_completion = true;
		if (pytorch && !set_nproc(w, nproc))
			w->nproc_default_auto = true;
		if (load_pod_spec(w, s, pod, true, kf_names(kind), path,
				  err) < 0)
			return cpl_loader_finish(out, w, -1);
		if (mpi)
			mpijob_replica(w, spec);
		cpl_loader_finish(out, w, 0);
	}
	if (mpi)
		cpl_loader_mpi_cap(out, first);
	return 0;
}

/* ---- JobSet, Volcano Job, LeaderWorkerSet ----------------------------- */

/*
 * A JobSet (jobset.x-k8s.io): one workload per replicated job, whose
 * template is a Job template; replicas x parallelism Pods.
 */
static int
load_jobset(struct cpl_wlist *out, const struct cpl_ystream *s,
	    const struct cpl_ynode *obj, const char *path,
	    struct cpl_error *err)
{
	static const char *const k_jpod[] = { "template", "spec", "template",
					      "spec", NULL };
	const struct cpl_ynode *jobs = cpl_ynode_path(obj, "spec",
						      "replicatedJobs", NULL);
	size_t i;

	if (cpl_loader_absent(jobs)) {
		skip(out, obj, "JobSet", path, "no replicatedJobs");
		return 0;
	}
	if (jobs->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, jobs,
			       "replicatedJobs must be a list");
	for (i = 0; i < jobs->count; i++) {
		const struct cpl_ynode *job = jobs->items[i], *pod;
		struct cpl_workload *w;

		if (job->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, job,
				       "a replicated job must be a mapping");
		if (walk(&pod, job, k_jpod, path, err) < 0)
			return -1;
		if (pod == NULL)
			continue;
		w = cpl_manifest_workload(obj, "JobSet",
					  cpl_ynode_path(job, "template",
							 "spec", "template",
							 NULL), path);
		w->replica = cpl_xstrdup(cpl_ynode_gets(job, "name"));
		w->replicas = get_long(job, "replicas", 1) *
			      get_long(cpl_ynode_path(job, "template", "spec",
						      NULL), "parallelism", 1);
		w->run_to_completion = true;
		if (load_pod_spec(w, s, pod, false, NULL, path, err) < 0)
			return cpl_loader_finish(out, w, -1);
		cpl_loader_mpi(w, false);
		cpl_loader_finish(out, w, 0);
	}
	return 0;
}

/*
 * A Volcano Job (batch.volcano.sh): one workload per task.  With the mpi
 * plugin, Volcano hands the master the workers' host list.
 */
static int
load_volcano(struct cpl_wlist *out, const struct cpl_ystream *s,
	     const struct cpl_ynode *obj, const char *path,
	     struct cpl_error *err)
{
	static const char *const k_tpod[] = { "template", "spec", NULL };
	const struct cpl_ynode *tasks = cpl_ynode_path(obj, "spec", "tasks",
						       NULL);
	bool mpi = cpl_ynode_path(obj, "spec", "plugins", "mpi", NULL) !=
		   NULL;
	size_t i;

	if (cpl_loader_absent(tasks)) {
		skip(out, obj, "Volcano Job", path, "no tasks");
		return 0;
	}
	if (tasks->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, tasks,
			       "tasks must be a list");
	for (i = 0; i < tasks->count; i++) {
		const struct cpl_ynode *task = tasks->items[i], *pod;
		struct cpl_workload *w;

		if (task->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, task,
				       "a task must be a mapping");
		if (walk(&pod, task, k_tpod, path, err) < 0)
			return -1;
		if (pod == NULL)
			continue;
		w = cpl_manifest_workload(obj, "Job",
					  cpl_ynode_get(task, "template"),
					  path);
		w->replica = cpl_xstrdup(cpl_ynode_gets(task, "name"));
		w->replicas = get_long(task, "replicas", 1);
		w->run_to_completion = true;
		if (load_pod_spec(w, s, pod, false, NULL, path, err) < 0)
			return cpl_loader_finish(out, w, -1);
		cpl_loader_mpi(w, mpi);
		cpl_loader_finish(out, w, 0);
	}
	return 0;
}

/* One Pod template of a LeaderWorkerSet as a workload. */
static int
lws_template(struct cpl_wlist *out, const struct cpl_ystream *s,
	     const struct cpl_ynode *obj, const struct cpl_ynode *tmpl,
	     const char *replica, long replicas, const char *path,
	     struct cpl_error *err)
{
	static const char *const k_spec[] = { "spec", NULL };
	const struct cpl_ynode *pod;
	struct cpl_workload *w;

	if (walk(&pod, tmpl, k_spec, path, err) < 0)
		return -1;
	if (pod == NULL)
		return 0;
	w = cpl_manifest_workload(obj, "LeaderWorkerSet", tmpl, path);
	w->replica = cpl_xstrdup(replica);
	w->replicas = replicas;
	if (load_pod_spec(w, s, pod, false, NULL, path, err) < 0)
		return cpl_loader_finish(out, w, -1);
	cpl_loader_mpi(w, false);
	return cpl_loader_finish(out, w, 0);
}

/*
 * A LeaderWorkerSet (leaderworkerset.x-k8s.io): replicas groups of size
 * Pods, one leader each.  Without a leaderTemplate the leader is made
 * from the workerTemplate too.  It keeps its Pods running: a server.
 */
static int
load_lws(struct cpl_wlist *out, const struct cpl_ystream *s,
	 const struct cpl_ynode *obj, const char *path,
	 struct cpl_error *err)
{
	static const char *const k_lwt[] = { "spec", "leaderWorkerTemplate",
					     NULL };
	const struct cpl_ynode *lwt, *leader, *worker;
	long groups = get_long(cpl_ynode_get(obj, "spec"), "replicas", 1);
	long size;

	if (walk(&lwt, obj, k_lwt, path, err) < 0)
		return -1;
	leader = cpl_ynode_get(lwt, "leaderTemplate");
	worker = cpl_ynode_get(lwt, "workerTemplate");
	size = get_long(lwt, "size", 1);
	if (cpl_loader_absent(worker)) {
		skip(out, obj, "LeaderWorkerSet", path, "no workerTemplate");
		return 0;
	}
	if (cpl_loader_absent(leader))
		return lws_template(out, s, obj, worker, "worker",
				    groups * size, path, err);
	if (lws_template(out, s, obj, leader, "leader", groups, path,
			 err) < 0)
		return -1;
	if (size < 2)
		return 0;
	return lws_template(out, s, obj, worker, "worker",
			    groups * (size - 1), path, err);
}

static int load_object(struct cpl_wlist *out, const struct cpl_ystream *s,
		       const struct cpl_ynode *obj, const char *kind_hint,
		       const char *api_hint, int depth, const char *path,
		       struct cpl_error *err);

/*
 * A Kueue/CodeFlare AppWrapper: the objects it wraps, each loaded as if
 * it stood alone (spec.components[].template in v1beta2,
 * spec.resources.GenericItems[].generictemplate before).
 */
static int
load_appwrapper(struct cpl_wlist *out, const struct cpl_ystream *s,
		const struct cpl_ynode *obj, int depth, const char *path,
		struct cpl_error *err)
{
	const struct cpl_ynode *comps = cpl_ynode_path(obj, "spec",
						       "components", NULL);
	const char *key = "template";
	size_t i, n = 0;

	if (!cpl_ynode_is_seq(comps)) {
		comps = cpl_ynode_path(obj, "spec", "resources",
				       "GenericItems", NULL);
		key = "generictemplate";
	}
	for (i = 0; cpl_ynode_is_seq(comps) && i < comps->count; i++) {
		const struct cpl_ynode *t = cpl_ynode_get(comps->items[i],
							  key);

		if (!cpl_ynode_is_map(t))
			continue;
		n++;
		if (load_object(out, s, t, NULL, NULL, depth + 1, path,
				err) < 0)
			return -1;
	}
	if (n == 0)
		skip(out, obj, "AppWrapper", path, "no wrapped objects");
	return 0;
}

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
		/* Nothing may vanish silently: an item of a plain List must
		 * name its own kind and apiVersion (a typed list implies
		 * them). */
		if ((item_kind == NULL &&
		     !cpl_ynode_gets(items->items[i], "kind")) ||
		    (api == NULL &&
		     !cpl_ynode_gets(items->items[i], "apiVersion"))) {
			rc = cpl_loader_fail(err, path, items->items[i],
				"list item without kind or apiVersion: "
				"neither it nor the %s names one", kind);
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
	if (kind == NULL || api == NULL) {
		cpl_wlist_skip(out, path, obj->line, obj->column,
			       "no apiVersion or kind", "an object");
		return 0;
	}
	if (depth > MAX_LIST_DEPTH) {
		skip(out, obj, kind, path, "nested too deep");
		return 0;
	}
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
			return cpl_trainer_load_job(out, s, obj, path, err);
		if (strcmp(kind, "TrainingRuntime") == 0 ||
		    strcmp(kind, "ClusterTrainingRuntime") == 0)
			return cpl_trainer_load_runtime(out, s, obj, kind,
							path, err);
	}
	if (in_group(api, "jobset.x-k8s.io") && strcmp(kind, "JobSet") == 0)
		return load_jobset(out, s, obj, path, err);
	if (in_group(api, "batch.volcano.sh") && strcmp(kind, "Job") == 0)
		return load_volcano(out, s, obj, path, err);
	if (in_group(api, "leaderworkerset.x-k8s.io") &&
	    strcmp(kind, "LeaderWorkerSet") == 0)
		return load_lws(out, s, obj, path, err);
	if ((in_group(api, "workload.codeflare.dev") ||
	     in_group(api, "mcad.ibm.com")) && strcmp(kind, "AppWrapper") == 0)
		return load_appwrapper(out, s, obj, depth, path, err);
	return skip_unknown(out, obj, kind, path);
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
