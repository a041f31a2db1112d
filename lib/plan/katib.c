/*
 * katib.c — the plan as Katib Experiments (plan_int.h), one knob at a time
 * on this engine too: a grid over the two knobs would run every pair,
 * so each group of the sweep is an Experiment of its own whose grid is
 * exactly its settings: the threads at the suggested workers (the
 * suggestion among them), the workers at the suggested threads, and
 * the job's current setting.  Each knob is a discrete parameter (one
 * of them a single value), one trial at a time (trials that share a
 * node would throttle each other), and no metrics collector: compare
 * reads the runs from Prometheus.  The trialSpec is the user's job, its
 * knobs ${trialParameters.threads} and ${trialParameters.workers}, its
 * Pod templates labelled cpulint.io/plan and cpulint.io/setting (the
 * setting's id, "t${trialParameters.threads}-w${...}", which Katib
 * substitutes like the knobs), every Experiment labelled with the plan.
 * With --repeat N a third discrete parameter, repeat (1..N), makes the
 * grid run each setting N times, its Pods labelled cpulint.io/repeat.
 */
#include <stdlib.h>

#include "load/kinds.h"
#include "plan/knobs_int.h"
#include "plan/plan_int.h"
#include "plan/targets_int.h"

/* The distinct values of one knob over the settings, ascending. */
static json_t *
knob_list(const struct cpl_plan *p, const size_t *idx, size_t nidx,
	  bool workers, size_t *n)
{
	long v[CPL_SWEEP_MAX];
	size_t i, j, k = 0;
	json_t *a = json_array();
	char num[32];

	for (i = 0; i < nidx; i++) {
		long x = workers ? p->settings[idx[i]].workers :
			 p->settings[idx[i]].threads;

		for (j = 0; j < k && v[j] != x; j++)
			;
		if (j == k)
			v[k++] = x;
	}
	for (i = 0; i < k; i++)
		for (j = i + 1; j < k; j++)
			if (v[j] < v[i]) {
				long t = v[i];

				v[i] = v[j];
				v[j] = t;
			}
	for (i = 0; i < k; i++) {
		cpl_format(num, sizeof(num), "%ld", v[i]);
		json_array_append_new(a, json_string(num));
	}
	*n = k;
	return a;
}

/* Katib's conditions for a trial of this kind (gjson paths): the
 * condition its row says a finished run has. */
static void
conditions(json_t *tt, const char *api, const char *kind)
{
	const struct cpl_kind *k = cpl_kinds_find(api, kind);
	const char *ok = k && k->succeeded ? k->succeeded : "Complete";
	char *s = cpl_xasprintf("status.conditions.#(type==\"%s\")#|"
				"#(status==\"True\")#", ok);

	json_object_set_new(tt, "successCondition", json_string(s));
	json_object_set_new(tt, "failureCondition", json_string(
		"status.conditions.#(type==\"Failed\")#|#(status==\"True\")#"));
	free(s);
}

/* One Experiment over the settings idx[0, nidx) of p, named NAME-SUFFIX;
 * setting: the setting label's literal value, or NULL for the template
 * the knobs make. */
static int
experiment(struct cpl_buf *out, const struct cpl_plan *p, const size_t *idx,
	   size_t nidx, const char *suffix, const char *setting,
	   struct cpl_error *err)
{
	json_t *spec = json_deep_copy(p->doc), *md, *tmd, *exp = NULL;
	json_t *params, *tparams, *tt, **t = NULL, *labels;
	const char *kind = json_string_value(json_object_get(spec, "kind"));
	const char *name;
	char *ns, *label = NULL;
	bool workers = p->settings[0].workers >= 0;
	size_t nt, i, nthreads = 0, nworkers = 1, nruns = 1;
	char *ename = NULL;
	int rc = -1;

	md = json_object_get(spec, "metadata");
	name = json_string_value(json_object_get(md, "name"));
	ns = cpl_xstrdup(json_string_value(json_object_get(md, "namespace")));
	ename = cpl_xasprintf("%.40s-cpulint-%s", name && *name ? name : "job",
			      suffix);
	/* Katib names each trial's job: only labels and annotations are
	 * kept of the user's metadata. */
	tmd = json_object();
	if (json_is_object(json_object_get(md, "labels")))
		json_object_set(tmd, "labels", json_object_get(md, "labels"));
	if (json_is_object(json_object_get(md, "annotations")))
		json_object_set(tmd, "annotations",
				json_object_get(md, "annotations"));
	json_object_set_new(spec, "metadata", tmd);
	json_object_del(spec, "status");
	cpl_plan_label(spec, CPL_PLAN_LABEL, p->id);
	label = setting ? cpl_xstrdup(setting) : workers ?
		cpl_xstrdup("t${trialParameters.threads}-"
			    "w${trialParameters.workers}") :
		cpl_xstrdup("t${trialParameters.threads}");
	cpl_plan_label(spec, CPL_PLAN_SETTING_LABEL, label);
	if (p->repeats > 1)
		cpl_plan_label(spec, CPL_PLAN_REPEAT_LABEL,
			       "${trialParameters.repeat}");
	t = cpl_plan_targets(&nt, spec, p->containers, p->ncontainers);
	if (nt == 0) {
		cpl_error_set(err, NULL, 0, 0, "no training container to set");
		goto out;
	}
	for (i = 0; i < nt; i++) {
		cpl_knob_set_threads(t[i], "${trialParameters.threads}");
		if (workers)
			cpl_knob_set_flag(t[i], NULL,
					  "${trialParameters.workers}");
	}
	/* The group's settings share their pools' sizes (katib() splits
	 * a group where they differ): set as literals. */
	cpl_plan_set_pools(t, nt, p, &p->settings[idx[0]]);
	if (p->segment && cpl_plan_segment(t, nt, p->segment, err) < 0)
		goto out;

	params = json_array();
	tparams = json_array();
	json_array_append_new(params, json_pack("{s:s,s:s,s:{s:o}}",
		"name", "threads", "parameterType", "discrete",
		"feasibleSpace", "list", knob_list(p, idx, nidx, false,
						   &nthreads)));
	json_array_append_new(tparams, json_pack("{s:s,s:s,s:s}",
		"name", "threads", "description", "intra-op threads "
		"(OMP_NUM_THREADS, MKL_NUM_THREADS)", "reference", "threads"));
	if (workers) {
		json_array_append_new(params, json_pack("{s:s,s:s,s:{s:o}}",
			"name", "workers", "parameterType", "discrete",
			"feasibleSpace", "list", knob_list(p, idx, nidx, true,
							   &nworkers)));
		json_array_append_new(tparams, json_pack("{s:s,s:s,s:s}",
			"name", "workers", "description", "DataLoader workers "
			"per rank", "reference", "workers"));
	}
	if (p->repeats > 1) {
		json_t *runs = json_array();
		char num[24];
		long r;

		for (r = 1; r <= p->repeats; r++) {
			cpl_format(num, sizeof(num), "%ld", r);
			json_array_append_new(runs, json_string(num));
		}
		/* the grid runs each setting once per value: the runs */
		json_array_append_new(params, json_pack("{s:s,s:s,s:{s:o}}",
			"name", "repeat", "parameterType", "discrete",
			"feasibleSpace", "list", runs));
		json_array_append_new(tparams, json_pack("{s:s,s:s,s:s}",
			"name", "repeat", "description", "which run of its "
			"setting this trial is (kubectl cpulint plan "
			"--repeat)", "reference", "repeat"));
		nruns = (size_t)p->repeats;
	}
	tt = json_object();
	json_object_set_new(tt, "primaryContainerName", json_string(
		json_string_value(json_object_get(t[0], "name")) ?
		json_string_value(json_object_get(t[0], "name")) : "node"));
	conditions(tt, json_string_value(json_object_get(spec, "apiVersion")),
		   kind);
	json_object_set_new(tt, "trialParameters", tparams);
	json_object_set(tt, "trialSpec", spec);

	labels = json_pack("{s:s}", CPL_PLAN_LABEL, p->id);
	exp = json_pack("{s:s,s:s,s:{s:s,s:o,s:{s:s}}}",
		"apiVersion", "kubeflow.org/v1beta1", "kind", "Experiment",
		"metadata", "name", ename, "labels", labels,
		"annotations", "cpulint.io/summary", p->summary);
	if (ns)
		json_object_set_new(json_object_get(exp, "metadata"),
				    "namespace", json_string(ns));
	/* one knob varies, the other is one value: the grid is the
	 * group's settings and nothing else */
	json_object_set_new(exp, "spec", json_pack(
		"{s:{s:s,s:s},s:{s:s},s:i,s:i,s:i,s:{s:{s:s}},s:o,s:o}",
		"objective", "type", "maximize", "objectiveMetricName",
		"examples_per_second",
		"algorithm", "algorithmName", "grid",
		"parallelTrialCount", 1,
		"maxTrialCount", (int)(nthreads * nworkers * nruns),
		"maxFailedTrialCount", (int)(nthreads * nworkers * nruns),
		"metricsCollectorSpec", "collector", "kind", "None",
		"parameters", params, "trialTemplate", tt));
	if (cpl_plan_emit(out, exp, true, err) < 0)
		goto out;
	rc = 0;
out:
	free(t);
	free(ename);
	free(ns);
	free(label);
	json_decref(exp);
	json_decref(spec);
	return rc;
}

/* Whether settings a and b set the plan's pools alike. */
static bool
same_pools(const struct cpl_plan *p, size_t a, size_t b)
{
	size_t j;

	for (j = 0; j < p->npools; j++)
		if (p->settings[a].pools[j] != p->settings[b].pools[j])
			return false;
	return true;
}

/*
 * The Experiments of one group of settings idx (n): one, or, where the
 * settings set the pools differently (OPENBLAS_NUM_THREADS=2 at 0
 * workers, 1 with workers), one per set of sizes, named SUFFIX,
 * SUFFIX-2, ...: a grid parameter of its own would run every pairing.
 */
static int
groups(struct cpl_buf *out, const struct cpl_plan *p, const size_t *idx,
       size_t n, const char *suffix, struct cpl_error *err)
{
	size_t sub[CPL_SWEEP_MAX], nsub, i, j, k = 0;
	bool done[CPL_SWEEP_MAX] = { false };
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		char *sfx;

		if (done[i])
			continue;
		for (j = i, nsub = 0; j < n; j++)
			if (!done[j] && same_pools(p, idx[i], idx[j])) {
				sub[nsub++] = idx[j];
				done[j] = true;
			}
		sfx = k++ == 0 ? cpl_xstrdup(suffix) :
		      cpl_xasprintf("%s-%zu", suffix, k);
		rc = experiment(out, p, sub, nsub, sfx, NULL, err);
		free(sfx);
	}
	return rc;
}

int
cpl_plan_katib(struct cpl_buf *out, const struct cpl_plan *p,
	       struct cpl_error *err)
{
	size_t th[CPL_SWEEP_MAX], wk[CPL_SWEEP_MAX], nth = 0, nwk = 0, i;
	int rc = 0;

	for (i = 0; i < p->nsettings; i++) {
		enum cpl_sweep_knob k = p->settings[i].knob;

		if (k == CPL_SWEEP_BASE || k == CPL_SWEEP_THREADS)
			th[nth++] = i;
		else if (k == CPL_SWEEP_WORKERS)
			wk[nwk++] = i;
	}
	if (nth > 0)
		rc = groups(out, p, th, nth, "threads", err);
	if (rc == 0 && nwk > 0)
		rc = groups(out, p, wk, nwk, "workers", err);
	for (i = 0; rc == 0 && i < p->nsettings; i++)
		if (p->settings[i].knob == CPL_SWEEP_CURRENT)
			rc = experiment(out, p, &i, 1, "current",
					p->settings[i].id, err);
	return rc;
}
