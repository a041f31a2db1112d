/*
 * test_pools.c — the native pools of a container (model/pools.h): which
 * libraries the linked code uses, what sizes each pool (the code over the
 * env), which sizes default to the node, and the threads each adds.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "model/pools.h"
#include "python/pyscan.h"
#include "util.h"

static const struct cpl_pos P = { "f.yaml", 3, 5 };

/* One container, linked to text when it is not NULL (freed by done()). */
struct fixture {
	struct cpl_workload *w;
	struct cpl_container *c;
	struct cpl_pyfile *f;
	struct cpl_code *code;
};

static void
setup(struct fixture *x, const char *text)
{
	struct cpl_error err = { 0 };

	memset(x, 0, sizeof(*x));
	x->w = cpl_workload_new(CPL_SRC_MANIFEST, "f.yaml");
	x->c = cpl_workload_add_container(x->w);
	if (text == NULL)
		return;
	ck_assert_int_eq(cpl_pyscan_file(&x->f, "train.py", text,
					 strlen(text), &err), 0);
	x->code = cpl_xcalloc(1, sizeof(*x->code));
	x->code->entry = x->f;
	x->code->files = cpl_xcalloc(1, sizeof(*x->code->files));
	x->code->files[0] = x->f;
	x->code->nfiles = 1;
	x->c->code = x->code;
}

static void
done(struct fixture *x)
{
	cpl_workload_free(x->w);
	cpl_pyscan_code_free(x->code);
	cpl_pyfile_free(x->f);
}

START_TEST(env_without_code)
{
	struct fixture x;
	struct cpl_pools ps;
	long r, wk;

	setup(&x, NULL);
	cpl_budget_pools(&ps, x.w, x.c);
	for (size_t k = 0; k < CPL_POOL_NKINDS; k++)
		ck_assert(!ps.p[k].active);
	/* With no code to read, a size the env sets is the evidence. */
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "8", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_OPENBLAS].active);
	ck_assert_int_eq(ps.p[CPL_POOL_OPENBLAS].size.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(ps.p[CPL_POOL_OPENBLAS].size.n, 8);
	ck_assert_str_eq(ps.p[CPL_POOL_OPENBLAS].size.how,
			 "OPENBLAS_NUM_THREADS=8");
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_OPENBLAS]), 7);
	cpl_pools_extra(&r, &wk, &ps);
	ck_assert_int_eq(r, 7);
	ck_assert_int_eq(wk, 0);
	done(&x);
	/* One thread adds none. */
	setup(&x, NULL);
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "1", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_OPENBLAS]), 0);
	done(&x);
}
END_TEST

START_TEST(openblas_needs_numpy)
{
	struct fixture x;
	struct cpl_pools ps;

	/* Code that uses no BLAS: the variable sizes nothing it runs. */
	setup(&x, "import torch\nx = torch.randn(8, 8)\n");
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "8", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!ps.p[CPL_POOL_OPENBLAS].active);
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_OPENBLAS]), 0);
	done(&x);
	setup(&x, "import numpy as np\nimport torch\n");
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "8", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_OPENBLAS].active);
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_OPENBLAS]), 7);
	/* numpy imported and nothing set: not counted, not the node's. */
	done(&x);
	setup(&x, "import numpy as np\nimport torch\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_OPENBLAS].active);
	ck_assert_int_eq(ps.p[CPL_POOL_OPENBLAS].size.state, CPL_AMT_UNSET);
	ck_assert(!ps.p[CPL_POOL_OPENBLAS].host_default);
	done(&x);
	/* The code's setting wins over the env's. */
	setup(&x, "from threadpoolctl import threadpool_limits\n"
		  "import numpy as np\n"
		  "threadpool_limits(limits=2)\n");
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "8", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert_int_eq(ps.p[CPL_POOL_OPENBLAS].size.n, 2);
	ck_assert_int_eq(ps.p[CPL_POOL_OPENBLAS].size.pos.line, 3);
	done(&x);
	setup(&x, "import os\nos.environ[\"OPENBLAS_NUM_THREADS\"] = \"4\"\n"
		  "import numpy\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert_int_eq(ps.p[CPL_POOL_OPENBLAS].size.state, CPL_AMT_KNOWN);
	ck_assert_int_eq(ps.p[CPL_POOL_OPENBLAS].size.n, 4);
	done(&x);
}
END_TEST

START_TEST(numexpr)
{
	struct fixture x;
	struct cpl_pools ps;

	setup(&x, "import numexpr as ne\nne.set_num_threads(4)\n"
		  "y = ne.evaluate('a * b')\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_NUMEXPR].active);
	ck_assert_int_eq(ps.p[CPL_POOL_NUMEXPR].size.n, 4);
	ck_assert_str_eq(ps.p[CPL_POOL_NUMEXPR].size.how,
			 "ne.set_num_threads(4)");
	done(&x);
	/* NUMEXPR_MAX_THREADS sizes it when nothing else does. */
	setup(&x, "import numexpr\ny = numexpr.evaluate('a * b')\n");
	cpl_container_set_env(x.c, "NUMEXPR_MAX_THREADS", "8", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert_int_eq(ps.p[CPL_POOL_NUMEXPR].size.n, 8);
	done(&x);
	setup(&x, "import numexpr\ny = numexpr.evaluate('a * b')\n");
	cpl_container_set_env(x.c, "NUMEXPR_MAX_THREADS", "8", P);
	cpl_container_set_env(x.c, "OMP_NUM_THREADS", "2", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert_int_eq(ps.p[CPL_POOL_NUMEXPR].size.state, CPL_AMT_UNSET);
	done(&x);
}
END_TEST

START_TEST(onnxruntime)
{
	struct fixture x;
	struct cpl_pools ps;

	setup(&x, "import onnxruntime as ort\n"
		  "s = ort.InferenceSession('m.onnx')\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_ORT].active);
	ck_assert(ps.p[CPL_POOL_ORT].host_default);
	ck_assert_int_eq(ps.p[CPL_POOL_ORT].use.line, 2);
	ck_assert_str_eq(ps.p[CPL_POOL_ORT].use_how, "ort.InferenceSession");
	/* OMP_NUM_THREADS does not bound it. */
	cpl_container_set_env(x.c, "OMP_NUM_THREADS", "2", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_ORT].host_default);
	done(&x);
	setup(&x, "import onnxruntime\n"
		  "so = onnxruntime.SessionOptions()\n"
		  "so.intra_op_num_threads = 3\n"
		  "s = onnxruntime.InferenceSession('m.onnx', so)\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!ps.p[CPL_POOL_ORT].host_default);
	ck_assert_int_eq(ps.p[CPL_POOL_ORT].size.n, 3);
	ck_assert_str_eq(ps.p[CPL_POOL_ORT].size.how,
			 "so.intra_op_num_threads = 3");
	ck_assert_str_eq(ps.p[CPL_POOL_ORT].setter,
			 "so.intra_op_num_threads");
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_ORT]), 2);
	done(&x);
	setup(&x, "import onnxruntime\n"
		  "so = onnxruntime.SessionOptions()\n"
		  "so.intra_op_num_threads = 0\n"
		  "s = onnxruntime.InferenceSession('m.onnx', so)\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_ORT].host_default);
	done(&x);
	/* A size the text does not fix: not the node's, not counted. */
	setup(&x, "import onnxruntime\nimport sys\n"
		  "so = onnxruntime.SessionOptions()\n"
		  "so.intra_op_num_threads = int(sys.argv[1])\n"
		  "s = onnxruntime.InferenceSession('m.onnx', so)\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!ps.p[CPL_POOL_ORT].host_default);
	ck_assert_int_eq(ps.p[CPL_POOL_ORT].size.state, CPL_AMT_UNKNOWN);
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_ORT]), 0);
	done(&x);
}
END_TEST

START_TEST(tensorflow)
{
	struct fixture x;
	struct cpl_pools ps;

	/* Configuration only: no pool runs. */
	setup(&x, "import tensorflow as tf\n"
		  "tf.config.set_visible_devices([], 'GPU')\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!ps.p[CPL_POOL_TF].active);
	done(&x);
	setup(&x, "import tensorflow as tf\n"
		  "ds = tf.data.TFRecordDataset(['a']).batch(8)\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_TF].active);
	ck_assert(ps.p[CPL_POOL_TF].host_default);
	cpl_container_set_env(x.c, "TF_NUM_INTRAOP_THREADS", "2", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!ps.p[CPL_POOL_TF].host_default);
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_TF]), 1);
	done(&x);
	/* 0 is TensorFlow's "pick for me": the node's cores. */
	setup(&x, "import tensorflow as tf\nm = tf.keras.Sequential()\n");
	cpl_container_set_env(x.c, "TF_NUM_INTRAOP_THREADS", "0", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_TF].host_default);
	done(&x);
	setup(&x, "import tensorflow as tf\n"
		  "tf.config.threading.set_intra_op_parallelism_threads(1)\n"
		  "m = tf.keras.Sequential()\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!ps.p[CPL_POOL_TF].host_default);
	ck_assert_int_eq(ps.p[CPL_POOL_TF].size.n, 1);
	done(&x);
}
END_TEST

START_TEST(xla)
{
	struct fixture x;
	struct cpl_pools ps;

	setup(&x, "import jax.numpy as jnp\ny = jnp.ones(4).sum()\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_XLA].active);
	ck_assert(ps.p[CPL_POOL_XLA].host_default);
	/* With GPUs XLA computes there. */
	x.c->gpus = 1;
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!ps.p[CPL_POOL_XLA].host_default);
	x.c->gpus = 0;
	cpl_container_set_env(x.c, "XLA_FLAGS",
			      "--xla_cpu_multi_thread_eigen=false "
			      "intra_op_parallelism_threads=1", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_XLA].off);
	ck_assert(!ps.p[CPL_POOL_XLA].host_default);
	done(&x);
	setup(&x, "import jax\ny = jax.jit(f)(1)\n");
	cpl_container_set_env(x.c, "XLA_FLAGS",
			      "intra_op_parallelism_threads=3 --xla_dump_to=/t",
			      P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert_int_eq(ps.p[CPL_POOL_XLA].size.n, 3);
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_XLA]), 2);
	done(&x);
	/* Flags that leave the CPU pool alone bound nothing. */
	setup(&x, "import jax\ny = jax.jit(f)(1)\n");
	cpl_container_set_env(x.c, "XLA_FLAGS", "--xla_dump_to=/t", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_XLA].host_default);
	done(&x);
}
END_TEST

static const char dataset[] =
	"from torch.utils.data import DataLoader, Dataset\n"
	"from transformers import AutoTokenizer\n"
	"class Texts(Dataset):\n"
	"    def __init__(self, rows, tok):\n"
	"        self.rows = rows\n"
	"        self.tokenizer = tok\n"
	"    def __len__(self):\n"
	"        return len(self.rows)\n"
	"    def __getitem__(self, i):\n"
	"        return self.tokenizer(self.rows[i])\n"
	"if __name__ == '__main__':\n"
	"    tok = AutoTokenizer.from_pretrained('bert-base-uncased')\n"
	"    dl = DataLoader(Texts([], tok), num_workers=4)\n";

START_TEST(rayon)
{
	struct fixture x;
	struct cpl_pools ps;
	long r, wk;

	setup(&x, dataset);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_RAYON].active);
	ck_assert(ps.p[CPL_POOL_RAYON].in_workers);
	ck_assert(ps.p[CPL_POOL_RAYON].host_default);
	/* The use named is the one in the workers. */
	ck_assert_int_eq(ps.p[CPL_POOL_RAYON].use.line, 10);
	cpl_container_set_env(x.c, "RAYON_NUM_THREADS", "4", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!ps.p[CPL_POOL_RAYON].host_default);
	cpl_pools_extra(&r, &wk, &ps);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(wk, 3);
	done(&x);
	setup(&x, dataset);
	cpl_container_set_env(x.c, "TOKENIZERS_PARALLELISM", "false", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_RAYON].off);
	ck_assert(!ps.p[CPL_POOL_RAYON].host_default);
	done(&x);
	/* Without transformers or tokenizers a "tokenizer" is anything. */
	setup(&x, "import nltk\nt = nltk.word_tokenize('a b')\n");
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!ps.p[CPL_POOL_RAYON].active);
	done(&x);
}
END_TEST

/* features.py's shape (tests/lab/workloads/features.py): numpy's BLAS
 * in __getitem__, in every loader worker. */
static const char features[] =
	"import numpy as np\n"
	"from torch.utils.data import DataLoader, Dataset\n"
	"class Patches(Dataset):\n"
	"    def __init__(self):\n"
	"        self.zca = np.eye(4, dtype=np.float32)\n"
	"    def __len__(self):\n"
	"        return 100\n"
	"    def __getitem__(self, i):\n"
	"        p = np.ones((8, 4), dtype=np.float32)\n"
	"        p = p / np.linalg.norm(p)\n"
	"        return np.dot(p, self.zca)\n"
	"loader = DataLoader(Patches(), num_workers=2)\n";

START_TEST(openblas_in_workers)
{
	struct fixture x;
	struct cpl_pools ps;
	long r, wk;

	setup(&x, features);
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "16", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_OPENBLAS].active);
	ck_assert(ps.p[CPL_POOL_OPENBLAS].in_workers);
	/* The use named is the BLAS call (norm is ufuncs, not BLAS). */
	ck_assert_int_eq(ps.p[CPL_POOL_OPENBLAS].use.line, 11);
	cpl_pools_extra(&r, &wk, &ps);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(wk, 15);
	/* 1 thread + 2 workers x (1 + 15): each worker runs the pool. */
	ck_assert_int_eq(cpl_pools_busy(&ps, 1, 2), 33);
	/* No workers: the pipeline, and its pool, run in the rank. */
	ck_assert_int_eq(cpl_pools_busy(&ps, 1, 0), 16);
	done(&x);
	/* numpy outside the pipeline stays the rank's. */
	setup(&x, "import numpy as np\nw = np.linalg.inv(np.eye(3))\n");
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "4", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_OPENBLAS].active);
	ck_assert(!ps.p[CPL_POOL_OPENBLAS].in_workers);
	ck_assert_int_eq(cpl_pools_busy(&ps, 2, 2), 2 + 3 + 2);
	done(&x);
	/* scipy.linalg runs BLAS too (and os.*, json.* calls before it
	 * name no pool). */
	setup(&x, "import json, os\nfrom scipy import linalg\n"
		  "c = json.loads(os.environ.get('C', '{}'))\n"
		  "w = linalg.inv(c)\n");
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "4", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_OPENBLAS].active);
	ck_assert_int_eq(ps.p[CPL_POOL_OPENBLAS].use.line, 4);
	done(&x);
}
END_TEST

/* A loader whose pipeline computes (issue 34's features job at 2 CPUs:
 * t1-w2 1272 examples/s, the plain split's t1-w1 680): the split leans
 * to the workers as for a decoding loader. */
START_TEST(pipeline_computes)
{
	struct fixture x;
	struct cpl_pos pos;
	const char *how = NULL;
	long b, t, w;

	setup(&x, features);
	ck_assert(cpl_pools_pipeline_computes(&how, &pos, x.code));
	ck_assert_str_eq(how, "np.dot");
	ck_assert_int_eq(pos.line, 11);
	ck_assert_str_eq(pos.file, "train.py");
	/* with a DataLoader the loader computes; norm alone would not */
	x.code->loaders = cpl_xcalloc(1, sizeof(*x.code->loaders));
	x.code->nloaders = 1;
	ck_assert_int_eq(cpl_budget_loader(&how, &pos, x.w, x.c),
			 CPL_LOADER_COMPUTE);
	ck_assert_str_eq(how, "np.dot");
	ck_assert(cpl_budget_loader_busy(CPL_LOADER_COMPUTE, 2));
	ck_assert(!cpl_budget_loader_busy(CPL_LOADER_COMPUTE, 1));
	ck_assert(cpl_budget_loader_busy(CPL_LOADER_DECODE, 1));
	ck_assert(!cpl_budget_loader_busy(CPL_LOADER_DECODE, 0));
	ck_assert(!cpl_budget_loader_busy(CPL_LOADER_PLAIN, 8));
	ck_assert_str_eq(cpl_budget_loader_phrase(CPL_LOADER_COMPUTE),
			 "computes per sample");
	cpl_budget_split(&b, &t, &w, 2000, 1, CPL_LOADER_COMPUTE);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 2);
	cpl_budget_split(&b, &t, &w, 2000, 1, CPL_LOADER_PLAIN);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 1);
	ck_assert_int_eq(cpl_budget_worker_allowance(2, CPL_LOADER_COMPUTE),
			 1);
	/* on one CPU a computing pipeline runs best in the rank (the lab's
	 * features job at 1 CPU: t1-w0 688-692, t1-w2 592-652) */
	cpl_budget_split(&b, &t, &w, 1000, 1, CPL_LOADER_COMPUTE);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 0);
	ck_assert_int_eq(cpl_budget_worker_allowance(1, CPL_LOADER_COMPUTE),
			 0);
	cpl_budget_split(&b, &t, &w, 4000, 1, CPL_LOADER_COMPUTE);
	ck_assert_int_eq(t, 1);
	ck_assert_int_eq(w, 4);
	done(&x);
	/* numpy outside the pipeline, and numexpr's setting inside it,
	 * compute nothing per sample */
	setup(&x, "import numpy as np\nimport numexpr\n"
		  "from torch.utils.data import Dataset\n"
		  "w = np.linalg.inv(np.eye(3))\n"
		  "class D(Dataset):\n"
		  "    def __getitem__(self, i):\n"
		  "        numexpr.set_num_threads(1)\n"
		  "        p = np.ones(4)\n"
		  "        return p / np.linalg.norm(p)\n");
	ck_assert(!cpl_pools_pipeline_computes(&how, &pos, x.code));
	done(&x);
	/* numexpr in __getitem__ computes */
	setup(&x, "import numexpr as ne\n"
		  "from torch.utils.data import Dataset\n"
		  "class D(Dataset):\n"
		  "    def __getitem__(self, i):\n"
		  "        return ne.evaluate('a * 2')\n");
	ck_assert(cpl_pools_pipeline_computes(&how, &pos, x.code));
	ck_assert_str_eq(how, "ne.evaluate");
	ck_assert_int_eq(pos.line, 5);
	done(&x);
}
END_TEST

START_TEST(shares)
{
	struct fixture x;
	struct cpl_pools ps;
	struct cpl_amount a;

	setup(&x, features);
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "16", P);
	cpl_budget_pools(&ps, x.w, x.c);
	/* A worker's share of what the rank's threads leave. */
	ck_assert_int_eq(cpl_pools_share(&ps, CPL_POOL_OPENBLAS, 1, 1, 2), 1);
	ck_assert_int_eq(cpl_pools_share(&ps, CPL_POOL_OPENBLAS, 2, 1, 2), 1);
	ck_assert_int_eq(cpl_pools_share(&ps, CPL_POOL_OPENBLAS, 16, 1, 2),
			 7);
	ck_assert_int_eq(cpl_pools_busy(&ps, 1, 2) > 16, 1);
	/* Under one CPU a rank, or workers unknown: one thread. */
	ck_assert_int_eq(cpl_pools_share(&ps, CPL_POOL_OPENBLAS, 0, 1, 2), 1);
	ck_assert_int_eq(cpl_pools_share(&ps, CPL_POOL_OPENBLAS, 16, 1, -1),
			 1);
	/* No workers: the rank's share, what its threads leave + 1. */
	ck_assert_int_eq(cpl_pools_share(&ps, CPL_POOL_OPENBLAS, 4, 1, 0), 4);
	ck_assert_int_eq(cpl_pools_share(&ps, CPL_POOL_OPENBLAS, 4, 4, 0), 1);
	/* CPU202's question: 16 x 2 workers = 32 on 1 CPU; 16 x 1 on 16
	 * CPUs with no workers is not over. */
	ck_assert(cpl_pools_env_over(&a, &ps, CPL_POOL_OPENBLAS, x.c, 1, 2,
				     1000));
	ck_assert_int_eq(a.n, 16);
	ck_assert(!cpl_pools_env_over(&a, &ps, CPL_POOL_OPENBLAS, x.c, 1, 0,
				      16000));
	ck_assert(cpl_pools_env_over(&a, &ps, CPL_POOL_OPENBLAS, x.c, 1, 2,
				     16000));
	done(&x);
	/* A size the code sets is not the variable's to edit. */
	setup(&x, "import numpy as np\nimport os\n"
		  "os.environ['OPENBLAS_NUM_THREADS'] = '8'\n"
		  "w = np.linalg.inv(np.eye(3))\n");
	cpl_container_set_env(x.c, "OPENBLAS_NUM_THREADS", "16", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(!cpl_pools_env_sized(&a, &ps, CPL_POOL_OPENBLAS, x.c));
	done(&x);
}
END_TEST

START_TEST(interop_and_inductor)
{
	struct fixture x;
	struct cpl_pools ps;

	setup(&x, "import torch\ntorch.set_num_interop_threads(4)\n"
		  "m = torch.compile(torch.nn.Linear(4, 4))\n");
	cpl_container_set_env(x.c, "TORCHINDUCTOR_COMPILE_THREADS", "8", P);
	cpl_budget_pools(&ps, x.w, x.c);
	ck_assert(ps.p[CPL_POOL_INTEROP].active);
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_INTEROP]), 3);
	/* Compile workers run before the steps: never counted. */
	ck_assert(ps.p[CPL_POOL_INDUCTOR].active);
	ck_assert_int_eq(ps.p[CPL_POOL_INDUCTOR].size.n, 8);
	ck_assert_int_eq(cpl_pool_extra(&ps.p[CPL_POOL_INDUCTOR]), 0);
	done(&x);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("pools");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, env_without_code);
	tcase_add_test(tc, openblas_needs_numpy);
	tcase_add_test(tc, numexpr);
	tcase_add_test(tc, onnxruntime);
	tcase_add_test(tc, tensorflow);
	tcase_add_test(tc, xla);
	tcase_add_test(tc, rayon);
	tcase_add_test(tc, openblas_in_workers);
	tcase_add_test(tc, pipeline_computes);
	tcase_add_test(tc, shares);
	tcase_add_test(tc, interop_and_inductor);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
