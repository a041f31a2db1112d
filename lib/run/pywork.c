/*
 * pywork.c — workloads declared in Python: a Flyte @task, a Kubeflow
 * Pipelines v2 component and the tasks a @dsl.pipeline makes of it, a
 * Metaflow step with @kubernetes or @resources, a Ray Train
 * TorchTrainer's workers, a ZenML @step with ResourceSettings.  The
 * decorator (or the call) is the workload and its container; the
 * function is the code the container runs.
 *
 * What each framework does with what it is given, read in its own code:
 *  - flytekit: requests=/limits= Resources(cpu=, gpu=); a missing limit
 *    takes the request and no resources at all take the platform's task
 *    resource defaults (flytepropeller), so CPU101 is a note there.
 *    task_config=PyTorch(...) is a PyTorchJob of one process per replica
 *    that sets no thread variable; Elastic(nnodes, nproc_per_node) runs
 *    torch's elastic_launch and sets OMP_NUM_THREADS=1 when it is unset
 *    and nproc_per_node > 1, as torchrun does (flytekitplugins-kfpytorch
 *    task.py, PytorchElasticFunctionTask._execute); both mount a memory
 *    /dev/shm unless increase_shared_mem=False; MPIJob(slots=) (and
 *    HorovodJob) runs that many ranks per worker; TfJob one process per
 *    replica.  Another plugin's task_config (Slurm, Spark, Ray,
 *    Databricks, a Pod spec) runs elsewhere or in a shape the file does
 *    not show: no workload.
 *  - KFP v2: a task's .set_cpu_limit/.set_cpu_request/
 *    .set_accelerator_limit (.set_gpu_limit)/.set_env_variable, chained
 *    or on the variable the task is bound to; the component's function
 *    is all the code KFP ships (its imports are inside it).
 *  - Metaflow: a step with @kubernetes(cpu=, gpu=, shared_memory=) or
 *    @resources (the larger of the two wins; either alone requests 1
 *    CPU, their default); a request, no limit unless qos="Guaranteed";
 *    shared_memory (MiB) mounts /dev/shm; @torchrun and
 *    @pytorch_parallel make it train by kind.
 *  - Ray Train: each of ScalingConfig's num_workers is a process with
 *    resources_per_worker's CPUs (1 by default), and Ray sets its
 *    OMP_NUM_THREADS to them when unset (ray/_private/utils.py
 *    set_omp_num_threads_if_unset), so the worker's CPUs are its budget.
 *  - ZenML: ResourceSettings(cpu_count=, gpu_count=) in a step's
 *    settings["resources"]: the budget (the Kubeflow orchestrator makes
 *    it the limit, the Trainer one request and limit).
 * A pipeline or workflow function only wires steps: no workload.  A value
 * the file does not fix (a name bound elsewhere, a call) is never
 * guessed: the declaration is listed as not judged, with why.
 *
 * The code of a workload is the file laid at its lines (script_py) with
 * every def and class its function does not reach blanked (a KFP
 * component: everything but its function; pywork_py.c), so each task is
 * judged on its own function and what it calls; the code rules judge the
 * file itself, once (w->py_declared).
 *
 * Any thread (the pipeline's): reads only the text it is given.
 * Ownership: workloads and skips go to out; nothing is kept.
 */
#include "run/pywork_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "python/pyscan.h"

/* The framework a file imports. */
enum fw {
	FW_NONE,
	FW_FLYTE,
	FW_KFP,
	FW_METAFLOW,
	FW_RAY,
	FW_ZENML,
};

/* ---- Flyte ---- */

/* One Flyte @task on def s (decorator d). */
static void
flyte_task(struct cpl_pyw_rd *r, size_t s, const struct cpl_pyw_deco *d)
{
	const char *name = r->f->scopes[s].name, *why = NULL, *kind;
	const struct cpl_pyarg *a;
	int64_t req = 0, lim = 0;
	enum cpl_pyw_vstate rs = CPL_PYW_ABSENT, ls = CPL_PYW_ABSENT;
	struct cpl_pos rpos = d->pos, lpos = d->pos;
	long gpus = 0;
	int cfg = -1, k;
	const char *cfgname = NULL;
	bool tmpl;
	struct cpl_workload *w;
	struct cpl_container *c;

	if (d->call >= 0 && cpl_pyw_spread(r, d->call)) {
		cpl_pyw_not_judged(r, "Flyte task", name, d->pos,
			   "its arguments are passed through **kwargs");
		return;
	}
	if ((a = cpl_pyw_kwarg(r, d->call, "requests")) != NULL) {
		k = cpl_pyw_expr_call(r, &a->value, 0);
		if (k < 0 || !cpl_pyw_ends_name(r->f->calls[k].target, "Resources"))
			why = "its requests are not a Resources(...) the file "
			      "fixes";
		else
			(void)cpl_pyw_read_res(r, k, "cpu", "gpu", false, &req, &rs,
				       &rpos, &gpus, &why);
	}
	if (why == NULL && (a = cpl_pyw_kwarg(r, d->call, "limits")) != NULL) {
		k = cpl_pyw_expr_call(r, &a->value, 0);
		if (k < 0 || !cpl_pyw_ends_name(r->f->calls[k].target, "Resources"))
			why = "its limits are not a Resources(...) the file "
			      "fixes";
		else
			(void)cpl_pyw_read_res(r, k, "cpu", "gpu", false, &lim, &ls,
				       &lpos, &gpus, &why);
	}
	if (why == NULL && (a = cpl_pyw_kwarg(r, d->call, "task_config")) != NULL) {
		cfg = cpl_pyw_expr_call(r, &a->value, 0);
		if (cfg >= 0 && cpl_pyw_ends_name(r->f->calls[cfg].target, "PyTorch"))
			cfgname = "PyTorch";
		else if (cfg >= 0 &&
			 cpl_pyw_ends_name(r->f->calls[cfg].target, "Elastic"))
			cfgname = "Elastic";
		else if (cfg >= 0 &&
			 (cpl_pyw_ends_name(r->f->calls[cfg].target, "MPIJob") ||
			  cpl_pyw_ends_name(r->f->calls[cfg].target, "HorovodJob")))
			cfgname = "MPIJob";
		else if (cfg >= 0 &&
			 cpl_pyw_ends_name(r->f->calls[cfg].target, "TfJob"))
			cfgname = "TfJob";
		else if (cpl_pyw_tok_is(r, a->value.first, CPL_PYTOK_KEYWORD,
				"None") && a->value.last == a->value.first + 1)
			cfg = -1;	/* a plain task */
		else if (cfg < 0)
			why = "its task_config is a value the file does not "
			      "fix";
		else
			/* Another plugin's (Slurm, Spark, Ray, Databricks,
			 * a Pod spec ...): it runs elsewhere or in a shape
			 * the file does not show, no container of ours. */
			return;
	}
	/* A pod template may give the primary container its CPU, env and
	 * volumes; the task's own requests and limits win over it. */
	tmpl = cpl_pyw_kwarg(r, d->call, "pod_template") != NULL ||
	       cpl_pyw_kwarg(r, d->call, "pod_template_name") != NULL;
	if (why == NULL && tmpl && rs == CPL_PYW_ABSENT &&
	    ls == CPL_PYW_ABSENT)
		why = "its pod template may set its CPU";
	if (why != NULL) {
		cpl_pyw_not_judged(r, "Flyte task", name, d->pos, why);
		return;
	}
	kind = cfgname == NULL ? "Flyte task" :
	       cpl_str_eq(cfgname, "PyTorch") ? "Flyte PyTorch task" :
	       cpl_str_eq(cfgname, "Elastic") ? "Flyte Elastic task" :
	       cpl_str_eq(cfgname, "TfJob") ? "Flyte TFJob task" :
	       "Flyte MPI task";
	w = cpl_pyw_new_workload(r, kind, name, NULL, name, d->pos,
			 "read by the Flyte reader: the task function is "
			 "the code; a missing limit takes the request");
	c = &w->containers[0];
	w->platform_cpu = true;
	/* flytepropeller: a missing limit takes the request; Kubernetes: a
	 * missing request takes the limit. */
	if (rs == CPL_PYW_KNOWN && ls == CPL_PYW_ABSENT) {
		lim = req;
		lpos = rpos;
		ls = CPL_PYW_KNOWN;
	}
	cpl_pyw_set_cpu(w, c, req, rs, rpos, lim, ls, lpos);
	c->gpus = gpus;
	if ((a = cpl_pyw_kwarg(r, d->call, "container_image")) != NULL)
		c->image = cpl_pyw_str_lit(r, a->value.first);
	if ((a = cpl_pyw_kwarg(r, d->call, "environment")) != NULL &&
	    !cpl_pyw_read_env(r, c, w, &a->value))
		c->env_from = true;	/* env the file does not show */
	if ((a = cpl_pyw_kwarg(r, d->call, "shared_memory")) != NULL &&
	    !cpl_pyw_tok_is(r, a->value.first, CPL_PYTOK_KEYWORD, "False") &&
	    !cpl_pyw_tok_is(r, a->value.first, CPL_PYTOK_KEYWORD, "None")) {
		c->shm = true;
		c->shm_bytes = -1;
	}
	if (tmpl) {
		c->env_from = true;	/* env the template may add */
		w->platform_shm = true;	/* and a /dev/shm it may mount */
	}
	if (cfgname != NULL) {
		/* A Kubeflow job the plugin makes: its replicas run the
		 * task function, PyTorch whatever the code shows. */
		w->training_job = true;
		c->run_container = true;
		a = cpl_pyw_kwarg(r, cfg, "increase_shared_mem");
		if ((cpl_str_eq(cfgname, "PyTorch") ||
		     cpl_str_eq(cfgname, "Elastic")) &&
		    (a == NULL || !cpl_pyw_tok_is(r, a->value.first,
					  CPL_PYTOK_KEYWORD, "False"))) {
			c->shm = true;
			c->shm_bytes = -1;
		}
	}
	if (cpl_str_eq(cfgname, "Elastic")) {
		/* elastic_launch, with torchrun's OMP_NUM_THREADS rule. */
		a = cpl_pyw_kwarg(r, cfg, "nproc_per_node");
		c->launch.launcher = CPL_LAUNCH_TORCHRUN;
		c->launch.launcher_word.text = cpl_xstrdup("elastic_launch");
		c->launch.launcher_word.pos = cpl_pyw_at(w, r->f->calls[cfg].pos);
		c->launch.has_nproc = true;
		if (a == NULL) {
			c->launch.nproc.text = cpl_xstrdup("1");
			c->launch.nproc.pos = cpl_pyw_at(w, r->f->calls[cfg].pos);
		} else {
			long n = cpl_pyw_count(r, &a->value);

			c->launch.nproc.text = n > 0 ?
				cpl_xasprintf("%ld", n) :
				cpl_xstrdup("(unknown)");
			c->launch.nproc.pos = cpl_pyw_at(w, a->value.pos);
		}
	} else if (cpl_str_eq(cfgname, "MPIJob")) {
		long n = 1;

		a = cpl_pyw_kwarg(r, cfg, "slots");
		if (a != NULL)
			n = cpl_pyw_count(r, &a->value);
		c->has_slots = true;
		c->slots.text = n > 0 ? cpl_xasprintf("%ld", n) : NULL;
		c->slots.pos = cpl_pyw_at(w, a ? a->value.pos : r->f->calls[cfg].pos);
		c->slots_from = "MPIJob slots";
	}
	cpl_pyw_keep_code(r, c, s, false);
	cpl_pyw_emit(r, w);
}

static void
read_flyte(struct cpl_pyw_rd *r)
{
	size_t s;

	for (s = 1; s < r->f->nscopes; s++)
		r->decl[s] = cpl_pyw_deco_of(r, s, "flytekit", "task") != NULL;
	for (s = 1; s < r->f->nscopes; s++)
		if (r->decl[s] &&
		    r->f->scopes[s].kind == CPL_PYSCOPE_FUNC)
			flyte_task(r, s, cpl_pyw_deco_of(r, s, "flytekit", "task"));
}

/* ---- Kubeflow Pipelines v2 DSL ---- */

/* A task of a pipeline: the component call and what its setters say. */
struct ktask {
	int call;		/* the component call */
	const char *var;	/* the name it is bound to, or NULL */
	size_t comp;		/* the component's scope */
	struct cpl_workload *w;
	const char *why;	/* not judged: why; NULL */
};

/* The task call k stands for (the component call itself, a setter on
 * it, chained, or the variable bound to it); -1 when none. */
static int
ktask_of(const struct cpl_pyw_rd *r, const struct ktask *ts, size_t nt, int k,
	 int depth)
{
	const struct cpl_pycall *c = &r->f->calls[k];
	const char *dot;
	size_t i, open = c->open;

	for (i = 0; i < nt; i++)
		if (ts[i].call == k)
			return (int)i;
	if (depth > 16 || (dot = strrchr(c->callee, '.')) == NULL)
		return -1;
	if (dot == c->callee) {
		/* chained: RECEIVER(...).method( */
		size_t close;

		if (open < 3 || !cpl_pyw_tok_is(r, open - 3, CPL_PYTOK_OP, ")"))
			return -1;
		close = open - 3;
		for (i = 0; i < r->f->ncalls; i++)
			if (r->f->calls[i].close == close)
				return ktask_of(r, ts, nt, (int)i, depth + 1);
		return -1;
	}
	/* var.method(: the last task bound to var before this call */
	for (i = nt; i-- > 0;)
		if (ts[i].var != NULL && ts[i].call < k &&
		    strlen(ts[i].var) == (size_t)(dot - c->callee) &&
		    strncmp(ts[i].var, c->callee,
			    (size_t)(dot - c->callee)) == 0)
			return (int)i;
	return -1;
}

/* Applies setter call k to task t. */
static void
ktask_set(const struct cpl_pyw_rd *r, struct ktask *t, int k,
	  const char *method)
{
	struct cpl_container *c = &t->w->containers[0];
	const struct cpl_pyarg *a = cpl_pyw_posarg(r, k, 0);
	int64_t v = 0;
	enum cpl_pyw_vstate st;

	if (t->why != NULL)
		return;
	if (cpl_str_eq(method, "set_cpu_limit") ||
	    cpl_str_eq(method, "set_cpu_request")) {
		bool limit = cpl_str_eq(method, "set_cpu_limit");

		if (a == NULL)
			a = cpl_pyw_kwarg(r, k, "cpu");
		st = cpl_pyw_amount(r, a ? &a->value : NULL, &v, false, 0);
		if (st == CPL_PYW_UNKNOWN) {
			t->why = "its CPU is a value the file does not fix (a "
				 "pipeline parameter)";
			return;
		}
		if (st != CPL_PYW_KNOWN)
			return;
		cpl_pyw_set_cpu(t->w, c, v, limit ? CPL_PYW_ABSENT : CPL_PYW_KNOWN,
			a->value.pos, v, limit ? CPL_PYW_KNOWN : CPL_PYW_ABSENT,
			a->value.pos);
		c->resources_pos = cpl_pyw_at(t->w, r->f->calls[k].pos);
	} else if (cpl_str_eq(method, "set_accelerator_limit") ||
		   cpl_str_eq(method, "set_gpu_limit")) {
		if (a == NULL)
			a = cpl_pyw_kwarg(r, k, "limit");
		st = cpl_pyw_amount(r, a ? &a->value : NULL, &v, true, 0);
		/* A parameter: at least one, as the IR reader counts it. */
		c->gpus = st == CPL_PYW_KNOWN ? (long)v : st == CPL_PYW_UNKNOWN ? 1 : 0;
	} else if (cpl_str_eq(method, "set_env_variable")) {
		const struct cpl_pyarg *n = a ? a : cpl_pyw_kwarg(r, k, "name");
		const struct cpl_pyarg *val = cpl_pyw_posarg(r, k, 1);
		char *name, *value = NULL;

		if (val == NULL)
			val = cpl_pyw_kwarg(r, k, "value");
		if (n == NULL || (name = cpl_pyw_str_lit(r, n->value.first)) == NULL ||
		    n->value.last - n->value.first != 1) {
			c->env_from = true;
			return;
		}
		if (val != NULL && val->value.last - val->value.first == 1)
			value = cpl_pyw_str_lit(r, val->value.first);
		cpl_container_set_env(c, name, value,
				      cpl_pyw_at(t->w, value ? val->value.pos :
					 r->f->calls[k].pos));
		free(name);
		free(value);
	}
}

/* Call k is a kfp-kubernetes call on the task t that name stands for:
 * empty_dir_mount(NAME, ..., mount_path="/dev/shm") makes its /dev/shm
 * memory-backed, use_config_map_as_env / use_secret_as_env give it env
 * the file does not show.  Whether it was one. */
static bool
kfp_shm(const struct cpl_pyw_rd *r, struct ktask *t, int k, const char *name)
{
	const struct cpl_pyarg *a = cpl_pyw_posarg(r, k, 0);
	const struct cpl_pyarg *m = cpl_pyw_kwarg(r, k, "mount_path");
	char *mp;
	bool yes;

	const char *tg = r->f->calls[k].target;

	if (a == NULL)
		a = cpl_pyw_kwarg(r, k, "task");
	if (a == NULL || a->value.last - a->value.first != 1 ||
	    !cpl_pyw_tok_is(r, a->value.first, CPL_PYTOK_NAME, name))
		return false;
	/* Env from a ConfigMap or Secret: names the file does not see. */
	if (cpl_pyw_ends_name(tg, "use_config_map_as_env") ||
	    cpl_pyw_ends_name(tg, "use_secret_as_env")) {
		t->w->containers[0].env_from = true;
		return true;
	}
	if (m == NULL || !cpl_pyw_ends_name(tg, "empty_dir_mount"))
		return false;
	mp = cpl_pyw_str_lit(r, m->value.first);
	yes = cpl_str_eq(mp, "/dev/shm") || cpl_str_eq(mp, "/dev/shm/");
	free(mp);
	if (yes) {
		t->w->containers[0].shm = true;
		t->w->containers[0].shm_bytes = -1;
	}
	return true;
}

/*
 * A task handed to call k as a whole (a name bound to it): a local def
 * that configures it (`_configure_gpu_step(task, 2)`) has its setters on
 * that parameter read as the task's; a helper the file does not hold may
 * set anything, so the task is not judged; KFP's own kubernetes helpers
 * (tolerations, secrets, node selectors) set no CPU.
 */
static void
kfp_passed(const struct cpl_pyw_rd *r, struct ktask *ts, size_t nt, int k)
{
	const struct cpl_pycall *c = &r->f->calls[k];
	size_t i, j, npos = 0;

	for (i = 0; i < c->nargs; i++) {
		const struct cpl_pyarg *a = &c->args[i];
		const struct cpl_pyscope *fn;
		const char *param = NULL;
		struct ktask *t = NULL;

		if (a->keyword == NULL && !a->star)
			npos++;
		if (a->star || a->value.last - a->value.first != 1)
			continue;
		for (j = nt; j-- > 0;)
			if (ts[j].var != NULL && ts[j].call < k &&
			    cpl_pyw_tok_is(r, a->value.first, CPL_PYTOK_NAME,
				   ts[j].var)) {
				t = &ts[j];
				break;
			}
		if (t == NULL || t->why != NULL)
			continue;
		if (c->func <= 0) {
			/* A task's own method (.after(t)), a list's
			 * append, KFP's helpers: none sets resources. */
			if (c->import >= 0 &&
			    !cpl_str_starts(c->target, "kfp.") &&
			    ktask_of(r, ts, nt, k, 0) < 0)
				t->why = "it is handed to a helper the file "
					 "does not hold, which may set its "
					 "resources";
			continue;
		}
		fn = &r->f->scopes[c->func];
		if (a->keyword != NULL)
			param = a->keyword;
		else if (npos - 1 < fn->nparams && fn->params[npos - 1].star ==
			 0)
			param = fn->params[npos - 1].name;
		if (param == NULL) {
			t->why = "it is handed to a helper whose parameter "
				 "the file does not fix";
			continue;
		}
		for (j = 0; j < fn->ncalls; j++) {
			const struct cpl_pycall *h = &r->f->calls[fn->calls[j]];
			const char *dot = strrchr(h->callee, '.');

			if (kfp_shm(r, t, (int)fn->calls[j], param))
				continue;
			if (dot != NULL &&
			    (size_t)(dot - h->callee) == strlen(param) &&
			    strncmp(h->callee, param, strlen(param)) == 0)
				ktask_set(r, t, (int)fn->calls[j], dot + 1);
		}
	}
}

/* One @dsl.pipeline function s: its tasks become workloads. */
static void
kfp_pipeline(struct cpl_pyw_rd *r, size_t s)
{
	const struct cpl_pyscope *sc = &r->f->scopes[s];
	struct ktask *ts = NULL;
	size_t nt = 0, cap = 0, i;

	for (i = 0; i < sc->ncalls; i++) {
		const struct cpl_pycall *c = &r->f->calls[sc->calls[i]];
		int comp;
		struct ktask *t;

		if (strchr(c->callee, '.') != NULL ||
		    (comp = cpl_pyscan_func_find(r->f, c->callee)) <= 0 ||
		    !r->decl[comp])
			continue;
		CPL_GROW(ts, cap, nt + 1);
		t = &ts[nt++];
		t->call = (int)sc->calls[i];
		t->var = c->assign >= 0 ? r->f->assigns[c->assign].name : NULL;
		t->comp = (size_t)comp;
		t->why = NULL;
		t->w = cpl_pyw_new_workload(r, "KFP task", sc->name,
				    t->var ? t->var : c->callee, c->callee,
				    c->pos, "read by the KFP DSL reader: the "
				    "component's function is the code");
	}
	for (i = 0; i < sc->ncalls && nt > 0; i++) {
		int k = (int)sc->calls[i], ti;
		const struct cpl_pycall *c = &r->f->calls[k];
		const char *dot = strrchr(c->callee, '.');

		if (cpl_pyw_ends_name(c->target, "empty_dir_mount") ||
		    cpl_pyw_ends_name(c->target, "use_config_map_as_env") ||
		    cpl_pyw_ends_name(c->target, "use_secret_as_env")) {
			size_t j;

			for (j = nt; j-- > 0;)
				if (ts[j].var != NULL && ts[j].call < k &&
				    kfp_shm(r, &ts[j], k, ts[j].var))
					break;
			continue;
		}
		kfp_passed(r, ts, nt, k);
		if (dot == NULL || (ti = ktask_of(r, ts, nt, k, 0)) < 0 ||
		    ts[ti].call == k)
			continue;
		ktask_set(r, &ts[ti], k, dot + 1);
	}
	for (i = 0; i < nt; i++) {
		struct cpl_container *c = &ts[i].w->containers[0];

		if (ts[i].why != NULL) {
			cpl_pyw_not_judged(r, "KFP task", ts[i].w->replica,
				   r->f->calls[ts[i].call].pos, ts[i].why);
			cpl_workload_free(ts[i].w);
			continue;
		}
		cpl_pyw_keep_code(r, c, ts[i].comp, true);
		cpl_pyw_emit(r, ts[i].w);
	}
	free(ts);
}

static void
read_kfp(struct cpl_pyw_rd *r)
{
	size_t s;

	for (s = 1; s < r->f->nscopes; s++)
		r->decl[s] = r->f->scopes[s].kind == CPL_PYSCOPE_FUNC &&
			      cpl_pyw_deco_of(r, s, "kfp", "component") != NULL;
	for (s = 1; s < r->f->nscopes; s++)
		if (r->f->scopes[s].kind == CPL_PYSCOPE_FUNC &&
		    cpl_pyw_deco_of(r, s, "kfp", "pipeline") != NULL)
			kfp_pipeline(r, s);
}

/* ---- Metaflow ---- */

/* One step s of flow class cls with a compute decorator. */
static void
metaflow_step(struct cpl_pyw_rd *r, size_t s, const char *cls)
{
	const struct cpl_pyw_deco *kd = cpl_pyw_deco_of(r, s, "metaflow",
							"kubernetes");
	const struct cpl_pyw_deco *rd_ = cpl_pyw_deco_of(r, s, "metaflow",
							 "resources");
	const struct cpl_pyw_deco *td = cpl_pyw_deco_of(r, s, "metaflow", "torchrun");
	const struct cpl_pyw_deco *pd = cpl_pyw_deco_of(r, s, "metaflow",
					"pytorch_parallel");
	const struct cpl_pyw_deco *src[2] = { kd, rd_ }, *ed, *dp;
	const struct cpl_pyarg *a;
	const char *name = r->f->scopes[s].name, *why = NULL;
	int64_t cpu = 0;
	enum cpl_pyw_vstate cs = CPL_PYW_ABSENT;
	struct cpl_pos cpos = { 0 };
	long gpus = 0, shm = -1;
	bool guaranteed = false;
	struct cpl_workload *w;
	struct cpl_container *c;
	size_t i;

	for (i = 0; i < 2 && why == NULL; i++) {
		int64_t v = 0;
		enum cpl_pyw_vstate st = CPL_PYW_ABSENT;
		struct cpl_pos p = { 0 };

		if (src[i] == NULL || src[i]->call < 0)
			continue;
		if (!cpl_pyw_read_res(r, src[i]->call, "cpu", "gpu", false, &v, &st,
			      &p, &gpus, &why))
			break;
		if (st == CPL_PYW_KNOWN && (cs != CPL_PYW_KNOWN || v > cpu)) {
			cpu = v;
			cpos = p;
			cs = CPL_PYW_KNOWN;
		}
		if ((a = cpl_pyw_kwarg(r, src[i]->call, "shared_memory")) != NULL) {
			long n = cpl_pyw_count(r, &a->value);

			if (n < 0 && !cpl_pyw_tok_is(r, a->value.first,
					     CPL_PYTOK_KEYWORD, "None")) {
				why = "its shared_memory is a value the file "
				      "does not fix";
				break;
			}
			if (n > shm)
				shm = n;
		}
		if (i == 0 && (a = cpl_pyw_kwarg(r, src[i]->call, "qos")) != NULL) {
			char *q = cpl_pyw_str_lit(r, a->value.first);

			/* metaflow's qos_requests_and_limits(): any case */
			guaranteed = q != NULL && strcasecmp(q,
							     "guaranteed") == 0;
			free(q);
		}
	}
	if (why != NULL) {
		cpl_pyw_not_judged(r, "Metaflow step", name, r->f->scopes[s].pos, why);
		return;
	}
	if (cs != CPL_PYW_KNOWN) {
		/* @kubernetes's and @resources' own default: cpu="1". */
		cpu = 1000;
		cpos = (kd ? kd : rd_)->pos;
		cs = CPL_PYW_KNOWN;
	}
	dp = kd ? kd : rd_;
	w = cpl_pyw_new_workload(r, "Metaflow step", cls, name, name, dp->pos,
			 "read by the Metaflow reader: the step is the code; "
			 "its CPU is a request");
	c = &w->containers[0];
	cpl_pyw_set_cpu(w, c, cpu, cs, cpos, cpu,
			guaranteed ? cs : CPL_PYW_ABSENT, cpos);
	c->gpus = gpus;
	if (shm > 0) {
		c->shm = true;
		c->shm_bytes = (int64_t)shm * 1024 * 1024;
	}
	if (td != NULL || pd != NULL) {
		w->training_job = true;
		c->run_container = true;
	}
	ed = cpl_pyw_deco_of(r, s, "metaflow", "environment");
	if (ed != NULL && (a = cpl_pyw_kwarg(r, ed->call, "vars")) != NULL &&
	    !cpl_pyw_read_env(r, c, w, &a->value))
		c->env_from = true;
	/* @metaflow_ray: the step's Pods are a Ray cluster's nodes, whose
	 * workers Ray gives OMP_NUM_THREADS (as RayCluster Pods). */
	if (cpl_pyw_deco_of(r, s, "metaflow", "metaflow_ray") != NULL) {
		c->not_training = true;
		w->note = "read by the Metaflow reader: a @metaflow_ray step, "
			  "a Ray cluster's nodes: Ray sets each worker's "
			  "OMP_NUM_THREADS, so it is no training container";
	}
	if (td != NULL)	/* its ranks and thread env are torchrun's call */
		cpl_container_set_env(c, "OMP_NUM_THREADS", NULL,
				      cpl_pyw_at(w, td->pos));
	cpl_pyw_keep_code(r, c, s, false);
	cpl_pyw_emit(r, w);
}

static void
read_metaflow(struct cpl_pyw_rd *r)
{
	size_t s;

	for (s = 1; s < r->f->nscopes; s++)
		r->decl[s] = cpl_pyw_deco_of(r, s, "metaflow", "step") != NULL;
	for (s = 1; s < r->f->nscopes; s++) {
		const struct cpl_pyscope *sc = &r->f->scopes[s];

		if (!r->decl[s] || sc->cls < 0 ||
		    strstr(r->f->scopes[sc->cls].bases, "FlowSpec") == NULL)
			continue;
		/* A step without a compute decorator may run anywhere
		 * (locally, --with kubernetes): the file says nothing of
		 * its container. */
		if (cpl_pyw_deco_of(r, s, "metaflow", "kubernetes") ||
		    cpl_pyw_deco_of(r, s, "metaflow", "resources"))
			metaflow_step(r, s, r->f->scopes[sc->cls].name);
	}
}

/* ---- Ray Train ---- */

/* One TorchTrainer(...) call k. */
static void
ray_trainer(struct cpl_pyw_rd *r, int k)
{
	const struct cpl_pycall *call = &r->f->calls[k];
	const struct cpl_pyarg *a = cpl_pyw_kwarg(r, k, "train_loop_per_worker");
	const struct cpl_pyarg *sa = cpl_pyw_kwarg(r, k, "scaling_config");
	int sc = -1, fn = -1;
	int64_t cpu = 1000, g = 0;
	long workers = 1, gpus = 0, omp;
	struct cpl_pos cpos = call->pos;
	const char *why = NULL;
	struct cpl_workload *w;
	struct cpl_container *c;
	char *fname = NULL;

	if (a == NULL)
		a = cpl_pyw_posarg(r, k, 0);
	if (a != NULL && a->value.last - a->value.first == 1 &&
	    cpl_pyw_tok_is(r, a->value.first, CPL_PYTOK_NAME, NULL)) {
		fname = cpl_xstrndup(r->f->text + r->t[a->value.first].off,
				     r->t[a->value.first].len);
		fn = cpl_pyscan_func_find(r->f, fname);
	}
	if (fn <= 0)
		why = "its train_loop_per_worker is no def of this file";
	if (why == NULL && sa != NULL) {
		sc = cpl_pyw_expr_call(r, &sa->value, 0);
		if (sc < 0 || !cpl_pyw_ends_name(r->f->calls[sc].target,
					 "ScalingConfig") || cpl_pyw_spread(r, sc))
			why = "its scaling_config is a value the file does "
			      "not fix";
	}
	if (why == NULL && sc >= 0) {
		const struct cpl_pyarg *x;
		struct cpl_pyexpr v;
		int got;

		cpos = r->f->calls[sc].pos;
		if ((x = cpl_pyw_kwarg(r, sc, "num_workers")) != NULL)
			workers = cpl_pyw_count(r, &x->value);
		if ((x = cpl_pyw_kwarg(r, sc, "use_gpu")) != NULL &&
		    cpl_pyw_tok_is(r, x->value.first, CPL_PYTOK_KEYWORD, "True"))
			gpus = 1;
		if ((x = cpl_pyw_kwarg(r, sc, "resources_per_worker")) != NULL) {
			got = cpl_pyw_dict_get(r, &x->value, "CPU", &v, 0);
			if (got < 0 || (got > 0 &&
				       cpl_pyw_amount(r, &v, &cpu, false, 0) !=
				       CPL_PYW_KNOWN))
				why = "its resources_per_worker is a value the "
				      "file does not fix";
			else if (got > 0)
				cpos = v.pos;
			got = why ? 0 : cpl_pyw_dict_get(r, &x->value, "GPU", &v, 0);
			if (got > 0 && cpl_pyw_amount(r, &v, &g, true, 0) == CPL_PYW_KNOWN &&
			    gpus > 0)
				gpus = (long)g;
		}
	}
	if (why != NULL) {
		cpl_pyw_not_judged(r, "Ray TorchTrainer", fname ? fname : "?",
			   call->pos, why);
		free(fname);
		return;
	}
	w = cpl_pyw_new_workload(r, "Ray TorchTrainer", fname, NULL, fname, call->pos,
			 "read by the Ray Train reader: each worker runs "
			 "train_loop_per_worker with its CPUs as its budget, "
			 "and Ray sets its OMP_NUM_THREADS to them");
	free(fname);
	c = &w->containers[0];
	w->replicas = workers > 0 ? workers : 1;
	/* The worker Pods (and their /dev/shm, which Ray's object store
	 * needs anyway) are the RayCluster's, not this file's. */
	w->platform_shm = true;
	w->training_job = true;
	c->run_container = true;
	cpl_pyw_set_cpu(w, c, cpu, CPL_PYW_KNOWN, cpos, cpu, CPL_PYW_KNOWN, cpos);
	c->gpus = gpus;
	/* ray/_private/utils.py: int(assigned CPUs), at least 1.  Ray
	 * writes it, not the file: no place a fix could edit (the CPUs
	 * it comes from are the worker's budget, not a thread count). */
	omp = (long)(cpu / 1000);
	{
		char n[24];
		struct cpl_pos none = { 0 };

		cpl_format(n, sizeof(n), "%ld", omp > 0 ? omp : 1);
		cpl_container_set_env(c, "OMP_NUM_THREADS", n, none);
	}
	cpl_pyw_keep_code(r, c, (size_t)fn, false);
	cpl_pyw_emit(r, w);
}

static void
read_ray(struct cpl_pyw_rd *r)
{
	size_t k, s;

	for (k = 0; k < r->f->ncalls; k++)
		if (cpl_pyw_ends_name(r->f->calls[k].target, "TorchTrainer") &&
		    cpl_str_starts(r->f->calls[k].target, "ray.")) {
			const struct cpl_pyarg *a =
				cpl_pyw_kwarg(r, (int)k, "train_loop_per_worker");

			if (a == NULL)
				a = cpl_pyw_posarg(r, (int)k, 0);
			for (s = 1; a != NULL && s < r->f->nscopes; s++)
				if (a->value.last - a->value.first == 1 &&
				    cpl_pyw_tok_is(r, a->value.first, CPL_PYTOK_NAME,
					   r->f->scopes[s].name))
					r->decl[s] = true;
		}
	for (k = 0; k < r->f->ncalls; k++)
		if (cpl_pyw_ends_name(r->f->calls[k].target, "TorchTrainer") &&
		    cpl_str_starts(r->f->calls[k].target, "ray."))
			ray_trainer(r, (int)k);
}

/* ---- ZenML ---- */

/* The ResourceSettings call of decorator call k's settings["resources"]:
 * 1 and *out, 0 when it names none, -1 when the file does not fix it. */
static int
zenml_resources(const struct cpl_pyw_rd *r, int k, int *out)
{
	const struct cpl_pyarg *a = cpl_pyw_kwarg(r, k, "settings");
	struct cpl_pyexpr v;
	int got;

	if (a == NULL)
		return 0;
	got = cpl_pyw_dict_get(r, &a->value, "resources", &v, 0);
	if (got <= 0)
		return got;
	*out = cpl_pyw_expr_call(r, &v, 0);
	if (*out < 0 || !cpl_pyw_ends_name(r->f->calls[*out].target,
				   "ResourceSettings") || cpl_pyw_spread(r, *out))
		return -1;
	return 1;
}

/* Whether decorator call k's settings hold an orchestrator's or step
 * operator's (their pod settings may add env and volumes). */
static bool
zenml_pod_settings(const struct cpl_pyw_rd *r, int k)
{
	static const char *const keys[] = {
		"orchestrator", "orchestrator.kubernetes",
		"orchestrator.kubeflow", "orchestrator.vertex",
		"step_operator", "step_operator.kubernetes",
	};
	const struct cpl_pyarg *a = cpl_pyw_kwarg(r, k, "settings");
	struct cpl_pyexpr v;
	size_t i;

	for (i = 0; a != NULL && i < CPL_ARRAY_LEN(keys); i++)
		if (cpl_pyw_dict_get(r, &a->value, keys[i], &v, 0) != 0)
			return true;
	return false;
}

/* One @step on def s (decorator d) with settings["resources"]; pcpu is
 * the CPU the file's @pipeline settings give its steps (CPL_PYW_ABSENT: none),
 * which ZenML merges under the step's own. */
static void
zenml_step(struct cpl_pyw_rd *r, size_t s, const struct cpl_pyw_deco *d,
	   int64_t pcpu, enum cpl_pyw_vstate pcs, struct cpl_pos ppos)
{
	const char *name = r->f->scopes[s].name, *why = NULL;
	int got, k = -1;
	int64_t cpu = 0;
	enum cpl_pyw_vstate cs = CPL_PYW_ABSENT;
	struct cpl_pos cpos = d->pos;
	long gpus = 0;
	struct cpl_workload *w;
	struct cpl_container *c;

	got = zenml_resources(r, d->call, &k);
	if (got == 0)
		return;		/* settings of other kinds */
	if (got < 0)
		why = "its resource settings are a value the file does not "
		      "fix";
	else
		(void)cpl_pyw_read_res(r, k, "cpu_count", "gpu_count", false, &cpu,
			       &cs, &cpos, &gpus, &why);
	if (why == NULL && cs == CPL_PYW_ABSENT && pcs == CPL_PYW_KNOWN) {
		cpu = pcpu;
		cs = pcs;
		cpos = ppos;
	}
	if (why != NULL) {
		cpl_pyw_not_judged(r, "ZenML step", name, d->pos, why);
		return;
	}
	w = cpl_pyw_new_workload(r, "ZenML step", name, NULL, name, d->pos,
			 "read by the ZenML reader: the step function is the "
			 "code; cpu_count is its CPU budget");
	c = &w->containers[0];
	/* The orchestrator decides: Kubeflow's sets it as the limit,
	 * Trainer's as both; either way it is the step's budget, and
	 * whether a limit is missing is not the file's to say. */
	cpl_pyw_set_cpu(w, c, cpu, cs, cpos, cpu, cs, cpos);
	/* No cpu_count here: a run configuration may set one. */
	w->platform_cpu = cs != CPL_PYW_KNOWN;
	if (zenml_pod_settings(r, d->call)) {
		c->env_from = true;	/* the pod settings' env */
		w->platform_shm = true;	/* and volumes */
	}
	c->gpus = gpus;
	cpl_pyw_keep_code(r, c, s, false);
	cpl_pyw_emit(r, w);
}

static void
read_zenml(struct cpl_pyw_rd *r)
{
	size_t s;
	int64_t pcpu = 0;
	enum cpl_pyw_vstate pcs = CPL_PYW_ABSENT;
	struct cpl_pos ppos = { 0 };

	for (s = 1; s < r->f->nscopes; s++) {
		const struct cpl_pyw_deco *p = cpl_pyw_deco_of(r, s, "zenml", "pipeline");
		const char *why = NULL;
		long g = 0;
		int k;

		r->decl[s] = cpl_pyw_deco_of(r, s, "zenml", "step") != NULL;
		/* One pipeline's settings, when the file has one that
		 * fixes them: its steps' default. */
		if (p != NULL && p->call >= 0 && pcs == CPL_PYW_ABSENT &&
		    zenml_resources(r, p->call, &k) > 0)
			(void)cpl_pyw_read_res(r, k, "cpu_count", NULL, false, &pcpu,
				       &pcs, &ppos, &g, &why);
		if (why != NULL)
			pcs = CPL_PYW_ABSENT;
	}
	for (s = 1; s < r->f->nscopes; s++) {
		const struct cpl_pyw_deco *d = cpl_pyw_deco_of(r, s, "zenml", "step");

		if (d != NULL && d->call >= 0 &&
		    r->f->scopes[s].kind == CPL_PYSCOPE_FUNC)
			zenml_step(r, s, d, pcpu, pcs, ppos);
	}
}

/* The framework a top-level import of module m is of. */
static enum fw
fw_of(const char *m)
{
	if (cpl_str_starts(m, "flytekit"))
		return FW_FLYTE;
	if (cpl_str_eq(m, "kfp") || cpl_str_starts(m, "kfp."))
		return FW_KFP;
	if (cpl_str_eq(m, "metaflow"))
		return FW_METAFLOW;
	if (cpl_str_starts(m, "ray.train"))
		return FW_RAY;
	if (cpl_str_eq(m, "zenml") || cpl_str_starts(m, "zenml."))
		return FW_ZENML;
	return FW_NONE;
}

/* The framework of f's first import that names one, or FW_NONE. */
static enum fw
fw_of_file(const struct cpl_pyfile *f)
{
	enum fw fw = FW_NONE;
	size_t i;

	for (i = 0; i < f->nimports && fw == FW_NONE; i++)
		if (f->imports[i].level == 0 && f->imports[i].module != NULL)
			fw = fw_of(f->imports[i].module);
	return fw;
}

bool
cpl_pywork_declares(const struct cpl_pyfile *f)
{
	return f != NULL && fw_of_file(f) != FW_NONE;
}

int
cpl_pywork_load(struct cpl_wlist *out, const char *path, const char *text,
		size_t len)
{
	struct cpl_pyfile *f = NULL;
	struct cpl_error err = { 0 };
	struct cpl_pyw_rd r = { .out = out };
	enum fw fw = FW_NONE;
	size_t i;

	if (!cpl_pywork_screen(text, len))
		return 0;
	/* A tokenizer error is reported when the file is scanned for the
	 * code rules; a file that does not read is declared nothing. */
	if (cpl_pyscan_file(&f, path, text, len, &err) != 0 || f == NULL) {
		cpl_error_clear(&err);
		cpl_pyfile_free(f);
		return 0;
	}
	fw = fw_of_file(f);
	if (fw == FW_NONE) {
		cpl_pyfile_free(f);
		return 0;
	}
	r.f = f;
	r.t = cpl_pyfile_toks(f);
	r.by_scope = cpl_xcalloc(f->nscopes, sizeof(*r.by_scope));
	r.decl = cpl_xcalloc(f->nscopes, sizeof(*r.decl));
	if (r.t != NULL) {
		cpl_pyw_read_decorators(&r);
		switch (fw) {
		case FW_FLYTE: read_flyte(&r); break;
		case FW_KFP: read_kfp(&r); break;
		case FW_METAFLOW: read_metaflow(&r); break;
		case FW_RAY: read_ray(&r); break;
		case FW_ZENML: read_zenml(&r); break;
		case FW_NONE: break;
		}
	}
	for (i = 0; i < f->nscopes; i++) {
		size_t k;

		for (k = 0; k < r.by_scope[i].n; k++)
			free(r.by_scope[i].d[k].target);
	}
	free(r.by_scope);
	free(r.decl);
	cpl_pyfile_free(f);
	return 0;
}

bool
cpl_pywork_screen(const char *text, size_t len)
{
	static const char *const words[] = {
		"flytekit", "kfp", "metaflow", "ray.train", "zenml",
	};
	size_t k;

	for (k = 0; k < CPL_ARRAY_LEN(words); k++)
		if (memmem(text, len, words[k], strlen(words[k])) != NULL)
			return true;
	return false;
}
