/*
 * test_kinds.c — the kinds read beyond Pods, controllers and Kubeflow v1
 * jobs (JobSet, Volcano Job, LeaderWorkerSet, AppWrapper, Argo, Tekton,
 * Ray), objects inside objects, the generic model, whether a workload
 * runs to completion, MPI launchers in commands, the record of
 * skipped documents, LimitRanges as the API server defaults them, and
 * the kinds table itself: every row complete, no kind, resource or type
 * name twice, the mutating webhook sending exactly the kinds it marks.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "load/kinds.h"
#include "load/loader.h"
#include "loader_test.h"

static const struct loader_under_test LOADER = {
	.detect = cpl_manifest_detect,
	.load = cpl_manifest_load,
	.require_detect = false,
	.stop_on_error = false,
};

/* Fails unless container c's env has name set to want. */
#define ck_str_eq_env(c, name, want)					\
	do {								\
		const struct cpl_env *e_ = cpl_container_env((c), (name)); \
		ck_assert_ptr_nonnull(e_);				\
		ck_assert_str_eq(e_->value, (want));			\
	} while (0)

/* The workload of l named name (and replica, when not NULL). */
static const struct cpl_workload *
find(const struct loaded *l, const char *name, const char *replica)
{
	size_t i;

	for (i = 0; i < l->wl.count; i++)
		if (cpl_str_eq(l->wl.items[i]->name, name) &&
		    (replica == NULL ||
		     cpl_str_eq(l->wl.items[i]->replica, replica)))
			return l->wl.items[i];
	ck_abort_msg("no workload %s[%s]", name, replica ? replica : "");
	return NULL;
}

START_TEST(jobset)
{
	struct loaded l;
	const struct cpl_workload *w;

	load_file(&l, "k8s-batch-kinds.yaml");
	ck_assert_int_eq(l.rc, 0);
	w = find(&l, "js", "driver");
	ck_assert_str_eq(w->kind, "JobSet");
	ck_assert_int_eq(w->replicas, 1);
	ck_assert(w->run_to_completion);
	ck_assert(!w->training_job);
	w = find(&l, "js", "workers");
	ck_assert_int_eq(w->replicas, 12);	/* 3 replicas x parallelism 4 */
	ck_assert_int_eq(w->containers[0].launch.launcher,
			 CPL_LAUNCH_TORCHRUN);
	ck_pos(container(w, "w")->pos, 23, 15);
	loaded_free(&l);
}
END_TEST

START_TEST(volcano)
{
	struct loaded l;
	const struct cpl_workload *w;

	load_file(&l, "k8s-batch-kinds.yaml");
	w = find(&l, "vj", "master");
	ck_assert_str_eq(w->kind, "Job");
	ck_assert(w->run_to_completion);
	/* With the mpi plugin Volcano hands mpirun the workers' hosts. */
	ck_assert(w->containers[0].not_training);
	w = find(&l, "vj", "worker");
	ck_assert_int_eq(w->replicas, 4);
	ck_assert(!w->containers[0].not_training);
	loaded_free(&l);
}
END_TEST

START_TEST(leaderworkerset)
{
	struct loaded l;
	const struct cpl_workload *w;

	load_file(&l, "k8s-batch-kinds.yaml");
	w = find(&l, "lws-both", "leader");
	ck_assert_str_eq(w->kind, "LeaderWorkerSet");
	ck_assert_int_eq(w->replicas, 3);
	ck_assert(!w->run_to_completion);
	ck_assert_str_eq(w->containers[0].name, "leader");
	w = find(&l, "lws-both", "worker");
	ck_assert_int_eq(w->replicas, 9);	/* 3 groups x (4 - 1) */
	ck_assert_str_eq(w->containers[0].name, "worker");
	/* No leaderTemplate: every Pod of the group is the worker's. */
	w = find(&l, "lws-one", "worker");
	ck_assert_int_eq(w->replicas, 6);
	ck_assert_str_eq(w->containers[0].name, "only");
	loaded_free(&l);
}
END_TEST

START_TEST(appwrapper)
{
	struct loaded l;
	const struct cpl_workload *w;
	size_t i;
	bool cm = false;

	load_file(&l, "k8s-batch-kinds.yaml");
	w = find(&l, "inner", "Master");
	ck_assert_str_eq(w->kind, "PyTorchJob");
	ck_assert(w->training_job);
	ck_assert(w->containers[0].run_container);
	ck_pos(w->pos, 90, 7);
	w = find(&l, "old-job", NULL);
	ck_assert_str_eq(w->kind, "Job");
	ck_assert(w->run_to_completion);
	/* What a wrapper holds is judged as if it stood alone. */
	for (i = 0; i < l.wl.nskipped; i++)
		if (strcmp(l.wl.skipped[i].what, "ConfigMap \"inner-cm\"") == 0)
			cm = strcmp(l.wl.skipped[i].why, "not a workload") == 0;
	ck_assert(cm);
	loaded_free(&l);
}
END_TEST

START_TEST(run_to_completion)
{
	struct loaded l;

	load_file(&l, "k8s-batch-kinds.yaml");
	/* A bare Pod's restartPolicy is Always: a server's. */
	ck_assert(!find(&l, "default-restart", NULL)->run_to_completion);
	ck_assert(find(&l, "never", NULL)->run_to_completion);
	/* Owned by a job, it runs to completion whatever it restarts on. */
	ck_assert(find(&l, "owned", NULL)->run_to_completion);
	loaded_free(&l);
}
END_TEST

START_TEST(mpi_launchers)
{
	struct loaded l;
	const struct cpl_container *c;

	load_file(&l, "mpi-commands.yaml");
	ck_assert_int_eq(l.rc, 0);
	/* A hostfile sends the ranks elsewhere. */
	c = &find(&l, "hostfile", NULL)->containers[0];
	ck_assert(c->not_training);
	ck_assert(!c->has_slots);
	/* localhost only: the ranks run here, -np of them. */
	c = &find(&l, "local", NULL)->containers[0];
	ck_assert(!c->not_training);
	ck_assert(c->has_slots);
	ck_assert_str_eq(c->slots.text, "4");
	ck_assert_str_eq(c->slots_from, "horovodrun -np");
	ck_pos(c->slots.pos, 20, 32);
	/* No hosts and no operator: this Pod is the only host. */
	c = &find(&l, "no-hosts", NULL)->containers[0];
	ck_assert(!c->not_training);
	ck_assert_str_eq(c->slots.text, "2");
	ck_assert_str_eq(c->slots_from, "mpiexec -np");
	/* In a shell script, after an assignment; options after the program
	 * are the program's. */
	ck_assert(find(&l, "shell", NULL)->containers[0].not_training);
	/* The operator's hostfile in the environment. */
	ck_assert(find(&l, "env-hostfile", NULL)->containers[0].not_training);
	/* A script run here too: judged on that. */
	ck_assert(!find(&l, "also-python", NULL)->containers[0].not_training);
	c = &find(&l, "plain", NULL)->containers[0];
	ck_assert(!c->not_training);
	ck_assert(!c->has_slots);
	loaded_free(&l);
}
END_TEST

START_TEST(skips)
{
	struct loaded l;

	load_text(&l, "s.yaml",
		  "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"
		  "---\n"
		  "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: r}\n"
		  "spec:\n  rayClusterSpec:\n    headGroupSpec:\n"
		  "      template:\n        spec:\n"
		  "          containers: [{name: h, image: h}]\n"
		  "---\n"
		  "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
		  "spec: {}\n"
		  "---\n"
		  "apiVersion: example.com/v1\nkind: Odd\nmetadata: {name: o}\n"
		  "spec:\n  containers: [a, b]\n");
	ck_assert_int_eq(l.rc, 0);
	/* Ray's head is read, and is no training container. */
	ck_assert_int_eq(l.wl.count, 1);
	ck_assert_str_eq(l.wl.items[0]->replica, "head");
	ck_assert(l.wl.items[0]->containers[0].not_training);
	ck_assert_int_eq(l.wl.nskipped, 3);
	ck_assert_str_eq(l.wl.skipped[0].what, "Service \"web\"");
	ck_assert_str_eq(l.wl.skipped[0].why, "not a workload");
	ck_assert_str_eq(l.wl.skipped[0].file, "s.yaml");
	ck_assert_int_eq(l.wl.skipped[0].line, 1);
	ck_assert(!l.wl.skipped[0].containers);
	ck_assert_str_eq(l.wl.skipped[1].what, "Job \"j\"");
	ck_assert_str_eq(l.wl.skipped[1].why, "no Pod template");
	/* Containers nobody could read: counted as not judged. */
	ck_assert_str_eq(l.wl.skipped[2].what, "Odd \"o\"");
	ck_assert_str_eq(l.wl.skipped[2].kind, "Odd");
	ck_assert(l.wl.skipped[2].containers);
	ck_assert_int_eq(cpl_wlist_not_judged(&l.wl), 1);
	loaded_free(&l);
}
END_TEST

/* Objects in objects: a manifest string at the outer file's lines, one
 * whose lines do not map pinned at its own place, a Katib trial named
 * after its Experiment; placeholders are unknown. */
START_TEST(nested)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_file(&l, "k8s-nested.yaml");
	ck_assert_int_eq(l.rc, 0);
	/* named as written: Argo names it when it creates it */
	w = find(&l, "{{workflow.name}}", "Worker");
	ck_assert_str_eq(w->kind, "PyTorchJob");
	ck_assert(w->training_job);
	ck_assert_int_eq(w->replicas, 2);
	ck_pos(w->pos, 14, 11);
	c = container(w, "pytorch");
	ck_pos(c->pos, 25, 25);
	ck_word(c, 1, "--nproc_per_node=2", 27, 47);
	ck_pos(cpl_container_env(c, "OMP_NUM_THREADS")->pos, 30, 36);
	ck_str_eq_env(c, "OMP_NUM_THREADS", "3");
	/* {{...}} starting a plain scalar: quoted, unknown. */
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_UNKNOWN);
	ck_pos(c->limit_pos, 33, 34);
	w = find(&l, "pinned", NULL);
	ck_pos(w->pos, 37, 19);
	ck_pos(w->containers[0].pos, 37, 19);
	/* a resource template that deletes runs nothing */
	for (size_t i = 0; i < l.wl.count; i++)
		ck_assert_str_ne(l.wl.items[i]->name, "deleted");
	w = find(&l, "exp", NULL);
	ck_assert_str_eq(w->kind, "Job");
	ck_assert(w->run_to_completion);
	c = container(w, "training-container");
	ck_assert_ptr_null(cpl_container_env(c, "OMP_NUM_THREADS")->value);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_UNKNOWN);
	loaded_free(&l);
}
END_TEST

/* A Katib trial trains: its primary container is the run container (by
 * primaryContainerName; in a ConfigMap of templates the one main
 * container), never a sidecar, a second container of a template that
 * names none, or a trial that picks its Pods by primaryPodLabels. */
START_TEST(katib_trial)
{
	static const char exp_head[] =
		"apiVersion: kubeflow.org/v1beta1\nkind: Experiment\n"
		"metadata: {name: %s}\nspec:\n  trialTemplate:\n%s"
		"    trialSpec:\n      apiVersion: batch/v1\n"
		"      kind: Job\n      spec:\n        template:\n"
		"          spec:\n            containers:\n"
		"              - {name: train, image: t, "
		"command: [python3, /opt/m.py]}\n"
		"              - {name: side, image: s, "
		"command: [python3, /s.py]}\n";
	struct loaded l;
	struct cpl_buf b;
	const struct cpl_workload *w;

	cpl_buf_init(&b, 0);
	cpl_buf_addf(&b, exp_head, "named",
		     "    primaryContainerName: train\n");
	cpl_buf_addf(&b, "---\n");
	cpl_buf_addf(&b, exp_head, "by-labels",
		     "    primaryContainerName: train\n"
		     "    primaryPodLabels: {role: train}\n");
	cpl_buf_addf(&b, "---\n");
	cpl_buf_addf(&b, exp_head, "unnamed", "");
	cpl_buf_addf(&b, "---\n%s",
		     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
		     "  name: tt\n  labels:\n"
		     "    katib.kubeflow.org/component: trial-templates\n"
		     "data:\n  one.yaml: |\n"
		     "    apiVersion: batch/v1\n    kind: Job\n"
		     "    spec:\n      template:\n        spec:\n"
		     "          containers: [{name: only, image: o}]\n"
		     "  two.yaml: |\n"
		     "    apiVersion: batch/v1\n    kind: Job\n"
		     "    metadata: {name: two}\n"
		     "    spec:\n      template:\n        spec:\n"
		     "          containers: [{name: a, image: a}, "
		     "{name: b, image: b}]\n");
	load_text(&l, "k.yaml", b.data);
	cpl_buf_free(&b);
	ck_assert_int_eq(l.rc, 0);
	w = find(&l, "named", NULL);
	ck_assert(container(w, "train")->run_container);
	ck_assert(!container(w, "side")->run_container);
	w = find(&l, "by-labels", NULL);
	ck_assert(!container(w, "train")->run_container);
	ck_assert(!container(w, "side")->run_container);
	/* no primary named and two main containers: none picked */
	w = find(&l, "unnamed", NULL);
	ck_assert(!container(w, "train")->run_container);
	ck_assert(!container(w, "side")->run_container);
	w = find(&l, "tt", NULL);
	ck_assert(container(w, "only")->run_container);
	w = find(&l, "two", NULL);
	ck_assert(!container(w, "a")->run_container);
	ck_assert(!container(w, "b")->run_container);
	loaded_free(&l);
}
END_TEST

/* Argo templates and Tekton steps: their containers, their inline
 * scripts as commands, the stepTemplate under each step. */
START_TEST(steps)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_file(&l, "k8s-nested.yaml");
	/* a steps template and a resource template make no workload */
	ck_assert(find(&l, "wf-", "shell") != NULL);
	w = find(&l, "wf-", "shell");
	ck_assert(w->by_evidence);
	ck_assert(w->run_to_completion);
	c = &w->containers[0];
	ck_assert_int_eq(c->argc, 3);
	ck_assert_str_eq(c->argv[1].text, "-c");
	ck_assert_int_eq(c->launch.launcher, CPL_LAUNCH_TORCHRUN);
	ck_pos(c->launch.launcher_word.pos, 44, 11);
	c = &find(&l, "wf-", "py")->containers[0];
	ck_assert_int_eq(c->argc, 1);
	ck_assert_str_eq(c->argv[0].text, "python3");
	w = find(&l, "task", NULL);
	ck_assert_int_eq(w->ncontainers, 2);
	c = container(w, "sh");
	ck_assert_str_eq(c->argv[0].text, "sh");
	ck_assert_int_eq(c->launch.launcher, CPL_LAUNCH_TORCHRUN);
	ck_str_eq_env(c, "OMP_NUM_THREADS", "1");
	ck_str_eq_env(c, "MKL_NUM_THREADS", "2");
	ck_assert_int_eq(c->cpu_limit, 4000);
	ck_assert_int_eq(c->gpus, 1);
	c = container(w, "py");
	ck_assert_int_eq(c->argc, 1);
	ck_assert_str_eq(c->argv[0].text, "python");
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_ABSENT);
	/* Argo's templateDefaults under each template's container */
	c = &find(&l, "defaults", "train")->containers[0];
	ck_str_eq_env(c, "OMP_NUM_THREADS", "2");
	ck_assert_str_eq(c->image, "d");
	ck_assert_int_eq(c->launch.launcher, CPL_LAUNCH_TORCHRUN);
	loaded_free(&l);
}
END_TEST

/* Kinds without a row: their Pod templates wherever they are, named and
 * counted from where they sit; a reference to an object is no object. */
START_TEST(generic)
{
	struct loaded l;
	const struct cpl_workload *w;
	size_t i;
	bool vpa = false;

	load_file(&l, "k8s-nested.yaml");
	w = find(&l, "elastic", "Worker");
	ck_assert_str_eq(w->kind, "ElasticJob");
	ck_assert_int_eq(w->replicas, 3);
	ck_assert(w->by_evidence);
	ck_assert(w->run_to_completion);
	ck_assert_ptr_nonnull(w->note);
	w = find(&l, "hp", "pod");
	ck_assert_int_eq(w->replicas, 4);
	ck_assert(!w->training_job);
	for (i = 0; i < l.wl.count; i++)
		ck_assert_str_ne(l.wl.items[i]->kind, "Deployment");
	for (i = 0; i < l.wl.nskipped; i++)
		if (strcmp(l.wl.skipped[i].what,
			   "VerticalPodAutoscaler \"vpa\"") == 0)
			vpa = strcmp(l.wl.skipped[i].why, "not a workload") == 0;
	ck_assert(vpa);
	/* any kind of Ray's: its Pods do not train */
	w = find(&l, "nightly", "gpu");
	ck_assert_int_eq(w->replicas, 2);
	ck_assert(w->containers[0].not_training);
	/* Katib's trial templates in their ConfigMap; a policy's container
	 * patterns are no Pods. */
	w = find(&l, "trial-templates", NULL);
	ck_assert_str_eq(w->kind, "Job");
	ck_assert_int_eq(w->containers[0].pos.line, 178);
	for (i = 0; i < l.wl.count; i++)
		ck_assert_str_ne(l.wl.items[i]->kind, "ClusterPolicy");
	ck_assert_int_eq(cpl_wlist_not_judged(&l.wl), 0);
	loaded_free(&l);
}
END_TEST

/* A manifest that cannot be read until it is filled in, or objects held
 * too deep: not judged, counted, never an error. */
START_TEST(not_judged)
{
	struct loaded l;

	load_text(&l, "n.yaml",
		  "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\n"
		  "metadata: {name: w}\nspec:\n  templates:\n"
		  "  - name: a\n    resource:\n      manifest: |\n"
		  "        apiVersion: v1\n        kind: Pod\n"
		  "        spec:\n          containers: {{x}}\n"
		  "  - name: b\n    resource:\n      manifest: |\n"
		  "        apiVersion: v1\n        kind: Pod\n"
		  "        spec:\n          containers: [\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 0);
	ck_assert_int_eq(cpl_wlist_not_judged(&l.wl), 2);
	ck_assert_str_eq(l.wl.skipped[0].kind, "Pod");
	ck_assert_int_eq(l.wl.skipped[0].line, 9);
	ck_assert_str_eq(l.wl.skipped[1].kind, "Workflow");
	ck_assert_int_eq(l.wl.skipped[1].line, 15);
	loaded_free(&l);
}
END_TEST

/* A LimitRange keeps its Container defaults as the API server defaults
 * them (default from max, defaultRequest from default, else from min)
 * and its bounds, the flow style and integer ratio of kubernetes.io's
 * examples included. */
START_TEST(limitrange)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_text(&l, "lr.yaml",
		  "{apiVersion: v1, kind: LimitRange,\n"
		  " metadata: {name: cpu-min-max-demo-lr},\n"
		  " spec: {limits: [{max: {cpu: \"800m\"}, min: {cpu: \"200m\"},"
		  " type: Container}, {type: Pod, max: {cpu: \"2\"},"
		  " maxLimitRequestRatio: {cpu: 3}},\n"
		  "  {type: Container, maxLimitRequestRatio: {cpu: 4}}]}}\n"
		  "---\n"
		  "apiVersion: v1\nkind: LimitRange\n"
		  "metadata: {name: floor, namespace: ml}\n"
		  "spec:\n  limits:\n  - type: Container\n"
		  "    min: {cpu: 500m}\n"
		  "---\n"
		  "apiVersion: v1\nkind: LimitRange\n"
		  "metadata: {name: mem-only, namespace: ml}\n"
		  "spec:\n  limits:\n  - type: Container\n"
		  "    max: {memory: 1Gi}\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_uint_eq(l.wl.count, 2);	/* mem-only: skipped */
	w = find(&l, "cpu-min-max-demo-lr", NULL);
	ck_assert(w->merged);
	c = &w->containers[0];
	ck_assert_int_eq(c->cpu_limit, 800);	/* default from max */
	ck_assert_int_eq(c->cpu_request, 800);	/* request from default */
	ck_assert_ptr_nonnull(c->limits);
	ck_assert(c->limits->default_from_max);
	ck_assert_int_eq(c->limits->max, 800);
	ck_assert_int_eq(c->limits->min, 200);
	ck_assert_int_eq(c->limits->ratio, 4000);	/* the Container's */
	ck_assert_int_eq(c->limits->pod_max, 2000);
	ck_assert_int_eq(c->limits->max_pos.line, 3);
	ck_assert_str_eq(c->limits->name, "cpu-min-max-demo-lr");
	w = find(&l, "floor", NULL);
	c = &w->containers[0];
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->cpu_request, 500);	/* request from min */
	ck_assert(!c->limits->default_from_max);
	loaded_free(&l);
}
END_TEST

/* Whether s is all lower case letters. */
static bool
lower(const char *s)
{
	for (; *s; s++)
		if (*s < 'a' || *s > 'z')
			return false;
	return true;
}

/* Fails unless word (a '|' list's entry) names k as a live type. */
static void
ck_type(const struct cpl_kind *k, const char *word)
{
	ck_assert_msg(cpl_kinds_by_type(word) == k, "type %s is not %s",
		      word, k->kind);
}

/* Every row complete for what it says it is, no duplicates. */
START_TEST(table)
{
	const struct cpl_kind *k, *o;
	size_t i, j, targets = 0, plans = 0, merges = 0;

	for (i = 0; (k = cpl_kinds_at(i)) != NULL; i++) {
		const char *what = k->kind ? k->kind : k->group;

		ck_assert_ptr_nonnull(k->group);
		/* Found by its own group and kind. */
		if (k->kind != NULL) {
			char *api = cpl_xasprintf("%s%sv9", k->group,
						  *k->group ? "/" : "");

			ck_assert_msg(cpl_kinds_find(api, k->kind) == k,
				      "%s %s is found as another row",
				      k->group, k->kind);
			free(api);
		}
		/* Read live: a version of its group and a resource. */
		if (k->api_version != NULL || k->follow || k->singular) {
			ck_assert_msg(k->api_version && k->resource &&
				      k->kind, "%s: no apiVersion or "
				      "resource to read it by", what);
			ck_assert_msg(cpl_kinds_find(k->api_version, k->kind)
				      == k, "%s: apiVersion %s is not of "
				      "its group", what, k->api_version);
			ck_assert(lower(k->resource));
		}
		if (k->old_api_version != NULL)
			ck_assert(cpl_kinds_find(k->old_api_version,
						 k->kind) == k);
		/* A live target: named as kubectl names it, Pods found. */
		if (k->singular != NULL) {
			char *low = cpl_xstrdup(k->kind);

			for (j = 0; low[j]; j++)
				if (low[j] >= 'A' && low[j] <= 'Z')
					low[j] = (char)(low[j] - 'A' + 'a');
			ck_assert_str_eq(k->singular, low);
			free(low);
			ck_assert_msg(k->pods != CPL_KPODS_NONE,
				      "%s: a target with no way to its Pods",
				      what);
			ck_type(k, k->singular);
			ck_type(k, k->resource);
			if (k->short_names) {
				char *names = cpl_xstrdup(k->short_names);
				char *p = names + 1, *bar;

				ck_assert(names[0] == '|');
				while ((bar = strchr(p, '|')) != NULL) {
					*bar = '\0';
					ck_assert(*p != '\0');
					ck_type(k, p);
					p = bar + 1;
				}
				ck_assert(*p == '\0');
				free(names);
			}
			targets++;
		} else {
			ck_assert_int_eq(k->pods, CPL_KPODS_NONE);
			ck_assert_ptr_null(k->short_names);
		}
		ck_assert(k->pods != CPL_KPODS_LABEL || k->pod_label);
		/* A training kind: the labels that mark its Pods and name
		 * their roles, or neither (its Pods known by their owner
		 * alone: a Katib Trial's Job). */
		if (k->trains)
			ck_assert_msg(!k->labels == !k->role_labels,
				      "%s trains with half its labels", what);
		ck_assert(k->replica_specs == NULL || (k->trains &&
			  cpl_str_ends(k->replica_specs, "ReplicaSpecs")));
		ck_assert(k->run == NULL || k->run[0] != NULL);
		ck_assert(!k->plan || k->kind);
		ck_assert(k->plan_at == NULL || k->plan);
		ck_assert(!k->mutate || (k->resource && k->kind));
		plans += k->plan;
		merges += k->merge != NULL;
		/* No kind twice, no resource twice in a group. */
		for (j = 0; j < i; j++) {
			o = cpl_kinds_at(j);
			if (!cpl_str_eq(o->group, k->group))
				continue;
			ck_assert_msg(o->kind != NULL || k->kind != NULL,
				      "two rows for any kind of %s", what);
			ck_assert_msg(k->kind == NULL ||
				      !cpl_str_eq(o->kind, k->kind),
				      "%s %s twice", k->group, k->kind);
			ck_assert_msg(k->resource == NULL ||
				      !cpl_str_eq(o->resource, k->resource),
				      "resource %s twice", k->resource);
		}
	}
	/* What live mode, plan and the engine rely on. */
	ck_assert_uint_ge(targets, 10);
	ck_assert_uint_ge(plans, 3);
	ck_assert_uint_eq(merges, 1);
	ck_assert_ptr_null(cpl_kinds_by_type("nosuchkind"));
	ck_assert(cpl_kinds_by_type("Deployment.apps") ==
		  cpl_kinds_find("apps/v1", "Deployment"));
	ck_assert(cpl_kinds_by_type("deploy") ==
		  cpl_kinds_find("apps/v1", "Deployment"));
	ck_assert(cpl_kinds_operator_label("training.kubeflow.org/job-name"));
	ck_assert(cpl_kinds_operator_label(
		"jobset.sigs.k8s.io/replicatedjob-name"));
	ck_assert(!cpl_kinds_operator_label("jobset.sigs.k8s.io/jobset-uid"));
	ck_assert(!cpl_kinds_operator_label("app"));
}
END_TEST

/*
 * What the old guess ("Job" in the owner's kind, not Job or CronJob:
 * training) said differently: a RayJob's and a plain JobSet's Pods do
 * not train by kind (Ray's never; a JobSet's on evidence, as a file of
 * it reads); a Kubeflow job's and a TrainJob's do.
 */
START_TEST(trains)
{
	ck_assert(!cpl_kinds_find("ray.io/v1", "RayJob")->trains);
	ck_assert_int_eq(cpl_kinds_find("ray.io/v1", "RayJob")->launch,
			 CPL_KLAUNCH_RAY);
	ck_assert(!cpl_kinds_find("jobset.x-k8s.io/v1alpha2",
				  "JobSet")->trains);
	ck_assert(!cpl_kinds_find("batch.volcano.sh/v1alpha1",
				  "Job")->trains);
	ck_assert(cpl_kinds_find("kubeflow.org/v1", "PyTorchJob")->trains);
	ck_assert(cpl_kinds_find("kubeflow.org/v1", "TFJob")->trains);
	ck_assert(cpl_kinds_find("kubeflow.org/v1", "MPIJob")->trains);
	ck_assert(cpl_kinds_find("kubeflow.org/v1", "SomeNewJob")->trains);
	ck_assert(cpl_kinds_find("trainer.kubeflow.org/v1alpha1",
				 "TrainJob")->trains);
	ck_assert(!cpl_kinds_find("batch/v1", "Job")->trains);
	ck_assert_ptr_null(cpl_kinds_find("example.com/v1", "SparkJob"));
}
END_TEST

/* The row's launcher reaches the workload: torchrun's kinds (the rules
 * then know the run container trains PyTorch), not TFJob's. */
START_TEST(launcher)
{
	struct loaded l;

	load_text(&l, "k.yaml",
		  "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"
		  "metadata: {name: pt}\n"
		  "spec:\n  pytorchReplicaSpecs:\n    Worker:\n"
		  "      template:\n        spec:\n          containers:\n"
		  "          - {name: pytorch, image: x}\n"
		  "---\n"
		  "apiVersion: kubeflow.org/v1\nkind: TFJob\n"
		  "metadata: {name: tf}\n"
		  "spec:\n  tfReplicaSpecs:\n    Worker:\n"
		  "      template:\n        spec:\n          containers:\n"
		  "          - {name: tensorflow, image: x}\n"
		  "---\n"
		  "apiVersion: trainer.kubeflow.org/v1alpha1\n"
		  "kind: TrainJob\nmetadata: {name: tj}\n"
		  "spec:\n  runtimeRef: {name: torch-distributed}\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert(find(&l, "pt", "Worker")->torch_kind);
	ck_assert(!find(&l, "tf", "Worker")->torch_kind);
	ck_assert(find(&l, "tj", NULL)->torch_kind);
	loaded_free(&l);
}
END_TEST

/* The mutating webhook sends /mutate exactly the kinds marked mutate. */
START_TEST(webhook)
{
	const char *path = "deploy/mutating-webhook.yaml";
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	const struct cpl_ynode *rules, *r, *groups, *res;
	const struct cpl_kind *k;
	char *buf = NULL, *sent[64];
	size_t len, i, j, g, nsent = 0, marked = 0;

	ck_assert_int_eq(cpl_read_file(&buf, &len, path, 1 << 20, &err), 0);
	ck_assert_int_eq(cpl_yaml_parse(&s, path, buf, len, &err), 0);
	r = cpl_ynode_get(cpl_ystream_doc(s, 0), "webhooks");
	ck_assert(cpl_ynode_is_seq(r) && r->count == 1);
	rules = cpl_ynode_get(r->items[0], "rules");
	ck_assert(cpl_ynode_is_seq(rules));
	for (i = 0; i < rules->count; i++) {
		r = rules->items[i];
		groups = cpl_ynode_get(r, "apiGroups");
		res = cpl_ynode_get(r, "resources");
		for (g = 0; g < groups->count; g++)
			for (j = 0; j < res->count; j++) {
				const char *gr = cpl_ynode_str(
					groups->items[g]);
				const char *rs = cpl_ynode_str(res->items[j]);

				ck_assert_uint_lt(nsent, 64);
				sent[nsent++] = cpl_xasprintf("%s/%s", gr,
							       rs);
			}
	}
	for (i = 0; (k = cpl_kinds_at(i)) != NULL; i++) {
		char *key;
		bool found = false;

		if (!k->mutate)
			continue;
		marked++;
		key = cpl_xasprintf("%s/%s", k->group, k->resource);
		for (j = 0; j < nsent; j++)
			found |= strcmp(sent[j], key) == 0;
		ck_assert_msg(found, "%s: marked mutate, not in %s", key,
			      path);
		free(key);
	}
	ck_assert_uint_eq(marked, nsent);
	for (j = 0; j < nsent; j++)
		free(sent[j]);
	cpl_ystream_free(s);
	free(buf);
}
END_TEST

static Suite *
kinds_suite(void)
{
	Suite *s = suite_create("kinds");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, jobset);
	tcase_add_test(tc, volcano);
	tcase_add_test(tc, leaderworkerset);
	tcase_add_test(tc, appwrapper);
	tcase_add_test(tc, run_to_completion);
	tcase_add_test(tc, mpi_launchers);
	tcase_add_test(tc, skips);
	tcase_add_test(tc, nested);
	tcase_add_test(tc, katib_trial);
	tcase_add_test(tc, steps);
	tcase_add_test(tc, generic);
	tcase_add_test(tc, not_judged);
	tcase_add_test(tc, limitrange);
	tcase_add_test(tc, table);
	tcase_add_test(tc, trains);
	tcase_add_test(tc, launcher);
	tcase_add_test(tc, webhook);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(kinds_suite)
