/*
 * test_trainer.c — Kubeflow Trainer v2: a TrainJob merged with the runtime
 * it names (cpl_trainer_join) as Trainer's JobSet builder and torch/MPI
 * plugins build the Pods: overrides, positions from both sides, the
 * plugins' rank counts, initializers, namespaces, a TrainJob alone and a
 * runtime alone.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "load/loader.h"
#include "loader_test.h"

static const struct loader_under_test LOADER = {
	.detect = cpl_manifest_detect,
	.load = cpl_manifest_load,
	.require_detect = false,
	.stop_on_error = false,
};

/* The linted workload (not merged away) of kind and name, replica. */
static const struct cpl_workload *
find(const struct loaded *l, const char *kind, const char *name,
     const char *replica)
{
	size_t i;

	for (i = 0; i < l->wl.count; i++) {
		const struct cpl_workload *w = l->wl.items[i];

		if (!w->merged && cpl_str_eq(w->kind, kind) &&
		    cpl_str_eq(w->name, name) &&
		    (replica == NULL || cpl_str_eq(w->replica, replica)))
			return w;
	}
	ck_abort_msg("no %s %s[%s]", kind, name, replica ? replica : "");
	return NULL;
}

/* The value of variable name in c ("(unknown)" when unknown). */
static const char *
env(const struct cpl_container *c, const char *name)
{
	const struct cpl_env *e = cpl_container_env(c, name);

	ck_assert_msg(e != NULL, "no %s", name);
	return e->value ? e->value : "(unknown)";
}

/* Loads trainer-join.yaml and joins. */
static void
joined(struct loaded *l)
{
	load_file(l, "trainer-join.yaml");
	ck_assert_int_eq(l->rc, 0);
	cpl_trainer_join(&l->wl);
}

START_TEST(overrides)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	joined(&l);
	w = find(&l, "TrainJob", "tj-full", "node");
	ck_assert_int_eq(w->replicas, 4);	/* numNodes */
	ck_assert(w->training_job && w->run_to_completion);
	ck_assert_str_eq(w->file, DIR "trainer-join.yaml");
	ck_pos(w->pos, 43, 1);
	c = container(w, "node");
	ck_assert(c->run_container);
	ck_pos(c->pos, 51, 5);		/* the TrainJob's trainer */
	ck_assert_str_eq(c->image, "x");
	/* Command replaced, the TrainJob's args first, then the runtime's. */
	ck_assert_int_eq(c->argc, 5);
	ck_assert_int_eq(c->ncommand, 2);
	ck_word(c, 0, "torchrun", 53, 15);
	ck_word(c, 2, "--epochs", 54, 12);
	ck_word(c, 4, "--runtime-arg", 35, 26);
	ck_assert_int_eq(c->launch.launcher, CPL_LAUNCH_TORCHRUN);
	/* env upserted by name; each value where it was written. */
	ck_assert_str_eq(env(c, "A"), "runtime");
	ck_pos(cpl_container_env(c, "A")->pos, 37, 38);
	ck_assert_str_eq(env(c, "B"), "job");
	ck_pos(cpl_container_env(c, "B")->pos, 56, 24);
	ck_assert_str_eq(env(c, "C"), "job");
	/* resourcesPerNode is merged onto the runtime's resources. */
	ck_assert_int_eq(c->cpu_request, 6000);
	ck_assert_int_eq(c->cpu_limit, 6000);
	ck_pos(c->limit_pos, 62, 14);
	/* The torch plugin: auto without a GPU is the CPU count. */
	ck_assert_str_eq(env(c, "PET_NPROC_PER_NODE"), "6");
	ck_pos(cpl_container_env(c, "PET_NPROC_PER_NODE")->pos, 62, 14);
	/* The initializer job comes along and never trains. */
	w = find(&l, "TrainJob", "tj-full", "dataset-initializer");
	ck_assert(w->containers[0].not_training);
	loaded_free(&l);
}
END_TEST

START_TEST(runtime_values_kept)
{
	struct loaded l;
	const struct cpl_container *c;

	joined(&l);
	c = container(find(&l, "TrainJob", "tj-args-only", "node"), "node");
	ck_assert_str_eq(c->image, "base");
	ck_assert_int_eq(c->argc, 6);
	ck_word(c, 0, "python", 34, 29);
	ck_word(c, 3, "--lr", 72, 12);
	ck_word(c, 5, "--runtime-arg", 35, 26);
	ck_assert_int_eq(c->cpu_limit, 2000);
	ck_pos(c->limit_pos, 41, 28);
	/* No resourcesPerNode and no GPU: v2.0 leaves auto to torchrun
	 * (a rank per host CPU), v2.1 and later take max(1, the runtime's
	 * CPU): the releases disagree, so the count is unknown. */
	ck_assert_str_eq(env(c, "PET_NPROC_PER_NODE"), "(unknown)");
	ck_assert_int_eq(find(&l, "TrainJob", "tj-args-only", "node")->replicas,
			 2);	/* the runtime's numNodes */
	loaded_free(&l);
}
END_TEST

START_TEST(torch_plugin)
{
	struct loaded l;

	joined(&l);
	/* GPU limits, no requests: the plugin falls back to requests that
	 * are not written, where releases disagree (v2.0 sets 1). */
	ck_assert_str_eq(env(container(find(&l, "TrainJob",
		"tj-gpu-limits-only", "node"), "node"), "PET_NPROC_PER_NODE"),
		"(unknown)");
	/* The GPUs merged onto the runtime's CPU limit. */
	ck_assert_int_eq(container(find(&l, "TrainJob", "tj-gpu-limits-only",
		"node"), "node")->gpus, 4);
	ck_assert_int_eq(container(find(&l, "TrainJob", "tj-gpu-limits-only",
		"node"), "node")->cpu_limit, 8000);
	/* A GPU on both sides: auto, one rank per GPU for torchrun. */
	ck_assert_str_eq(env(container(find(&l, "TrainJob", "tj-gpu-both",
		"node"), "node"), "PET_NPROC_PER_NODE"), "auto");
	ck_assert_int_eq(container(find(&l, "TrainJob", "tj-gpu-both",
		"node"), "node")->gpus, 4);
	/* cpu: the CPU count, rounded up. */
	ck_assert_str_eq(env(container(find(&l, "TrainJob", "tj-cpu-mode",
		"node"), "node"), "PET_NPROC_PER_NODE"), "3");
	/* A number stays, even past limits the plugin does not use: the
	 * TrainJob also writes requests. */
	ck_assert_str_eq(env(container(find(&l, "TrainJob", "tj-numeric",
		"node"), "node"), "PET_NPROC_PER_NODE"), "5");
	/* The runtime's numProcPerNode when the TrainJob sets none. */
	ck_assert_str_eq(env(container(find(&l, "TrainJob", "tj-team",
		"node"), "node"), "PET_NPROC_PER_NODE"), "3");
	loaded_free(&l);
}
END_TEST

START_TEST(alone)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	joined(&l);
	w = find(&l, "TrainJob", "tj-missing", NULL);
	ck_assert_ptr_null(w->replica);
	c = &w->containers[0];
	ck_assert(c->run_container);
	ck_assert_int_eq(c->cpu_request, CPL_CPU_UNKNOWN);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_UNKNOWN);
	ck_assert(c->env_from);
	ck_assert_str_eq(env(c, "PET_NPROC_PER_NODE"), "(unknown)");
	/* Another API group's runtime is not ours to merge. */
	find(&l, "TrainJob", "tj-other-group", NULL);
	/* A namespaced runtime serves its own namespace only. */
	find(&l, "TrainJob", "tj-elsewhere", NULL);
	find(&l, "TrainJob", "tj-team", "node");
	loaded_free(&l);
}
END_TEST

START_TEST(mpi_plugin)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	joined(&l);
	/* The launcher only runs mpirun: its ranks are on the nodes. */
	w = find(&l, "TrainJob", "tj-mpi", "launcher");
	ck_assert_int_eq(w->replicas, 1);
	c = container(w, "node");
	ck_assert(c->not_training);
	ck_word(c, 0, "mpirun", 239, 15);
	/* numProcPerNode 1 with 2 GPUs a node: 2 slots, on numNodes Pods. */
	w = find(&l, "TrainJob", "tj-mpi", "node");
	ck_assert_int_eq(w->replicas, 3);
	c = container(w, "node");
	ck_assert(c->run_container && c->has_slots);
	ck_assert_str_eq(c->slots.text, "2");
	loaded_free(&l);
}
END_TEST

START_TEST(merged_and_templates)
{
	struct loaded l;
	size_t i, merged_rt = 0;

	joined(&l);
	for (i = 0; i < l.wl.count; i++) {
		const struct cpl_workload *w = l.wl.items[i];

		if (cpl_str_eq(w->name, "torch-rt")) {
			ck_assert(w->merged);
			ck_assert_str_eq(w->merged_into,
					 "into TrainJob \"tj-full\"");
			merged_rt++;
		}
		if (cpl_str_eq(w->name, "tj-full") && w->replica == NULL) {
			ck_assert(w->merged);
			ck_assert_str_eq(w->merged_into, "with its runtime "
					 "ClusterTrainingRuntime \"torch-rt\"");
		}
	}
	ck_assert_int_eq(merged_rt, 2);
	/* Used by no TrainJob: a template, its rank count unknown. */
	ck_assert(find(&l, "ClusterTrainingRuntime", "lonely-rt",
		       "node")->template_only);
	ck_assert_str_eq(env(container(find(&l, "ClusterTrainingRuntime",
		"lonely-rt", "node"), "node"), "PET_NPROC_PER_NODE"),
		"(unknown)");
	loaded_free(&l);
}
END_TEST

static Suite *
trainer_suite(void)
{
	Suite *s = suite_create("trainer");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, overrides);
	tcase_add_test(tc, runtime_values_kept);
	tcase_add_test(tc, torch_plugin);
	tcase_add_test(tc, alone);
	tcase_add_test(tc, mpi_plugin);
	tcase_add_test(tc, merged_and_templates);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(trainer_suite)
