/*
 * trainer.c — Kubeflow Trainer v2: TrainJobs, (Cluster)TrainingRuntimes,
 * and the join that makes one workload of the two.
 *
 * A runtime is a JobSet template; a TrainJob names it (spec.runtimeRef)
 * and its trainer (image, command, args, env, numNodes, numProcPerNode,
 * resourcesPerNode) is laid over the container named "node" of the
 * runtime's trainer job: the replicated job labelled
 * trainer.kubeflow.org/trainjob-ancestor-step: trainer (before those
 * labels, the job named "node", or "trainer-node" with a container named
 * "trainer" in the first releases).  As Trainer's JobSet builder does it:
 * image and command replace, args go first then the runtime's, env is
 * upserted by name, resourcesPerNode is merged onto the resources name by
 * name.  Then
 * the plugins: torch sets PET_NPROC_PER_NODE (torch_nproc below), MPI
 * makes numProcPerNode the slots of every node (the GPUs of a node when
 * only the runtime's 1 says it), and with runLauncherAsNode gives the
 * node job the trainer's resourcesPerNode and env too, so a problem both
 * share is one finding at the TrainJob's trainer.  Initializer jobs never
 * train.
 *
 * Loading records what each side writes; cpl_trainer_join() merges once
 * every file is loaded, so the two may come from different files.  The
 * merged workload is a copy of the runtime's job: values keep the
 * position where they were written, in either file.
 */
#include "load/loader.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "load/trainer_int.h"
#include "shell/shscan.h"

#define ANCESTOR "trainer.kubeflow.org/trainjob-ancestor-step"

static void
trainer_free(struct cpl_trainer *t)
{
	if (t == NULL)
		return;
	free(t->ref_kind);
	free(t->ref_name);
	free(t->nproc.text);
	free(t->policy_nproc.text);
	free(t);
}

/* A deep copy of t (texts duplicated, positions shared). */
static struct cpl_trainer *
trainer_copy(const struct cpl_trainer *t)
{
	struct cpl_trainer *d = cpl_xcalloc(1, sizeof(*d));

	*d = *t;
	d->ref_kind = cpl_xstrdup(t->ref_kind);
	d->ref_name = cpl_xstrdup(t->ref_name);
	d->nproc = cpl_word_dup(&t->nproc);
	d->policy_nproc = cpl_word_dup(&t->policy_nproc);
	return d;
}

/* How a workload frees and copies its struct cpl_trainer. */
static const struct cpl_own_ops trainer_ops = {
	.free = trainer_free,
	.copy = trainer_copy,
};

/* The Trainer fields of w, created (zeroed) when it has none. */
static struct cpl_trainer *
trainer_of(struct cpl_workload *w)
{
	if (w->trainer == NULL) {
		w->trainer = cpl_xcalloc(1, sizeof(*w->trainer));
		w->trainer_ops = &trainer_ops;
	}
	return w->trainer;
}

/* A resource named *gpu* (any case) in a requests or limits mapping, as
 * the torch plugin tests it. */
static bool
names_gpu(const struct cpl_ynode *map)
{
	size_t i, j;

	if (!cpl_ynode_is_map(map))
		return false;
	for (i = 0; i < map->count; i++) {
		const char *k = cpl_ynode_str(map->pairs[i].key);

		for (j = 0; k && k[j] && k[j + 1] && k[j + 2]; j++)
			if (strncasecmp(k + j, "gpu", 3) == 0)
				return true;
	}
	return false;
}

/* A scalar node as a word of file (text NULL when absent). */
static bool
get_word(struct cpl_word *out, const char *file, const struct cpl_ynode *n)
{
	if (!cpl_ynode_is_scalar(n) || cpl_ynode_is_null(n))
		return false;
	out->text = cpl_xstrdup(n->value);
	out->pos = cpl_loader_pos(file, n);
	return true;
}

/* The trainer's container of w: the main container named "node" (named
 * "trainer" in the first v2 releases), or NULL. */
static struct cpl_container *
node_container(struct cpl_workload *w)
{
	static const char *const names[] = { "node", "trainer" };
	size_t i, k;

	for (k = 0; k < CPL_ARRAY_LEN(names); k++)
		for (i = 0; i < w->ncontainers; i++)
			if (w->containers[i].role == CPL_CROLE_MAIN &&
			    cpl_str_eq(w->containers[i].name, names[k]))
				return &w->containers[i];
	return NULL;
}

/* ---- loading ---------------------------------------------------------- */

int
cpl_trainer_load_job(struct cpl_wlist *out, const struct cpl_ystream *s,
		     const struct cpl_ynode *obj, const char *path,
		     struct cpl_error *err)
{
	const struct cpl_ynode *spec = cpl_ynode_get(obj, "spec");
	const struct cpl_ynode *ref = cpl_ynode_get(spec, "runtimeRef");
	const struct cpl_ynode *tr = cpl_ynode_get(spec, "trainer");
	const struct cpl_ynode *rpn, *n;
	struct cpl_workload *w = cpl_manifest_workload(obj, "TrainJob", NULL,
						       path);
	struct cpl_trainer *t = trainer_of(w);
	struct cpl_container *c;
	const char *group = cpl_ynode_gets(ref, "apiGroup");
	const char *kind = cpl_ynode_gets(ref, "kind");

	w->training_job = true;
	w->run_to_completion = true;
	if (group == NULL || strcmp(group, "trainer.kubeflow.org") == 0)
		t->ref_kind = cpl_xstrdup(kind ? kind :
					  "ClusterTrainingRuntime");
	t->ref_name = cpl_xstrdup(cpl_ynode_gets(ref, "name"));
	c = cpl_workload_add_container(w);
	c->name = cpl_xstrdup("node");
	c->run_container = true;
	c->pos = w->pos;
	c->resources_pos = w->pos;
	if (cpl_loader_absent(tr)) {
		cpl_wlist_add(out, w);
		return 0;
	}
	if (tr->kind != CPL_Y_MAP ||
	    cpl_manifest_trainer(c, s, tr, path, err) < 0) {
		if (tr->kind != CPL_Y_MAP)
			cpl_loader_fail(err, path, tr,
					"trainer must be a mapping");
		cpl_workload_free(w);
		return -1;
	}
	t->set_image = !cpl_loader_absent(cpl_ynode_get(tr, "image"));
	t->set_command = !cpl_loader_absent(cpl_ynode_get(tr, "command"));
	t->set_args = !cpl_loader_absent(cpl_ynode_get(tr, "args"));
	rpn = cpl_ynode_get(tr, "resourcesPerNode");
	t->set_rpn = !cpl_loader_absent(rpn);
	t->set_limits = cpl_ynode_is_map(cpl_ynode_get(rpn, "limits"));
	t->set_requests = cpl_ynode_is_map(cpl_ynode_get(rpn, "requests"));
	t->set_resources = t->set_limits || t->set_requests;
	t->gpu_limits = names_gpu(cpl_ynode_get(rpn, "limits"));
	t->gpu_requests = names_gpu(cpl_ynode_get(rpn, "requests"));
	n = cpl_ynode_get(tr, "numNodes");
	if (cpl_ynode_long(n, &t->nodes) == 0) {
		t->set_nodes = true;
		t->nodes_pos = cpl_loader_pos(w->file, n);
		w->replicas = t->nodes;
	}
	n = cpl_ynode_get(tr, "numProcPerNode");
	if (get_word(&t->nproc, w->file, n)) {
		t->set_nproc = true;
		w->has_nproc = true;
		w->nproc = cpl_word_dup(&t->nproc);
	}
	cpl_wlist_add(out, w);
	return 0;
}

/* The step a replicated job runs: its ancestor label, else (a runtime
 * written before the labels) its name. */
static enum cpl_tstep
job_step(const struct cpl_ynode *job, bool labelled)
{
	const char *step = cpl_ynode_gets(cpl_ynode_path(job, "template",
							 "metadata", "labels",
							 NULL), ANCESTOR);
	const char *name = cpl_ynode_gets(job, "name");

	if (step == NULL)
		step = labelled ? NULL : name;
	if (cpl_str_eq(step, "trainer") ||
	    (!labelled && (cpl_str_eq(name, "node") ||
			   cpl_str_eq(name, "trainer-node"))))
		return CPL_TSTEP_TRAINER;
	if ((step && strstr(step, "initializer")) ||
	    (name && strstr(name, "initializer")))
		return CPL_TSTEP_INIT;
	return CPL_TSTEP_OTHER;
}

/* Some replicated job carries the ancestor label. */
static bool
any_labelled(const struct cpl_ynode *jobs)
{
	size_t i;

	for (i = 0; i < jobs->count; i++)
		if (cpl_ynode_path(jobs->items[i], "template", "metadata",
				   "labels", ANCESTOR, NULL) != NULL)
			return true;
	return false;
}

/*
 * The MPI slots of node container c, as the MPI plugin decides them:
 * numProcPerNode (the TrainJob's, else the runtime's, whose default is
 * 1); when the runtime's is 1 and the TrainJob sets none (own false), the
 * GPUs of a node (gpus: the TrainJob's resourcesPerNode when it has one,
 * else the runtime's) if more than one.  A TrainJob's own 1 stays 1.
 */
static void
mpi_slots(struct cpl_container *c, const struct cpl_word *nproc, bool own,
	  const char *from, long gpus)
{
	long v;

	free(c->slots.text);
	c->has_slots = true;
	if (own)
		gpus = 0;
	if (nproc != NULL && nproc->text != NULL &&
	    !(cpl_parse_long(&v, nproc->text) == 0 && v == 1 && gpus > 1)) {
		c->slots = cpl_word_dup(nproc);
		c->slots_from = from;
		return;
	}
	if (gpus > 1) {
		c->slots.text = cpl_xasprintf("%ld", gpus);
		c->slots.pos = c->resources_pos;
		c->slots_from = "numProcPerNode 1, one rank per GPU:";
		return;
	}
	c->slots.text = cpl_xstrdup(nproc && nproc->text ? nproc->text :
				    "1");
	c->slots.pos = nproc && nproc->text ? nproc->pos : c->pos;
	c->slots_from = nproc && nproc->text ? from :
			"numProcPerNode (default)";
}

/*
 * Whether an mlPolicy names a framework plugin other than torch and mpi
 * (Trainer's flux, jax, xgboost): its trainer runs that framework's
 * program, PyTorch only when its code shows it.
 */
static bool
other_policy(const struct cpl_ynode *policy)
{
	size_t i;

	if (!cpl_ynode_is_map(policy))
		return false;
	for (i = 0; i < policy->count; i++) {
		const struct cpl_ynode *kn = policy->pairs[i].key;
		const char *k = cpl_ynode_is_scalar(kn) ? kn->value : NULL;

		if (k != NULL && !cpl_str_eq(k, "numNodes") &&
		    !cpl_str_eq(k, "torch") && !cpl_str_eq(k, "mpi"))
			return true;
	}
	return false;
}

/*
 * The policy a runtime's name implies when the runtime is not in the
 * run: Trainer's own runtimes are named for their framework
 * (flux-distributed, jax-distributed, xgboost-distributed,
 * mlx-distributed); any other name keeps the torch default.
 */
static enum cpl_tpolicy
policy_by_name(const char *name)
{
	static const char *const other[] = { "flux", "jax", "xgboost",
					     "mlx" };
	size_t i;

	for (i = 0; name != NULL && i < CPL_ARRAY_LEN(other); i++)
		if (strstr(name, other[i]) != NULL)
			return CPL_TPOLICY_OTHER;
	return CPL_TPOLICY_NONE;
}

/* Reads the mlPolicy of a runtime into t and *ml_policy. */
static void
read_policy(struct cpl_trainer *t, enum cpl_tpolicy *ml_policy,
	    const struct cpl_ynode *obj, const char *file)
{
	const struct cpl_ynode *policy = cpl_ynode_path(obj, "spec",
							"mlPolicy", NULL);
	const struct cpl_ynode *torch = cpl_ynode_get(policy, "torch");
	const struct cpl_ynode *mpi = cpl_ynode_get(policy, "mpi");

	if (torch != NULL) {
		*ml_policy = CPL_TPOLICY_TORCH;
		t->set_policy_nproc = get_word(&t->policy_nproc, file,
					       cpl_ynode_get(torch,
							     "numProcPerNode"));
	} else if (mpi != NULL) {
		*ml_policy = CPL_TPOLICY_MPI;
		t->set_policy_nproc = get_word(&t->policy_nproc, file,
					       cpl_ynode_get(mpi,
							     "numProcPerNode"));
		t->launcher_as_node = cpl_ynode_bool(
			cpl_ynode_get(mpi, "runLauncherAsNode")) == 1;
	} else if (other_policy(policy)) {
		*ml_policy = CPL_TPOLICY_OTHER;
	}
	t->set_policy_nodes = cpl_ynode_long(cpl_ynode_get(policy,
							   "numNodes"),
					     &t->policy_nodes) == 0;
}

/* The Pods of the MPI node job: numNodes, less the launcher's when it is
 * a node too. */
static long
mpi_node_pods(long nodes, bool launcher_as_node)
{
	long n = launcher_as_node ? nodes - 1 : nodes;

	return n > 1 ? n : 1;
}

/* Marks the containers of a runtime job w by its step and policy. */
static void
mark_job(struct cpl_workload *w, const char *name)
{
	struct cpl_trainer *t = w->trainer;
	struct cpl_container *node = node_container(w);
	size_t i;

	if (t->step == CPL_TSTEP_INIT) {
		for (i = 0; i < w->ncontainers; i++)
			w->containers[i].not_training = true;
		return;
	}
	if (t->step == CPL_TSTEP_TRAINER) {
		if (node)
			node->run_container = true;
		if (w->ml_policy != CPL_TPOLICY_MPI && t->set_policy_nodes)
			w->replicas = t->policy_nodes;
		if (w->ml_policy != CPL_TPOLICY_MPI)
			return;
		if (t->launcher_as_node && node)
			mpi_slots(node, t->set_policy_nproc ?
				  &t->policy_nproc : NULL, false,
				  "numProcPerNode", node->gpus);
		else
			cpl_loader_mpi(w, true);
		return;
	}
	if (w->ml_policy == CPL_TPOLICY_MPI && cpl_str_eq(name, "node") &&
	    node) {
		node->run_container = true;
		mpi_slots(node, t->set_policy_nproc ? &t->policy_nproc : NULL,
			  false, "numProcPerNode", node->gpus);
		w->replicas = mpi_node_pods(t->set_policy_nodes ?
					    t->policy_nodes : 1,
					    t->launcher_as_node);
	}
}

int
cpl_trainer_load_runtime(struct cpl_wlist *out, const struct cpl_ystream *s,
			 const struct cpl_ynode *obj, const char *kind,
			 const char *path, struct cpl_error *err)
{
	static const char *const k_js[] = { "spec", "template", "spec", NULL };
	static const char *const k_jspod[] = { "template", "spec", "template",
					     "spec", NULL };
	const struct cpl_ynode *js, *jobs;
	bool labelled;
	size_t i;

	if (cpl_manifest_walk(&js, obj, k_js, path, err) < 0)
		return -1;
	jobs = cpl_ynode_get(js, "replicatedJobs");
	if (cpl_loader_absent(jobs)) {
		const char *name = cpl_ynode_gets(cpl_ynode_get(obj,
								"metadata"),
						  "name");

		cpl_wlist_skip(out, path, obj->line, obj->column,
			       "no replicatedJobs", "%s \"%s\"", kind,
			       name ? name : "");
		return 0;
	}
	if (jobs->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, jobs,
			       "replicatedJobs must be a list");
	for (i = 0; i < jobs->count; i++)
		if (jobs->items[i]->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, jobs->items[i],
				       "a replicated job must be a mapping");
	labelled = any_labelled(jobs);
	for (i = 0; i < jobs->count; i++) {
		const struct cpl_ynode *job = jobs->items[i], *pod;
		const char *name = cpl_ynode_gets(job, "name");
		struct cpl_workload *w;
		struct cpl_trainer *t;
		long v;

		if (cpl_manifest_walk(&pod, job, k_jspod, path, err) < 0)
			return -1;
		if (pod == NULL)
			continue;
		w = cpl_manifest_workload(obj, kind,
					  cpl_ynode_path(job, "template", "spec",
							 "template", NULL),
					  path);
		w->replica = cpl_xstrdup(name);
		w->replicas = cpl_ynode_long(cpl_ynode_get(job, "replicas"),
					     &v) == 0 ? v : 1;
		if (cpl_ynode_long(cpl_ynode_path(job, "template", "spec",
						  "parallelism", NULL),
				   &v) == 0)
			w->replicas *= v;
		w->training_job = true;
		w->run_to_completion = true;
		t = trainer_of(w);
		t->step = job_step(job, labelled);
		read_policy(t, &w->ml_policy, obj, w->file);
		if (cpl_str_eq(name, "node") && t->set_policy_nproc) {
			w->has_nproc = true;
			w->nproc = cpl_word_dup(&t->policy_nproc);
		}
		if (cpl_manifest_pod_spec(w, s, pod, path, err) < 0) {
			cpl_workload_free(w);
			return -1;
		}
		mark_job(w, name);
		cpl_wlist_add(out, w);
	}
	return 0;
}

/* ---- the torch plugin ------------------------------------------------- */

/* One side of resourcesPerNode as the plugin's calculateNumProcPerNode
 * sees it. */
struct side {
	bool present;		/* the list is not nil */
	bool gpu;		/* a resource named *gpu* */
	int64_t cpu;		/* millicores, CPL_CPU_* */
	struct cpl_pos pos;
};

enum nmode { MODE_AUTO, MODE_CPU, MODE_NUM };

/*
 * calculateNumProcPerNode on a present list: the CPU count (rounded up,
 * at least 1) when the mode takes it from this list (*used), else the
 * fallback.
 */
static char *
calc(const struct side *sd, enum nmode mode, const char *fallback,
     bool *used, struct cpl_pos *pos, const struct cpl_pos *fb_pos)
{
	bool use_cpu = mode == MODE_AUTO ? !sd->gpu :
		       mode == MODE_CPU ? sd->cpu != CPL_CPU_ABSENT : false;

	*used = use_cpu;
	if (!use_cpu) {
		*pos = *fb_pos;
		return cpl_xstrdup(fallback);
	}
	*pos = sd->cpu == CPL_CPU_ABSENT ? *fb_pos : sd->pos;
	if (sd->cpu == CPL_CPU_UNKNOWN)
		return NULL;
	return cpl_xasprintf("%lld", sd->cpu <= 0 ? 1LL :
			     (long long)((sd->cpu + 999) / 1000));
}

/*
 * PET_NPROC_PER_NODE as Trainer's torch plugin sets it: numProcPerNode
 * of the TrainJob (tw, its container tc), else of the runtime (rt, may be
 * NULL), else "auto".  With the TrainJob's resourcesPerNode, "auto" takes
 * the CPU count of its limits (else its requests) when they name no GPU,
 * and "cpu" the CPU count of whichever names a CPU; a number stays.  The
 * CPU count gives way to "auto" when the node still has GPUs from the
 * runtime (gpus; -1: the runtime is not known, so neither is the
 * count).  Where the releases disagree — the plugin reaching a side that
 * is not written, where v2.0 sets 1 and later ones read the runtime's —
 * the value is unknown (NULL).  "auto" on a node with neither a GPU nor
 * a CPU anywhere in its resources (node_cpu false, gpus 0) is one process
 * per node, as the current plugin computes it.  *pos is where it is
 * decided.
 */
static char *
torch_nproc(struct cpl_pos *pos, const struct cpl_workload *tw,
	    const struct cpl_container *tc, const struct cpl_trainer *rt,
	    long gpus, bool node_cpu)
{
	const struct cpl_trainer *tj = tw->trainer;
	const struct cpl_word *src = NULL;
	struct side lim, req;
	struct cpl_pos fb;
	const char *val = "auto";
	enum nmode mode;
	char *fallback, *r = NULL;
	bool used = false;

	if (rt && rt->set_policy_nproc)
		src = &rt->policy_nproc;
	if (tj->set_nproc)
		src = &tj->nproc;
	if (src)
		val = src->text;
	fb = src ? src->pos : (tj->set_rpn ? tc->resources_pos : tc->pos);
	*pos = fb;
	if (!tj->set_rpn) {
		/* Without resourcesPerNode, v2.0 hands "auto" or "cpu" to
		 * torchrun (one rank per host CPU on a node with no GPU),
		 * while v2.1 and later set max(1, the runtime node's CPU
		 * request, else limit) when there is no GPU: only a number,
		 * or "auto" on GPUs, is the same in every release. */
		if (strcmp(val, "auto") != 0 && strcmp(val, "cpu") != 0)
			return cpl_xstrdup(val);
		if (gpus == 0 && !node_cpu && strcmp(val, "auto") == 0)
			return cpl_xstrdup("1");
		return gpus > 0 && strcmp(val, "auto") == 0 ?
		       cpl_xstrdup(val) : NULL;
	}
	mode = strcmp(val, "auto") == 0 ? MODE_AUTO :
	       strcmp(val, "cpu") == 0 ? MODE_CPU : MODE_NUM;
	fallback = cpl_xstrdup(mode == MODE_AUTO ? "auto" :
			       mode == MODE_CPU ? "1" : val);
	lim = (struct side){ tj->set_limits, tj->gpu_limits, tc->cpu_limit,
			     tc->limit_pos };
	req = (struct side){ tj->set_requests, tj->gpu_requests,
			     tc->cpu_request, tc->request_pos };
	if (lim.present)
		r = calc(&lim, mode, fallback, &used, pos, &fb);
	if (!used && req.present) {
		free(r);
		r = calc(&req, mode, fallback, &used, pos, &fb);
	} else if (!used) {
		free(r);
		r = NULL;	/* the releases disagree */
	}
	if (used && mode == MODE_AUTO && gpus != 0) {
		free(r);
		r = gpus > 0 ? cpl_xstrdup("auto") : NULL;
		*pos = fb;
	}
	free(fallback);
	return r;
}

/* Sets PET_NPROC_PER_NODE on c (value NULL: unknown). */
static void
set_pet(struct cpl_container *c, const char *value, struct cpl_pos pos)
{
	if (c != NULL)
		cpl_container_set_env(c, "PET_NPROC_PER_NODE", value, pos);
}

/* ---- the join --------------------------------------------------------- */

static bool
is_runtime(const struct cpl_workload *w)
{
	return w->trainer != NULL && !w->merged &&
	       (cpl_str_eq(w->kind, "ClusterTrainingRuntime") ||
		cpl_str_eq(w->kind, "TrainingRuntime"));
}

/* a and b are jobs of one runtime object. */
static bool
same_object(const struct cpl_workload *a, const struct cpl_workload *b)
{
	return cpl_str_eq(a->kind, b->kind) && cpl_str_eq(a->name, b->name) &&
	       cpl_str_eq(a->file, b->file) && a->pos.line == b->pos.line &&
	       a->pos.column == b->pos.column;
}

/* The join's indexes: runtime objects by kind, namespace and name, and by
 * kind and name alone; values are the index of the object's first job
 * plus one. */
struct index {
	struct cpl_strmap exact;	/* keys owned */
	struct cpl_strmap loose;	/* keys owned */
};

static char *
key3(const char *kind, const char *ns, const char *name)
{
	return cpl_xasprintf("%s\x1f%s\x1f%s", kind, ns ? ns : "", name);
}

static void
index_put(struct index *x, const struct cpl_workload *w, size_t i)
{
	bool cluster = strcmp(w->kind, "ClusterTrainingRuntime") == 0;
	char *k = key3(w->kind, cluster ? NULL : w->namespace, w->name);
	void *v = (void *)(uintptr_t)(i + 1);

	if (cpl_strmap_get(&x->exact, k) == NULL)
		cpl_strmap_put(&x->exact, k, v);
	free(k);
	k = key3(w->kind, NULL, w->name);
	if (cpl_strmap_get(&x->loose, k) == NULL)
		cpl_strmap_put(&x->loose, k, v);
	free(k);
}

/* The first job of the runtime TrainJob t names, or SIZE_MAX. */
static size_t
index_find(struct index *x, const struct cpl_workload *t)
{
	const struct cpl_trainer *tj = t->trainer;
	bool cluster = strcmp(tj->ref_kind, "ClusterTrainingRuntime") == 0;
	const char *ns = cluster ? NULL : t->namespace;
	char *k = key3(tj->ref_kind, ns, tj->ref_name);
	void *v = cpl_strmap_get(&x->exact, k);

	free(k);
	if (v == NULL && !cluster && ns != NULL && *ns != '\0') {
		k = key3(tj->ref_kind, NULL, tj->ref_name);
		v = cpl_strmap_get(&x->exact, k);
		free(k);
	}
	if (v == NULL && !cluster && (ns == NULL || *ns == '\0')) {
		k = key3(tj->ref_kind, NULL, tj->ref_name);
		v = cpl_strmap_get(&x->loose, k);
		free(k);
	}
	return v ? (size_t)(uintptr_t)v - 1 : SIZE_MAX;
}

static void
index_free(struct index *x)
{
	cpl_strmap_free(&x->exact);
	cpl_strmap_free(&x->loose);
}

/* Lays the TrainJob's command and args over m: command replaces, args
 * come first and the runtime's after them, as Trainer's builder merges. */
static void
merge_argv(struct cpl_container *m, const struct cpl_container *tc,
	   const struct cpl_trainer *tj)
{
	const struct cpl_container *cs = tj->set_command ? tc : m;
	size_t rargs = m->argc - m->ncommand;
	size_t targs = tj->set_args ? tc->argc - tc->ncommand : 0;
	struct cpl_word *v;
	size_t n = 0, i;

	if (!tj->set_command && !tj->set_args)
		return;
	if (tj->set_command && rargs == 0) {
		/* The TrainJob's line as it is: keep its precise scan. */
		cpl_container_copy_command(m, tc);
		return;
	}
	v = cpl_xcalloc(cs->ncommand + targs + rargs + 1, sizeof(*v));
	for (i = 0; i < cs->ncommand; i++)
		v[n++] = cpl_word_dup(&cs->argv[i]);
	for (i = 0; i < targs; i++)
		v[n++] = cpl_word_dup(&tc->argv[tc->ncommand + i]);
	for (i = 0; i < rargs; i++)
		v[n++] = cpl_word_dup(&m->argv[m->ncommand + i]);
	cpl_words_free(m->argv, m->argc);
	m->argv = v;
	m->argc = m->argv_cap = n;
	m->ncommand = cs->ncommand;
	cpl_launch_clear(&m->launch);
	cpl_shscan(&m->launch, m->argv, m->argc, NULL, NULL);
}

/*
 * What the TrainJob's trainer gives every node container m it reaches:
 * resourcesPerNode and env (the trainer job's, and with MPI's
 * runLauncherAsNode the node job's too, as Trainer's runtime builds
 * them).  The container as its user writes it is then the TrainJob's
 * trainer, so a problem both jobs share is one finding there.
 */
static void
apply_node_side(struct cpl_container *m, const struct cpl_container *tc,
		const struct cpl_trainer *tj)
{
	size_t i;

	/* Resources neither side writes belong at the trainer too. */
	m->pos = tc->pos;
	if (!tj->set_resources && m->cpu_request == CPL_CPU_ABSENT &&
	    m->cpu_limit == CPL_CPU_ABSENT)
		m->resources_pos = tc->pos;
	/* resourcesPerNode is merged onto the runtime's resources, name by
	 * name, as Trainer does since it stopped replacing them whole. */
	if (tj->set_rpn)
		m->resources_pos = tc->resources_pos;
	if (tc->cpu_request != CPL_CPU_ABSENT) {
		m->cpu_request = tc->cpu_request;
		m->request_pos = tc->request_pos;
	}
	if (tc->cpu_limit != CPL_CPU_ABSENT) {
		m->cpu_limit = tc->cpu_limit;
		m->limit_pos = tc->limit_pos;
	}
	if (tc->gpus > 0)
		m->gpus = tc->gpus;
	for (i = 0; i < tc->nenv; i++)
		cpl_container_set_env(m, tc->env[i].name, tc->env[i].value,
				      tc->env[i].pos);
}

/* The TrainJob's trainer over the runtime's trainer container m: image,
 * command and args too. */
static void
apply_trainer(struct cpl_container *m, const struct cpl_container *tc,
	      const struct cpl_trainer *tj)
{
	if (tj->set_image) {
		free(m->image);
		m->image = cpl_xstrdup(tc->image);
	}
	merge_argv(m, tc, tj);
	apply_node_side(m, tc, tj);
}

/* One runtime job r made into TrainJob t's: a new workload. */
static struct cpl_workload *
merge(const struct cpl_workload *t, const struct cpl_workload *r)
{
	const struct cpl_trainer *tj = t->trainer, *rt = r->trainer;
	const struct cpl_container *tc = &t->containers[0];
	struct cpl_workload *m = cpl_workload_copy(r);
	struct cpl_container *node = node_container(m);
	long nodes = tj->set_nodes ? tj->nodes :
		     rt->set_policy_nodes ? rt->policy_nodes : 1;
	struct cpl_pos pos;
	size_t i;
	char *v;

	free(m->kind);
	free(m->name);
	free(m->namespace);
	free(m->file);
	free(m->object);
	m->kind = cpl_xstrdup("TrainJob");
	m->torch_kind = t->torch_kind;
	m->name = cpl_xstrdup(t->name);
	m->namespace = cpl_xstrdup(t->namespace);
	m->file = cpl_xstrdup(t->file);
	m->object = t->object ? cpl_xasprintf("%s/%s", t->object,
					      r->replica ? r->replica : "-") :
		    NULL;
	m->source = t->source;
	m->pos = t->pos;
	/* The TrainJob's own ignore-check annotations hold for the merge,
	 * beside the runtime's template's. */
	for (i = 0; i < t->nignores; i++)
		cpl_workload_add_ignore(m, &t->ignores[i]);
	if (rt->step == CPL_TSTEP_TRAINER && node != NULL) {
		apply_trainer(node, tc, tj);
		if (r->ml_policy != CPL_TPOLICY_MPI) {
			m->replicas = nodes;
		} else if (rt->launcher_as_node) {
			mpi_slots(node, tj->set_nproc ? &tj->nproc :
				  rt->set_policy_nproc ? &rt->policy_nproc :
				  NULL, tj->set_nproc, "numProcPerNode",
				  tj->set_rpn ? tc->gpus : node->gpus);
		} else {
			node->not_training = false;
			node->run_container = true;
			cpl_loader_mpi(m, true);
		}
		if (r->ml_policy == CPL_TPOLICY_TORCH) {
			v = torch_nproc(&pos, t, tc, rt, node->gpus,
					node->cpu_limit != CPL_CPU_ABSENT ||
					node->cpu_request != CPL_CPU_ABSENT);
			set_pet(node, v, pos);
			free(v);
		}
	} else if (r->ml_policy == CPL_TPOLICY_MPI && node != NULL &&
		   node->has_slots) {
		/* With runLauncherAsNode the node job is the trainer's too:
		 * Trainer gives it resourcesPerNode and env (not the image
		 * or command: it runs the runtime's sshd). */
		if (rt->launcher_as_node)
			apply_node_side(node, tc, tj);
		mpi_slots(node, tj->set_nproc ? &tj->nproc :
			  rt->set_policy_nproc ? &rt->policy_nproc : NULL,
			  tj->set_nproc, "numProcPerNode",
			  tj->set_rpn ? tc->gpus : node->gpus);
		m->replicas = mpi_node_pods(nodes, rt->launcher_as_node);
	}
	return m;
}

/* A TrainJob whose runtime is not in the run: what it does not say is
 * unknown (the runtime may set resources, env, the command). */
static void
alone(struct cpl_workload *t)
{
	const struct cpl_trainer *tj = t->trainer;
	struct cpl_container *c = &t->containers[0];
	struct cpl_pos pos;
	char *v = NULL;

	/* resourcesPerNode is merged onto the runtime's: what it leaves out,
	 * the runtime may set. */
	if (c->cpu_request == CPL_CPU_ABSENT)
		c->cpu_request = CPL_CPU_UNKNOWN;
	if (c->cpu_limit == CPL_CPU_ABSENT)
		c->cpu_limit = CPL_CPU_UNKNOWN;
	c->env_from = true;
	t->ml_policy = policy_by_name(tj->ref_name);
	if (t->ml_policy == CPL_TPOLICY_OTHER)
		return;
	pos = t->pos;
	if (tj->set_nproc)
		v = torch_nproc(&pos, t, c, NULL, -1, true);
	set_pet(c, v, pos);
	free(v);
}

/* A runtime no TrainJob of the run uses: a template, whose trainer
 * gets its rank count from each TrainJob. */
static void
template_only(struct cpl_workload *r)
{
	r->template_only = true;
	if (r->trainer->step == CPL_TSTEP_TRAINER &&
	    r->ml_policy == CPL_TPOLICY_TORCH)
		set_pet(node_container(r), NULL, r->pos);
}

void
cpl_trainer_join(struct cpl_wlist *l)
{
	struct index x = { .exact.own_keys = true, .loose.own_keys = true };
	size_t n0 = l->count, i, j, first, mfirst;
	bool *used;

	used = cpl_xcalloc(n0 + 1, sizeof(*used));
	for (i = 0; i < n0; i++) {
		const struct cpl_workload *w = l->items[i];

		if (is_runtime(w) && (i == 0 || !is_runtime(l->items[i - 1]) ||
				      !same_object(l->items[i - 1], w)))
			index_put(&x, w, i);
	}
	for (i = 0; i < n0; i++) {
		struct cpl_workload *t = l->items[i];

		if (t->trainer == NULL || t->merged ||
		    !cpl_str_eq(t->kind, "TrainJob") ||
		    t->trainer->ref_kind == NULL ||
		    t->trainer->ref_name == NULL ||
		    (first = index_find(&x, t)) == SIZE_MAX) {
			if (t->trainer && cpl_str_eq(t->kind, "TrainJob") &&
			    !t->merged)
				alone(t);
			continue;
		}
		mfirst = l->count;
		for (j = first; j < n0 && (j == first ||
					   same_object(l->items[first],
						       l->items[j])); j++) {
			struct cpl_workload *r = l->items[j];

			cpl_wlist_add(l, merge(t, r));
			t = l->items[i];	/* the list may have moved */
			if (!used[j]) {
				r->merged = true;
				r->merged_into = cpl_xasprintf("into TrainJob "
							       "\"%s\"",
							       t->name);
			}
			used[j] = true;
		}
		if (l->items[first]->ml_policy == CPL_TPOLICY_MPI)
			cpl_loader_mpi_cap(l, mfirst);
		t->merged = true;
		t->merged_into = cpl_xasprintf("with its runtime %s \"%s\"",
					       l->items[first]->kind,
					       l->items[first]->name);
	}
	for (i = 0; i < n0; i++)
		if (is_runtime(l->items[i]) && !used[i])
			template_only(l->items[i]);
	free(used);
	index_free(&x);
}
