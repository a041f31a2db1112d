/*
 * kinds.c — the kinds table: every kind cpulint knows, one row each, and
 * the one loader that reads an object as its row says.
 *
 * A row's first half is the kind's public descriptor (struct cpl_kind,
 * kinds.h): its resource names, how live mode finds its Pods, whether
 * its replicas train and the labels its operator sets, its launcher,
 * its merge hook, whether plan and serve --mutate take it; live mode,
 * plan, serve and the engine read that, never a list of their own.  The
 * rest is the loader's: where the kind keeps its Pod templates (places: a path to
 * each element, then from the element to its Pod spec, how many Pods it
 * makes and what names it), what its containers are (the run container
 * of a job, training only on evidence, never training), whether it runs
 * to completion, what sets its ranks and OMP_NUM_THREADS, and where it
 * holds other objects (Katib's trialSpec, Argo's manifests, AppWrapper
 * components), which are loaded as documents of their own.  Adding a kind
 * is one row; a kind with no row, or a row whose places hold nothing,
 * goes to the generic model (generic.c).  What a row cannot say is a
 * hook: MPI slots, LeaderWorkerSet's group arithmetic, Kubeflow Trainer.
 *
 * Invariant: a workload enters the caller's list only once it is
 * complete; when reading it fails it is freed here.  Every object that
 * gives no workload is recorded as skipped, with why.
 */
#include "load/kinds.h"
#include "load/loader.h"

#include <stdlib.h>
#include <string.h>

#include "text/quantity.h"

/* What a place's main containers are. */
enum krole {
	KROLE_PLAIN,	/* as the workload model says for any Pod: a
			 * launcher, GPUs in a job, Python that trains */
	KROLE_JOB,	/* a training job's replica: its run container
			 * trains */
	KROLE_EVIDENCE,	/* training only on evidence (w->by_evidence) */
	KROLE_NEVER,	/* never training (the row's omp says why) */
};

/* Whether a kind's Pods run to completion. */
enum kdone {
	KDONE_RUNS,	/* long-running: a server until code says not */
	KDONE_COMPLETES,
	KDONE_BY_POD,	/* by the Pod's restartPolicy or owner */
};

/*
 * Where a kind keeps one sort of Pod template.  Paths are keys joined by
 * '.': `key[]` is each item of a list (an element, named by its name_key
 * field), `*` each value of a mapping (an element, named by its key),
 * `*Suffix` the first key ending in Suffix.
 */
struct kplace {
	const char *each;	/* from the object to each element; "" the
				 * object itself */
	const char *pod;	/* from the element to its Pod spec; "" the
				 * element */
	const char *replicas;	/* from the element, counts multiplied
				 * (',' between); NULL: 1 */
	const char *replica;	/* the name when the path gives none */
	const char *name_key;	/* the field naming a list item; NULL:
				 * "name" */
	enum cpl_podshape shape;
	enum krole role;
};

/* One kind: its public descriptor (load/kinds.h), then how the loader
 * reads it. */
struct kind_row {
	struct cpl_kind k;
	struct kplace places[3];	/* each == NULL ends them */
	enum kdone done;
	const char *nproc;	/* from the object: the rank count per Pod
				 * the loader reads ('|' between
				 * spellings) */
	bool nproc_auto;	/* without it, torchrun's default auto
				 * (PET_NPROC_PER_NODE unset) */
	const char *ranks;	/* what else sets the ranks per Pod (read
				 * by a hook); NULL: the command's
				 * launcher alone */
	const char *omp;	/* what sets OMP_NUM_THREADS besides the
				 * container's env and its launcher */
	const char *never;	/* KROLE_NEVER: why its Pods do not train
				 * (-v) */
	const char *nested;	/* objects it holds ('|' between paths) */
	const char *trains_in;	/* the name of the container the nested
				 * objects' Pods train in (a Katib trial's
				 * primaryContainerName); NULL: none */
	const char *trains_pods;	/* where present, the labels that pick
					 * which of the nested Pods train
					 * (primaryPodLabels): the tool keeps no
					 * Pod labels, so it marks none */
	const char *volumes;	/* the Pods' volumes, when not in each Pod
				 * spec (an Argo workflow's) */
	const char *defaults;	/* what each main container is read over
				 * (Argo's templateDefaults) */
	const char *none;	/* why it is skipped when it holds neither
				 * a Pod template nor an object */
	/* Per workload, after its containers are read. */
	void (*after)(struct cpl_workload *w, const struct cpl_ynode *obj);
	/* After all its workloads (from first in the list). */
	void (*after_all)(struct cpl_wlist *l, size_t first);
	/* A kind a row cannot say (its places then unused). */
	int (*load)(const struct cpl_lctx *x, const struct cpl_ynode *obj,
		    const char *kind);
};

/* ---- hooks ------------------------------------------------------------ */

#define RAY_OMP "Ray, each worker's to its CPU share"
#define RAY_NEVER "Ray's head and worker Pods are no training " \
		  "containers (Ray sets each worker's OMP_NUM_THREADS to its " \
		  "CPU share)"

/* Any Pod: an mpirun in it keeps its ranks here unless it names other
 * hosts. */
static void
mpi_here(struct cpl_workload *w, const struct cpl_ynode *obj)
{
	(void)obj;
	cpl_loader_mpi(w, false);
}

/* A Volcano task: with the mpi plugin, Volcano hands the master the
 * workers' host list. */
static void
mpi_volcano(struct cpl_workload *w, const struct cpl_ynode *obj)
{
	cpl_loader_mpi(w, cpl_ynode_path(obj, "spec", "plugins", "mpi",
					 NULL) != NULL);
}

/*
 * An MPIJob replica (kubeflow.org v1 and v2beta1): the workers are the
 * nodes, slotsPerWorker ranks each; the launcher only starts them with
 * mpirun unless runLauncherAsNode puts it in the hostfile too.
 */
static void
mpi_job(struct cpl_workload *w, const struct cpl_ynode *obj)
{
	const struct cpl_ynode *spec = cpl_ynode_get(obj, "spec");
	const struct cpl_ynode *n = cpl_ynode_get(spec, "slotsPerWorker");
	bool launcher = cpl_str_eq(w->replica, "Launcher") ||
			cpl_str_eq(w->replica, "launcher");
	struct cpl_pos pos;

	if (launcher && cpl_ynode_bool(cpl_ynode_get(spec,
						     "runLauncherAsNode")) != 1) {
		cpl_loader_mpi(w, true);
		return;
	}
	if (cpl_ynode_is_scalar(n) && !cpl_ynode_is_null(n)) {
		pos = cpl_loader_pos(w->file, n);
		cpl_loader_mpi_slots(w, n->value, &pos, "slotsPerWorker");
	} else {
		cpl_loader_mpi_slots(w, "1", NULL, "slotsPerWorker (default)");
	}
}

static int load_lws(const struct cpl_lctx *x, const struct cpl_ynode *obj,
		    const char *kind);

/*
 * A Katib trial trains: Katib tunes a model's hyperparameters by running
 * it, and reads the objective from the trial's primary container (named
 * by primaryContainerName; where none is named, as in a ConfigMap of
 * templates, the Pod's one main container).  Workloads [first, count) of l
 * are a trial's objects; in each that no kind already says a container
 * of, the primary container is the run container, so it is judged as
 * training without other evidence (model/budget.c).  A container that
 * never trains (an MPI launcher whose ranks run elsewhere) stays so; a
 * trial that picks its primary Pods by labels (primaryPodLabels: an Argo
 * workflow's training step among others) is not marked here, as the
 * tool keeps no Pod labels to pick them by.
 */
static void
trial_trains(struct cpl_wlist *l, size_t first, const char *primary)
{
	size_t i, j, mains, pick;

	for (i = first; i < l->count; i++) {
		struct cpl_workload *w = l->items[i];

		mains = 0;
		pick = w->ncontainers;
		for (j = 0; j < w->ncontainers; j++) {
			const struct cpl_container *c = &w->containers[j];

			if (c->run_container)
				break;
			if (c->role != CPL_CROLE_MAIN || c->not_training)
				continue;
			mains++;
			if (primary ? cpl_str_eq(c->name, primary) :
			    mains == 1)
				pick = j;
		}
		if (j < w->ncontainers || pick == w->ncontainers ||
		    (primary == NULL && mains != 1))
			continue;
		w->containers[pick].run_container = true;
	}
}

/*
 * A ConfigMap holding Katib trial templates (labelled
 * katib.kubeflow.org/component: trial-templates): each data value is a
 * trial's manifest, judged as the Experiments that name it would run it.
 * Any other ConfigMap is configuration.
 */
static int
load_configmap(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	       const char *kind)
{
	const struct cpl_ynode *data = cpl_ynode_get(obj, "data");
	struct cpl_lctx in = *x;
	size_t i;
	int got = 0, n;

	if (!cpl_str_eq(cpl_ynode_gets(cpl_ynode_path(obj, "metadata",
						      "labels", NULL),
				       "katib.kubeflow.org/component"),
			"trial-templates") || !cpl_ynode_is_map(data)) {
		cpl_loader_skip(x, obj, kind, "not a workload", false);
		return 0;
	}
	in.depth = x->depth + 1;
	in.holder = cpl_ynode_gets(cpl_ynode_get(obj, "metadata"), "name");
	for (i = 0; i < data->count; i++) {
		size_t first = x->out->count;

		n = cpl_nested_load(&in, data->pairs[i].value, kind);
		if (n < 0)
			return -1;
		trial_trains(x->out, first, NULL);
		got += n;
	}
	if (got == 0)
		cpl_loader_skip(x, obj, kind, "no trial template", false);
	return 0;
}

/* The CPU quantity of item l's field key (max, default ...) into *v and
 * *pos; false when it is not written or not a quantity. */
static bool
lr_cpu(const struct cpl_workload *w, const struct cpl_ynode *l,
       const char *key, int64_t *v, struct cpl_pos *pos)
{
	const struct cpl_ynode *n = cpl_ynode_get(cpl_ynode_get(l, key),
						  "cpu");
	const char *why;

	if (n == NULL || cpl_quantity_cpu(v, cpl_ynode_str(n), &why) < 0)
		return false;
	*pos = cpl_loader_pos(w->file, n);
	return true;
}

/*
 * A LimitRange: not a workload, but its `type: Container` defaults are
 * the CPU budget of containers in its namespace that set none, and its
 * max, min and maxLimitRequestRatio (and `type: Pod` max) what admission
 * rejects (applied by the run over the objects it read:
 * run/limitrange.c).  Kept as a workload that is never linted itself
 * (merged), one init-role container holding default (limit) and
 * defaultRequest (request) as the API server defaults them (default
 * from max, defaultRequest from default, else from min) and where they
 * are written, and the bounds in its limits.  The first item of a type
 * that writes a field gives it.
 */
static int
load_limitrange(const struct cpl_lctx *x, const struct cpl_ynode *obj,
		const char *kind)
{
	const struct cpl_ynode *lims = cpl_ynode_path(obj, "spec", "limits",
						      NULL);
	struct cpl_workload *w = cpl_manifest_workload(obj, kind, NULL,
						       x->path);
	struct cpl_limits *b = cpl_xcalloc(1, sizeof(*b));
	int64_t def = CPL_CPU_ABSENT, req = CPL_CPU_ABSENT, v;
	struct cpl_pos def_pos = { 0 }, req_pos = { 0 }, pos;
	struct cpl_container *c;
	size_t i;

	b->max = b->min = b->ratio = b->pod_max = CPL_CPU_ABSENT;
	for (i = 0; cpl_ynode_is_seq(lims) && i < lims->count; i++) {
		const struct cpl_ynode *l = lims->items[i];
		const char *type = cpl_ynode_gets(l, "type");

		if (cpl_str_eq(type, "Pod")) {
			if (b->pod_max == CPL_CPU_ABSENT &&
			    lr_cpu(w, l, "max", &v, &pos)) {
				b->pod_max = v;
				b->pod_max_pos = pos;
			}
			continue;
		}
		if (!cpl_str_eq(type, "Container"))
			continue;
		if (def == CPL_CPU_ABSENT && lr_cpu(w, l, "default", &v, &pos)) {
			def = v;
			def_pos = pos;
		}
		if (req == CPL_CPU_ABSENT &&
		    lr_cpu(w, l, "defaultRequest", &v, &pos)) {
			req = v;
			req_pos = pos;
		}
		if (b->max == CPL_CPU_ABSENT && lr_cpu(w, l, "max", &v, &pos)) {
			b->max = v;
			b->max_pos = pos;
		}
		if (b->min == CPL_CPU_ABSENT && lr_cpu(w, l, "min", &v, &pos)) {
			b->min = v;
			b->min_pos = pos;
		}
		if (b->ratio == CPL_CPU_ABSENT &&
		    lr_cpu(w, l, "maxLimitRequestRatio", &v, &pos)) {
			b->ratio = v;
			b->ratio_pos = pos;
		}
	}
	if (def == CPL_CPU_ABSENT && req == CPL_CPU_ABSENT &&
	    b->max == CPL_CPU_ABSENT && b->min == CPL_CPU_ABSENT &&
	    b->ratio == CPL_CPU_ABSENT && b->pod_max == CPL_CPU_ABSENT) {
		cpl_limits_free(b);
		cpl_workload_free(w);
		cpl_loader_skip(x, obj, kind, "no CPU default or bound", false);
		return 0;
	}
	/* The API server's defaulting (SetDefaults_LimitRangeItem). */
	if (def == CPL_CPU_ABSENT && b->max != CPL_CPU_ABSENT) {
		def = b->max;
		def_pos = b->max_pos;
		b->default_from_max = true;
	}
	if (req == CPL_CPU_ABSENT && def != CPL_CPU_ABSENT) {
		req = def;
		req_pos = def_pos;
	} else if (req == CPL_CPU_ABSENT && b->min != CPL_CPU_ABSENT) {
		req = b->min;
		req_pos = b->min_pos;
	}
	b->name = cpl_xstrdup(w->name);
	w->merged = true;
	w->merged_into = cpl_xstrdup("into the CPU budget of the containers "
				     "of its namespace");
	c = cpl_workload_add_container(w);
	c->role = CPL_CROLE_INIT;
	c->name = cpl_xstrdup("limitrange");
	c->cpu_limit = def;
	c->limit_pos = def_pos;
	c->cpu_request = req;
	c->request_pos = req_pos;
	c->limits = b;
	cpl_wlist_add(x->out, w);
	return 0;
}

/* Ray's Pods, whatever the kind (a RayCronJob ...): found as the generic
 * model finds them, no training containers. */
static int
load_ray(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	 const char *kind)
{
	size_t first = x->out->count, i, j;

	if (cpl_generic_load(x, obj, kind) < 0)
		return -1;
	for (i = first; i < x->out->count; i++) {
		struct cpl_workload *w = x->out->items[i];

		w->note = RAY_NEVER;
		for (j = 0; j < w->ncontainers; j++)
			w->containers[j].not_training = true;
	}
	return 0;
}

/* A kind whose containers are patterns (a policy's), never Pods. */
static int
load_inert(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	   const char *kind)
{
	cpl_loader_skip(x, obj, kind, "a policy: its containers are "
			"patterns, not Pods", false);
	return 0;
}

static int
load_trainjob(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	      const char *kind)
{
	size_t from = x->out->count, i;
	int rc;

	(void)kind;
	rc = cpl_trainer_load_job(x->out, x->s, obj, x->path, x->err);
	/* A TrainJob held by another object (a Katib trialSpec) has no name
	 * of its own: it goes by its holder's, as the other kinds do. */
	for (i = from; rc == 0 && x->holder != NULL && i < x->out->count;
	     i++) {
		struct cpl_workload *w = x->out->items[i];

		if (w->name == NULL || *w->name == '\0') {
			free(w->name);
			w->name = cpl_xstrdup(x->holder);
		}
	}
	return rc;
}

static int
load_runtime(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	     const char *kind)
{
	return cpl_trainer_load_runtime(x->out, x->s, obj, kind, x->path,
					x->err);
}

/* ---- the table -------------------------------------------------------- */

/* Run container names of the Kubeflow v1 frameworks. */
static const char *const run_pytorch[] = { "pytorch", NULL };
static const char *const run_tf[] = { "tensorflow", NULL };
static const char *const run_mpi[] = { "mpi", "launcher", "mpi-launcher",
				       "worker", NULL };
static const char *const run_xgb[] = { "xgboost", NULL };
static const char *const run_paddle[] = { "paddle", NULL };
static const char *const run_jax[] = { "jax", NULL };
static const char *const run_mx[] = { "mxnet", NULL };
/* Kubeflow Trainer's (older runtimes named it trainer). */
static const char *const run_trainer[] = { "node", "trainer", NULL };

/* One Pod spec: the object's own, or its template's. */
#define POD(path) { { "", path, NULL, NULL, NULL, CPL_POD_K8S, KROLE_PLAIN } }
#define SCALED(path) { { "", path, "spec.replicas", NULL, NULL, \
			 CPL_POD_K8S, KROLE_PLAIN } }
/* A Kubeflow v1 job: one workload per replica type. */
#define KF_REPLICAS { { "spec.*ReplicaSpecs.*", "template.spec", \
			"replicas", NULL, NULL, CPL_POD_K8S, KROLE_JOB } }
#define KF_OMP "torchrun, when it starts more than one rank"
/* What the training operator sets on a Kubeflow v1 job's Pods. */
#define KF_JOB_NAME "training.kubeflow.org/job-name"
#define KF_REPLICA_TYPE "training.kubeflow.org/replica-type"
/* A Kubeflow v1 job whose replicas are at member: its run container
 * trains, the webhook sends it to /mutate, a Pod it owns is judged at
 * admission as its replica. */
#define KF_ROW(member) .k.trains = true, \
	.k.labels = "training.kubeflow.org/", \
	.k.role_labels = KF_REPLICA_TYPE, .k.replica_specs = member, \
	.k.succeeded = "Succeeded", .k.mutate = true
/* Ray: the head, the worker groups, under key. */
#define RAY_HEAD(key) { "", key ".headGroupSpec.template.spec", NULL, \
			"head", NULL, CPL_POD_K8S, KROLE_NEVER }
#define RAY_WORKERS(key) { key ".workerGroupSpecs[]", "template.spec", \
			   "replicas", NULL, "groupName", CPL_POD_K8S, \
			   KROLE_NEVER }
/* Argo: the templates of a workflow spec at key. */
#define ARGO(key) { { key ".templates[]", "", NULL, NULL, NULL, \
		      CPL_POD_ARGO, KROLE_EVIDENCE } }
#define ARGO_ROW(key) \
	.places = ARGO(key), .done = KDONE_COMPLETES, \
	.nested = key ".templates[].resource", \
	.volumes = key ".volumes", \
	.defaults = key ".templateDefaults.container", \
	.none = "no container templates", .after = mpi_here
/* AppWrapper components (v1beta2), GenericItems (before). */
#define APPWRAPPER_NESTED "spec.components[].template|" \
			  "spec.resources.GenericItems[].generictemplate"
/* Tekton: a task spec, or the tasks of a pipeline spec at key. */
#define TEKTON_REF "no taskSpec (a taskRef is read where its Task is)"
#define TEKTON_TASK(path) { { "", path, NULL, NULL, NULL, CPL_POD_TEKTON, \
			      KROLE_EVIDENCE } }
#define TEKTON_PIPELINE(key) { \
	{ key ".tasks[]", "taskSpec", NULL, NULL, NULL, CPL_POD_TEKTON, \
	  KROLE_EVIDENCE }, \
	{ key ".finally[]", "taskSpec", NULL, NULL, NULL, CPL_POD_TEKTON, \
	  KROLE_EVIDENCE } }

static const struct kind_row kinds[] = {
	/* Kubernetes */
	{ .k.group = "", .k.kind = "Pod", .k.api_version = "v1",
	  .k.resource = "pods", .k.singular = "pod", .k.short_names = "|po|",
	  .k.pods = CPL_KPODS_SELF, .k.mutate = true, .places = POD("spec"),
	  .done = KDONE_BY_POD, .none = "no Pod template",
	  .after = mpi_here },
	{ .k.group = "apps", .k.old_group = "extensions", .k.kind = "Deployment",
	  .k.api_version = "apps/v1", .k.resource = "deployments",
	  .k.singular = "deployment", .k.short_names = "|deploy|",
	  .k.pods = CPL_KPODS_SELECTOR, .places = SCALED("spec.template.spec"), .done = KDONE_RUNS,
	  .none = "no Pod template", .after = mpi_here },
	{ .k.group = "apps", .k.kind = "StatefulSet",
	  .k.api_version = "apps/v1", .k.resource = "statefulsets",
	  .k.singular = "statefulset", .k.short_names = "|sts|",
	  .k.pods = CPL_KPODS_SELECTOR, .places = SCALED("spec.template.spec"), .done = KDONE_RUNS,
	  .none = "no Pod template", .after = mpi_here },
	{ .k.group = "apps", .k.old_group = "extensions", .k.kind = "DaemonSet",
	  .k.api_version = "apps/v1", .k.resource = "daemonsets",
	  .k.singular = "daemonset", .k.short_names = "|ds|",
	  .k.pods = CPL_KPODS_SELECTOR, .places = POD("spec.template.spec"), .done = KDONE_RUNS,
	  .none = "no Pod template", .after = mpi_here },
	{ .k.group = "apps", .k.old_group = "extensions", .k.kind = "ReplicaSet",
	  .k.api_version = "apps/v1", .k.resource = "replicasets",
	  .k.singular = "replicaset", .k.short_names = "|rs|",
	  .k.pods = CPL_KPODS_SELECTOR, .k.follow = true, .places = SCALED("spec.template.spec"), .done = KDONE_RUNS,
	  .none = "no Pod template", .after = mpi_here },
	{ .k.group = "", .k.kind = "ReplicationController",
	  .places = SCALED("spec.template.spec"), .done = KDONE_RUNS,
	  .none = "no Pod template", .after = mpi_here },
	{ .k.group = "", .k.kind = "PodTemplate", .places = POD("template.spec"),
	  .done = KDONE_BY_POD, .none = "no Pod template",
	  .after = mpi_here },
	{ .k.group = "batch", .k.kind = "Job", .k.api_version = "batch/v1",
	  .k.resource = "jobs", .k.singular = "job",
	  .k.pods = CPL_KPODS_SELECTOR, .k.pod_label = "job-name", .k.follow = true, .k.plan = true,
	  .k.mutate = true, .places = POD("spec.template.spec"),
	  .done = KDONE_COMPLETES, .none = "no Pod template",
	  .after = mpi_here },
	{ .k.group = "batch", .k.kind = "CronJob",
	  .k.api_version = "batch/v1", .k.resource = "cronjobs",
	  .k.singular = "cronjob", .k.short_names = "|cj|",
	  .k.pods = CPL_KPODS_JOBS,
	  .places = POD("spec.jobTemplate.spec.template.spec"),
	  .done = KDONE_COMPLETES, .none = "no Pod template",
	  .after = mpi_here },
	{ .k.group = "", .k.kind = "ConfigMap", .done = KDONE_RUNS,
	  .load = load_configmap },
	{ .k.group = "", .k.kind = "LimitRange", .done = KDONE_RUNS,
	  .load = load_limitrange },
	/* Katib: a trial is an object of its own. */
	{ .k.group = "kubeflow.org", .k.kind = "Experiment",
	  .done = KDONE_COMPLETES, .nested = "spec.trialTemplate.trialSpec",
	  .trains_in = "spec.trialTemplate.primaryContainerName",
	  .trains_pods = "spec.trialTemplate.primaryPodLabels",
	  .none = "no trialSpec (a trial template in a ConfigMap is "
		  "judged where the ConfigMap is)" },
	/* Live: a Pod whose top owner is a Trial (Pod -> Job -> Trial)
	 * trains in its first main container, the trial's own (Katib
	 * appends its metrics collector); a trial's PyTorchJob is the
	 * top owner of its own Pods. */
	{ .k.group = "kubeflow.org", .k.kind = "Trial", .k.trains = true,
	  .done = KDONE_COMPLETES,
	  .nested = "spec.runSpec", .trains_in = "spec.primaryContainerName",
	  .trains_pods = "spec.primaryPodLabels",
	  .none = "no runSpec" },
	/* Kubeflow Training Operator v1 */
	{ .k.group = "kubeflow.org", .k.kind = "PyTorchJob",
	  .k.api_version = "kubeflow.org/v1", .k.resource = "pytorchjobs",
	  .k.singular = "pytorchjob", .k.pods = CPL_KPODS_LABEL,
	  .k.pod_label = KF_JOB_NAME, KF_ROW("pytorchReplicaSpecs"),
	  .k.launch = CPL_KLAUNCH_TORCHRUN, .k.plan = true,
	  .places = KF_REPLICAS, .done = KDONE_COMPLETES, .k.run = run_pytorch,
	  .nproc = "spec.nprocPerNode|spec.elasticPolicy.nProcPerNode",
	  .nproc_auto = true, .omp = KF_OMP },
	{ .k.group = "kubeflow.org", .k.kind = "TFJob",
	  .k.api_version = "kubeflow.org/v1", .k.resource = "tfjobs",
	  KF_ROW("tfReplicaSpecs"), .places = KF_REPLICAS,
	  .done = KDONE_COMPLETES, .k.run = run_tf },
	{ .k.group = "kubeflow.org", .k.kind = "MPIJob",
	  .k.api_version = "kubeflow.org/v2beta1",
	  .k.old_api_version = "kubeflow.org/v1", .k.resource = "mpijobs",
	  .k.singular = "mpijob", .k.pods = CPL_KPODS_LABEL,
	  .k.pod_label = KF_JOB_NAME, .k.trains = true,
	  .k.labels = "training.kubeflow.org/",
	  .k.role_labels = "training.kubeflow.org/replica-type|"
			   "training.kubeflow.org/job-role",
	  .k.launch = CPL_KLAUNCH_MPI, .k.succeeded = "Succeeded",
	  .k.mutate = true, .places = KF_REPLICAS,
	  .done = KDONE_COMPLETES, .k.run = run_mpi,
	  .ranks = "slotsPerWorker", .after = mpi_job,
	  .after_all = cpl_loader_mpi_cap },
	{ .k.group = "kubeflow.org", .k.kind = "XGBoostJob",
	  .k.api_version = "kubeflow.org/v1", .k.resource = "xgboostjobs",
	  KF_ROW("xgbReplicaSpecs"), .places = KF_REPLICAS, .done = KDONE_COMPLETES, .k.run = run_xgb },
	{ .k.group = "kubeflow.org", .k.kind = "PaddleJob",
	  .k.api_version = "kubeflow.org/v1", .k.resource = "paddlejobs",
	  KF_ROW("paddleReplicaSpecs"), .places = KF_REPLICAS, .done = KDONE_COMPLETES,
	  .k.run = run_paddle },
	{ .k.group = "kubeflow.org", .k.kind = "JAXJob",
	  .k.api_version = "kubeflow.org/v1", .k.resource = "jaxjobs",
	  KF_ROW("jaxReplicaSpecs"), .places = KF_REPLICAS,
	  .done = KDONE_COMPLETES, .k.run = run_jax },
	{ .k.group = "kubeflow.org", .k.kind = "MXJob", .k.trains = true,
	  .k.labels = "training.kubeflow.org/",
	  .k.role_labels = KF_REPLICA_TYPE, .places = KF_REPLICAS,
	  .done = KDONE_COMPLETES, .k.run = run_mx },
	{ .k.group = "kubeflow.org", .k.trains = true,
	  .k.labels = "training.kubeflow.org/",
	  .k.role_labels = KF_REPLICA_TYPE, .places = KF_REPLICAS,
	  .done = KDONE_COMPLETES },
	/* Kubeflow Trainer v2: a TrainJob is merged with its runtime. */
	{ .k.group = "trainer.kubeflow.org", .k.kind = "TrainJob",
	  .k.api_version = "trainer.kubeflow.org/v1alpha1",
	  .k.resource = "trainjobs", .k.singular = "trainjob",
	  .k.pods = CPL_KPODS_LABEL,
	  .k.pod_label = "jobset.sigs.k8s.io/jobset-name", .k.trains = true,
	  .k.labels = "trainer.kubeflow.org/",
	  .k.role_labels = "trainer.kubeflow.org/trainjob-ancestor-step",
	  .k.run = run_trainer, .k.launch = CPL_KLAUNCH_TORCHRUN,
	  .k.merge = cpl_trainer_join, .k.plan = true,
	  .k.plan_at = "trainer", .k.mutate = true,
	  .done = KDONE_COMPLETES, .ranks = "numProcPerNode, the runtime's",
	  .omp = KF_OMP, .load = load_trainjob },
	{ .k.group = "trainer.kubeflow.org", .k.kind = "TrainingRuntime",
	  .done = KDONE_COMPLETES, .ranks = "mlPolicy numProcPerNode",
	  .omp = KF_OMP, .load = load_runtime },
	{ .k.group = "trainer.kubeflow.org", .k.kind = "ClusterTrainingRuntime",
	  .done = KDONE_COMPLETES, .ranks = "mlPolicy numProcPerNode",
	  .omp = KF_OMP, .load = load_runtime },
	/* Batch kinds */
	{ .k.group = "jobset.x-k8s.io", .k.kind = "JobSet",
	  .k.api_version = "jobset.x-k8s.io/v1alpha2", .k.resource = "jobsets",
	  .k.follow = true,
	  .k.role_labels = "jobset.sigs.k8s.io/replicatedjob-name",
	  .k.mutate = true,
	  .places = { { "spec.replicatedJobs[]",
			"template.spec.template.spec",
			"replicas,template.spec.parallelism", NULL, NULL,
			CPL_POD_K8S, KROLE_PLAIN } },
	  .done = KDONE_COMPLETES, .none = "no replicatedJobs",
	  .after = mpi_here },
	{ .k.group = "batch.volcano.sh", .k.kind = "Job",
	  .places = { { "spec.tasks[]", "template.spec", "replicas", NULL,
			NULL, CPL_POD_K8S, KROLE_PLAIN } },
	  .done = KDONE_COMPLETES, .none = "no tasks",
	  .after = mpi_volcano },
	{ .k.group = "leaderworkerset.x-k8s.io", .k.kind = "LeaderWorkerSet",
	  .done = KDONE_RUNS, .load = load_lws },
	{ .k.group = "workload.codeflare.dev", .k.kind = "AppWrapper",
	  .done = KDONE_COMPLETES, .nested = APPWRAPPER_NESTED,
	  .none = "no wrapped objects" },
	{ .k.group = "mcad.ibm.com", .k.kind = "AppWrapper",
	  .done = KDONE_COMPLETES, .nested = APPWRAPPER_NESTED,
	  .none = "no wrapped objects" },
	/* Ray (KubeRay) */
	{ .k.group = "ray.io", .k.kind = "RayCluster",
	  .places = { RAY_HEAD("spec"), RAY_WORKERS("spec") },
	  .k.launch = CPL_KLAUNCH_RAY, .done = KDONE_RUNS, .omp = RAY_OMP,
	  .never = RAY_NEVER },
	{ .k.group = "ray.io", .k.kind = "RayJob",
	  .places = { RAY_HEAD("spec.rayClusterSpec"),
		      RAY_WORKERS("spec.rayClusterSpec"),
		      { "", "spec.submitterPodTemplate.spec", NULL,
			"submitter", NULL, CPL_POD_K8S, KROLE_NEVER } },
	  .k.launch = CPL_KLAUNCH_RAY, .done = KDONE_COMPLETES,
	  .omp = RAY_OMP, .never = RAY_NEVER },
	{ .k.group = "ray.io", .k.kind = "RayService",
	  .places = { RAY_HEAD("spec.rayClusterConfig"),
		      RAY_WORKERS("spec.rayClusterConfig") },
	  .k.launch = CPL_KLAUNCH_RAY, .done = KDONE_RUNS, .omp = RAY_OMP,
	  .never = RAY_NEVER },
	{ .k.group = "ray.io", .k.launch = CPL_KLAUNCH_RAY,
	  .done = KDONE_RUNS, .omp = RAY_OMP,
	  .never = RAY_NEVER, .load = load_ray },
	/* Argo Workflows: container and script templates; resource
	 * templates hold objects. */
	{ .k.group = "argoproj.io", .k.kind = "Workflow", ARGO_ROW("spec") },
	{ .k.group = "argoproj.io", .k.kind = "WorkflowTemplate",
	  ARGO_ROW("spec") },
	{ .k.group = "argoproj.io", .k.kind = "ClusterWorkflowTemplate",
	  ARGO_ROW("spec") },
	{ .k.group = "argoproj.io", .k.kind = "CronWorkflow",
	  ARGO_ROW("spec.workflowSpec") },
	/* Tekton: the steps of a task run in one Pod, in order. */
	{ .k.group = "tekton.dev", .k.kind = "Task", .places = TEKTON_TASK("spec"),
	  .done = KDONE_COMPLETES, .none = "no steps", .after = mpi_here },
	{ .k.group = "tekton.dev", .k.kind = "ClusterTask",
	  .places = TEKTON_TASK("spec"), .done = KDONE_COMPLETES,
	  .none = "no steps", .after = mpi_here },
	{ .k.group = "tekton.dev", .k.kind = "TaskRun",
	  .places = TEKTON_TASK("spec.taskSpec"), .done = KDONE_COMPLETES,
	  .none = TEKTON_REF, .after = mpi_here },
	{ .k.group = "tekton.dev", .k.kind = "Pipeline",
	  .places = TEKTON_PIPELINE("spec"), .done = KDONE_COMPLETES,
	  .none = TEKTON_REF, .after = mpi_here },
	{ .k.group = "tekton.dev", .k.kind = "PipelineRun",
	  .places = TEKTON_PIPELINE("spec.pipelineSpec"),
	  .done = KDONE_COMPLETES, .none = TEKTON_REF, .after = mpi_here },
	/* Policies whose containers are patterns */
	{ .k.group = "kyverno.io", .done = KDONE_RUNS, .load = load_inert },
	{ .k.group = "policies.kyverno.io", .done = KDONE_RUNS,
	  .load = load_inert },
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

/* The row for kind in api, or NULL. */
static const struct kind_row *
find_row(const char *api, const char *kind)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(kinds); i++) {
		const struct kind_row *r = &kinds[i];

		if ((r->k.kind == NULL || strcmp(r->k.kind, kind) == 0) &&
		    (in_group(api, r->k.group) ||
		     in_group(api, r->k.old_group)))
			return r;
	}
	return NULL;
}

/* ---- the descriptors (kinds.h) ---------------------------------------- */

const struct cpl_kind *
cpl_kinds_find(const char *api, const char *kind)
{
	size_t i;

	if (kind == NULL)
		return NULL;
	if (api != NULL) {
		const struct kind_row *r = find_row(api, kind);

		return r ? &r->k : NULL;
	}
	for (i = 0; i < CPL_ARRAY_LEN(kinds); i++)
		if (cpl_str_eq(kinds[i].k.kind, kind))
			return &kinds[i].k;
	return NULL;
}

const struct cpl_kind *
cpl_kinds_at(size_t i)
{
	return i < CPL_ARRAY_LEN(kinds) ? &kinds[i].k : NULL;
}

const struct cpl_kind *
cpl_kinds_by_type(const char *word)
{
	char key[64];
	size_t i, n = strcspn(word, ".");	/* deployment.apps */

	if (n == 0 || n + 3 > sizeof(key))
		return NULL;
	key[0] = '|';
	for (i = 0; i < n; i++)
		key[i + 1] = (char)(word[i] >= 'A' && word[i] <= 'Z' ?
				    word[i] - 'A' + 'a' : word[i]);
	key[n + 1] = '|';
	key[n + 2] = '\0';
	for (i = 0; i < CPL_ARRAY_LEN(kinds); i++) {
		const struct cpl_kind *k = &kinds[i].k;

		if (k->singular == NULL)
			continue;
		if ((strlen(k->singular) == n &&
		     strncmp(k->singular, key + 1, n) == 0) ||
		    (strlen(k->resource) == n &&
		     strncmp(k->resource, key + 1, n) == 0) ||
		    (k->short_names && strstr(k->short_names, key) != NULL))
			return k;
	}
	return NULL;
}

bool
cpl_kinds_is_run(const struct cpl_kind *k, const char *name)
{
	size_t i;

	for (i = 0; k != NULL && k->run != NULL && k->run[i] != NULL; i++)
		if (cpl_str_eq(k->run[i], name))
			return true;
	return false;
}

/* Whether key is one of the '|'-separated names of list. */
static bool
in_list(const char *list, const char *key)
{
	size_t n = strlen(key);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && strncmp(p, key, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

bool
cpl_kinds_operator_label(const char *key)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(kinds); i++) {
		const struct cpl_kind *k = &kinds[i].k;

		if ((k->labels != NULL && cpl_str_starts(key, k->labels)) ||
		    in_list(k->role_labels, key))
			return true;
	}
	return false;
}

void
cpl_kinds_merge(struct cpl_wlist *l)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(kinds); i++)
		if (kinds[i].k.merge != NULL)
			kinds[i].k.merge(l);
}

/* ---- paths ------------------------------------------------------------ */

/* Called on each element a path reaches, with the name it gives. */
typedef int (*each_fn)(void *ctx, const struct cpl_ynode *el,
		       const char *name);

/*
 * Follows path (see struct kplace) from n, calling fn on each element it
 * ends at; name is the element name so far.  An absent key ends the walk
 * there; a wrong type where a mapping or list must be is an error.
 */
static int
walk_path(const struct cpl_lctx *x, const struct cpl_ynode *n,
	  const char *path, const char *name, const char *name_key,
	  each_fn fn, void *ctx)
{
	char seg[64];
	const char *dot = strchr(path, '.');
	const char *rest = dot ? dot + 1 : "";
	size_t len = dot ? (size_t)(dot - path) : strlen(path), i;
	const struct cpl_ynode *v;

	if (*path == '\0')
		return fn(ctx, n, name);
	if (len >= sizeof(seg))
		return 0;
	memcpy(seg, path, len);
	seg[len] = '\0';
	if (seg[0] == '*' && n->kind != CPL_Y_MAP)
		return 0;
	if (strcmp(seg, "*") == 0) {
		for (i = 0; i < n->count; i++) {
			const struct cpl_ypair *p = &n->pairs[i];

			if (cpl_loader_absent(p->value))
				continue;
			if (p->value->kind != CPL_Y_MAP)
				return cpl_loader_fail(x->err, x->path, p->value,
					"%s must be a mapping",
					cpl_ynode_str(p->key) ?
					cpl_ynode_str(p->key) : "a value");
			if (walk_path(x, p->value, rest,
				      cpl_ynode_str(p->key), name_key, fn,
				      ctx) < 0)
				return -1;
		}
		return 0;
	}
	if (seg[0] == '*') {
		for (i = 0; i < n->count; i++) {
			const struct cpl_ypair *p = &n->pairs[i];
			const char *k = cpl_ynode_str(p->key);

			if (k == NULL || !cpl_str_ends(k, seg + 1) ||
			    cpl_loader_absent(p->value))
				continue;
			if (p->value->kind != CPL_Y_MAP)
				return cpl_loader_fail(x->err, x->path, p->value,
					"%s must be a mapping", k);
			return walk_path(x, p->value, rest, name, name_key,
					 fn, ctx);
		}
		return 0;
	}
	if (len > 2 && strcmp(seg + len - 2, "[]") == 0) {
		seg[len - 2] = '\0';
		v = cpl_ynode_get(n, seg);
		if (cpl_loader_absent(v))
			return 0;
		if (v->kind != CPL_Y_SEQ)
			return cpl_loader_fail(x->err, x->path, v,
				       "%s must be a list", seg);
		for (i = 0; i < v->count; i++) {
			const struct cpl_ynode *it = v->items[i];

			if (it->kind != CPL_Y_MAP)
				return cpl_loader_fail(x->err, x->path, it,
					"%s items must be mappings", seg);
			if (walk_path(x, it, rest, cpl_ynode_gets(it,
				      name_key ? name_key : "name"),
				      name_key, fn, ctx) < 0)
				return -1;
		}
		return 0;
	}
	v = cpl_ynode_get(n, seg);
	if (cpl_loader_absent(v))
		return 0;
	if (v->kind != CPL_Y_MAP && *rest != '\0')
		return cpl_loader_fail(x->err, x->path, v, "%s must be a mapping",
			       seg);
	return walk_path(x, v, rest, name, name_key, fn, ctx);
}

/* The node at a plain dotted path from n, or NULL. */
static const struct cpl_ynode *
get_path(const struct cpl_ynode *n, const char *path)
{
	char seg[64];

	while (n != NULL && *path != '\0') {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);

		if (len >= sizeof(seg))
			return NULL;
		memcpy(seg, path, len);
		seg[len] = '\0';
		n = cpl_ynode_get(n, seg);
		path += len + (dot != NULL);
	}
	return n;
}

/* The Pod template holding the Pod spec at pod from el (its metadata
 * carries annotations): el itself when pod is "", else the path without
 * its last key; NULL when that is the object. */
static const struct cpl_ynode *
template_at(const struct cpl_ynode *el, const char *pod)
{
	const char *last = strrchr(pod, '.');
	char buf[128];
	size_t n;

	if (*pod == '\0')
		return el;
	if (last == NULL)
		return NULL;
	n = (size_t)(last - pod);
	if (n >= sizeof(buf))
		return NULL;
	memcpy(buf, pod, n);
	buf[n] = '\0';
	return get_path(el, buf);
}

/* The product of the counts at paths (',' between) from el. */
static long
count_at(const struct cpl_ynode *el, const char *paths)
{
	char buf[128];
	const char *p = paths;
	long total = 1;

	while (p != NULL && *p != '\0') {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		const char *dot;
		const struct cpl_ynode *m;

		if (n >= sizeof(buf))
			break;
		memcpy(buf, p, n);
		buf[n] = '\0';
		dot = strrchr(buf, '.');
		if (dot != NULL) {
			buf[dot - buf] = '\0';
			m = get_path(el, buf);
			total *= cpl_loader_long(m, dot + 1, 1);
		} else {
			total *= cpl_loader_long(el, buf, 1);
		}
		p = comma ? comma + 1 : NULL;
	}
	return total;
}

/* ---- loading a row ---------------------------------------------------- */

/* One object being read by its row. */
struct rowload {
	const struct cpl_lctx *x;
	const struct cpl_ynode *obj;
	const char *kind;
	const struct kind_row *row;
	const struct kplace *place;
	const struct cpl_ynode *nproc;	/* the row's rank count node */
	const struct cpl_ynode *volumes;	/* the Pods' volumes where the
						 * row keeps them apart */
	const struct cpl_ynode *defaults;	/* what each main container
						 * is read over */
	size_t made;			/* workloads made */
	size_t nested;			/* objects loaded from inside */
};

/* Records the row's rank count on w; false when there is none. */
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

/* One element of a place: a workload from its Pod spec, if it has one. */
static int
on_element(void *ctx, const struct cpl_ynode *el, const char *name)
{
	struct rowload *rl = ctx;
	const struct cpl_lctx *x = rl->x;
	const struct kplace *pl = rl->place;
	const struct kind_row *r = rl->row;
	const struct cpl_ynode *pod = el;
	struct cpl_podread how;
	struct cpl_workload *w;
	size_t i;

	if (*pl->pod != '\0') {
		char buf[128];
		const char *keys[9];
		size_t n = 0;
		char *p, *dot;

		if (strlen(pl->pod) >= sizeof(buf))
			return 0;
		memcpy(buf, pl->pod, strlen(pl->pod) + 1);
		for (p = buf; p != NULL && n + 1 < CPL_ARRAY_LEN(keys);
		     p = dot ? dot + 1 : NULL) {
			dot = strchr(p, '.');
			if (dot)
				*dot = '\0';
			keys[n++] = p;
		}
		keys[n] = NULL;
		if (cpl_manifest_walk(&pod, el, keys, x->path, x->err) < 0)
			return -1;
	}
	if (pod == NULL)
		return 0;
	w = cpl_manifest_workload(rl->obj, rl->kind,
				  template_at(el, pl->pod), x->path);
	if (*w->name == '\0' && x->holder != NULL) {
		free(w->name);
		w->name = cpl_xstrdup(x->holder);
	}
	if (name == NULL)
		name = pl->replica;
	w->replica = cpl_xstrdup(name);
	w->replicas = count_at(el, pl->replicas);
	w->training_job = pl->role == KROLE_JOB;
	w->torch_kind = r->k.launch == CPL_KLAUNCH_TORCHRUN;
	w->by_evidence = pl->role == KROLE_EVIDENCE;
	w->run_to_completion = r->done == KDONE_COMPLETES ||
		(r->done == KDONE_BY_POD &&
		 cpl_loader_pod_completes(rl->obj, pod));
	if (pl->role == KROLE_NEVER)
		w->note = r->never;
	if (r->nproc != NULL && !set_nproc(w, rl->nproc) && r->nproc_auto)
		w->nproc_default_auto = true;
	how.shape = pl->shape;
	how.job = pl->role == KROLE_JOB;
	how.run = r->k.run;
	how.volumes = rl->volumes;
	how.defaults = rl->defaults;
	if (cpl_manifest_pod(w, x->s, pod, &how, x->path, x->err) < 0) {
		cpl_workload_free(w);
		return -1;
	}
	/* An Argo steps, dag or resource template, a Tekton task of
	 * custom runs: no Pod of containers. */
	if (w->ncontainers == 0 && pl->shape != CPL_POD_K8S) {
		cpl_workload_free(w);
		return 0;
	}
	if (pl->role == KROLE_NEVER)
		for (i = 0; i < w->ncontainers; i++)
			w->containers[i].not_training = true;
	if (r->after != NULL)
		r->after(w, rl->obj);
	cpl_wlist_add(x->out, w);
	rl->made++;
	return 0;
}

/* What an element of a nested path holds: an object, or a string. */
static int
on_nested(void *ctx, const struct cpl_ynode *n, const char *name)
{
	struct rowload *rl = ctx;
	int got;

	(void)name;
	got = cpl_nested_load(rl->x, n, rl->kind);
	if (got < 0)
		return -1;
	rl->nested += (size_t)got;
	return 0;
}

/* Loads obj as its row says. */
static int
load_row(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	 const char *kind, const struct kind_row *r)
{
	struct rowload rl = { x, obj, kind, r, NULL, NULL, NULL, NULL, 0, 0 };
	size_t first = x->out->count, nfirst, i;
	char buf[256];
	int rc;

	if (r->load != NULL) {
		rc = r->load(x, obj, kind);
		/* Its own workloads (not those of objects it holds) take
		 * the row's launcher. */
		for (i = first; rc == 0 && i < x->out->count; i++)
			if (cpl_str_eq(x->out->items[i]->kind, r->k.kind))
				x->out->items[i]->torch_kind =
					r->k.launch == CPL_KLAUNCH_TORCHRUN;
		return rc;
	}
	if (r->nproc != NULL) {
		const char *p = r->nproc;

		while (rl.nproc == NULL && p != NULL) {
			const char *bar = strchr(p, '|');
			size_t n = bar ? (size_t)(bar - p) : strlen(p);

			if (n < sizeof(buf)) {
				memcpy(buf, p, n);
				buf[n] = '\0';
				rl.nproc = get_path(obj, buf);
				if (cpl_loader_absent(rl.nproc))
					rl.nproc = NULL;
			}
			p = bar ? bar + 1 : NULL;
		}
	}
	if (r->volumes != NULL)
		rl.volumes = get_path(obj, r->volumes);
	if (r->defaults != NULL)
		rl.defaults = get_path(obj, r->defaults);
	for (i = 0; i < CPL_ARRAY_LEN(r->places) && r->places[i].each; i++) {
		rl.place = &r->places[i];
		if (walk_path(x, obj, r->places[i].each, NULL,
			      r->places[i].name_key, on_element, &rl) < 0)
			return -1;
	}
	if (r->after_all != NULL)
		r->after_all(x->out, first);
	nfirst = x->out->count;
	for (i = 0; r->nested != NULL && r->nested[i] != '\0';) {
		const char *bar = strchr(r->nested + i, '|');
		size_t n = bar ? (size_t)(bar - r->nested - i) :
				 strlen(r->nested + i);
		struct cpl_lctx in = *x;

		if (n >= sizeof(buf))
			break;
		memcpy(buf, r->nested + i, n);
		buf[n] = '\0';
		in.depth = x->depth + 1;
		if (cpl_ynode_gets(cpl_ynode_get(obj, "metadata"), "name"))
			in.holder = cpl_ynode_gets(cpl_ynode_get(obj,
						"metadata"), "name");
		else if (cpl_ynode_gets(cpl_ynode_get(obj, "metadata"),
					"generateName"))
			in.holder = cpl_ynode_gets(cpl_ynode_get(obj,
						"metadata"), "generateName");
		rl.x = &in;
		if (walk_path(&in, obj, buf, NULL, NULL, on_nested, &rl) < 0)
			return -1;
		rl.x = x;
		i += n + (bar != NULL);
	}
	if (r->trains_in != NULL && (r->trains_pods == NULL ||
				     cpl_loader_absent(get_path(obj,
							r->trains_pods)))) {
		const struct cpl_ynode *p = get_path(obj, r->trains_in);

		trial_trains(x->out, nfirst, cpl_ynode_is_scalar(p) &&
			     !cpl_ynode_is_null(p) && p->len > 0 ?
			     p->value : NULL);
	}
	if (rl.made > 0 || rl.nested > 0)
		return 0;
	/* Nothing where the row looks: another shape of the kind, read as
	 * any object is. */
	if (cpl_loader_holds_containers(cpl_ynode_get(obj, "spec")))
		return cpl_generic_load(x, obj, kind);
	cpl_loader_skip(x, obj, kind, r->none ? r->none : "not a workload",
			false);
	return 0;
}

/* ---- LeaderWorkerSet -------------------------------------------------- */

/* A LeaderWorkerSet's Pod spec: Kubernetes', no run container. */
static const struct cpl_podread lws_pod = { CPL_POD_K8S, false, NULL, NULL,
					    NULL };

/* One Pod template of a LeaderWorkerSet as a workload. */
static int
lws_template(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	     const struct cpl_ynode *tmpl, const char *replica,
	     long replicas)
{
	static const char *const k_spec[] = { "spec", NULL };
	const struct cpl_ynode *pod;
	struct cpl_workload *w;

	if (cpl_manifest_walk(&pod, tmpl, k_spec, x->path, x->err) < 0)
		return -1;
	if (pod == NULL)
		return 0;
	w = cpl_manifest_workload(obj, "LeaderWorkerSet", tmpl, x->path);
	w->replica = cpl_xstrdup(replica);
	w->replicas = replicas;
	if (cpl_manifest_pod(w, x->s, pod, &lws_pod, x->path, x->err) < 0)
		return cpl_loader_finish(x->out, w, -1);
	cpl_loader_mpi(w, false);
	return cpl_loader_finish(x->out, w, 0);
}

/*
 * A LeaderWorkerSet (leaderworkerset.x-k8s.io): replicas groups of size
 * Pods, one leader each.  Without a leaderTemplate the leader is made
 * from the workerTemplate too.  It keeps its Pods running: a server.
 */
static int
load_lws(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	 const char *kind)
{
	static const char *const k_lwt[] = { "spec", "leaderWorkerTemplate",
					     NULL };
	const struct cpl_ynode *lwt, *leader, *worker;
	long groups = cpl_loader_long(cpl_ynode_get(obj, "spec"), "replicas",
				      1);
	long size;

	if (cpl_manifest_walk(&lwt, obj, k_lwt, x->path, x->err) < 0)
		return -1;
	leader = cpl_ynode_get(lwt, "leaderTemplate");
	worker = cpl_ynode_get(lwt, "workerTemplate");
	size = cpl_loader_long(lwt, "size", 1);
	if (cpl_loader_absent(worker)) {
		cpl_loader_skip(x, obj, kind, "no workerTemplate", false);
		return 0;
	}
	if (cpl_loader_absent(leader))
		return lws_template(x, obj, worker, "worker", groups * size);
	if (lws_template(x, obj, leader, "leader", groups) < 0)
		return -1;
	if (size < 2)
		return 0;
	return lws_template(x, obj, worker, "worker", groups * (size - 1));
}

/* ---- lists and the entry point ---------------------------------------- */

/*
 * A List (kubectl get -o yaml) or a typed list (PodList, whose items may
 * omit apiVersion and kind): each item is an object.
 */
static int
load_list(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	  const char *kind, const char *api)
{
	const struct cpl_ynode *items = cpl_ynode_get(obj, "items");
	struct cpl_lctx in = *x;
	char *item_kind = NULL;
	size_t i;
	int rc = 0;

	if (cpl_loader_absent(items))
		return 0;
	if (items->kind != CPL_Y_SEQ)
		return cpl_loader_fail(x->err, x->path, items,
				       "items must be a list");
	if (strcmp(kind, "List") != 0)
		item_kind = cpl_xstrndup(kind, strlen(kind) - 4);
	in.depth = x->depth + 1;
	for (i = 0; i < items->count && rc == 0; i++) {
		if (items->items[i]->kind != CPL_Y_MAP) {
			rc = cpl_loader_fail(x->err, x->path, items->items[i],
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
			rc = cpl_loader_fail(x->err, x->path, items->items[i],
				"list item without kind or apiVersion: "
				"neither it nor the %s names one", kind);
			break;
		}
		rc = cpl_kinds_load(&in, items->items[i], item_kind, api);
	}
	free(item_kind);
	return rc;
}

int
cpl_kinds_load(const struct cpl_lctx *x, const struct cpl_ynode *obj,
	       const char *kind_hint, const char *api_hint)
{
	const char *kind = cpl_ynode_gets(obj, "kind");
	const char *api = cpl_ynode_gets(obj, "apiVersion");
	const struct kind_row *r;

	if (kind == NULL)
		kind = kind_hint;
	if (api == NULL)
		api = api_hint;
	if (kind == NULL || api == NULL) {
		cpl_wlist_skip(x->out, x->path, obj->line, obj->column,
			       "no apiVersion or kind", "an object");
		return 0;
	}
	if (x->depth > CPL_LOADER_MAX_DEPTH) {
		cpl_loader_skip(x, obj, kind, "nested too deep",
				cpl_loader_holds_containers(obj));
		return 0;
	}
	if (strcmp(kind, "List") == 0 ||
	    (cpl_str_ends(kind, "List") &&
	     cpl_ynode_is_seq(cpl_ynode_get(obj, "items"))))
		return load_list(x, obj, kind, api);
	r = find_row(api, kind);
	if (r != NULL)
		return load_row(x, obj, kind, r);
	return cpl_generic_load(x, obj, kind);
}

int
cpl_manifest_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		  const struct cpl_ynode *doc, const char *path,
		  struct cpl_error *err)
{
	struct cpl_lctx x = { out, s, path, 0, NULL, err };

	if (!cpl_manifest_detect(doc))
		return 0;
	return cpl_kinds_load(&x, doc, NULL, NULL);
}
