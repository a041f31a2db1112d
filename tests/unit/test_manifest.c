/*
 * test_manifest.c — Kubernetes objects → workloads: every kind the loader
 * knows, container fields with their positions, and the errors.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "load/loader.h"
#include "load/trainer_int.h"
#include "loader_test.h"
#include "shell/shscan.h"
#include "text/quantity.h"

static const struct loader_under_test LOADER = {
	.detect = cpl_manifest_detect,
	.load = cpl_manifest_load,
	.require_detect = false,
	.stop_on_error = false,
};

START_TEST(pod_object)
{
	struct loaded l;
	const struct cpl_workload *w;

	load_file(&l, "k8s-pod.yaml");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 1);
	w = l.wl.items[0];
	ck_assert_int_eq(w->source, CPL_SRC_MANIFEST);
	ck_assert_str_eq(w->kind, "Pod");
	ck_assert_str_eq(w->name, "train-0");
	ck_assert_str_eq(w->namespace, "ml");
	ck_assert_str_eq(w->file, DIR "k8s-pod.yaml");
	ck_assert_ptr_eq(w->pos.file, w->file);
	ck_pos(w->pos, 2, 1);
	ck_assert_ptr_null(w->replica);
	ck_assert_int_eq(w->replicas, 1);
	ck_assert(!w->training_job);
	ck_assert(!w->has_nproc);
	ck_assert(!w->nproc_default_auto);
	ck_assert(!w->platform_shm);
	/* Init containers first, then containers, in document order. */
	ck_assert_int_eq(w->ncontainers, 4);
	ck_assert_str_eq(w->containers[0].name, "fetch");
	ck_assert_int_eq(w->containers[0].role, CPL_CROLE_INIT);
	ck_assert_str_eq(w->containers[1].name, "logger");
	ck_assert_int_eq(w->containers[1].role, CPL_CROLE_SIDECAR);
	ck_assert_int_eq(w->containers[1].cpu_limit, 100);
	ck_assert_str_eq(w->containers[2].name, "trainer");
	ck_assert_int_eq(w->containers[2].role, CPL_CROLE_MAIN);
	ck_assert_str_eq(w->containers[3].name, "exporter");
	ck_assert_int_eq(w->containers[3].role, CPL_CROLE_MAIN);
	ck_assert(!w->containers[2].run_container);
	ck_pos(w->containers[0].pos, 9, 5);
	ck_assert_ptr_eq(w->containers[0].pos.file, w->file);
	loaded_free(&l);
}
END_TEST

START_TEST(pod_command_and_env)
{
	struct loaded l;
	const struct cpl_container *c;
	const struct cpl_env *e;

	load_file(&l, "k8s-pod.yaml");
	c = container(l.wl.items[0], "trainer");
	ck_assert_str_eq(c->image, "pytorch/pytorch:2.3");
	ck_pos(c->pos, 19, 5);
	ck_assert_int_eq(c->argc, 5);
	ck_assert_int_eq(c->ncommand, 2);
	ck_word(c, 0, "torchrun", 22, 7);
	ck_word(c, 1, "--nproc_per_node=4", 23, 7);
	ck_word(c, 2, "train.py", 24, 12);
	ck_word(c, 3, "--workers", 24, 22);
	ck_word(c, 4, "8", 24, 33);
	/* A later duplicate wins, keeping its first slot. */
	ck_assert_int_eq(c->nenv, 3);
	ck_assert_str_eq(c->env[0].name, "OMP_NUM_THREADS");
	ck_assert_str_eq(c->env[0].value, "4");
	ck_pos(c->env[0].pos, 33, 14);
	e = cpl_container_env(c, "POD_NAME");
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_null(e->value);
	ck_pos(e->pos, 28, 7);
	e = cpl_container_env(c, "EMPTY");
	ck_assert_str_eq(e->value, "");
	ck_pos(e->pos, 31, 7);
	ck_assert(c->env_from);
	/* A string command is one word, for shscan to split. */
	c = container(l.wl.items[0], "exporter");
	ck_assert_int_eq(c->argc, 1);
	ck_assert_int_eq(c->ncommand, 1);
	ck_word(c, 0, "/bin/exporter --port 9100", 48, 14);
	ck_assert(!c->env_from);
	ck_assert_int_eq(c->nenv, 0);
	loaded_free(&l);
}
END_TEST

START_TEST(pod_resources_gpus_shm)
{
	struct loaded l;
	const struct cpl_container *c;

	load_file(&l, "k8s-pod.yaml");
	c = container(l.wl.items[0], "trainer");
	ck_assert_int_eq(c->cpu_request, 1500);
	ck_assert_int_eq(c->cpu_limit, 4000);
	ck_pos(c->request_pos, 38, 14);
	ck_pos(c->limit_pos, 41, 14);
	ck_pos(c->resources_pos, 36, 5);
	/* limits first: nvidia.com/gpu 1, not the requests' amd.com/gpu 2 */
	ck_assert_int_eq(c->gpus, 1);
	ck_assert(c->shm);
	ck_assert_int_eq(c->shm_bytes, 1073741824);
	/* /dev/shm on a disk-backed emptyDir does not count. */
	c = container(l.wl.items[0], "exporter");
	ck_assert(!c->shm);
	ck_assert_int_eq(c->shm_bytes, -1);
	ck_assert_int_eq(c->cpu_request, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->gpus, 0);
	ck_pos(c->resources_pos, 46, 5);
	loaded_free(&l);
}
END_TEST

START_TEST(limit_only_and_neither)
{
	struct loaded l;
	const struct cpl_container *c;

	load_text(&l, "p.yaml",
		  "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		  "  - name: a\n    resources:\n      limits: {cpu: 2}\n"
		  "  - name: b\n    resources: {}\n"
		  "  - name: c\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 1);
	ck_assert_str_eq(l.wl.items[0]->name, "");
	ck_assert_ptr_null(l.wl.items[0]->namespace);
	c = container(l.wl.items[0], "a");
	ck_assert_int_eq(c->cpu_request, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->cpu_limit, 2000);
	ck_pos(c->limit_pos, 7, 21);
	ck_pos(c->request_pos, 0, 0);
	c = container(l.wl.items[0], "b");
	ck_assert_int_eq(c->cpu_request, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_ABSENT);
	ck_pos(c->resources_pos, 9, 5);
	c = container(l.wl.items[0], "c");
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_ABSENT);
	ck_pos(c->resources_pos, 10, 5);
	ck_assert_ptr_null(c->image);
	ck_assert_int_eq(c->argc, 0);
	loaded_free(&l);
}
END_TEST

START_TEST(invalid_quantity)
{
	struct loaded l;

	load_text(&l, "bad.yaml",
		  "apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\nspec:\n"
		  "  containers:\n  - name: a\n    image: x\n"
		  "---\n"
		  "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		  "  - name: a\n    resources:\n      requests:\n"
		  "        cpu: abc\n");
	ck_assert_int_eq(l.rc, -1);
	ck_assert_int_eq(l.failed_doc, 1);
	ck_assert_str_eq(l.err.path, "bad.yaml");
	ck_assert_int_eq(l.err.line, 16);
	ck_assert_int_eq(l.err.column, 14);
	ck_assert_msg(cpl_str_starts(l.err.message,
				     "invalid CPU quantity \"abc\": "),
		      "%s", l.err.message);
	/* The object before the error stays; the bad one is not added. */
	ck_assert_int_eq(l.wl.count, 1);
	ck_assert_str_eq(l.wl.items[0]->name, "ok");
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
	ck_assert_int_eq(l.err.line, line);
	ck_assert_int_eq(l.err.column, col);
	ck_assert_msg(strstr(l.err.message, part) != NULL, "%s",
		      l.err.message);
	ck_assert_int_eq(l.wl.count, 0);
	loaded_free(&l);
}

START_TEST(wrong_types)
{
	expect_error("apiVersion: v1\nkind: Pod\nspec:\n  containers: oops\n",
		     4, 15, "containers must be a list");
	expect_error("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		     "  - name: a\n    resources:\n      limits: [1]\n",
		     7, 15, "resources.limits must be a mapping");
	expect_error("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		     "  - name: a\n    resources: 2\n",
		     6, 16, "resources must be a mapping");
	expect_error("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		     "  - name: a\n    command: {a: b}\n",
		     6, 14, "command must be a list");
	expect_error("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		     "  - name: a\n    args: [x, [y]]\n",
		     6, 15, "args items must be strings");
	expect_error("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		     "  - name: a\n    env: FOO\n",
		     6, 10, "env must be a list");
	expect_error("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		     "  - just-a-string\n",
		     5, 5, "container must be a mapping");
	expect_error("apiVersion: apps/v1\nkind: Deployment\nspec:\n"
		     "  template: [x]\n",
		     4, 13, "template must be a mapping");
	expect_error("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		     "  - name: a\n    resources:\n      limits:\n"
		     "        cpu: [1]\n",
		     8, 14, "CPU quantity must be a string or number");
}
END_TEST

START_TEST(lenient_fields)
{
	struct loaded l;
	const struct cpl_container *c;

	/* Unknown fields, a missing spec, a spec without containers, and
	 * volumeMounts/volumes of odd shapes are no errors. */
	load_text(&l, "ok.yaml",
		  "apiVersion: v1\nkind: Pod\nmetadata: {name: nospec}\n"
		  "---\n"
		  "apiVersion: v1\nkind: Pod\nspec: {hostNetwork: true}\n"
		  "---\n"
		  "apiVersion: v1\nkind: Pod\nspec:\n  volumes: 3\n"
		  "  containers:\n  - name: a\n    volumeMounts: nope\n"
		  "    env:\n    - name: X\n      value: {a: 1}\n"
		  "    - value: no-name\n    futureField: [1, 2]\n"
		  "    resources:\n      limits:\n        cpu: null\n"
		  "        example.com/foo: 3\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 2);
	ck_assert_int_eq(l.wl.items[0]->ncontainers, 0);
	c = container(l.wl.items[1], "a");
	ck_assert_int_eq(c->nenv, 1);
	ck_assert_ptr_null(c->env[0].value);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_ABSENT);
	ck_assert_int_eq(c->gpus, 0);
	ck_assert(!c->shm);
	loaded_free(&l);
}
END_TEST

START_TEST(shm_sizes)
{
	struct loaded l;

	load_text(&l, "shm.yaml",
		  "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n"
		  "  - name: a\n    volumeMounts:\n"
		  "    - {name: m, mountPath: /dev/shm}\n"
		  "  - name: b\n    volumeMounts:\n"
		  "    - {name: g, mountPath: /dev/shm/}\n"
		  "  - name: c\n    volumeMounts:\n"
		  "    - {name: u, mountPath: /dev/shm}\n"
		  "  - name: d\n    volumeMounts:\n"
		  "    - {name: h, mountPath: /dev/shm}\n"
		  "  - name: e\n    volumeMounts:\n"
		  "    - {name: m, mountPath: /data}\n"
		  "  volumes:\n"
		  "  - {name: m, emptyDir: {medium: Memory, sizeLimit: 512Mi}}\n"
		  "  - {name: g, emptyDir: {medium: Memory, sizeLimit: 64M}}\n"
		  "  - {name: u, emptyDir: {medium: Memory}}\n"
		  "  - {name: h, hostPath: {path: /dev/shm}}\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert(container(l.wl.items[0], "a")->shm);
	ck_assert_int_eq(container(l.wl.items[0], "a")->shm_bytes, 536870912);
	ck_assert(container(l.wl.items[0], "b")->shm);
	ck_assert_int_eq(container(l.wl.items[0], "b")->shm_bytes, 64000000);
	ck_assert(container(l.wl.items[0], "c")->shm);
	ck_assert_int_eq(container(l.wl.items[0], "c")->shm_bytes, -1);
	ck_assert(!container(l.wl.items[0], "d")->shm);
	ck_assert(!container(l.wl.items[0], "e")->shm);
	loaded_free(&l);
}
END_TEST

START_TEST(json_input)
{
	struct loaded l;
	const struct cpl_container *c;

	load_file(&l, "k8s-pod.json");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 1);
	ck_assert_str_eq(l.wl.items[0]->name, "json-pod");
	ck_pos(l.wl.items[0]->pos, 1, 1);
	c = container(l.wl.items[0], "main");
	ck_assert_int_eq(c->argc, 2);
	ck_word(c, 0, "python", 10, 21);
	ck_word(c, 1, "train.py", 10, 31);
	ck_assert_str_eq(cpl_container_env(c, "OMP_NUM_THREADS")->value, "3");
	ck_pos(cpl_container_env(c, "OMP_NUM_THREADS")->pos, 11, 54);
	ck_assert_int_eq(c->cpu_limit, 2000);
	ck_assert_int_eq(c->cpu_request, 500);
	ck_pos(c->limit_pos, 12, 41);
	ck_pos(c->request_pos, 12, 65);
	loaded_free(&l);
}
END_TEST

START_TEST(multi_document)
{
	struct loaded l;
	const struct cpl_workload *w;
	static const char *const kinds[] = { "Deployment", "StatefulSet",
		"CronJob", "Job", "DaemonSet", "ReplicaSet", "Job",
		"PodTemplate", "ReplicationController" };
	static const char *const names[] = { "web", "db", "nightly", "once",
		"agent", "rs", "volcano", "tmpl", "rc" };
	static const long replicas[] = { 3, 2, 1, 1, 1, 4, 2, 1, 5 };
	static const bool completes[] = { false, false, true, true, false,
		false, true, false, false };
	size_t i;

	load_file(&l, "k8s-multi.yaml");
	ck_assert_int_eq(l.rc, 0);
	/* Service, ConfigMap and the empty document are skipped; the
	 * Volcano Job (batch.volcano.sh, not batch/v1) is read by task. */
	ck_assert_int_eq(l.wl.count, CPL_ARRAY_LEN(kinds));
	ck_assert_int_eq(l.wl.nskipped, 2);
	ck_assert_str_eq(l.wl.skipped[0].what, "Service \"svc\"");
	ck_assert_str_eq(l.wl.skipped[0].why, "not a workload");
	ck_assert_int_eq(l.wl.skipped[0].line, 1);
	ck_assert_str_eq(l.wl.skipped[1].what, "ConfigMap \"cfg\"");
	for (i = 0; i < CPL_ARRAY_LEN(kinds); i++) {
		w = l.wl.items[i];
		ck_assert_str_eq(w->kind, kinds[i]);
		ck_assert_str_eq(w->name, names[i]);
		ck_assert_int_eq(w->replicas, replicas[i]);
		ck_assert_int_eq(w->run_to_completion, completes[i]);
		ck_assert_int_eq(w->ncontainers, 1);
		ck_assert(!w->training_job);
		ck_assert(!w->containers[0].run_container);
	}
	ck_pos(l.wl.items[0]->pos, 8, 1);
	ck_assert_int_eq(l.wl.items[0]->containers[0].cpu_limit, 2000);
	ck_pos(l.wl.items[0]->containers[0].limit_pos, 21, 18);
	ck_assert_int_eq(l.wl.items[2]->containers[0].cpu_request, 250);
	ck_assert_str_eq(l.wl.items[2]->containers[0].name, "report");
	loaded_free(&l);
}
END_TEST

START_TEST(lists)
{
	struct loaded l;

	load_file(&l, "k8s-list.yaml");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 4);
	ck_assert_str_eq(l.wl.items[0]->kind, "Pod");
	ck_assert_str_eq(l.wl.items[0]->name, "a");
	ck_pos(l.wl.items[0]->pos, 4, 3);
	ck_assert_str_eq(l.wl.items[1]->kind, "Deployment");
	ck_assert_str_eq(l.wl.items[1]->name, "d");
	/* PodList items carry no kind: it comes from the list's. */
	ck_assert_str_eq(l.wl.items[2]->kind, "Pod");
	ck_assert_str_eq(l.wl.items[2]->name, "p1");
	ck_assert_str_eq(l.wl.items[3]->name, "p2");
	ck_assert_str_eq(l.wl.items[3]->containers[0].name, "c");
	loaded_free(&l);
}
END_TEST

START_TEST(pytorchjob)
{
	struct loaded l;
	const struct cpl_workload *w;

	load_file(&l, "kf-pytorchjob.yaml");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 4);
	w = l.wl.items[0];
	ck_assert_str_eq(w->kind, "PyTorchJob");
	ck_assert_str_eq(w->name, "resnet");
	ck_assert_str_eq(w->namespace, "ml");
	ck_assert_str_eq(w->replica, "Master");
	ck_assert_int_eq(w->replicas, 1);
	ck_assert(w->training_job);
	/* spec.nprocPerNode wins over elasticPolicy.nProcPerNode. */
	ck_assert(w->has_nproc);
	ck_assert_str_eq(w->nproc.text, "4");
	ck_pos(w->nproc.pos, 7, 17);
	ck_assert_ptr_eq(w->nproc.pos.file, w->file);
	ck_assert(!w->nproc_default_auto);
	/* The run container is the one named pytorch, not the first. */
	ck_assert_int_eq(w->ncontainers, 2);
	ck_assert(!container(w, "log-shipper")->run_container);
	ck_assert(container(w, "pytorch")->run_container);
	ck_assert_int_eq(container(w, "pytorch")->cpu_limit, 8000);
	w = l.wl.items[1];
	ck_assert_str_eq(w->replica, "Worker");
	ck_assert_int_eq(w->replicas, 3);
	ck_assert_str_eq(w->nproc.text, "4");
	/* No container named pytorch: the first main container runs. */
	ck_assert(container(w, "worker-main")->run_container);
	w = l.wl.items[2];
	ck_assert_str_eq(w->name, "elastic");
	ck_assert_int_eq(w->replicas, 1);
	ck_assert(w->has_nproc);
	ck_assert_str_eq(w->nproc.text, "auto");
	ck_pos(w->nproc.pos, 38, 19);
	w = l.wl.items[3];
	ck_assert_str_eq(w->name, "plain");
	ck_assert(!w->has_nproc);
	ck_assert_ptr_null(w->nproc.text);
	ck_assert(w->nproc_default_auto);
	loaded_free(&l);
}
END_TEST

START_TEST(kubeflow_jobs)
{
	struct loaded l;
	const struct cpl_workload *w;

	load_file(&l, "kf-jobs.yaml");
	ck_assert_int_eq(l.rc, 0);
	/* TFJob Chief+PS, MPIJob Launcher+Worker, JAXJob Worker; the
	 * kubeflow.org Notebook has no replica specs: the generic model
	 * reads its Pod template, its container training only on
	 * evidence. */
	ck_assert_int_eq(l.wl.count, 6);
	w = l.wl.items[0];
	ck_assert_str_eq(w->kind, "TFJob");
	ck_assert_str_eq(w->replica, "Chief");
	ck_assert(w->containers[0].run_container);
	ck_assert(!w->nproc_default_auto);
	ck_assert_str_eq(l.wl.items[1]->replica, "PS");
	ck_assert_int_eq(l.wl.items[1]->replicas, 2);
	w = l.wl.items[2];
	ck_assert_str_eq(w->kind, "MPIJob");
	ck_assert_str_eq(w->name, "pi");
	ck_assert_str_eq(w->replica, "Launcher");
	ck_assert(w->training_job);
	/* mpirun starts the ranks in the workers' Pods. */
	ck_assert(!container(w, "mpi-launcher")->run_container);
	ck_assert(container(w, "mpi-launcher")->not_training);
	ck_assert_int_eq(container(w, "mpi-launcher")->argc, 4);
	w = l.wl.items[3];
	ck_assert_str_eq(w->replica, "Worker");
	ck_assert_int_eq(w->replicas, 2);
	ck_assert_int_eq(container(w, "mpi-worker")->cpu_limit, 1000);
	ck_assert(container(w, "mpi-worker")->run_container);
	ck_assert(container(w, "mpi-worker")->has_slots);
	ck_assert_str_eq(container(w, "mpi-worker")->slots.text, "1");
	ck_pos(container(w, "mpi-worker")->slots.pos, 27, 19);
	w = l.wl.items[4];
	ck_assert_str_eq(w->kind, "JAXJob");
	ck_assert(!container(w, "sidecar")->run_container);
	ck_assert(container(w, "jax")->run_container);
	w = l.wl.items[5];
	ck_assert_str_eq(w->kind, "Notebook");
	ck_assert_str_eq(w->name, "nb");
	ck_assert_ptr_null(w->replica);
	ck_assert(w->by_evidence);
	ck_assert(!w->training_job);
	ck_assert(!w->run_to_completion);
	ck_assert(!container(w, "nb")->run_container);
	loaded_free(&l);
}
END_TEST

START_TEST(trainjob_and_runtime)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_file(&l, "kf-trainer.yaml");
	ck_assert_int_eq(l.rc, 0);
	/* TrainJob tj, TrainJob bare (no trainer: all from its runtime),
	 * runtime rt with two replicated jobs. */
	ck_assert_int_eq(l.wl.count, 4);
	w = l.wl.items[0];
	ck_assert_str_eq(w->kind, "TrainJob");
	ck_assert_str_eq(w->name, "tj");
	ck_assert_int_eq(w->replicas, 3);
	ck_assert(w->training_job);
	ck_assert(w->has_nproc);
	ck_assert_str_eq(w->nproc.text, "4");
	ck_pos(w->nproc.pos, 11, 21);
	ck_assert_int_eq(w->ncontainers, 1);
	c = &w->containers[0];
	ck_assert_str_eq(c->name, "node");
	ck_assert_int_eq(c->role, CPL_CROLE_MAIN);
	ck_assert(c->run_container);
	ck_assert_str_eq(c->image, "pytorch/pytorch:2.3");
	ck_assert_int_eq(c->argc, 4);
	ck_assert_int_eq(c->ncommand, 2);
	ck_word(c, 0, "torchrun", 12, 15);
	ck_word(c, 3, "2", 13, 22);
	ck_assert_str_eq(cpl_container_env(c, "OMP_NUM_THREADS")->value, "1");
	ck_assert_int_eq(c->cpu_request, 2000);
	ck_assert_int_eq(c->cpu_limit, 4000);
	ck_pos(c->request_pos, 19, 14);
	ck_pos(c->limit_pos, 21, 14);
	ck_pos(c->resources_pos, 17, 5);
	ck_assert_int_eq(c->gpus, 2);
	/* What the join needs: the runtime named, the fields written. */
	ck_assert_str_eq(w->trainer->ref_kind, "ClusterTrainingRuntime");
	ck_assert_str_eq(w->trainer->ref_name, "torch-distributed");
	ck_assert(w->trainer->set_image && w->trainer->set_command &&
		  w->trainer->set_args && w->trainer->set_resources);
	ck_assert(w->trainer->set_limits && w->trainer->set_requests);
	ck_assert(w->trainer->gpu_limits && !w->trainer->gpu_requests);
	ck_assert(w->trainer->set_nodes && w->trainer->set_nproc);
	w = l.wl.items[1];
	ck_assert_str_eq(w->name, "bare");
	ck_assert_int_eq(w->ncontainers, 1);
	ck_assert_int_eq(w->containers[0].argc, 0);
	ck_assert(!w->trainer->set_image && !w->trainer->set_resources);
	w = l.wl.items[2];
	ck_assert_str_eq(w->kind, "ClusterTrainingRuntime");
	ck_assert_str_eq(w->replica, "dataset-initializer");
	ck_assert_int_eq(w->replicas, 1);
	ck_assert(!w->has_nproc);
	/* An initializer never trains, whatever its command. */
	ck_assert(!w->containers[0].run_container);
	ck_assert(w->containers[0].not_training);
	ck_assert_int_eq(w->trainer->step, CPL_TSTEP_INIT);
	ck_assert_int_eq(w->ml_policy, CPL_TPOLICY_TORCH);
	w = l.wl.items[3];
	ck_assert_int_eq(w->trainer->step, CPL_TSTEP_TRAINER);
	ck_assert_str_eq(w->replica, "node");
	ck_assert_int_eq(w->replicas, 2);
	ck_assert(w->has_nproc);
	ck_assert_str_eq(w->nproc.text, "auto");
	ck_pos(w->nproc.pos, 40, 23);
	ck_assert_int_eq(w->ncontainers, 3);
	ck_assert_int_eq(container(w, "wait")->role, CPL_CROLE_INIT);
	ck_assert(!container(w, "helper")->run_container);
	ck_assert(container(w, "node")->run_container);
	loaded_free(&l);
}
END_TEST

START_TEST(skipped_kinds)
{
	struct loaded l;

	load_text(&l, "s.yaml",
		  "apiVersion: v1\nkind: Service\nspec:\n  containers: x\n"
		  "---\n"
		  "apiVersion: apiextensions.k8s.io/v1\n"
		  "kind: CustomResourceDefinition\nspec: {group: a}\n"
		  "---\n"
		  "apiVersion: example.com/v1\nkind: Pod\nspec:\n"
		  "  containers: x\n"
		  "---\n"
		  "apiVersion: v1\nkind: List\n"
		  "---\n"
		  "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 0);
	loaded_free(&l);
}
END_TEST

START_TEST(detect)
{
	struct loaded l;

	load_text(&l, "d.yaml",
		  "apiVersion: v1\nkind: Pod\n---\nkind: Pod\n---\n"
		  "apiVersion: v1\n---\n- a\n---\nversion: 1.1\n"
		  "kind: component\n---\n");
	ck_assert(cpl_manifest_detect(cpl_ystream_doc(l.s, 0)));
	ck_assert(!cpl_manifest_detect(cpl_ystream_doc(l.s, 1)));
	ck_assert(!cpl_manifest_detect(cpl_ystream_doc(l.s, 2)));
	ck_assert(!cpl_manifest_detect(cpl_ystream_doc(l.s, 3)));
	ck_assert(!cpl_manifest_detect(cpl_ystream_doc(l.s, 4)));
	ck_assert(!cpl_manifest_detect(cpl_ystream_doc(l.s, 5)));
	ck_assert(!cpl_manifest_detect(NULL));
	loaded_free(&l);
}
END_TEST

/*
 * A test hook: "@N@" becomes "3", anything holding "UNK" is unknown.
 * Counts its calls.
 */
static int hook_calls;

static char *
test_hook(void *ctx, const char *text, bool *unknown)
{
	const char *at = strstr(text, "@N@");

	(void)ctx;
	hook_calls++;
	if (strstr(text, "UNK")) {
		*unknown = true;
		return cpl_xstrdup(text);
	}
	if (at)
		return cpl_xasprintf("%.*s3%s", (int)(at - text), text,
				     at + 3);
	return cpl_xstrdup(text);
}

START_TEST(expansion_hook)
{
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	struct cpl_workload *w = cpl_workload_new(CPL_SRC_POLYAXON, "h.yaml");
	struct cpl_container *c = cpl_workload_add_container(w);
	struct cpl_expand ex = { test_hook, NULL };
	static const char text[] =
		"name: x\nimage: img:@N@\ncommand: [python, --n=@N@, UNKa]\n"
		"env:\n- {name: A, value: \"@N@\"}\n- {name: B, value: UNK}\n"
		"resources:\n  requests: {cpu: \"@N@\"}\n"
		"  limits: {cpu: \"UNK\", nvidia.com/gpu: \"UNK\"}\n";

	ck_assert_int_eq(cpl_yaml_parse(&s, "h.yaml", text, strlen(text),
					&err), 0);
	hook_calls = 0;
	ck_assert_int_eq(cpl_manifest_container(c, s, cpl_ystream_doc(s, 0),
						NULL, "h.yaml", &ex, &err),
			 0);
	ck_assert_int_eq(hook_calls, 9);
	ck_assert_str_eq(c->image, "img:3");
	ck_assert_int_eq(c->argc, 3);
	ck_word(c, 0, "python", 3, 11);
	ck_word(c, 1, "--n=3", 3, 19);
	/* Unresolved words keep their text as written. */
	ck_word(c, 2, "UNKa", 3, 28);
	ck_assert_str_eq(cpl_container_env(c, "A")->value, "3");
	ck_assert_ptr_null(cpl_container_env(c, "B")->value);
	ck_assert_int_eq(c->cpu_request, 3000);
	ck_assert_int_eq(c->cpu_limit, CPL_CPU_UNKNOWN);
	ck_pos(c->limit_pos, 9, 17);
	ck_assert_int_eq(c->gpus, 1);
	ck_assert_ptr_eq(c->pos.file, w->file);
	cpl_workload_free(w);
	cpl_ystream_free(s);
}
END_TEST

START_TEST(shscan_smoke)
{
	struct loaded l;
	const struct cpl_container *c;

	/* The loader hands argv and its nodes to shscan; what shscan makes
	 * of them is tested in test_shscan.c. */
	load_file(&l, "k8s-pod.yaml");
	c = container(l.wl.items[0], "trainer");
	ck_assert_int_eq(c->launch.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(c->launch.launcher_word.text, "torchrun");
	ck_pos(c->launch.launcher_word.pos, 22, 7);
	loaded_free(&l);
}
END_TEST

/* What the QoS class is told from (CPU406): memory requests and limits
 * by value, whether the Pod spec was read whole, Pod-level resources, and
 * what asks for exclusive cores (a CPU Manager nodeSelector, CRI-O's
 * annotations). */
START_TEST(qos_fields)
{
	struct loaded l;
	const struct cpl_workload *w;
	const struct cpl_container *c;

	load_text(&l, "qos.yaml",
		  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
		  "  annotations: {cpu-quota.crio.io: disable}\n"
		  "spec:\n  nodeSelector: {cpumanager: \"true\"}\n"
		  "  initContainers:\n  - name: i\n    image: x\n"
		  "    resources: {requests: {memory: 1Gi}, limits: "
		  "{memory: \"1073741824\"}}\n"
		  "  containers:\n  - name: t\n    image: x\n"
		  "    resources: {limits: {cpu: \"8\", memory: 32Gi}}\n"
		  "  - name: s\n    image: x\n"
		  "    resources: {limits: {memory: 1Gb}}\n"
		  "---\napiVersion: v1\nkind: Pod\nmetadata: {name: q}\n"
		  "spec:\n  resources: {limits: {cpu: \"4\"}}\n"
		  "  nodeSelector: {kubernetes.io/arch: amd64}\n"
		  "  containers:\n  - name: t\n    image: x\n");
	ck_assert_int_eq(l.rc, 0);
	ck_assert_int_eq(l.wl.count, 2);
	w = l.wl.items[0];
	ck_assert(w->pod_spec);
	ck_assert(!w->pod_resources);
	ck_assert_str_eq(w->exclusive_hint, "annotation cpu-quota.crio.io: "
			 "disable");
	c = container(w, "i");
	ck_assert(c->mem_request == c->mem_limit);
	ck_assert(c->mem_limit == (int64_t)1073741824 * 1000);
	c = container(w, "t");
	ck_assert(c->mem_request == CPL_CPU_ABSENT);
	ck_assert(c->mem_limit == (int64_t)32 * 1073741824 * 1000);
	/* A memory quantity that does not parse is unknown, no error. */
	c = container(w, "s");
	ck_assert(c->mem_limit == CPL_CPU_UNKNOWN);
	w = l.wl.items[1];
	ck_assert(w->pod_spec);
	ck_assert(w->pod_resources);
	ck_assert_ptr_null(w->exclusive_hint);
	loaded_free(&l);
}
END_TEST

static Suite *
manifest_suite(void)
{
	Suite *s = suite_create("manifest");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pod_object);
	tcase_add_test(tc, pod_command_and_env);
	tcase_add_test(tc, pod_resources_gpus_shm);
	tcase_add_test(tc, limit_only_and_neither);
	tcase_add_test(tc, invalid_quantity);
	tcase_add_test(tc, wrong_types);
	tcase_add_test(tc, lenient_fields);
	tcase_add_test(tc, shm_sizes);
	tcase_add_test(tc, json_input);
	tcase_add_test(tc, multi_document);
	tcase_add_test(tc, lists);
	tcase_add_test(tc, pytorchjob);
	tcase_add_test(tc, kubeflow_jobs);
	tcase_add_test(tc, trainjob_and_runtime);
	tcase_add_test(tc, skipped_kinds);
	tcase_add_test(tc, detect);
	tcase_add_test(tc, expansion_hook);
	tcase_add_test(tc, shscan_smoke);
	tcase_add_test(tc, qos_fields);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(manifest_suite)
