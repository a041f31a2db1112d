/*
 * test_kinds.c — the kinds read beyond Pods, controllers and Kubeflow v1
 * jobs (JobSet, Volcano Job, LeaderWorkerSet, AppWrapper), whether a
 * workload runs to completion, MPI launchers in commands, and the record
 * of skipped documents.
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
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(kinds_suite)
