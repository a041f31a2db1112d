/*
 * test_budget.c — the budget arithmetic and the per-container questions:
 * training containers, C, ranks from every source and launcher, who sets
 * OMP_NUM_THREADS, thread precedence, workers from --workers style
 * arguments and from linked code, the split with and without workers.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "model/budget.h"
#include "python/pyscan.h"
#include "util.h"

static const struct cpl_pos P = { "f.yaml", 3, 5 };

static struct cpl_workload *
one(enum cpl_launcher l, struct cpl_container **c)
{
	struct cpl_workload *w = cpl_workload_new(CPL_SRC_MANIFEST, "f.yaml");

	*c = cpl_workload_add_container(w);
	(*c)->launch.launcher = l;
	(*c)->launch.launcher_word.pos = P;
	return w;
}

static void
set_nproc(struct cpl_container *c, const char *v)
{
	c->launch.has_nproc = true;
	c->launch.nproc.text = cpl_xstrdup(v);
	c->launch.nproc.pos = P;
}

START_TEST(split)
{
	long b, t, w;

	cpl_budget_split(&b, &t, &w, 4000, 1, CPL_LOADER_PLAIN);
	ck_assert_int_eq(b, 4);
	ck_assert_int_eq(t, 2);
	ck_assert_int_eq(w, 2);
	cpl_budget_split(&b, &t, &w, 8000, 4, CPL_LOADER_PLAIN);
	ck_assert_int_eq(b, 2);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 1);
	cpl_budget_split(&b, &t, &w, 2500, 1, CPL_LOADER_PLAIN);
	ck_assert_int_eq(b, 2);
	cpl_budget_split(&b, &t, &w, 1000, 4, CPL_LOADER_PLAIN);
	ck_assert_int_eq(b, 0);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 0);
	cpl_budget_split(&b, &t, &w, 7000, 1, CPL_LOADER_PLAIN);
	ck_assert_int_eq(t, 3);
	ck_assert_int_eq(w, 4);
}
END_TEST

START_TEST(cpu_budget)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_PYTHON, &c);
	struct cpl_pos pos;
	char s[16];

	ck_assert_int_eq(cpl_budget_cpu(c, &pos), -1);
	c->cpu_request = 2000;
	c->request_pos = P;
	ck_assert_int_eq(cpl_budget_cpu(c, &pos), 2000);
	c->cpu_limit = 4000;
	ck_assert_int_eq(cpl_budget_cpu(c, NULL), 4000);
	c->cpu_limit = CPL_CPU_UNKNOWN;
	ck_assert_int_eq(cpl_budget_cpu(c, NULL), -1);
	cpl_budget_cpus_str(s, sizeof(s), 2500);
	ck_assert_str_eq(s, "2.5");
	cpl_budget_cpus_str(s, sizeof(s), 250);
	ck_assert_str_eq(s, "250m");
	cpl_workload_free(w);
}
END_TEST

START_TEST(training)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_NONE, &c);

	ck_assert(!cpl_budget_training(w, c));
	/* GPUs and Python make a training container of a job, not of a
	 * server; GPUs alone (a burn-in binary, sleep) do not. */
	c->gpus = 1;
	ck_assert(!cpl_budget_training(w, c));
	w->run_to_completion = true;
	ck_assert(!cpl_budget_training(w, c));
	c->launch.launcher = CPL_LAUNCH_PYTHON;
	ck_assert(cpl_budget_training(w, c));
	w->run_to_completion = false;
	ck_assert(!cpl_budget_training(w, c));
	w->run_to_completion = true;
	c->launch.launcher = CPL_LAUNCH_NONE;
	cpl_container_add_arg(c, "horovodrun", P);
	cpl_container_add_arg(c, "/usr/bin/python3.11", P);
	ck_assert(cpl_budget_training(w, c));
	c->gpus = 0;
	c->launch.launcher = CPL_LAUNCH_TORCHRUN;
	ck_assert(cpl_budget_training(w, c));
	w->run_to_completion = false;
	ck_assert(cpl_budget_training(w, c));
	c->role = CPL_CROLE_INIT;
	ck_assert(!cpl_budget_training(w, c));
	c->role = CPL_CROLE_MAIN;
	c->launch.launcher = CPL_LAUNCH_PYTHON;
	ck_assert(!cpl_budget_training(w, c));
	c->run_container = true;
	ck_assert(cpl_budget_training(w, c));
	/* An initializer or an MPI launcher never is. */
	c->not_training = true;
	ck_assert(!cpl_budget_training(w, c));
	cpl_workload_free(w);
}
END_TEST

/* A program the tool cannot see into: only a command written (args
 * alone run the image's entrypoint), with no launcher, Python or MPI
 * ranks of another Pod. */
START_TEST(unseen)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_NONE, &c);

	ck_assert_ptr_null(cpl_budget_unseen(c));
	cpl_container_add_arg(c, "--job_type=Train", P);
	ck_assert_ptr_null(cpl_budget_unseen(c));
	cpl_workload_free(w);

	w = one(CPL_LAUNCH_NONE, &c);
	cpl_container_add_arg(c, "./gpu_burn", P);
	cpl_container_add_arg(c, "300", P);
	c->ncommand = 1;
	ck_assert_str_eq(cpl_budget_unseen(c), "./gpu_burn");
	c->has_slots = true;
	ck_assert_ptr_null(cpl_budget_unseen(c));
	c->has_slots = false;
	cpl_container_add_arg(c, "python3", P);
	ck_assert_ptr_null(cpl_budget_unseen(c));
	cpl_workload_free(w);

	w = one(CPL_LAUNCH_TORCHRUN, &c);
	cpl_container_add_arg(c, "torchrun", P);
	c->ncommand = 1;
	ck_assert_ptr_null(cpl_budget_unseen(c));
	cpl_workload_free(w);
}
END_TEST

START_TEST(ranks)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_TORCHRUN, &c);
	struct cpl_amount r;

	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 1);
	set_nproc(c, "4");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 4);
	ck_assert_str_eq(r.how, "torchrun --nproc_per_node 4");
	ck_assert_int_eq(r.pos.line, 3);
	free(c->launch.nproc.text);
	c->launch.nproc.text = cpl_xstrdup("auto");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_HOST);
	ck_assert(r.auto_cpu);
	c->gpus = 2;
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 2);
	ck_assert(!r.auto_cpu);
	free(c->launch.nproc.text);
	c->launch.nproc.text = cpl_xstrdup("$(nproc)");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_HOST);
	ck_assert(!r.auto_cpu);
	cpl_workload_free(w);
}
END_TEST

START_TEST(ranks_from_job)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_TORCHRUN, &c);
	struct cpl_amount r;

	w->nproc_default_auto = true;
	cpl_budget_ranks(&r, w, c);
	ck_assert(r.auto_cpu);
	w->has_nproc = true;
	w->nproc.text = cpl_xstrdup("3");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 3);
	/* The env wins over the job field; the flag over both. */
	cpl_container_set_env(c, "PET_NPROC_PER_NODE", "2", P);
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 2);
	set_nproc(c, "5");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 5);
	/* python does not read PET_NPROC_PER_NODE. */
	c->launch.launcher = CPL_LAUNCH_PYTHON;
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 1);
	cpl_workload_free(w);
}
END_TEST

START_TEST(threads_precedence)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_TORCHRUN, &c);
	struct cpl_amount t;

	cpl_budget_threads(&t, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNSET);	/* one rank */
	set_nproc(c, "4");
	cpl_budget_threads(&t, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(t.n, 1);
	ck_assert_str_eq(t.how, "OMP_NUM_THREADS=1 (set by torchrun)");
	cpl_container_set_env(c, "OMP_NUM_THREADS", "8", P);
	cpl_budget_threads(&t, w, c);
	ck_assert_int_eq(t.n, 8);
	cpl_container_set_env(c, "MKL_NUM_THREADS", "2", P);
	cpl_budget_threads(&t, w, c);
	ck_assert_int_eq(t.n, 2);
	ck_assert_str_eq(t.how, "MKL_NUM_THREADS=2");
	/* An export in the command overrides the container env. */
	c->launch.exports = cpl_xcalloc(1, sizeof(*c->launch.exports));
	c->launch.exports[0].name = cpl_xstrdup("MKL_NUM_THREADS");
	c->launch.nexports = 1;
	cpl_budget_threads(&t, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNKNOWN);
	cpl_workload_free(w);
}
END_TEST

static void
set_args(struct cpl_container *c, const char *const *v, size_t n)
{
	size_t i;

	c->launch.args = cpl_xcalloc(n, sizeof(*c->launch.args));
	for (i = 0; i < n; i++) {
		c->launch.args[i].text = cpl_xstrdup(v[i]);
		c->launch.args[i].pos = P;
	}
	c->launch.nargs = n;
}

START_TEST(workers)
{
	static const char *const a1[] = { "--epochs", "3", "--workers", "6" };
	static const char *const a2[] = { "--num-workers=4" };
	static const char *const a3[] = { "--num_workers", "$(nproc)" };
	static const char *const a4[] = { "--num_workers", "{{ w }}" };
	static const char *const a5[] = { "--workers-per-gpu", "4" };
	struct cpl_container *c;
	struct cpl_workload *w;
	struct cpl_amount a;

	w = one(CPL_LAUNCH_PYTHON, &c);
	set_args(c, a1, 4);
	cpl_budget_workers(&a, w, c);
	ck_assert_int_eq(a.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(a.n, 6);
	ck_assert_str_eq(a.how, "--workers 6");
	cpl_workload_free(w);
	w = one(CPL_LAUNCH_PYTHON, &c);
	set_args(c, a2, 1);
	cpl_budget_workers(&a, w, c);
	ck_assert_int_eq(a.n, 4);
	cpl_workload_free(w);
	w = one(CPL_LAUNCH_PYTHON, &c);
	set_args(c, a3, 2);
	cpl_budget_workers(&a, w, c);
	ck_assert_int_eq(a.state, CPL_AMT_HOST);
	cpl_workload_free(w);
	w = one(CPL_LAUNCH_PYTHON, &c);
	set_args(c, a4, 2);
	cpl_budget_workers(&a, w, c);
	ck_assert_int_eq(a.state, CPL_AMT_UNKNOWN);
	cpl_workload_free(w);
	w = one(CPL_LAUNCH_PYTHON, &c);
	set_args(c, a5, 2);
	cpl_budget_workers(&a, w, c);
	ck_assert_int_eq(a.state, CPL_AMT_UNSET);
	cpl_workload_free(w);
}
END_TEST


/* Sets launcher option o of c to v. */
static void
set_opt(struct cpl_container *c, enum cpl_lopt o, const char *v)
{
	free(c->launch.opt[o].text);
	c->launch.opt[o].text = cpl_xstrdup(v);
	c->launch.opt[o].pos = P;
}

START_TEST(split_no_workers)
{
	long b, t, w;

	/* One rank, 4 CPUs, no DataLoader: all four are threads. */
	cpl_budget_split(&b, &t, &w, 4000, 1, CPL_LOADER_NONE);
	ck_assert_int_eq(b, 4);
	ck_assert_int_eq(t, 4);
	ck_assert_int_eq(w, 0);
	cpl_budget_split(&b, &t, &w, 16000, 4, CPL_LOADER_NONE);
	ck_assert_int_eq(t, 4);
	ck_assert_int_eq(w, 0);
	/* More ranks than CPUs: still one thread each. */
	cpl_budget_split(&b, &t, &w, 1000, 4, CPL_LOADER_NONE);
	ck_assert_int_eq(b, 0);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 0);
}
END_TEST

START_TEST(ranks_from_variables)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_TORCHRUN, &c);
	struct cpl_amount r, t;
	bool forced;

	/* An unresolved variable is unknown, never 1. */
	set_nproc(c, "$NPROC_PER_NODE");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_UNKNOWN);
	ck_assert_str_eq(r.how, "torchrun --nproc_per_node $NPROC_PER_NODE");
	/* torchrun may then set OMP_NUM_THREADS=1, or may not. */
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNKNOWN);
	ck_assert(!forced);
	/* The container's env gives the shell its value. */
	cpl_container_set_env(c, "NPROC_PER_NODE", "4", P);
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 4);
	ck_assert_str_eq(r.how,
			 "torchrun --nproc_per_node $NPROC_PER_NODE = 4");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(t.n, 1);
	free(c->launch.nproc.text);
	c->launch.nproc.text = cpl_xstrdup("${NPROC_PER_NODE}");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 4);
	/* $(NAME): Kubernetes expands it from the container's env. */
	free(c->launch.nproc.text);
	c->launch.nproc.text = cpl_xstrdup("$(NPROC_PER_NODE)");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 4);
	free(c->launch.nproc.text);
	c->launch.nproc.text = cpl_xstrdup("$(GPUS)");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_UNKNOWN);
	/* One rank from the env: torchrun leaves OMP_NUM_THREADS alone. */
	cpl_container_set_env(c, "GPUS", "1", P);
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 1);
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNSET);
	/* Partial words are not variables. */
	free(c->launch.nproc.text);
	c->launch.nproc.text = cpl_xstrdup("$GPUS$GPUS");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_UNKNOWN);
	cpl_workload_free(w);
}
END_TEST

START_TEST(accelerate_ranks)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_ACCELERATE, &c);
	struct cpl_amount r;

	/* No GPUs, no --multi_gpu: the simple launcher, one process. */
	set_nproc(c, "4");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 1);
	/* --num_processes is the total over --num_machines. */
	c->launch.flags = CPL_LFLAG_MULTI;
	free(c->launch.nproc.text);
	c->launch.nproc.text = cpl_xstrdup("16");
	set_opt(c, CPL_LOPT_NODES, "2");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 8);
	ck_assert_str_eq(r.how, "accelerate --num_processes 16 / "
			 "--num_machines 2 = 8 per container");
	set_opt(c, CPL_LOPT_NODES, "$NNODES");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_UNKNOWN);
	free(c->launch.opt[CPL_LOPT_NODES].text);
	c->launch.opt[CPL_LOPT_NODES].text = NULL;
	/* More than one GPU turns multi-GPU on by itself. */
	c->launch.flags = 0;
	c->launch.has_nproc = false;
	c->gpus = 4;
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 4);
	/* --cpu: one process. */
	c->launch.flags = CPL_LFLAG_CPU;
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 1);
	/* A config file not in the repository: unknown. */
	c->launch.flags = 0;
	set_opt(c, CPL_LOPT_CONFIG, "/etc/accelerate/fsdp.yaml");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_UNKNOWN);
	cpl_workload_free(w);
}
END_TEST

START_TEST(accelerate_config)
{
	static const char yaml[] =
		"compute_environment: LOCAL_MACHINE\n"
		"distributed_type: FSDP\n"
		"num_machines: 2\n"
		"num_processes: 16\n"
		"use_cpu: false\n";
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_ACCELERATE, &c);
	struct cpl_amount r, t;
	bool forced;

	set_opt(c, CPL_LOPT_CONFIG, "configs/fsdp.yaml");
	ck_assert_int_eq(cpl_launch_read_config(&c->launch, "fsdp.yaml",
						yaml, strlen(yaml)), 0);
	ck_assert(c->launch.cfg.read);
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 8);
	ck_assert_int_eq(r.pos.line, 4);
	ck_assert_str_eq(r.pos.file, "fsdp.yaml");
	/* The command line wins over the config. */
	set_opt(c, CPL_LOPT_NODES, "4");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 4);
	/* accelerate sets OMP_NUM_THREADS=1 when it is unset. */
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(t.n, 1);
	ck_assert(!forced);
	cpl_budget_threads(&t, w, c);
	ck_assert_str_eq(t.how, "OMP_NUM_THREADS=1 (set by accelerate launch)");
	cpl_container_set_env(c, "OMP_NUM_THREADS", "6", P);
	cpl_budget_threads(&t, w, c);
	ck_assert_int_eq(t.n, 6);
	/* --num_cpu_threads_per_process wins over the env. */
	set_opt(c, CPL_LOPT_THREADS, "2");
	cpl_budget_threads(&t, w, c);
	ck_assert_int_eq(t.n, 2);
	ck_assert_str_eq(t.how, "accelerate --num_cpu_threads_per_process 2");
	cpl_workload_free(w);

	/* Not YAML: left unread, so unknown. */
	w = one(CPL_LAUNCH_ACCELERATE, &c);
	set_opt(c, CPL_LOPT_CONFIG, "c.yaml");
	ck_assert_int_eq(cpl_launch_read_config(&c->launch, "c.yaml",
						"a: [", 4), -1);
	ck_assert(!c->launch.cfg.read);
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_UNKNOWN);
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNKNOWN);
	cpl_workload_free(w);
}
END_TEST

START_TEST(accelerate_threads)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_ACCELERATE, &c);
	struct cpl_amount t;
	bool forced;

	/* One process: accelerate still sets OMP_NUM_THREADS=1. */
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(t.n, 1);
	/* --cpu sizes it from the node's cores. */
	c->launch.flags = CPL_LFLAG_CPU;
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_HOST);
	/* DeepSpeed on one machine: torch.distributed.run's rule. */
	c->launch.flags = CPL_LFLAG_DEEPSPEED;
	set_nproc(c, "1");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNSET);
	free(c->launch.nproc.text);
	c->launch.nproc.text = cpl_xstrdup("2");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_KNOWN);
	/* On several machines it goes through the deepspeed runner. */
	set_opt(c, CPL_LOPT_NODES, "2");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNSET);
	cpl_workload_free(w);
}
END_TEST

START_TEST(deepspeed_ranks)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_DEEPSPEED, &c);
	struct cpl_amount r, t;
	bool forced;

	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_UNKNOWN);
	c->gpus = 4;
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 4);
	set_opt(c, CPL_LOPT_INCLUDE, "localhost:0,1,2");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(r.n, 3);
	set_opt(c, CPL_LOPT_INCLUDE, "worker-0:0,1@worker-1:2,3");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 2);
	set_opt(c, CPL_LOPT_INCLUDE, "worker-0:0@worker-1:1,2");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_UNKNOWN);
	set_opt(c, CPL_LOPT_INCLUDE, "localhost");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 4);
	free(c->launch.opt[CPL_LOPT_INCLUDE].text);
	c->launch.opt[CPL_LOPT_INCLUDE].text = NULL;
	set_opt(c, CPL_LOPT_EXCLUDE, "localhost:0");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 3);
	free(c->launch.opt[CPL_LOPT_EXCLUDE].text);
	c->launch.opt[CPL_LOPT_EXCLUDE].text = NULL;
	/* A hostfile: the slots per host are in it. */
	set_opt(c, CPL_LOPT_HOSTFILE, "/etc/mpi/hostfile");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.state, CPL_AMT_UNKNOWN);
	set_nproc(c, "8");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 8);
	/* deepspeed leaves OMP_NUM_THREADS alone unless binding cores. */
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNSET);
	c->launch.flags = CPL_LFLAG_BIND_CORES;
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_HOST);
	ck_assert(forced);
	/* The listed cores over the 8 ranks. */
	set_opt(c, CPL_LOPT_CORES, "0-15");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(t.n, 2);
	set_opt(c, CPL_LOPT_CORES, "0-7,16-23,40");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.n, 2);
	set_opt(c, CPL_LOPT_CORES, "0-3");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNKNOWN);
	set_opt(c, CPL_LOPT_CORES, "$CORES");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNKNOWN);
	/* ... and then the env's value does not count. */
	cpl_container_set_env(c, "OMP_NUM_THREADS", "8", P);
	cpl_budget_threads(&t, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNKNOWN);
	set_opt(c, CPL_LOPT_CORES, "0-31");
	cpl_budget_threads(&t, w, c);
	ck_assert_int_eq(t.n, 4);
	cpl_workload_free(w);
}
END_TEST

START_TEST(tune_ranks)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_TUNE, &c);
	struct cpl_amount r, t;
	bool forced;

	/* No torchrun options: the recipe runs in one process, even with
	 * PET_NPROC_PER_NODE set. */
	cpl_container_set_env(c, "PET_NPROC_PER_NODE", "4", P);
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 1);
	ck_assert_str_eq(r.how, "tune run (single device)");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_UNSET);
	c->launch.flags = CPL_LFLAG_OPTIONS;
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 4);
	set_nproc(c, "8");
	cpl_budget_ranks(&r, w, c);
	ck_assert_int_eq(r.n, 8);
	ck_assert_str_eq(r.how, "tune run --nproc_per_node 8");
	cpl_budget_launcher_threads(&t, &forced, w, c);
	ck_assert_int_eq(t.state, CPL_AMT_KNOWN);
	ck_assert_str_eq(t.how, "OMP_NUM_THREADS=1 (set by tune run)");
	cpl_workload_free(w);
}
END_TEST

/* A code record over one file scanned from text (caller frees both). */
static struct cpl_code *
code_of(struct cpl_pyfile **f, const char *text)
{
	struct cpl_error err = { 0 };
	struct cpl_code *code = cpl_xcalloc(1, sizeof(*code));

	ck_assert_int_eq(cpl_pyscan_file(f, "train.py", text, strlen(text),
					 &err), 0);
	code->entry = *f;
	code->files = cpl_xcalloc(1, sizeof(*code->files));
	code->files[0] = *f;
	code->nfiles = 1;
	return code;
}

START_TEST(workers_from_code)
{
	static const char *const flag[] = { "--num_workers", "4" };
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_PYTHON, &c);
	struct cpl_pyfile *f, *g;
	struct cpl_code *plain = code_of(&f, "import torch\n"
					 "x = torch.randn(8, 8)\n");
	struct cpl_code *hf = code_of(&g, "from transformers import "
				      "Trainer\n");
	struct cpl_amount a;

	/* No DataLoader in the code: no loader workers. */
	c->code = plain;
	cpl_budget_workers(&a, w, c);
	ck_assert_int_eq(a.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(a.n, 0);
	ck_assert(cpl_budget_no_workers(&a));
	/* A library that builds its own loaders: not known. */
	c->code = hf;
	cpl_budget_workers(&a, w, c);
	ck_assert_int_eq(a.state, CPL_AMT_UNSET);
	ck_assert(!cpl_budget_no_workers(&a));
	/* Nor with a --num_workers flag the code does not read. */
	c->code = plain;
	set_args(c, flag, 2);
	cpl_budget_workers(&a, w, c);
	ck_assert_int_eq(a.state, CPL_AMT_UNSET);
	c->code = NULL;
	cpl_budget_workers(&a, w, c);
	ck_assert_int_eq(a.n, 4);
	cpl_workload_free(w);
	cpl_pyscan_code_free(plain);
	cpl_pyscan_code_free(hf);
	cpl_pyfile_free(f);
	cpl_pyfile_free(g);
}
END_TEST

/* The lab's 1-CPU image job (issue 34): a loader that decodes gets the
 * larger share and at least 2 workers, even under one CPU. */
START_TEST(split_decode)
{
	long b, t, w;

	cpl_budget_split(&b, &t, &w, 1000, 1, CPL_LOADER_DECODE);
	ck_assert_int_eq(b, 1);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 2);
	cpl_budget_split(&b, &t, &w, 2000, 1, CPL_LOADER_DECODE);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 2);
	cpl_budget_split(&b, &t, &w, 4000, 1, CPL_LOADER_DECODE);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 4);
	cpl_budget_split(&b, &t, &w, 8000, 1, CPL_LOADER_DECODE);
	ck_assert_int_eq(t, 2);
	ck_assert_int_eq(w, 7);
	/* two ranks on 2 CPUs: per rank as one rank on 1 */
	cpl_budget_split(&b, &t, &w, 2000, 2, CPL_LOADER_DECODE);
	ck_assert_int_eq(b, 1);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 2);
	/* more ranks than CPUs: one thread, no workers, as any loader */
	cpl_budget_split(&b, &t, &w, 1000, 2, CPL_LOADER_DECODE);
	ck_assert_int_eq(b, 0);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 0);
	/* the allowance CPU401 forgives: T + W - B */
	ck_assert_int_eq(cpl_budget_worker_allowance(1, CPL_LOADER_DECODE), 2);
	ck_assert_int_eq(cpl_budget_worker_allowance(2, CPL_LOADER_DECODE), 1);
	ck_assert_int_eq(cpl_budget_worker_allowance(8, CPL_LOADER_DECODE), 1);
	ck_assert_int_eq(cpl_budget_worker_allowance(0, CPL_LOADER_DECODE), 0);
	ck_assert_int_eq(cpl_budget_worker_allowance(4, CPL_LOADER_PLAIN), 0);
	ck_assert_int_eq(cpl_budget_worker_allowance(4, CPL_LOADER_NONE), 0);
}
END_TEST

/* What the code shows its loader does. */
START_TEST(loader_kind)
{
	struct cpl_container *c;
	struct cpl_workload *w = one(CPL_LAUNCH_PYTHON, &c);
	struct cpl_pyfile *f[5];
	struct cpl_code *code[5];
	struct cpl_pos pos;
	const char *how;
	size_t i;

	code[0] = code_of(&f[0], "import torch\nfrom PIL import Image\n");
	code[1] = code_of(&f[1], "import torch\n"
			  "from torchvision import transforms\n");
	code[2] = code_of(&f[2], "import torch\nimport numpy\n");
	code[3] = code_of(&f[3], "import torch\nimport cv2\n");
	code[4] = code_of(&f[4], "import torch\nimport torchvision\n");
	for (i = 0; i < 5; i++) {
		code[i]->loaders = cpl_xcalloc(1, sizeof(*code[i]->loaders));
		code[i]->nloaders = 1;
	}
	c->code = code[0];
	ck_assert_int_eq(cpl_budget_loader(&how, &pos, w, c),
			 CPL_LOADER_DECODE);
	ck_assert_str_eq(how, "PIL.Image");
	ck_assert_int_eq(pos.line, 2);
	ck_assert_str_eq(pos.file, "train.py");
	c->code = code[1];
	ck_assert_int_eq(cpl_budget_loader(&how, NULL, w, c),
			 CPL_LOADER_DECODE);
	c->code = code[3];
	ck_assert_int_eq(cpl_budget_loader(&how, NULL, w, c),
			 CPL_LOADER_DECODE);
	ck_assert_str_eq(how, "cv2");
	/* a loader of other data; torchvision alone shows no decoding */
	c->code = code[2];
	ck_assert_int_eq(cpl_budget_loader(&how, NULL, w, c),
			 CPL_LOADER_PLAIN);
	ck_assert_ptr_null(how);
	c->code = code[4];
	ck_assert_int_eq(cpl_budget_loader(NULL, NULL, w, c),
			 CPL_LOADER_PLAIN);
	/* PIL imported but no DataLoader: nothing runs workers */
	code[0]->nloaders = 0;
	c->code = code[0];
	ck_assert_int_eq(cpl_budget_loader(NULL, NULL, w, c),
			 CPL_LOADER_NONE);
	code[0]->nloaders = 1;
	/* the share's words follow the split: the larger share to the
	 * workers from one CPU a rank, not under it (t1-w0 there) */
	{
		struct cpl_facts fa;

		c->code = code[0];
		c->cpu_limit = 2000;
		cpl_facts_gather(&fa, w, c);
		ck_assert_int_eq(fa.w, 2);
		ck_assert_ptr_nonnull(strstr(fa.share, "the larger share"));
		c->cpu_limit = 500;
		cpl_facts_gather(&fa, w, c);
		ck_assert_int_eq(fa.w, 0);
		ck_assert_ptr_null(strstr(fa.share, "the larger share"));
	}
	c->code = NULL;
	cpl_workload_free(w);
	for (i = 0; i < 5; i++) {
		free(code[i]->loaders);
		code[i]->loaders = NULL;
		code[i]->nloaders = 0;
		cpl_pyscan_code_free(code[i]);
		cpl_pyfile_free(f[i]);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, split);
	tcase_add_test(tc, cpu_budget);
	tcase_add_test(tc, training);
	tcase_add_test(tc, unseen);
	tcase_add_test(tc, ranks);
	tcase_add_test(tc, ranks_from_job);
	tcase_add_test(tc, threads_precedence);
	tcase_add_test(tc, workers);
	tcase_add_test(tc, split_no_workers);
	tcase_add_test(tc, ranks_from_variables);
	tcase_add_test(tc, accelerate_ranks);
	tcase_add_test(tc, accelerate_config);
	tcase_add_test(tc, accelerate_threads);
	tcase_add_test(tc, deepspeed_ranks);
	tcase_add_test(tc, tune_ranks);
	tcase_add_test(tc, workers_from_code);
	tcase_add_test(tc, split_decode);
	tcase_add_test(tc, loader_kind);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
