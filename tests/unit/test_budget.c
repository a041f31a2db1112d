/*
 * test_budget.c — the budget arithmetic and the per-container questions:
 * training containers, C, ranks from every source, thread precedence,
 * workers from --workers style arguments.
 */
#include <check.h>
#include <string.h>

#include "budget.h"
#include "check_main.h"
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

	cpl_budget_split(&b, &t, &w, 4000, 1, false);
	ck_assert_int_eq(b, 4);
	ck_assert_int_eq(t, 2);
	ck_assert_int_eq(w, 2);
	cpl_budget_split(&b, &t, &w, 8000, 4, false);
	ck_assert_int_eq(b, 2);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 1);
	cpl_budget_split(&b, &t, &w, 2500, 1, false);
	ck_assert_int_eq(b, 2);
	cpl_budget_split(&b, &t, &w, 1000, 4, false);
	ck_assert_int_eq(b, 0);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 0);
	cpl_budget_split(&b, &t, &w, 7000, 1, false);
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
	c->gpus = 1;
	ck_assert(cpl_budget_training(w, c));
	c->gpus = 0;
	c->launch.launcher = CPL_LAUNCH_TORCHRUN;
	ck_assert(cpl_budget_training(w, c));
	c->role = CPL_CROLE_INIT;
	ck_assert(!cpl_budget_training(w, c));
	c->role = CPL_CROLE_MAIN;
	c->launch.launcher = CPL_LAUNCH_PYTHON;
	ck_assert(!cpl_budget_training(w, c));
	c->run_container = true;
	ck_assert(cpl_budget_training(w, c));
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

static Suite *
suite(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, split);
	tcase_add_test(tc, cpu_budget);
	tcase_add_test(tc, training);
	tcase_add_test(tc, ranks);
	tcase_add_test(tc, ranks_from_job);
	tcase_add_test(tc, threads_precedence);
	tcase_add_test(tc, workers);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
