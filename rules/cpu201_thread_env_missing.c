/*
 * CPU201 thread-env-missing — OMP_NUM_THREADS is set by neither the env,
 * the launcher (torchrun, tune run and accelerate's DeepSpeed path set 1
 * when they start more than one rank; accelerate launch sets 1 for any
 * rank count) nor the command, so every rank's OpenMP pool sizes to the
 * node.  When the launcher may set it (an unknown rank count, a config
 * file not read) the rule stays silent, and so it does on a program it
 * cannot see into (a CUDA burn-in binary, lmp, sleep: no evidence of an
 * OpenMP pool; -v says so).
 */
#include "common.h"

#include <string.h>

#include "python/pyscan.h"

#include <stdio.h>

/* The linked code sets the rank's threads itself: torch.set_num_threads,
 * or OMP_NUM_THREADS through os.environ outside a worker_init_fn (which
 * sets it in the loader workers only). */
static bool
code_sets_threads(const struct cpl_code *code)
{
	size_t i, j;

	if (code == NULL)
		return false;
	if (code->nthreads > 0)
		return true;
	for (i = 0; i < code->nfiles; i++)
		for (j = 0; j < code->files[i]->nenvsets; j++) {
			const struct cpl_pyenvset *e =
				&code->files[i]->envsets[j];

			if (cpl_str_eq(e->name, "OMP_NUM_THREADS") &&
			    !(code->roles[i][e->scope] &
			      CPL_PYROLE_WORKER_INIT))
				return true;
		}
	return false;
}

/* Whether s holds one of the words (case-insensitive substrings). */
static bool
mentions(const char *s, const char *const *words)
{
	size_t i;

	for (i = 0; s && words[i]; i++)
		if (strcasestr(s, words[i]) != NULL)
			return true;
	return false;
}

/*
 * The process starts no OpenMP pool for OMP_NUM_THREADS to size, as far as
 * the text shows: a TFJob or JAXJob (TensorFlow and XLA size their own
 * pools and read other settings), an image of TensorFlow or JAX with no
 * PyTorch in it, or a `python -c` program that imports no native library
 * (pure Python starts no OpenMP threads).  Anything else is judged.
 */
static bool
no_openmp(const struct cpl_workload *w, const struct cpl_container *c)
{
	static const char *const tf_jax[] = { "tensorflow", "/tf-", ":tf",
					      "jax", NULL };
	static const char *const torch[] = { "torch", NULL };
	static const char *const native[] = { "torch", "numpy", "sklearn",
		"scipy", "pandas", "xgboost", "lightgbm", "mxnet", "paddle",
		"cv2", "tensorflow", "jax", "transformers", "import *", NULL };
	size_t i;

	if (w->kind && (strcasestr(w->kind, "tfjob") ||
		       strcasestr(w->kind, "jaxjob")))
		return true;
	if (c->code == NULL && mentions(c->image, tf_jax) &&
	    !mentions(c->image, torch))
		return true;
	for (i = 0; i + 2 < c->argc; i++) {
		const char *prog = strrchr(c->argv[i].text, '/');

		prog = prog ? prog + 1 : c->argv[i].text;
		if (strncmp(prog, "python", 6) == 0 &&
		    strcmp(c->argv[i + 1].text, "-c") == 0)
			return !mentions(c->argv[i + 2].text, native);
	}
	return false;
}

/* The edit: OMP_NUM_THREADS = t in the container's env, and
 * MKL_NUM_THREADS beside it; one already set to another number is set to
 * t (as CPU202 and CPU203 would), so no MKL/OMP mismatch follows. */
static void
add_threads(struct cpl_finding *fd,
	    const struct cpl_container *c, long t)
{
	const char *names[] = { "OMP_NUM_THREADS", "MKL_NUM_THREADS" };
	const struct cpl_env *mkl =
		cpl_container_env_effective(c, "MKL_NUM_THREADS");
	char value[24];
	long v;

	snprintf(value, sizeof(value), "%ld", t);
	cpl_fix_env(fd, c, names, mkl ? 1 : 2, value);
	/* Only beside the added ones: an edit of its own is no fix. */
	if (mkl && mkl->value && cpl_parse_long(&v, mkl->value) == 0 &&
	    v != t)
		cpl_fix_env_count(fd, &mkl->pos, v, t, CPL_FIXREQ_IF_EDITS);
}

/*
 * Whether prog (a command's first word) is a system tool that runs no
 * PyTorch whatever the kind: sleep, tail -f, a shell's true, the pause
 * program, nvidia-smi.
 */
static bool
system_tool(const char *prog)
{
	static const char *const tools[] = {
		"sleep", "tail", "true", "false", "pause", "cat", "echo",
		"nvidia-smi", "printenv", "env", "ls", "sshd",
	};
	const char *base = strrchr(prog, '/');
	size_t i;

	base = base != NULL ? base + 1 : prog;
	for (i = 0; i < CPL_ARRAY_LEN(tools); i++)
		if (strcmp(base, tools[i]) == 0)
			return true;
	return false;
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;
	const struct cpl_pos *at;
	struct cpl_amount lt;
	bool forced;
	char ranks[32], unknown[400];

	/* A runtime alone is a template: each TrainJob brings env. */
	if (!cpl_budget_training(w, c) || w->template_only || c->env_from ||
	    cpl_container_env_effective(c, "OMP_NUM_THREADS") != NULL ||
	    code_sets_threads(c->code) || no_openmp(w, c))
		return;
	/* A native program it cannot see into is no evidence of a pool,
	 * unless the kind says it runs PyTorch (a PyTorchJob's trainer
	 * that names a console script) and the program is no system
	 * tool (a trainer kept asleep for debugging). */
	if (cpl_budget_unseen(c) != NULL &&
	    (!cpl_budget_torch_kind(w, c) ||
	     system_tool(cpl_budget_unseen(c)))) {
		cpl_check_note(ck, w, "silent on container \"%s\": it runs "
			       "%s, a program cpulint cannot see into (no "
			       "evidence of an OpenMP pool)",
			       cpl_facts_cname(c), cpl_budget_unseen(c));
		return;
	}
	/* The launcher sets it (whatever MKL_NUM_THREADS says), or may:
	 * only a count sized from the node is no better than unset. */
	cpl_budget_launcher_threads(&lt, &forced, w, c);
	if (lt.state == CPL_AMT_KNOWN || lt.state == CPL_AMT_UNKNOWN)
		return;
	cpl_facts_gather(&f, w, c);
	at = cpl_facts_where(w, c);
	if (c->pos.line > 0)
		at = &c->pos;
	if (f.ranks_known)
		snprintf(ranks, sizeof(ranks), "%ld %s", f.ranks.n,
			 cpl_plural(f.ranks.n, "rank", "ranks"));
	else
		snprintf(ranks, sizeof(ranks), "ranks");
	fd = cpl_check_report(ck, w, c, at,
		"OMP_NUM_THREADS is not set in container \"%s\": each of its "
		"%s starts one OpenMP thread per node CPU%s%s%s",
		cpl_facts_cname(c), ranks,
		f.cpu >= 0 ? ", not per CPU of its " : "",
		f.cpu >= 0 ? f.budget : "", "");
	if (!f.ranks_known)
		cpl_finding_add_related(fd, &f.ranks.pos,
					"ranks: %s (%s)", f.ranks.how,
					f.ranks_why);
	if (f.cpu >= 1000 && !f.ranks_known) {
		cpl_facts_ranks_unknown_fix(unknown, sizeof(unknown), &f,
					    "env OMP_NUM_THREADS");
		cpl_finding_set_fix(fd, "%s", unknown);
	} else if (f.cpu >= 1000) {
		cpl_finding_set_fix(fd,
			"add env OMP_NUM_THREADS: \"%ld\" (per-rank budget "
			"floor(%s / %ld) = %ld CPU(s), %s; a starting point "
			"to compare against)", f.t, f.cpus,
			f.ranks.n > 0 ? f.ranks.n : 1, f.per_rank, f.share);
		add_threads(fd, c, f.t);
	} else if (f.cpu > 0) {
		/* A budget under one CPU: one thread is already more than
		 * the container may run (CPU401 says so). */
		cpl_finding_set_fix(fd,
			"add env OMP_NUM_THREADS: \"1\" (its budget of %s is "
			"less than one CPU, so one thread per rank is the "
			"most it can run)", f.cpus);
		add_threads(fd, c, 1);
	} else {
		cpl_finding_set_fix(fd,
			"add env OMP_NUM_THREADS: \"1\" and raise it to the "
			"CPUs each rank may use once the container has a CPU "
			"limit");
		add_threads(fd, c, 1);
	}
}

const struct cpl_rule cpl_rule_cpu201 = {
	.id = "CPU201",
	.name = "thread-env-missing",
	.severity = CPL_SEV_WARNING,
	.summary = "OMP_NUM_THREADS is not set by env, launcher or code.",
	.precision = "high",
	.check_container = check,
};
