/*
 * CPU306 native-pool-host-sized — a training container with a CPU
 * budget runs a library whose thread pool, left unset, is documented to
 * take one thread per core of the node, not the quota, and nothing sizes
 * it: ONNX Runtime (an InferenceSession with no intra_op_num_threads; it
 * ignores OMP_NUM_THREADS), TensorFlow (no TF_NUM_INTRAOP_THREADS nor
 * tf.config.threading.set_intra_op_parallelism_threads), JAX on a
 * container without GPUs (no XLA_FLAGS bound: only affinity bounds XLA's
 * Eigen pool), and a fast tokenizer in the data pipeline of DataLoader
 * workers (no RAYON_NUM_THREADS, TOKENIZERS_PARALLELISM not false: each
 * worker starts a Rayon pool of one thread per node CPU).  The pools
 * come from model/pools.h; a library only imported is no finding.
 * A pool sized from the host ($(nproc), os.cpu_count()) is CPU204's or
 * CPU301's, and one whose size is written but unknown is not judged.
 * One finding per pool, at the container's CPU budget, with a note on
 * the call that uses the library; the fix sets the pool to one thread
 * (the rank's budget is its intra-op threads' and workers', CPU401) in
 * the container's env where a variable sizes it, and says the session
 * option for ONNX Runtime (set in code).
 */
#include "common.h"
#include "model/pools.h"

#include <stdio.h>

/* The threads a pool gets: one, the calling thread's.  The rank's budget
 * goes to torch's intra-op threads and loader workers (CPU401's split);
 * a pool of n threads adds n - 1 to it (model/pools.h), so 1 is what
 * keeps the split's fix clean. */
static long
pool_threads(const struct cpl_facts *f)
{
	(void)f;
	return 1;
}

static void
report_ort(struct cpl_check *ck, const struct cpl_workload *w,
	   const struct cpl_container *c, const struct cpl_facts *f,
	   const struct cpl_pool *p)
{
	struct cpl_finding *fd;
	long t = pool_threads(f);

	fd = cpl_check_report(ck, w, c, &f->cpu_pos,
		"%s creates an ONNX Runtime session with no "
		"intra_op_num_threads: ONNX Runtime starts one thread per "
		"physical core of the node and ignores OMP_NUM_THREADS, on a "
		"%s (container \"%s\")", p->use_how, f->budget,
		cpl_facts_cname(c));
	cpl_finding_add_related(fd, &p->use, "ONNX Runtime session: %s",
				p->use_how);
	cpl_finding_set_fix(fd,
		"pass sess_options with the pool at one thread (the rank's "
		"budget is for torch's threads and the loader workers): "
		"so = onnxruntime.SessionOptions(); "
		"so.intra_op_num_threads = %ld; so.inter_op_num_threads = 1; "
		"then %s(..., sess_options=so)", t, p->use_how);
}

static void
report_tf(struct cpl_check *ck, const struct cpl_workload *w,
	  const struct cpl_container *c, const struct cpl_facts *f,
	  const struct cpl_pool *p)
{
	static const char *const intra[] = { "TF_NUM_INTRAOP_THREADS" };
	static const char *const inter[] = { "TF_NUM_INTEROP_THREADS" };
	struct cpl_finding *fd;
	long t = pool_threads(f);
	char v[24];

	fd = cpl_check_report(ck, w, c, &f->cpu_pos,
		"TensorFlow runs (%s) and nothing sizes its thread pools: "
		"TensorFlow gives its intra-op and inter-op pools one thread "
		"per core of the node, on a %s (container \"%s\")",
		p->use_how, f->budget, cpl_facts_cname(c));
	cpl_finding_add_related(fd, &p->use, "TensorFlow used here: %s",
				p->use_how);
	cpl_finding_set_fix(fd,
		"set TF_NUM_INTRAOP_THREADS to \"%ld\" and "
		"TF_NUM_INTEROP_THREADS to \"1\" in the container's env (or "
		"call tf.config.threading."
		"set_intra_op_parallelism_threads(%ld) and "
		"set_inter_op_parallelism_threads(1) before TensorFlow "
		"runs)", t, t);
	snprintf(v, sizeof(v), "%ld", t);
	cpl_fix_env(fd, c, intra, 1, v);
	cpl_fix_env(fd, c, inter, 1, "1");
	fd->fix_safety = CPL_FIX_UNSAFE;	/* changes what the job runs */
}

static void
report_xla(struct cpl_check *ck, const struct cpl_workload *w,
	   const struct cpl_container *c, const struct cpl_facts *f,
	   const struct cpl_pool *p)
{
	static const char *const names[] = { "XLA_FLAGS" };
	struct cpl_finding *fd;
	long t = pool_threads(f);
	char v[96];

	fd = cpl_check_report(ck, w, c, &f->cpu_pos,
		"JAX runs on the CPU (%s) and XLA_FLAGS does not bound its "
		"pool: XLA sizes its Eigen pool to the node's cores (only "
		"CPU affinity bounds it, not the quota), on a %s (container "
		"\"%s\")", p->use_how, f->budget, cpl_facts_cname(c));
	cpl_finding_add_related(fd, &p->use, "JAX used here: %s",
				p->use_how);
	snprintf(v, sizeof(v), "--xla_cpu_multi_thread_eigen=false "
		 "intra_op_parallelism_threads=%ld", t);
	cpl_finding_set_fix(fd, "set XLA_FLAGS to \"%s\" in the container's "
			    "env", v);
	if (cpl_container_env_effective(c, "XLA_FLAGS") == NULL) {
		cpl_fix_env(fd, c, names, 1, v);
		fd->fix_safety = CPL_FIX_UNSAFE;
	}
}

static void
report_rayon(struct cpl_check *ck, const struct cpl_workload *w,
	     const struct cpl_container *c, const struct cpl_facts *f,
	     const struct cpl_pool *p)
{
	static const char *const names[] = { "TOKENIZERS_PARALLELISM" };
	struct cpl_finding *fd;
	char n[40] = "";

	if (f->workers.state == CPL_AMT_KNOWN)
		snprintf(n, sizeof(n), "%ld ", f->workers.n);
	fd = cpl_check_report(ck, w, c, &f->cpu_pos,
		"a fast tokenizer runs in the data pipeline of %sDataLoader "
		"workers (%s) and neither TOKENIZERS_PARALLELISM=false nor "
		"RAYON_NUM_THREADS is set: each worker process starts its own "
		"Rayon pool of one thread per CPU of the node, on a %s "
		"(container \"%s\")", n, p->use_how, f->budget,
		cpl_facts_cname(c));
	cpl_finding_add_related(fd, &p->use, "tokenizer in the workers: %s",
				p->use_how);
	if (f->workers.pos.file != NULL)
		cpl_finding_add_related(fd, &f->workers.pos,
					"loader workers: %s", f->workers.how);
	cpl_finding_set_fix(fd,
		"set TOKENIZERS_PARALLELISM to \"false\" in the container's "
		"env: the DataLoader workers already give the pipeline its "
		"parallelism (tokenizers also turns the pool off in a worker "
		"forked after the main process used it, with a warning)");
	cpl_fix_env(fd, c, names, 1, "false");
	fd->fix_safety = CPL_FIX_UNSAFE;
}

/* Says (with -v) that pool p runs with a size not read here: not
 * counted, not guessed.  The JSON budget entry lists it too. */
static void
note_unread(struct cpl_check *ck, const struct cpl_workload *w,
	    const struct cpl_container *c, const struct cpl_pool *p)
{
	const char *why;

	switch (p->kind) {
	case CPL_POOL_INDUCTOR:
		why = "TORCHINDUCTOR_COMPILE_THREADS is unset: its compile "
		      "workers size from the node, while compiling";
		break;
	case CPL_POOL_RAYON:
		why = "RAYON_NUM_THREADS is unset: one thread per node CPU "
		      "while the main process tokenizes";
		break;
	case CPL_POOL_NUMEXPR:
		why = "NUMEXPR_NUM_THREADS and OMP_NUM_THREADS are unset: "
		      "8 threads (16 in older releases) on a node with more "
		      "cores";
		break;
	default:
		why = p->size.how;
		break;
	}
	cpl_check_note(ck, w, "container \"%s\": %s is used (%s%s%s:%d) and "
		       "its pool's size is not read here (%s); not counted",
		       c->name, p->name, p->use_how ? p->use_how : "",
		       p->use_how ? " at " : "",
		       p->use.file ? p->use.file : "?", p->use.line, why);
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_pools ps;
	bool workers;

	if (!cpl_budget_training(w, c) || c->code == NULL)
		return;
	cpl_facts_gather(&f, w, c);
	if (f.cpu < 0)
		return;
	cpl_budget_pools(&ps, w, c);
	for (size_t k = 0; k < CPL_POOL_NKINDS; k++)
		if (ps.p[k].unread && ps.p[k].use.file != NULL)
			note_unread(ck, w, c, &ps.p[k]);
	if (ps.p[CPL_POOL_ORT].host_default)
		report_ort(ck, w, c, &f, &ps.p[CPL_POOL_ORT]);
	if (ps.p[CPL_POOL_TF].host_default)
		report_tf(ck, w, c, &f, &ps.p[CPL_POOL_TF]);
	if (ps.p[CPL_POOL_XLA].host_default)
		report_xla(ck, w, c, &f, &ps.p[CPL_POOL_XLA]);
	workers = (f.workers.state == CPL_AMT_KNOWN && f.workers.n > 0) ||
		  f.workers.state == CPL_AMT_HOST;
	if (ps.p[CPL_POOL_RAYON].host_default && workers)
		report_rayon(ck, w, c, &f, &ps.p[CPL_POOL_RAYON]);
}

const struct cpl_rule cpl_rule_cpu306 = {
	.id = "CPU306",
	.name = "native-pool-host-sized",
	.severity = CPL_SEV_WARNING,
	.summary = "ONNX Runtime, TensorFlow, JAX or a tokenizer in loader "
		   "workers runs with its thread pool unset, which sizes "
		   "to the node's cores.",
	.precision = "medium",
	.check_container = check,
};
