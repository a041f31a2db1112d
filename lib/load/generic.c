/*
 * generic.c — the generic model: an object of a kind the kinds table has
 * no row for (TorchElastic's ElasticJob, SageMaker HyperPod's jobs, a
 * third-party MPIJob, a Notebook ...) is judged, not skipped.
 *
 * A Pod template is a mapping with a `containers` list whose items are
 * container mappings (one at least with an image), at any depth but in
 * metadata and status.  Each is one workload named after where it sits
 * (the key above it, `replicaSpecs.Worker` gives Worker; a list item's
 * name or groupName), counting the replicas-like number beside it
 * (replicas, else parallelism, else minReplicas), whose containers train
 * only on evidence (w->by_evidence: a training launcher, Python that
 * trains, or GPUs with Python in a kind that runs to completion).  It
 * runs to completion when its Pod's restartPolicy says so or the kind is
 * a *Job.  A mapping with apiVersion and kind inside the object, or a
 * `manifest` string holding one, is an object of its own (nested.c).
 *
 * Since the shape is a guess, a Pod template whose containers cannot be
 * read is not an error: the object is skipped, counted as not judged.
 */
#include "load/loader.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Deeper than this the walk does not look. */
#define MAX_WALK 16

/* A Pod spec of the generic model: Kubernetes', no run container. */
static const struct cpl_podread k8s_pod = { CPL_POD_K8S, false, NULL, NULL,
					    NULL };

/* What the walk of one object found. */
struct gwalk {
	const struct cpl_lctx *x;	/* the object's load */
	struct cpl_lctx in;		/* the load of the objects inside */
	const struct cpl_ynode *obj;
	const char *kind;
	const struct cpl_ynode *up[MAX_WALK + 1];	/* the way down */
	const char *key[MAX_WALK + 1];	/* the key to each (NULL: item) */
	struct cpl_wlist got;		/* its workloads, added at the end */
	size_t made;
	size_t nested;
	bool failed;			/* a container could not be read */
	struct cpl_error why;
};

/* A container mapping: it has an image, a command or resources. */
static bool
container_like(const struct cpl_ynode *n)
{
	return cpl_ynode_is_map(n) &&
	       (cpl_ynode_is_scalar(cpl_ynode_get(n, "image")) ||
		cpl_ynode_get(n, "command") != NULL ||
		cpl_ynode_get(n, "resources") != NULL);
}

/* n is a Pod spec: containers is a list of container mappings, one at
 * least with an image. */
static bool
pod_spec(const struct cpl_ynode *n)
{
	const struct cpl_ynode *c = cpl_ynode_get(n, "containers");
	bool image = false;
	size_t i;

	if (!cpl_ynode_is_seq(c) || c->count == 0)
		return false;
	for (i = 0; i < c->count; i++) {
		if (!container_like(c->items[i]))
			return false;
		image = image || cpl_ynode_gets(c->items[i], "image") != NULL;
	}
	return image;
}

/* Keys that only lead to a Pod spec and name nothing. */
static bool
structural(const char *k)
{
	static const char *const keys[] = { "spec", "template", "podTemplate",
					    "podSpec", "pod", "podTemplateSpec",
					    NULL };
	const char *const *p;

	for (p = keys; *p; p++)
		if (strcmp(*p, k) == 0)
			return true;
	return false;
}

/* The replica name of the Pod spec at depth d: the nearest key above it
 * that is not structural, or list item's name. */
static const char *
replica_name(const struct gwalk *g, int d)
{
	int i;

	for (i = d; i > 1; i--) {
		const char *k = g->key[i];

		if (k == NULL) {
			const char *name = cpl_ynode_gets(g->up[i], "name");

			if (name == NULL)
				name = cpl_ynode_gets(g->up[i], "groupName");
			return name;
		}
		if (!structural(k))
			return k;
	}
	return NULL;
}

/* The replicas-like count nearest above the Pod spec at depth d. */
static long
replicas_of(const struct gwalk *g, int d)
{
	static const char *const keys[] = { "replicas", "parallelism",
					    "minReplicas", NULL };
	const char *const *k;
	long v;
	int i;

	for (i = d - 1; i >= 1; i--) {
		for (k = keys; *k; k++)
			if (cpl_ynode_long(cpl_ynode_get(g->up[i], *k), &v) == 0 &&
			    v >= 0)
				return v;
		/* not past the element that names the replica */
		if (g->key[i] == NULL || !structural(g->key[i]))
			break;
	}
	return 1;
}

/*
 * Whether the workload w of g is the trainer replica of an ElasticJob
 * that runs PyTorch by its kind: TorchElastic's (elastic.pytorch.org) or
 * DLRover's with the AllreduceStrategy (its ParameterServerStrategy
 * replicas run TensorFlow), replica worker.  Its first main container is
 * then its run container, whatever console script it names.
 */
static bool
torch_elastic(const struct gwalk *g, const struct cpl_workload *w)
{
	const char *api = cpl_ynode_gets(g->obj, "apiVersion");
	const char *how = cpl_ynode_gets(cpl_ynode_get(g->obj, "spec"),
					 "distributionStrategy");

	if (!cpl_str_eq(g->kind, "ElasticJob") || w->replica == NULL ||
	    strcasecmp(w->replica, "worker") != 0 || api == NULL)
		return false;
	return strncmp(api, "elastic.pytorch.org/", 20) == 0 ||
	       (strncmp(api, "elastic.iml.github.io/", 22) == 0 &&
		cpl_str_eq(how, "AllreduceStrategy"));
}

/* A Pod spec found at depth d: one workload, kept aside. */
static void
add_pod(struct gwalk *g, const struct cpl_ynode *spec, int d)
{
	const struct cpl_lctx *x = g->x;
	const struct cpl_ynode *tmpl = NULL;
	struct cpl_workload *w;

	if (d < 1 || d > MAX_WALK)
		return;
	if (cpl_str_eq(g->key[d], "spec"))
		tmpl = g->up[d - 1];

	w = cpl_manifest_workload(g->obj, g->kind, tmpl == g->obj ? NULL : tmpl,
				  x->path);
	if (*w->name == '\0' && x->holder != NULL) {
		free(w->name);
		w->name = cpl_xstrdup(x->holder);
	}
	w->replica = cpl_xstrdup(replica_name(g, d));
	w->replicas = replicas_of(g, d);
	w->by_evidence = true;
	w->note = "a kind cpulint has no entry for: the generic model, "
		  "training on evidence";
	w->run_to_completion = cpl_str_ends(g->kind, "Job") ||
			       cpl_loader_pod_completes(g->obj, spec);
	if (cpl_manifest_pod(w, x->s, spec, &k8s_pod, x->path,
			     &g->why) < 0) {
		cpl_workload_free(w);
		g->failed = true;
		return;
	}
	if (torch_elastic(g, w)) {
		size_t i;

		for (i = 0; i < w->ncontainers; i++)
			if (w->containers[i].role == CPL_CROLE_MAIN) {
				w->containers[i].run_container = true;
				break;
			}
	}
	cpl_loader_mpi(w, false);
	cpl_wlist_add(&g->got, w);
	g->made++;
}

/* Looks under n (at depth d, reached by key k) for Pod specs and objects. */
static int
visit(struct gwalk *g, const struct cpl_ynode *n, const char *k, int d)
{
	size_t i;

	if (n == NULL || d > MAX_WALK || g->failed)
		return 0;
	g->up[d] = n;
	g->key[d] = k;
	if (n->kind == CPL_Y_SCALAR) {
		int got;

		if (!cpl_str_eq(k, "manifest"))
			return 0;
		got = cpl_nested_load(&g->in, n, g->kind);
		if (got > 0)
			g->nested += (size_t)got;
		return got < 0 ? -1 : 0;
	}
	if (n->kind == CPL_Y_SEQ) {
		for (i = 0; i < n->count; i++)
			if (visit(g, n->items[i], NULL, d + 1) < 0)
				return -1;
		return 0;
	}
	/* An object inside (a reference has no spec: not one; a Pod under
	 * template is the template itself, as TorchElastic writes it). */
	if (d > 0 && cpl_manifest_detect(n) &&
	    (cpl_ynode_get(n, "spec") || cpl_ynode_get(n, "template") ||
	     cpl_ynode_get(n, "items")) &&
	    !(cpl_str_eq(k, "template") &&
	      cpl_str_eq(cpl_ynode_gets(n, "kind"), "Pod"))) {
		if (cpl_nested_load(&g->in, n, g->kind) < 0)
			return -1;
		g->nested++;
		return 0;
	}
	if (pod_spec(n)) {
		add_pod(g, n, d);
		return 0;
	}
	for (i = 0; i < n->count; i++) {
		const char *key = cpl_ynode_str(n->pairs[i].key);

		if (key == NULL || (d == 0 && (strcmp(key, "metadata") == 0 ||
					       strcmp(key, "status") == 0)))
			continue;
		if (visit(g, n->pairs[i].value, key, d + 1) < 0)
			return -1;
	}
	return 0;
}

int
cpl_generic_load(const struct cpl_lctx *x, const struct cpl_ynode *obj,
		 const char *kind)
{
	const char *name = cpl_ynode_gets(cpl_ynode_get(obj, "metadata"),
					  "name");
	struct gwalk g;
	size_t i;
	bool held;
	int rc;

	memset(&g, 0, sizeof(g));
	g.x = x;
	g.in = *x;
	g.in.depth = x->depth + 1;
	if (name != NULL)
		g.in.holder = name;
	g.obj = obj;
	g.kind = kind;
	rc = visit(&g, obj, NULL, 0);
	if (rc == 0 && g.failed) {
		char *why = cpl_xasprintf("read as the generic model, but %s "
					  "(line %d)", g.why.message ?
					  g.why.message : "unreadable",
					  g.why.line);

		cpl_loader_skip(x, obj, kind, why, true);
		free(why);
	} else if (rc == 0) {
		for (i = 0; i < g.got.count; i++)
			cpl_wlist_add(x->out, g.got.items[i]);
		g.got.count = 0;
		held = cpl_loader_holds_containers(cpl_ynode_get(obj, "spec"));
		if (g.made == 0 && g.nested == 0)
			cpl_loader_skip(x, obj, kind, held ?
					"its containers are not in Pod "
					"templates cpulint can read" :
					"not a workload", held);
	}
	cpl_error_clear(&g.why);
	cpl_wlist_free(&g.got);
	return rc;
}
