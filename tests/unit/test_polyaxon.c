/*
 * test_polyaxon.c — Polyaxonfiles → workloads: v1.1 components and their
 * run kinds, operations, templates, the simplified top-level fields, legacy
 * v1 files, detection, and every error with its position.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "load/loader.h"
#include "loader_test.h"

static const struct loader_under_test LOADER = {
	.detect = cpl_polyaxon_detect,
	.load = cpl_polyaxon_load,
	.require_detect = true,
	.stop_on_error = true,
};

START_TEST(job_component)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_file(&l, "plx-job.yaml");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 1);
	w = l.wl.items[0];
	ck_assert_int_eq(w->source, CPL_SRC_POLYAXON);
	ck_assert_str_eq(w->kind, "Polyaxon job");
	ck_assert_str_eq(w->name, "resnet-train");
	ck_assert_ptr_null(w->namespace);
	ck_assert_ptr_null(w->replica);
	ck_assert_int_eq(w->replicas, 1);
	ck_assert_str_eq(w->file, DIR "plx-job.yaml");
	ck_pos(w->pos, 1, 1);
	ck_assert(w->training_job);
	ck_assert(!w->platform_shm);		/* plugins.shm: false */
	ck_assert(!w->has_nproc);
	/* The git init entry is no container; the one with a container is
	 * an init container; then the run container; then sidecars. */
	ck_assert_int_eq(w->ncontainers, 3);
	ck_assert_str_eq(w->containers[0].name, "warmup");
	ck_assert_int_eq(w->containers[0].role, CPL_CROLE_INIT);
	ck_assert(!w->containers[0].run_container);
	ck_assert_str_eq(w->containers[1].name, "polyaxon-main");
	ck_assert_int_eq(w->containers[1].role, CPL_CROLE_MAIN);
	ck_assert(w->containers[1].run_container);
	ck_assert_str_eq(w->containers[2].name, "tensorboard");
	ck_assert_int_eq(w->containers[2].role, CPL_CROLE_SIDECAR);
	ck_assert(!w->containers[2].run_container);
	c = &w->containers[1];
	ck_pos(c->pos, 24, 5);
	ck_assert(c->shm);
	ck_assert_int_eq(c->shm_bytes, -1);
	/* An expanded word keeps the position of its scalar. */
	ck_word(&w->containers[0], 2, "echo 4", 19, 25);
	loaded_free(&l);
}
END_TEST

START_TEST(templates)
{
	struct loaded l;
	const struct cpl_container *c;

	load_file(&l, "plx-job.yaml");
	c = &l.wl.items[0]->containers[1];
	ck_assert_str_eq(c->image, "pytorch:0.01");
	ck_assert_int_eq(c->argc, 9);
	ck_assert_int_eq(c->ncommand, 3);
	ck_word(c, 0, "python", 25, 15);
	ck_word(c, 2, "train.py", 25, 31);
	ck_word(c, 3, "--workers=4", 27, 7);	/* {{ workers }} */
	ck_word(c, 4, "--lr=0.01", 28, 7);	/* {{lr}} */
	ck_word(c, 5, "--fast=True", 29, 7);	/* params.x.value, a bool */
	/* An input without a value and globals stay as written. */
	ck_word(c, 6, "--data={{ data }}", 30, 7);
	ck_word(c, 7, "--out={{ globals.artifacts_path }}/x", 31, 7);
	ck_word(c, 8, "--n=4", 32, 7);		/* inputs.x */
	ck_assert_str_eq(cpl_container_env(c, "NUM_WORKERS")->value, "4");
	ck_pos(cpl_container_env(c, "NUM_WORKERS")->pos, 34, 34);
	ck_assert_ptr_null(cpl_container_env(c, "OUT")->value);
	ck_pos(cpl_container_env(c, "OUT")->pos, 35, 26);
	/* A CPU request from an input; a limit from nothing is unknown. */
	ck_assert_int_eq(c->cpu_request, 3000);
	ck_pos(c->request_pos, 38, 14);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_UNKNOWN);
	ck_pos(c->limit_pos, 40, 14);
	ck_pos(c->resources_pos, 36, 5);
	loaded_free(&l);
}
END_TEST

START_TEST(pytorchjob)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_file(&l, "plx-distributed.yaml");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 9);
	w = l.wl.items[0];
	ck_assert_str_eq(w->kind, "Polyaxon pytorchjob");
	ck_assert_str_eq(w->name, "plx-distributed");	/* the file's stem */
	ck_assert_str_eq(w->replica, "Master");
	ck_assert_int_eq(w->replicas, 1);
	ck_assert(w->platform_shm);
	ck_assert(w->has_nproc);
	ck_assert_str_eq(w->nproc.text, "2");
	ck_pos(w->nproc.pos, 5, 17);
	ck_assert(!w->nproc_default_auto);
	ck_assert_int_eq(w->ncontainers, 1);
	c = &w->containers[0];
	ck_assert(c->run_container);
	ck_assert_int_eq(c->cpu_limit, 4000);
	ck_assert_int_eq(c->cpu_request, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->gpus, 1);
	ck_assert_int_eq(c->argc, 1);
	ck_word(c, 0, "torchrun train.py", 10, 16);
	w = l.wl.items[1];
	ck_assert_str_eq(w->replica, "Worker");
	ck_assert_int_eq(w->replicas, 1);	/* "{{ nodes }}" unresolved */
	ck_assert_str_eq(w->nproc.text, "2");
	ck_assert_int_eq(w->ncontainers, 2);
	ck_assert_int_eq(container(w, "prep")->role, CPL_CROLE_INIT);
	ck_assert(container(w, "polyaxon-main")->run_container);
	loaded_free(&l);
}
END_TEST

START_TEST(other_distributed)
{
	struct loaded l;
	static const char *const tf[] = { "Chief", "PS", "Worker",
					  "Evaluator" };
	static const long tf_replicas[] = { 1, 2, 4, 1 };
	static const char *const ray[] = { "Head", "Small", "Big" };
	size_t i;

	load_file(&l, "plx-distributed.yaml");
	for (i = 0; i < 4; i++) {
		const struct cpl_workload *w = l.wl.items[2 + i];

		ck_assert_str_eq(w->kind, "Polyaxon tfjob");
		ck_assert_str_eq(w->name, "tf");
		ck_assert_str_eq(w->replica, tf[i]);
		ck_assert_int_eq(w->replicas, tf_replicas[i]);
		ck_assert(!w->has_nproc);
		ck_assert_str_eq(w->containers[0].image, "tf");
	}
	for (i = 0; i < 3; i++) {
		const struct cpl_workload *w = l.wl.items[6 + i];

		ck_assert_str_eq(w->kind, "Polyaxon raycluster");
		ck_assert_str_eq(w->replica, ray[i]);
	}
	ck_assert_int_eq(l.wl.items[7]->replicas, 2);
	loaded_free(&l);
}
END_TEST

START_TEST(operation)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_file(&l, "plx-operation.yaml");
	ck_assert_int_eq(l.rc, 0);
	/* The second operation is a hubRef: nothing to load. */
	ck_assert_int_eq(l.wl.count, 1);
	w = l.wl.items[0];
	ck_assert_str_eq(w->kind, "Polyaxon job");
	ck_assert_str_eq(w->name, "sweep");	/* the operation's name */
	ck_pos(w->pos, 1, 1);
	c = &w->containers[0];
	ck_assert(c->run_container);
	/* runPatch args replace the component's; params override inputs;
	 * matrix params are unknown. */
	ck_assert_int_eq(c->argc, 4);
	ck_assert_int_eq(c->ncommand, 2);
	ck_word(c, 0, "python", 27, 17);
	ck_word(c, 1, "train.py", 27, 25);
	ck_word(c, 2, "--epochs=5", 13, 12);
	ck_word(c, 3, "--batch={{ batch }}", 13, 37);
	/* runPatch env wins, per variable. */
	ck_assert_str_eq(cpl_container_env(c, "OMP_NUM_THREADS")->value, "2");
	ck_pos(cpl_container_env(c, "OMP_NUM_THREADS")->pos, 15, 38);
	ck_assert_str_eq(cpl_container_env(c, "MKL_NUM_THREADS")->value, "8");
	/* runPatch resources win, per field. */
	ck_assert_int_eq(c->cpu_request, 2000);
	ck_pos(c->request_pos, 33, 25);
	ck_assert_int_eq(c->cpu_limit, 6000);
	ck_pos(c->limit_pos, 17, 21);
	ck_pos(c->resources_pos, 16, 5);
	loaded_free(&l);
}
END_TEST

START_TEST(simplified_fields)
{
	struct loaded l;
	const struct cpl_container *c;

	load_file(&l, "plx-simple.yaml");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 1);
	c = &l.wl.items[0]->containers[0];
	/* Top-level resources and env win over the container's. */
	ck_assert_int_eq(c->cpu_request, 2000);
	ck_assert_int_eq(c->cpu_limit, 4000);
	ck_pos(c->request_pos, 4, 8);
	ck_pos(c->limit_pos, 4, 8);
	ck_pos(c->resources_pos, 3, 1);
	ck_assert_int_eq(c->nenv, 3);
	ck_assert_str_eq(cpl_container_env(c, "OMP_NUM_THREADS")->value, "2");
	ck_pos(cpl_container_env(c, "OMP_NUM_THREADS")->pos, 6, 20);
	ck_assert_str_eq(cpl_container_env(c, "KEEP")->value, "yes");
	ck_assert_str_eq(cpl_container_env(c, "MKL_NUM_THREADS")->value, "2");
	ck_pos(cpl_container_env(c, "MKL_NUM_THREADS")->pos, 7, 20);
	loaded_free(&l);
}
END_TEST

START_TEST(simplified_variants)
{
	struct loaded l;
	const struct cpl_container *c;

	/* A plain number is request = limit; "..3" sets only the limit. */
	load_text(&l, "a.yaml",
		  "version: 1.1\nkind: component\nresources: {cpu: 2}\n"
		  "run:\n  kind: job\n  container: {image: x}\n"
		  "---\n"
		  "version: 1.1\nkind: component\nresources: {cpu: \"..3\"}\n"
		  "run:\n  kind: job\n  container:\n    image: x\n"
		  "    resources: {requests: {cpu: 1}}\n"
		  "---\n"
		  "version: 1.1\nkind: component\n"
		  "inputs: [{name: c, value: 2}]\n"
		  "resources: {cpu: \"{{ c }}..{{ d }}\"}\n"
		  "env: {A: \"{{ d }}\", B: [1]}\n"
		  "run:\n  kind: job\n  container: {image: x}\n"
		  "---\n"
		  "version: 1.1\nkind: component\n"
		  "env: [{name: E}, {name: F, valueFrom: {a: b}}, {value: 1}]\n"
		  "run:\n  kind: job\n  container: {image: x}\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 4);
	c = &l.wl.items[0]->containers[0];
	ck_assert_int_eq(c->cpu_request, 2000);
	ck_assert_int_eq(c->cpu_limit, 2000);
	c = &l.wl.items[1]->containers[0];
	ck_assert_int_eq(c->cpu_request, 1000);
	ck_pos(c->request_pos, 15, 33);
	ck_assert_int_eq(c->cpu_limit, 3000);
	ck_pos(c->limit_pos, 10, 18);
	c = &l.wl.items[2]->containers[0];
	ck_assert_int_eq(c->cpu_request, CPL_CPU_UNKNOWN);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_UNKNOWN);
	ck_assert_ptr_null(cpl_container_env(c, "A")->value);
	ck_assert_ptr_null(cpl_container_env(c, "B")->value);
	/* The Kubernetes list form works at the top level too. */
	c = &l.wl.items[3]->containers[0];
	ck_assert_int_eq(c->nenv, 2);
	ck_assert_str_eq(cpl_container_env(c, "E")->value, "");
	ck_assert_ptr_null(cpl_container_env(c, "F")->value);
	ck_pos(cpl_container_env(c, "F")->pos, 28, 18);
	loaded_free(&l);
}
END_TEST

START_TEST(legacy)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_file(&l, "plx-legacy.yml");
	ck_assert_int_eq(l.rc, 0);
	/* The experiment's master and its 3 workers, the group. */
	ck_assert_int_eq(l.wl.count, 3);
	w = l.wl.items[0];
	ck_assert_str_eq(w->kind, "Polyaxon experiment");
	ck_assert_str_eq(w->name, "plx-legacy");
	ck_pos(w->pos, 2, 1);
	ck_assert(w->training_job);
	ck_assert(w->run_to_completion);
	ck_assert(w->platform_shm);
	ck_assert_str_eq(w->replica, "Master");
	ck_assert_int_eq(w->replicas, 1);
	ck_assert_int_eq(w->ncontainers, 1);
	c = &w->containers[0];
	ck_assert(c->run_container);
	ck_assert_int_eq(c->role, CPL_CROLE_MAIN);
	ck_assert_str_eq(c->image, "pytorch/pytorch:1.0");
	ck_assert_int_eq(c->cpu_request, 2000);
	ck_assert_int_eq(c->cpu_limit, 4000);
	ck_pos(c->request_pos, 10, 17);
	ck_pos(c->limit_pos, 11, 15);
	ck_pos(c->resources_pos, 8, 3);
	ck_assert_int_eq(c->gpus, 1);
	/* A string cmd is one word (shscan splits it), with declarations
	 * substituted. */
	ck_assert_int_eq(c->argc, 1);
	ck_assert_int_eq(c->ncommand, 1);
	ck_word(c, 0, "python train.py --batch-size=128 --lr=0.01", 20, 8);
	/* The workers run the same command; Polyaxon gives them only the
	 * resources of environment.pytorch, here none. */
	w = l.wl.items[1];
	ck_assert_str_eq(w->replica, "Worker");
	ck_assert_int_eq(w->replicas, 3);
	c = &w->containers[0];
	ck_word(c, 0, "python train.py --batch-size=128 --lr=0.01", 20, 8);
	ck_assert_int_eq(c->cpu_request, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->gpus, 0);
	ck_pos(c->resources_pos, 16, 5);
	w = l.wl.items[2];
	ck_assert_str_eq(w->kind, "Polyaxon group");
	ck_assert_int_eq(w->replicas, 1);
	c = &w->containers[0];
	ck_assert_str_eq(c->image, "trainer");
	ck_assert_int_eq(c->cpu_request, 500);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->gpus, 0);
	ck_assert_int_eq(c->argc, 3);
	ck_word(c, 0, "python", 33, 9);
	ck_word(c, 2, "--lr={{ lr }}", 33, 27);	/* a matrix param */
	loaded_free(&l);
}
END_TEST

START_TEST(legacy_replicas)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_file(&l, "plx-legacy-replicas.yml");
	ck_assert_int_eq(l.rc, 0);
	/* Master; worker 2 with its own resources; workers 0, 1, 3 with the
	 * default (an entry without resources keeps it); two ps with none.
	 * Then the earliest form: master, worker 0, worker 1, ps.  Then the
	 * mpijob's launcher and workers. */
	ck_assert_int_eq(l.wl.count, 10);
	w = l.wl.items[0];
	ck_assert_str_eq(w->replica, "Master");
	ck_assert_int_eq(w->containers[0].cpu_limit, 2000);
	w = l.wl.items[1];
	ck_assert_str_eq(w->replica, "Worker#2");
	ck_assert_int_eq(w->replicas, 1);
	c = &w->containers[0];
	ck_assert_int_eq(c->cpu_request, 1000);
	ck_assert_int_eq(c->cpu_limit, 8000);
	ck_assert_int_eq(c->gpus, 1);
	ck_pos(c->resources_pos, 17, 9);
	ck_word(c, 0, "python train.py", 22, 8);
	w = l.wl.items[2];
	ck_assert_str_eq(w->replica, "Worker");
	ck_assert_int_eq(w->replicas, 3);
	ck_assert_int_eq(w->containers[0].cpu_limit, 3000);
	ck_pos(w->containers[0].limit_pos, 12, 36);
	w = l.wl.items[3];
	ck_assert_str_eq(w->replica, "PS");
	ck_assert_int_eq(w->replicas, 2);
	ck_assert_int_eq(w->containers[0].cpu_limit, CPL_CPU_ABSENT);
	ck_pos(w->containers[0].resources_pos, 9, 5);	/* n_ps */
	ck_assert_str_eq(l.wl.items[5]->replica, "Worker#0");
	ck_assert_int_eq(l.wl.items[5]->containers[0].cpu_limit, 6000);
	ck_assert_str_eq(l.wl.items[6]->replica, "Worker");
	ck_assert_int_eq(l.wl.items[6]->replicas, 1);
	ck_assert_int_eq(l.wl.items[6]->containers[0].cpu_limit, 4000);
	ck_assert_str_eq(l.wl.items[7]->replica, "PS");
	ck_assert_int_eq(l.wl.items[7]->containers[0].cpu_limit, 1000);
	/* mpijob: the launcher starts the ranks on the workers, which run
	 * slotsPerWorker of them, no more than mpirun -np starts. */
	w = l.wl.items[8];
	ck_assert_str_eq(w->replica, "Launcher");
	ck_assert(w->containers[0].not_training);
	w = l.wl.items[9];
	ck_assert_str_eq(w->replica, "Worker");
	c = &w->containers[0];
	ck_assert(c->run_container && c->has_slots);
	ck_assert_str_eq(c->slots.text, "2");
	ck_assert_str_eq(c->slots_from, "mpirun -np");
	loaded_free(&l);
}
END_TEST

START_TEST(names_and_plugins)
{
	struct loaded l;

	load_text(&l, "dir.d/my.file.yaml",
		  "version: 1.1\nkind: component\nplugins: {shm: true}\n"
		  "run: {kind: service, container: {image: x}}\n"
		  "---\n"
		  "version: 1.1\nkind: operation\nplugins: {shm: false}\n"
		  "component:\n  name: inner\n  plugins: {shm: true}\n"
		  "  run: {kind: job, container: {image: x}}\n"
		  "---\n"
		  "version: 1\nkind: component\n"
		  "run: {kind: dag, operations: []}\n"
		  "---\n"
		  "version: 1.1\nkind: operation\npathRef: ./x.yaml\n"
		  "---\n"
		  "version: 1.1\nkind: tensorboard\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 2);
	ck_assert_str_eq(l.wl.items[0]->kind, "Polyaxon service");
	ck_assert_str_eq(l.wl.items[0]->name, "my.file");
	ck_assert(l.wl.items[0]->platform_shm);
	ck_assert_str_eq(l.wl.items[1]->name, "inner");
	ck_assert(!l.wl.items[1]->platform_shm);	/* the op's wins */
	loaded_free(&l);
}
END_TEST

/* Loads text and expects an error at line:col whose message has part. */
static void
expect_error(const char *text, int line, int col, const char *part)
{
	struct loaded l;

	load_text(&l, "e.yaml", text);
	ck_assert_int_eq(l.rc, -1);
	ck_assert_str_eq(l.err.path, "e.yaml");
	ck_assert_int_eq(l.err.line, line);
	ck_assert_int_eq(l.err.column, col);
	ck_assert_msg(strstr(l.err.message, part) != NULL, "%s",
		      l.err.message);
	ck_assert_int_eq(l.wl.count, 0);
	loaded_free(&l);
}

START_TEST(errors)
{
	expect_error("---\nversion: 1.1\nrun: {kind: job}\n", 2, 1,
		     "missing kind");
	expect_error("# c\nkind: component\nrun: {kind: job}\n", 2, 1,
		     "missing version");
	expect_error("version: 0.4\nkind: component\n", 1, 10,
		     "unsupported Polyaxonfile version 0.4");
	expect_error("version: 1.1\nkind: operations\n", 2, 7,
		     "unknown Polyaxonfile kind \"operations\"");
	expect_error("version: 1.1\nkind: component\n", 1, 1,
		     "component has no run");
	expect_error("version: 1.1\nkind: component\nrun:\n  kind: job\n",
		     4, 3, "job run has no container");
	expect_error("version: 1.1\nkind: component\nrun:\n  kind: job\n"
		     "  container: ~\n", 4, 3, "job run has no container");
	expect_error("version: 1.1\nkind: component\nrun:\n  kind: sparkjob\n",
		     4, 9, "unknown run kind \"sparkjob\"");
	expect_error("version: 1.1\nkind: component\nrun:\n"
		     "  container: {image: x}\n", 4, 3, "run has no kind");
	expect_error("version: 1.1\nkind: component\nrun:\n"
		     "  kind: pytorchjob\n  master: {replicas: 1}\n", 4, 3,
		     "pytorchjob run has no replica with a container");
	expect_error("version: 1.1\nkind: component\nrun:\n  kind: job\n"
		     "  container:\n    resources:\n      limits:\n"
		     "        cpu: 2 cores\n", 8, 14,
		     "invalid CPU quantity \"2 cores\"");
	expect_error("version: 1.1\nkind: component\nresources:\n"
		     "  cpu: \"4..2\"\nrun: {kind: job, container: {}}\n", 4, 8,
		     "invalid CPU range \"4..2\"");
	expect_error("version: 1.1\nkind: component\nresources: 2\n"
		     "run: {kind: job, container: {}}\n", 3, 12,
		     "resources must be a mapping");
	expect_error("version: 1.1\nkind: operation\ncomponent: [x]\n", 3, 12,
		     "component must be a mapping");
	expect_error("version: 1\nkind: experiment\nenvironment:\n"
		     "  resources: {cpu: {limits: lots}}\nrun: {cmd: x}\n",
		     4, 29, "invalid CPU quantity \"lots\"");
	expect_error("version: 1\nkind: experiment\n", 1, 1,
		     "experiment has no run section");
}
END_TEST

START_TEST(error_keeps_earlier_workloads)
{
	struct loaded l;

	load_text(&l, "m.yaml",
		  "version: 1.1\nkind: component\nrun:\n  kind: pytorchjob\n"
		  "  master: {container: {image: x}}\n"
		  "  worker:\n    container:\n      resources:\n"
		  "        limits: {cpu: -1}\n");
	ck_assert_int_eq(l.rc, -1);
	ck_assert_int_eq(l.err.line, 9);
	ck_assert_int_eq(l.err.column, 23);
	ck_assert_int_eq(l.wl.count, 1);
	ck_assert_str_eq(l.wl.items[0]->replica, "Master");
	loaded_free(&l);
}
END_TEST

/* Parses text and returns cpl_polyaxon_detect() of its first document. */
static bool
detects(const char *text)
{
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	bool r;

	ck_assert_int_eq(cpl_yaml_parse(&s, "d.yaml", text, strlen(text),
					&err), 0);
	r = cpl_polyaxon_detect(cpl_ystream_doc(s, 0));
	cpl_ystream_free(s);
	return r;
}

START_TEST(detect)
{
	ck_assert(detects("version: 1.1\nkind: component\n"));
	ck_assert(detects("version: 1\nkind: experiment\n"));
	ck_assert(detects("version: 1\nkind: operations\n"));
	ck_assert(detects("kind: operation\n"));
	ck_assert(detects("version: 1.1\n"));
	ck_assert(detects("run: {kind: job}\n"));
	ck_assert(detects("component: {run: {kind: job}}\n"));
	ck_assert(!detects("apiVersion: v1\nkind: Pod\nversion: 1\n"));
	ck_assert(!detects("version: \"3.8\"\nservices: {web: {}}\n"));
	ck_assert(!detects("version: 2\nupdates: []\n"));
	ck_assert(!detects("version: 2\n"));
	ck_assert(!detects("version: 2\nbuild: {os: x}\n"));
	ck_assert(detects("version: 2\nkind: component\n"));
	ck_assert(!detects("kind: group\nmembers: [a]\n"));
	ck_assert(!detects("kind: Deployment\n"));
	ck_assert(!detects("- a\n"));
	ck_assert(!detects("just text\n"));
	ck_assert(!cpl_polyaxon_detect(NULL));
}
END_TEST

static Suite *
polyaxon_suite(void)
{
	Suite *s = suite_create("polyaxon");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, job_component);
	tcase_add_test(tc, templates);
	tcase_add_test(tc, pytorchjob);
	tcase_add_test(tc, other_distributed);
	tcase_add_test(tc, operation);
	tcase_add_test(tc, simplified_fields);
	tcase_add_test(tc, simplified_variants);
	tcase_add_test(tc, legacy);
	tcase_add_test(tc, legacy_replicas);
	tcase_add_test(tc, names_and_plugins);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, error_keeps_earlier_workloads);
	tcase_add_test(tc, detect);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(polyaxon_suite)
