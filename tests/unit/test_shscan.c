/*
 * test_shscan.c — the command-line scanner: launchers and their rank flags,
 * scripts and arguments, shell scripts with exports, host-count reads and
 * what they size, positions inside YAML scalars, and hostile input
 * (deep nesting, launcher chains, huge scripts).
 *
 * Every test scans into the global L (and may parse YAML into S); the
 * teardown fixture frees both, inside check's fork.
 */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "shell/shscan.h"
#include "text/yamldoc.h"
#include "util.h"

#define MAXW 64

static struct cpl_launch L;
static struct cpl_ystream *S;
static struct cpl_word W[MAXW];
static const struct cpl_ynode *N[MAXW];
static char *file_text;

static void
teardown(void)
{
	cpl_launch_clear(&L);
	cpl_ystream_free(S);
	S = NULL;
	free(file_text);
	file_text = NULL;
}

/* Scans v (NULL-terminated): word i sits at t.yaml line 10 + i, col 3. */
static void
scanv(const char *const *v)
{
	size_t n;

	for (n = 0; v[n] != NULL; n++) {
		ck_assert_uint_lt(n, MAXW);
		W[n].text = (char *)v[n];
		W[n].pos.file = "t.yaml";
		W[n].pos.line = 10 + (int)n;
		W[n].pos.column = 3;
	}
	cpl_launch_clear(&L);
	cpl_shscan(&L, W, n, NULL, NULL);
}

#define SCAN(...) scanv((const char *const[]){ __VA_ARGS__, NULL })
#define SH(script) SCAN("/bin/sh", "-c", script)

/* Parses text, a mapping with command and/or args (a sequence or a
 * string each), and scans them with their nodes. */
static void
scan_yaml(const char *text)
{
	static const char *const keys[] = { "command", "args" };
	struct cpl_error err = { 0 };
	const struct cpl_ynode *doc, *v;
	size_t n = 0, k, j;

	cpl_ystream_free(S);
	S = NULL;
	ck_assert_int_eq(cpl_yaml_parse(&S, "t.yaml", text, strlen(text),
					&err), 0);
	doc = cpl_ystream_doc(S, 0);
	for (k = 0; k < 2; k++) {
		v = cpl_ynode_get(doc, keys[k]);
		for (j = 0; v != NULL && j < (cpl_ynode_is_seq(v) ? v->count
							    : 1); j++) {
			const struct cpl_ynode *it =
				cpl_ynode_is_seq(v) ? v->items[j] : v;

			W[n].text = (char *)it->value;
			W[n].pos.file = "t.yaml";
			W[n].pos.line = it->line;
			W[n].pos.column = it->column;
			N[n++] = it;
		}
	}
	cpl_launch_clear(&L);
	cpl_shscan(&L, W, n, N, S);
}

/* The export called name, or NULL. */
static const struct cpl_env *
export_of(const char *name)
{
	size_t k;

	for (k = 0; k < L.nexports; k++)
		if (strcmp(L.exports[k].name, name) == 0)
			return &L.exports[k];
	return NULL;
}

#define ASSERT_POS(p, l, c)						\
	do {								\
		ck_assert_int_eq((p).line, (l));			\
		ck_assert_int_eq((p).column, (c));			\
		ck_assert_str_eq((p).file, "t.yaml");			\
	} while (0)

/* Host-count read i is expr (as written) sizing sizes (NULL: nothing). */
static void
check_hc(size_t i, const char *expr, const char *sizes, int line)
{
	const struct cpl_hostcount *h;

	ck_assert_msg(i < L.nhostcounts, "line %d: %zu host counts", line,
		      L.nhostcounts);
	h = &L.hostcounts[i];
	ck_assert_msg(strcmp(h->expr.text, expr) == 0,
		      "line %d: expr '%s', want '%s'", line, h->expr.text,
		      expr);
	ck_assert_msg(cpl_str_eq(h->sizes, sizes),
		      "line %d: sizes '%s', want '%s'", line,
		      h->sizes ? h->sizes : "(null)",
		      sizes ? sizes : "(null)");
}

#define ASSERT_HC(i, e, z) check_hc((i), (e), (z), __LINE__)

/* ---- python ----------------------------------------------------------- */

START_TEST(python_script_and_args)
{
	SCAN("python", "-u", "train.py", "--workers", "8");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_str_eq(L.launcher_word.text, "python");
	ASSERT_POS(L.launcher_word.pos, 10, 3);
	ck_assert(L.has_script);
	ck_assert(!L.is_module);
	ck_assert_str_eq(L.script.text, "train.py");
	ASSERT_POS(L.script.pos, 12, 3);
	ck_assert_uint_eq(L.nargs, 2);
	ck_assert_str_eq(L.args[0].text, "--workers");
	ck_assert_str_eq(L.args[1].text, "8");
	ASSERT_POS(L.args[1].pos, 14, 3);
	ck_assert(!L.has_nproc);
	ck_assert(!L.is_shell);
	ck_assert_uint_eq(L.nexports, 0);
	ck_assert_uint_eq(L.nhostcounts, 0);
}
END_TEST

START_TEST(python_interpreter_options)
{
	SCAN("/opt/conda/bin/python", "-B", "-X", "dev", "-W", "ignore",
	     "-O", "t.py", "-x");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_str_eq(L.launcher_word.text, "/opt/conda/bin/python");
	ck_assert_str_eq(L.script.text, "t.py");
	ck_assert_uint_eq(L.nargs, 1);
	ck_assert_str_eq(L.args[0].text, "-x");

	SCAN("/usr/bin/python3", "-Wignore", "-uB", "a/b.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_str_eq(L.script.text, "a/b.py");
	ck_assert_uint_eq(L.nargs, 0);

	SCAN("python3.11", "--", "x.py", "--", "y");
	ck_assert_str_eq(L.script.text, "x.py");
	ck_assert_uint_eq(L.nargs, 2);
	ck_assert_str_eq(L.args[1].text, "y");

	SCAN("pythonista", "x.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
	ck_assert(!L.has_script);
}
END_TEST

START_TEST(python_module)
{
	SCAN("python3", "-u", "-m", "pkg.train", "--lr", "0.1");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert(L.has_script);
	ck_assert(L.is_module);
	ck_assert_str_eq(L.script.text, "pkg.train");
	ASSERT_POS(L.script.pos, 13, 3);
	ck_assert_uint_eq(L.nargs, 2);
	ck_assert_str_eq(L.args[0].text, "--lr");

	SCAN("python", "-mpkg.train");
	ck_assert(L.is_module);
	ck_assert_str_eq(L.script.text, "pkg.train");
	ck_assert_uint_eq(L.nargs, 0);
}
END_TEST

START_TEST(python_c_has_no_script)
{
	SCAN("python", "-c", "import os; print(os.cpu_count())", "a");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert(!L.has_script);
	ck_assert_uint_eq(L.nargs, 1);
	ck_assert_str_eq(L.args[0].text, "a");
	/* The code is Python, not a shell host-count read. */
	ck_assert_uint_eq(L.nhostcounts, 0);

	SCAN("python3");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert(!L.has_script);
}
END_TEST

/* ---- torchrun and torch.distributed ----------------------------------- */

START_TEST(torchrun_nproc_spellings)
{
	SCAN("torchrun", "--nproc_per_node", "4", "train.py", "--epochs",
	     "3");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.launcher_word.text, "torchrun");
	ck_assert(L.has_nproc);
	ck_assert_str_eq(L.nproc.text, "4");
	ASSERT_POS(L.nproc.pos, 12, 3);
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert_uint_eq(L.nargs, 2);

	SCAN("torchrun", "--nproc_per_node=auto", "train.py");
	ck_assert(L.has_nproc);
	ck_assert_str_eq(L.nproc.text, "auto");
	ASSERT_POS(L.nproc.pos, 11, 3);
	ck_assert_str_eq(L.script.text, "train.py");

	SCAN("torchrun", "--nproc-per-node", "gpu", "t.py");
	ck_assert_str_eq(L.nproc.text, "gpu");
	ck_assert_str_eq(L.script.text, "t.py");

	SCAN("/usr/local/bin/torchrun", "--nproc-per-node=cpu", "t.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.nproc.text, "cpu");

	/* The last one wins, as in argparse. */
	SCAN("torchrun", "--nproc_per_node=2", "--nproc-per-node", "8",
	     "t.py");
	ck_assert_str_eq(L.nproc.text, "8");
}
END_TEST

START_TEST(torchrun_options_with_values)
{
	SCAN("torchrun", "--nnodes", "2", "--rdzv_endpoint", "h:29400",
	     "--rdzv-backend", "c10d", "--master_addr", "m", "--master-port",
	     "1234", "--node_rank", "0", "--max_restarts", "3",
	     "--monitor_interval", "5", "--log_dir", "/logs", "-r", "3",
	     "-t", "3", "--redirects", "1", "--tee", "2", "--local_addr", "x",
	     "--rdzv_id=abc", "--standalone", "train.py", "--bs", "16");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert(!L.has_nproc);
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert_uint_eq(L.nargs, 2);
	ck_assert_str_eq(L.args[0].text, "--bs");
	ck_assert_str_eq(L.args[1].text, "16");
}
END_TEST

START_TEST(torchrun_booleans_and_unknowns)
{
	SCAN("torchrun", "--standalone", "--run-path", "--use_env",
	     "--use-env", "--no_python", "python", "t.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.script.text, "t.py");

	/* An unknown --x takes a value; --x=y does not. */
	SCAN("torchrun", "--future-flag", "v", "t.py");
	ck_assert_str_eq(L.script.text, "t.py");
	SCAN("torchrun", "--future-flag=v", "t.py", "a");
	ck_assert_str_eq(L.script.text, "t.py");
	ck_assert_uint_eq(L.nargs, 1);

	/* Options after the script are the script's. */
	SCAN("torchrun", "t.py", "--nproc_per_node", "4");
	ck_assert(!L.has_nproc);
	ck_assert_uint_eq(L.nargs, 2);
}
END_TEST

START_TEST(torchrun_module_script)
{
	SCAN("torchrun", "--nproc_per_node", "2", "-m", "pkg.mod", "--x",
	     "1");
	ck_assert(L.has_script);
	ck_assert(L.is_module);
	ck_assert_str_eq(L.script.text, "pkg.mod");
	ck_assert_uint_eq(L.nargs, 2);

	SCAN("torchrun", "--module", "pkg.mod");
	ck_assert(L.is_module);
	ck_assert_str_eq(L.script.text, "pkg.mod");
}
END_TEST

/* torchrun's kin: SageMaker HyperPod's hyperpodrun and TorchElastic's
 * launcher take its options and set its OpenMP default. */
START_TEST(torchrun_kin)
{
	SCAN("hyperpodrun", "--nproc-per-node=8", "--max-restarts", "3",
	     "train.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.launcher_word.text, "hyperpodrun");
	ck_assert_str_eq(L.nproc.text, "8");
	ck_assert_str_eq(L.script.text, "train.py");

	SCAN("python", "-m", "torchelastic.distributed.launch",
	     "--nproc_per_node=2", "/workspace/main.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.nproc.text, "2");
	ck_assert_str_eq(L.script.text, "/workspace/main.py");
}
END_TEST

START_TEST(torchrun_no_python)
{
	SCAN("torchrun", "--no-python", "python3", "-c", "import os\n");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert(!L.has_script);
	ck_assert(!L.has_nproc);

	SCAN("torchrun", "--no_python", "python3", "-u", "train.py", "a");
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert_uint_eq(L.nargs, 1);

	SCAN("torchrun", "--no-python", "./run.sh", "a", "b");
	ck_assert(!L.has_script);
	ck_assert_uint_eq(L.nargs, 2);
}
END_TEST

START_TEST(trainjob_example)
{
	struct cpl_error err = { 0 };
	const struct cpl_ynode *cmd;
	size_t len, k;

	ck_assert_int_eq(cpl_read_file(&file_text, &len, "testdata/reference/"
				       "kubeflow/trainer-v2/"
				       "examples_01-multi-node.yaml",
				       1 << 20, &err), 0);
	ck_assert_int_eq(cpl_yaml_parse(&S, "t.yaml", file_text, len, &err),
			 0);
	cmd = cpl_ynode_path(cpl_ystream_doc(S, 0), "spec", "trainer",
			     "command", NULL);
	ck_assert(cpl_ynode_is_seq(cmd));
	ck_assert_uint_eq(cmd->count, 5);
	for (k = 0; k < cmd->count; k++) {
		W[k].text = (char *)cmd->items[k]->value;
		W[k].pos.file = "t.yaml";
		W[k].pos.line = cmd->items[k]->line;
		W[k].pos.column = cmd->items[k]->column;
		N[k] = cmd->items[k];
	}
	cpl_shscan(&L, W, cmd->count, N, S);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ASSERT_POS(L.launcher_word.pos, 43, 9);
	ck_assert(!L.has_nproc);
	ck_assert(!L.has_script);
	ck_assert(!L.is_shell);
	ck_assert_uint_eq(L.nhostcounts, 0);
}
END_TEST

START_TEST(python_m_torch_distributed)
{
	SCAN("python", "-m", "torch.distributed.run", "--nproc_per_node=2",
	     "train.py", "--a");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.launcher_word.text, "torch.distributed.run");
	ASSERT_POS(L.launcher_word.pos, 12, 3);
	ck_assert_str_eq(L.nproc.text, "2");
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert(!L.is_module);
	ck_assert_uint_eq(L.nargs, 1);

	SCAN("python3", "-u", "-m", "torch.distributed.launch", "--use_env",
	     "--nproc-per-node", "8", "train.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCH_LAUNCH);
	ck_assert_str_eq(L.nproc.text, "8");
	ck_assert_str_eq(L.script.text, "train.py");

	SCAN("python", "-m", "torch.distributed.run", "--rdzv_backend=c10d",
	     "./echo.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.script.text, "./echo.py");
}
END_TEST

/* ---- accelerate and deepspeed ----------------------------------------- */

START_TEST(accelerate_launch)
{
	SCAN("accelerate", "launch", "--num_processes", "2", "--multi_gpu",
	     "--mixed_precision", "fp16", "--num_machines", "1", "train.py",
	     "--bs", "4");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_ACCELERATE);
	ck_assert_str_eq(L.launcher_word.text, "accelerate");
	ck_assert_str_eq(L.nproc.text, "2");
	ASSERT_POS(L.nproc.pos, 13, 3);
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert_uint_eq(L.nargs, 2);

	SCAN("accelerate", "launch", "--num-processes=4", "--cpu",
	     "--use_deepspeed", "--use_fsdp", "-m", "pkg.train");
	ck_assert_str_eq(L.nproc.text, "4");
	ck_assert(L.is_module);
	ck_assert_str_eq(L.script.text, "pkg.train");

	SCAN("accelerate", "config");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
}
END_TEST

START_TEST(deepspeed_launcher)
{
	SCAN("deepspeed", "--num_gpus", "4", "--hostfile", "h", "--no_ssh",
	     "ds_train.py", "--deepspeed");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_DEEPSPEED);
	ck_assert_str_eq(L.nproc.text, "4");
	ck_assert_str_eq(L.script.text, "ds_train.py");
	ck_assert_uint_eq(L.nargs, 1);

	SCAN("deepspeed", "--num_nodes=2", "--num-gpus=2", "-H", "hf",
	     "t.py");
	ck_assert_str_eq(L.nproc.text, "2");
	ck_assert_str_eq(L.script.text, "t.py");

	SCAN("deepspeed", "--num-gpus", "8", "--module", "pkg");
	ck_assert_str_eq(L.nproc.text, "8");
	ck_assert(L.is_module);
}
END_TEST

START_TEST(accelerate_options)
{
	SCAN("accelerate", "launch", "--config_file", "configs/fsdp.yaml",
	     "--num_machines", "2", "--num-processes=16",
	     "--num_cpu_threads_per_process", "4", "--multi_gpu",
	     "--machine_rank", "0", "train.py", "--lr", "1e-4");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_ACCELERATE);
	ck_assert_str_eq(L.nproc.text, "16");
	ck_assert_str_eq(L.opt[CPL_LOPT_CONFIG].text, "configs/fsdp.yaml");
	ASSERT_POS(L.opt[CPL_LOPT_CONFIG].pos, 13, 3);
	ck_assert_str_eq(L.opt[CPL_LOPT_NODES].text, "2");
	ck_assert_str_eq(L.opt[CPL_LOPT_THREADS].text, "4");
	ck_assert_ptr_null(L.opt[CPL_LOPT_HOSTFILE].text);
	ck_assert(L.flags & CPL_LFLAG_OPTIONS);
	ck_assert(L.flags & CPL_LFLAG_MULTI);
	ck_assert(!(L.flags & CPL_LFLAG_CPU));
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert_uint_eq(L.nargs, 2);

	SCAN("accelerate", "launch", "--cpu", "--mpirun_hostfile", "hosts",
	     "train.py");
	ck_assert(L.flags & CPL_LFLAG_CPU);
	ck_assert_str_eq(L.opt[CPL_LOPT_HOSTFILE].text, "hosts");
	ck_assert_str_eq(L.script.text, "train.py");

	SH("accelerate launch --use_deepspeed --num_processes $NGPU "
	   "sft.py --bf16");
	ck_assert(L.flags & CPL_LFLAG_DEEPSPEED);
	ck_assert_str_eq(L.nproc.text, "$NGPU");
	ck_assert_str_eq(L.script.text, "sft.py");

	SCAN("accelerate", "launch", "train.py");
	ck_assert_uint_eq(L.flags, 0);
}
END_TEST

START_TEST(deepspeed_options)
{
	SCAN("deepspeed", "--include", "localhost:0,1,2,3", "--master_port",
	     "29600", "train.py", "--deepspeed", "ds_config.json");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_DEEPSPEED);
	ck_assert(!L.has_nproc);
	ck_assert_str_eq(L.opt[CPL_LOPT_INCLUDE].text, "localhost:0,1,2,3");
	ASSERT_POS(L.opt[CPL_LOPT_INCLUDE].pos, 12, 3);
	ck_assert_str_eq(L.script.text, "train.py");

	SCAN("deepspeed", "-i", "localhost:2,3", "t.py");
	ck_assert_str_eq(L.opt[CPL_LOPT_INCLUDE].text, "localhost:2,3");
	ck_assert_str_eq(L.script.text, "t.py");

	SCAN("deepspeed", "-elocalhost:0", "--num_nodes", "1", "t.py");
	ck_assert_str_eq(L.opt[CPL_LOPT_EXCLUDE].text, "localhost:0");
	ck_assert_str_eq(L.opt[CPL_LOPT_NODES].text, "1");
	ck_assert_str_eq(L.script.text, "t.py");

	SCAN("deepspeed", "-H", "/etc/mpi/hostfile", "--bind_cores_to_rank",
	     "--bind_core_list", "0-47", "run.py");
	ck_assert_str_eq(L.opt[CPL_LOPT_HOSTFILE].text, "/etc/mpi/hostfile");
	ck_assert(L.flags & CPL_LFLAG_BIND_CORES);
	ck_assert_str_eq(L.opt[CPL_LOPT_CORES].text, "0-47");
	ck_assert_str_eq(L.script.text, "run.py");
}
END_TEST

START_TEST(tune_run)
{
	SCAN("tune", "run", "--nnodes", "1", "--nproc_per_node", "8",
	     "full_finetune_distributed", "--config", "llama3_1/8B_full");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TUNE);
	ck_assert_str_eq(L.launcher_word.text, "tune");
	ck_assert_str_eq(L.nproc.text, "8");
	ck_assert_str_eq(L.opt[CPL_LOPT_NODES].text, "1");
	ck_assert(L.flags & CPL_LFLAG_OPTIONS);
	ck_assert_str_eq(L.script.text, "full_finetune_distributed");
	ck_assert_uint_eq(L.nargs, 2);

	SCAN("tune", "run", "lora_finetune_single_device", "--config",
	     "llama3_2/1B_lora_single_device");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TUNE);
	ck_assert(!L.has_nproc);
	ck_assert_uint_eq(L.flags, 0);

	/* A download first, then the run: the run is the launch. */
	SH("tune download meta-llama/Llama-3.2-1B --output-dir /tmp/m && "
	   "tune run --nproc_per_node=2 recipes/custom.py --config c.yaml");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TUNE);
	ck_assert_str_eq(L.nproc.text, "2");
	ck_assert_str_eq(L.script.text, "recipes/custom.py");

	SCAN("tune", "ls");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
}
END_TEST

START_TEST(launcher_config)
{
	static const char yaml[] =
		"compute_environment: LOCAL_MACHINE\n"
		"distributed_type: MULTI_GPU\n"
		"num_machines: 1\n"
		"num_processes: 8\n"
		"use_cpu: true\n";

	ck_assert_int_eq(cpl_launch_read_config(&L, "a.yaml", yaml,
						sizeof(yaml) - 1), 0);
	ck_assert(L.cfg.read);
	ck_assert_str_eq(L.cfg.nproc.text, "8");
	ck_assert_int_eq(L.cfg.nproc.pos.line, 4);
	ck_assert_int_eq(L.cfg.nproc.pos.column, 16);
	ck_assert_str_eq(L.cfg.nproc.pos.file, "a.yaml");
	ck_assert_str_eq(L.cfg.machines.text, "1");
	ck_assert_str_eq(L.cfg.dtype.text, "MULTI_GPU");
	ck_assert_str_eq(L.cfg.env.text, "LOCAL_MACHINE");
	ck_assert(L.cfg.use_cpu);
	cpl_launch_clear(&L);
	ck_assert_int_eq(cpl_launch_read_config(&L, "a.yaml", "- 1\n", 4),
			 -1);
	ck_assert(!L.cfg.read);
	/* Some other program's config.yaml is not accelerate's. */
	ck_assert_int_eq(cpl_launch_read_config(&L, "config.yaml",
						"num_processes: 4\n", 17), -1);
	ck_assert(!L.cfg.read);
	ck_assert_ptr_null(L.cfg.nproc.text);
}
END_TEST

START_TEST(not_a_launcher)
{
	SCAN("nginx", "-g", "daemon off;");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
	ck_assert(!L.has_script);
	ck_assert_ptr_null(L.launcher_word.text);
	ck_assert_uint_eq(L.nargs, 0);

	cpl_shscan(&L, W, 0, NULL, NULL);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);

	/* A shell running a script file is not a shell script here. */
	SCAN("bash", "run.sh", "x");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
	ck_assert(!L.is_shell);
}
END_TEST

START_TEST(launcher_names)
{
	ck_assert_str_eq(cpl_launcher_name(CPL_LAUNCH_NONE), "none");
	ck_assert_str_eq(cpl_launcher_name(CPL_LAUNCH_PYTHON), "python");
	ck_assert_str_eq(cpl_launcher_name(CPL_LAUNCH_TORCHRUN), "torchrun");
	ck_assert_str_eq(cpl_launcher_name(CPL_LAUNCH_TORCH_LAUNCH),
			 "torch.distributed.launch");
	ck_assert_str_eq(cpl_launcher_name(CPL_LAUNCH_ACCELERATE),
			 "accelerate launch");
	ck_assert_str_eq(cpl_launcher_name(CPL_LAUNCH_DEEPSPEED),
			 "deepspeed");
	ck_assert_str_eq(cpl_launcher_name(CPL_LAUNCH_TUNE), "tune run");
	ck_assert(cpl_launcher_starts_ranks(CPL_LAUNCH_TUNE));
	ck_assert(cpl_launcher_starts_ranks(CPL_LAUNCH_TORCH_LAUNCH));
	ck_assert(!cpl_launcher_starts_ranks(CPL_LAUNCH_PYTHON));
	ck_assert(!cpl_launcher_starts_ranks(CPL_LAUNCH_NONE));
}
END_TEST

/* ---- shell scripts ---------------------------------------------------- */

START_TEST(shell_options_before_c)
{
	static const char *const forms[][4] = {
		{ "sh", "-c", NULL, NULL },
		{ "/bin/bash", "-ec", NULL, NULL },
		{ "bash", "-lc", NULL, NULL },
		{ "bash", "-o", "pipefail", "-c" },
		{ "/usr/bin/dash", "-e", "-x", "-c" },
		{ "zsh", "--login", "-c", NULL },
		{ "ash", "-eo", "pipefail", "-c" },
	};
	size_t k, n;

	for (k = 0; k < CPL_ARRAY_LEN(forms); k++) {
		const char *v[6];

		for (n = 0; n < 4 && forms[k][n] != NULL; n++)
			v[n] = forms[k][n];
		v[n++] = "python train.py --n 1";
		v[n] = NULL;
		scanv(v);
		ck_assert_msg(L.is_shell, "form %zu", k);
		ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
		ck_assert_str_eq(L.script.text, "train.py");
		ck_assert_uint_eq(L.nargs, 2);
		ck_assert_str_eq(L.args[1].text, "1");
	}
}
END_TEST

START_TEST(shell_exports_and_prefixes)
{
	SH("set -e; export OMP_NUM_THREADS=4 MKL_NUM_THREADS=2 && "
	   "cd /w && KMP_AFFINITY=none torchrun --nproc_per_node 2 t.py");
	ck_assert(L.is_shell);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.nproc.text, "2");
	ck_assert_uint_eq(L.nexports, 3);
	ck_assert_str_eq(L.exports[0].name, "OMP_NUM_THREADS");
	ck_assert_str_eq(L.exports[0].value, "4");
	ck_assert_str_eq(L.exports[1].name, "MKL_NUM_THREADS");
	ck_assert_str_eq(L.exports[1].value, "2");
	ck_assert_str_eq(L.exports[2].name, "KMP_AFFINITY");
	ck_assert_str_eq(L.exports[2].value, "none");
	/* No node: positions are the script word's own. */
	ASSERT_POS(L.exports[2].pos, 12, 3);
}
END_TEST

START_TEST(shell_env_and_exec)
{
	SH("cd /workspace && exec env -u HOME OMP_NUM_THREADS=3 "
	   "python -u train.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_str_eq(L.launcher_word.text, "python");
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert_uint_eq(L.nexports, 1);
	ck_assert_str_eq(L.exports[0].name, "OMP_NUM_THREADS");
	ck_assert_str_eq(L.exports[0].value, "3");

	/* env in argv form too. */
	SCAN("env", "OMP_NUM_THREADS=2", "torchrun", "t.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_uint_eq(L.nexports, 1);
	ck_assert_str_eq(L.exports[0].value, "2");
	ASSERT_POS(L.exports[0].pos, 11, 3);
}
END_TEST

START_TEST(shell_variables_resolve)
{
	SH("N=4\nexport OMP_NUM_THREADS=$N MKL_NUM_THREADS=${N}0\n"
	   "torchrun --nproc_per_node=\"$N\" t.py --w $N");
	ck_assert_str_eq(export_of("OMP_NUM_THREADS")->value, "4");
	ck_assert_str_eq(export_of("MKL_NUM_THREADS")->value, "40");
	ck_assert_str_eq(L.nproc.text, "4");
	ck_assert_str_eq(L.args[1].text, "4");
	ck_assert_ptr_null(export_of("N"));

	/* Assigned, then exported by name. */
	SH("OMP_NUM_THREADS=2; export OMP_NUM_THREADS; python t.py");
	ck_assert_uint_eq(L.nexports, 1);
	ck_assert_str_eq(L.exports[0].value, "2");

	/* export sees its words after quote removal; an assignment does
	 * not when its name is quoted. */
	SH("export \"OMP_NUM_THREADS=3\" 'MKL_NUM_THREADS'=1; "
	   "\"KMP\"=2 python t.py");
	ck_assert_uint_eq(L.nexports, 2);
	ck_assert_str_eq(export_of("OMP_NUM_THREADS")->value, "3");
	ck_assert_str_eq(export_of("MKL_NUM_THREADS")->value, "1");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);

	/* Exported first, assigned after: the assignment is exported. */
	SH("export OMP_NUM_THREADS; OMP_NUM_THREADS=6; python t.py");
	ck_assert_uint_eq(L.nexports, 1);
	ck_assert_str_eq(L.exports[0].value, "6");
}
END_TEST

START_TEST(shell_unknown_values)
{
	SH("export A=$THREADS B=$(cat /etc/n) C=`cat n` D=${X:-4} E=$1 "
	   "F=$((2 * 2)) G=lit; python t.py");
	ck_assert_uint_eq(L.nexports, 7);
	ck_assert_ptr_null(export_of("A")->value);
	ck_assert_ptr_null(export_of("B")->value);
	ck_assert_ptr_null(export_of("C")->value);
	ck_assert_ptr_null(export_of("D")->value);
	ck_assert_ptr_null(export_of("E")->value);
	ck_assert_ptr_null(export_of("F")->value);
	ck_assert_str_eq(export_of("G")->value, "lit");
	ck_assert_uint_eq(L.nhostcounts, 0);
}
END_TEST

START_TEST(shell_conditional_exports_are_unknown)
{
	SH("if [ -z \"$OMP_NUM_THREADS\" ]; then export OMP_NUM_THREADS=4; "
	   "fi\n[ -n \"$X\" ] && export MKL_NUM_THREADS=2\n"
	   "true || export KMP=1\nexport AFTER=5\npython t.py");
	ck_assert_uint_eq(L.nexports, 4);
	ck_assert_ptr_null(export_of("OMP_NUM_THREADS")->value);
	ck_assert_ptr_null(export_of("MKL_NUM_THREADS")->value);
	ck_assert_ptr_null(export_of("KMP")->value);
	ck_assert_str_eq(export_of("AFTER")->value, "5");
}
END_TEST

START_TEST(shell_exports_after_launch_do_not_count)
{
	SH("export A=1; python t.py; export B=2; C=3 torchrun x.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_uint_eq(L.nexports, 1);
	ck_assert_str_eq(L.exports[0].name, "A");
}
END_TEST

START_TEST(shell_first_launcher_wins)
{
	SH("pip install -r req.txt && torchrun a.py; python b.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.script.text, "a.py");

	/* Setup steps give way to the training command after them. */
	SH("python -m pip install x && python -c 'import nltk' && "
	   "python setup.py develop && export OMP_NUM_THREADS=1 && "
	   "python train.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert_uint_eq(L.nexports, 1);

	/* ...but count when nothing else runs. */
	SH("X=1 python -c 'print(1)'; echo done");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert(!L.has_script);
	ck_assert_uint_eq(L.nexports, 1);
	ck_assert_str_eq(L.exports[0].name, "X");

	/* command -v only looks the launcher up. */
	SH("command -v torchrun && python t.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
}
END_TEST

START_TEST(shell_quoting_and_escapes)
{
	SH("python \"my train.py\" --name 'a b' --x=\"$HOME\"/x\\ y "
	   "\"q\\\"uote\" 'it'\\''s' $'tab\\there' \"\\n\"");
	ck_assert_str_eq(L.script.text, "my train.py");
	ck_assert_uint_eq(L.nargs, 7);
	ck_assert_str_eq(L.args[0].text, "--name");
	ck_assert_str_eq(L.args[1].text, "a b");
	ck_assert_str_eq(L.args[2].text, "--x=$HOME/x y");
	ck_assert_str_eq(L.args[3].text, "q\"uote");
	ck_assert_str_eq(L.args[4].text, "it's");
	ck_assert_str_eq(L.args[5].text, "tab\there");
	ck_assert_str_eq(L.args[6].text, "\\n");
}
END_TEST

START_TEST(shell_comments_continuations_redirects)
{
	SH("# prepare\nmkdir -p /out # not a launcher: python x.py\n"
	   "python train.py \\\n  --epochs 3 >/out/log 2>&1 # done\n");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert_uint_eq(L.nargs, 2);
	ck_assert_str_eq(L.args[1].text, "3");

	SH("python t.py --a 1 | tee log & wait");
	ck_assert_uint_eq(L.nargs, 2);

	SH("cat <<EOF > cfg.yaml\ntorchrun fake.py\nEOF\n"
	   "cat <<-'END'\n\tpython fake2.py\n\tEND\ndeepspeed real.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_DEEPSPEED);
	ck_assert_str_eq(L.script.text, "real.py");
}
END_TEST

START_TEST(string_command)
{
	SCAN("video_prediction_train --model=DNA --num_masks=1");
	ck_assert(L.is_shell);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);

	SCAN("python -u model.py --lr=0.1 --workers $(nproc)");
	ck_assert(L.is_shell);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_str_eq(L.script.text, "model.py");
	ck_assert_uint_eq(L.nargs, 3);
	ck_assert_str_eq(L.args[2].text, "$(nproc)");
	ck_assert_uint_eq(L.nhostcounts, 1);
	ASSERT_HC(0, "$(nproc)", "--workers");
}
END_TEST

/* ---- host CPU counts -------------------------------------------------- */

START_TEST(hostcount_export)
{
	SH("export OMP_NUM_THREADS=$(nproc) && python train.py");
	ck_assert_uint_eq(L.nhostcounts, 1);
	ASSERT_HC(0, "$(nproc)", "OMP_NUM_THREADS");
	ASSERT_POS(L.hostcounts[0].expr.pos, 12, 3);
	ck_assert_uint_eq(L.nexports, 1);
	ck_assert_ptr_null(L.exports[0].value);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
}
END_TEST

START_TEST(hostcount_spellings)
{
	SH("A=`nproc`; B=$(nproc --all); C=$(getconf _NPROCESSORS_ONLN)\n"
	   "D=$(getconf _NPROCESSORS_CONF); "
	   "E=$(grep -c ^processor /proc/cpuinfo)\n"
	   "F=$(python -c \"import os; print(os.cpu_count())\")\n"
	   "G=$(python3 -c 'import multiprocessing as m; "
	   "print(m.cpu_count())')\n"
	   "H=$(cat /proc/cpuinfo | grep processor | wc -l)\n"
	   "I=$(cat /sys/fs/cgroup/cpu.max); J=$(hostname)\n");
	ck_assert_uint_eq(L.nhostcounts, 8);
	ASSERT_HC(0, "`nproc`", "A");
	ASSERT_HC(1, "$(nproc --all)", "B");
	ASSERT_HC(2, "$(getconf _NPROCESSORS_ONLN)", "C");
	ASSERT_HC(3, "$(getconf _NPROCESSORS_CONF)", "D");
	ASSERT_HC(4, "$(grep -c ^processor /proc/cpuinfo)", "E");
	ASSERT_HC(5, "$(python -c \"import os; print(os.cpu_count())\")",
		  "F");
	ASSERT_HC(6, "$(python3 -c 'import multiprocessing as m; "
		  "print(m.cpu_count())')", "G");
	ASSERT_HC(7, "$(cat /proc/cpuinfo | grep processor | wc -l)", "H");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
}
END_TEST

/* A program's own pool flag (gunicorn -w, celery -c, python -m
 * gunicorn) is a pool; the same letter given to another program, or a
 * flag of the same program that sizes nothing, is not. */
START_TEST(hostcount_program_pool_flags)
{
	SH("exec python3 -m gunicorn -w$(nproc) app:app\n"
	   "celery -A t worker -c $(nproc)\n"
	   "ls -w $(nproc); gunicorn --timeout $(nproc) app:app\n"
	   "N=$(nproc)\nxargs -P $N echo; uwsgi --processes=$(nproc)\n");
	ck_assert_uint_eq(L.nhostcounts, 7);
	ASSERT_HC(0, "$(nproc)", "-w");
	ck_assert(L.hostcounts[0].pool);
	ASSERT_HC(1, "$(nproc)", "-c");
	ck_assert(L.hostcounts[1].pool);
	ASSERT_HC(2, "$(nproc)", "-w");
	ck_assert(!L.hostcounts[2].pool);
	ASSERT_HC(3, "$(nproc)", "--timeout");
	ck_assert(!L.hostcounts[3].pool);
	ASSERT_HC(4, "$(nproc)", "N");
	ck_assert(!L.hostcounts[4].pool);
	ASSERT_HC(5, "$N", "-P");
	ck_assert(L.hostcounts[5].pool);
	ASSERT_HC(6, "$(nproc)", "--processes");
	ck_assert(L.hostcounts[6].pool);
}
END_TEST

START_TEST(hostcount_arithmetic_and_variables)
{
	SH("W=$(( $(nproc) / 2 ))\nN=$(nproc)\n"
	   "export OMP_NUM_THREADS=$N\n"
	   "python train.py --workers $W --threads=$((N / 4))");
	ck_assert_uint_eq(L.nhostcounts, 5);
	ASSERT_HC(0, "$(nproc)", "W");
	ASSERT_HC(1, "$(nproc)", "N");
	ASSERT_HC(2, "$N", "OMP_NUM_THREADS");
	ASSERT_HC(3, "$W", "--workers");
	ASSERT_HC(4, "N", "--threads");
	ck_assert_ptr_null(export_of("OMP_NUM_THREADS")->value);
	ck_assert_str_eq(L.args[1].text, "$W");
	/* A plain variable never assigned from the host adds nothing. */
	SH("W=4; python t.py --workers $W");
	ck_assert_uint_eq(L.nhostcounts, 0);
	ck_assert_str_eq(L.args[1].text, "4");
}
END_TEST

START_TEST(hostcount_flags)
{
	SH("torchrun --nproc_per_node=$(nproc) t.py --workers $(nproc) "
	   "--threads=`nproc` -j$(nproc) $(nproc)");
	ck_assert_str_eq(L.nproc.text, "$(nproc)");
	ck_assert_uint_eq(L.nhostcounts, 5);
	ASSERT_HC(0, "$(nproc)", "--nproc_per_node");
	ASSERT_HC(1, "$(nproc)", "--workers");
	ASSERT_HC(2, "`nproc`", "--threads");
	ASSERT_HC(3, "$(nproc)", "-j");
	ASSERT_HC(4, "$(nproc)", NULL);
}
END_TEST

START_TEST(hostcount_printed_or_compared)
{
	SH("echo cpus: $(nproc); [ $(nproc) -gt 4 ] && echo big; "
	   "if test `nproc` -lt 2; then exit 1; fi; python t.py");
	ck_assert_uint_eq(L.nhostcounts, 3);
	ASSERT_HC(0, "$(nproc)", NULL);
	ASSERT_HC(1, "$(nproc)", NULL);
	ASSERT_HC(2, "`nproc`", NULL);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
}
END_TEST

START_TEST(hostcount_in_argv)
{
	SCAN("python", "train.py", "--workers", "$(nproc)",
	     "--threads=$(getconf _NPROCESSORS_ONLN)");
	ck_assert_uint_eq(L.nhostcounts, 2);
	ASSERT_HC(0, "$(nproc)", "--workers");
	ASSERT_POS(L.hostcounts[0].expr.pos, 13, 3);
	ASSERT_HC(1, "$(getconf _NPROCESSORS_ONLN)", "--threads");
	ASSERT_POS(L.hostcounts[1].expr.pos, 14, 3);

	SCAN("torchrun", "--nproc_per_node=$(nproc)", "t.py");
	ck_assert_str_eq(L.nproc.text, "$(nproc)");
	ASSERT_HC(0, "$(nproc)", "--nproc_per_node");
}
END_TEST

START_TEST(hostcount_in_argv_env)
{
	SCAN("env", "OMP_NUM_THREADS=$(nproc)", "python", "t.py");
	ck_assert_uint_eq(L.nhostcounts, 1);
	ASSERT_HC(0, "$(nproc)", "OMP_NUM_THREADS");
	ASSERT_POS(L.hostcounts[0].expr.pos, 11, 3);
	ck_assert_uint_eq(L.nexports, 1);
	ck_assert_ptr_null(L.exports[0].value);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
}
END_TEST

START_TEST(hostcount_nested_substitution)
{
	SH("X=$(expr $(nproc) / 2); Y=\"$(echo `nproc`)\"; "
	   "Z=${Z:-$(nproc)}; python t.py");
	ck_assert_uint_eq(L.nhostcounts, 3);
	ASSERT_HC(0, "$(nproc)", "X");
	ASSERT_HC(1, "`nproc`", "Y");
	ASSERT_HC(2, "$(nproc)", "Z");
	/* Single quotes keep it literal. */
	SH("python t.py --n '$(nproc)'");
	ck_assert_uint_eq(L.nhostcounts, 0);
	ck_assert_str_eq(L.args[1].text, "$(nproc)");
}
END_TEST

/* ---- positions inside YAML ------------------------------------------- */

START_TEST(positions_literal_block)
{
	scan_yaml("command: [\"/bin/sh\", \"-c\"]\n"
		  "args:\n"
		  "  - |\n"
		  "    export OMP_NUM_THREADS=$(nproc)\n"
		  "    cd /app && torchrun --nproc_per_node=2 train.py "
		  "--workers 4\n");
	ck_assert(L.is_shell);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ASSERT_POS(L.launcher_word.pos, 5, 16);
	ASSERT_POS(L.nproc.pos, 5, 42);
	ASSERT_POS(L.script.pos, 5, 44);
	ck_assert_uint_eq(L.nargs, 2);
	ASSERT_POS(L.args[0].pos, 5, 53);
	ASSERT_POS(L.args[1].pos, 5, 63);
	ck_assert_uint_eq(L.nexports, 1);
	ASSERT_POS(L.exports[0].pos, 4, 12);
	ck_assert_uint_eq(L.nhostcounts, 1);
	ASSERT_POS(L.hostcounts[0].expr.pos, 4, 28);
}
END_TEST

START_TEST(positions_flow_scalars)
{
	scan_yaml("command: [\"sh\", \"-c\"]\n"
		  "args: [\"export OMP_NUM_THREADS=$(nproc) && "
		  "python train.py\"]\n");
	ASSERT_POS(L.hostcounts[0].expr.pos, 2, 32);
	ASSERT_POS(L.launcher_word.pos, 2, 44);
	ASSERT_POS(L.script.pos, 2, 51);

	/* A plain string command. */
	scan_yaml("command: python -u model.py --workers `nproc`\n");
	ck_assert(L.is_shell);
	ASSERT_POS(L.script.pos, 1, 20);
	ASSERT_POS(L.hostcounts[0].expr.pos, 1, 39);
}
END_TEST

START_TEST(positions_fallback)
{
	/* Folded and escaped scalars do not map offsets: every position is
	 * the script word's own. */
	scan_yaml("command: [bash, -c]\n"
		  "args:\n"
		  "  - >\n"
		  "    export OMP_NUM_THREADS=$(nproc) &&\n"
		  "    python train.py\n");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ASSERT_POS(L.launcher_word.pos, 3, 5);
	ASSERT_POS(L.hostcounts[0].expr.pos, 3, 5);

	scan_yaml("command: [bash, -c, \"A=1\\tB=$(nproc)\\npython t.py\"]\n");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ASSERT_POS(L.script.pos, 1, 21);
	ASSERT_HC(0, "$(nproc)", "B");
	ASSERT_POS(L.hostcounts[0].expr.pos, 1, 21);
}
END_TEST

START_TEST(positions_inside_backticks)
{
	/* A backtick body maps to the backtick itself. */
	scan_yaml("command: [sh, -c, \"X=`expr $(nproc) + 0`\"]\n");
	ck_assert_uint_eq(L.nhostcounts, 1);
	ASSERT_HC(0, "$(nproc)", "X");
	ASSERT_POS(L.hostcounts[0].expr.pos, 1, 22);
}
END_TEST

/* ---- hostile input ---------------------------------------------------- */

START_TEST(hostile_unterminated)
{
	SH("python \"train.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_str_eq(L.script.text, "train.py");

	SH("echo 'abc; torchrun t.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);

	SH("X=$(nproc");
	ASSERT_HC(0, "$(nproc", "X");

	SH("python t.py `nproc");
	ck_assert_uint_eq(L.nargs, 1);
	SH("a ${X:-");
	SH("a $((1 + ");
	SH("a $'abc\\");
	SH("a \\");
	SH("cat <<EOF\nno end");
	SH("export");
	SH("env");
	SH("exec");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
	SCAN("bash", "-c");
	ck_assert(!L.is_shell);
	SCAN("torchrun", "--nproc_per_node");
	ck_assert(!L.has_nproc);
	ck_assert(!L.has_script);
	SCAN("python", "-m");
	ck_assert(!L.has_script);
	SCAN("", "");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
}
END_TEST

/* Repeats unit n times into a new string. */
static char *
repeat(const char *head, const char *unit, size_t n, const char *tail)
{
	struct cpl_buf b;
	size_t k;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, head);
	for (k = 0; k < n; k++)
		cpl_buf_adds(&b, unit);
	cpl_buf_adds(&b, tail);
	return cpl_buf_detach(&b);
}

START_TEST(hostile_deep_nesting)
{
	struct cpl_buf b;
	char *s;
	size_t k;

	/* Closed nesting past the cap: skipped flat, parsing resumes. */
	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "X=");
	for (k = 0; k < 5000; k++)
		cpl_buf_adds(&b, "$(echo ");
	cpl_buf_adds(&b, "nproc");
	for (k = 0; k < 5000; k++)
		cpl_buf_addc(&b, ')');
	cpl_buf_adds(&b, "; torchrun --nproc_per_node 3 t.py");
	SH(b.data);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.nproc.text, "3");
	cpl_buf_free(&b);

	s = repeat("X=$", "(", 200000, "");
	SH(s);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
	free(s);
	s = repeat("", "$(", 200000, "");
	SH(s);
	free(s);
	s = repeat("", "${", 200000, "");
	SH(s);
	free(s);
	s = repeat("", "\"$(", 100000, "");
	SH(s);
	free(s);
	s = repeat("", "`", 100001, "");
	SH(s);
	free(s);
	s = repeat("", "$(( (", 100000, "");
	SH(s);
	free(s);
	s = repeat("", "\\", 100001, "");
	SH(s);
	free(s);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_NONE);
}
END_TEST

/* Launchers run by launchers (--no-python python -m ...): the chain is
 * read as far as MAX_NESTED_LAUNCH, whatever its length, and no script is
 * taken from it (the outer launcher runs another launcher, not Python). */
START_TEST(hostile_launcher_chain)
{
	char *s;

	SH("torchrun --no-python python -m torch.distributed.run "
	   "--nproc_per_node 2 t.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert(!L.has_script);
	s = repeat("torchrun", " --no-python python -m torch.distributed.run",
		   100000, " t.py");
	SH(s);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert(!L.has_script);
	free(s);
	s = repeat("python", " -m torch.distributed.run --no-python python",
		   100000, " t.py");
	SH(s);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert(!L.has_script);
	free(s);
}
END_TEST

START_TEST(hostile_huge_scripts)
{
	struct cpl_buf b;
	char *s;
	size_t k;

	/* 1 MB of distinct exports: capped, and the launcher still found. */
	cpl_buf_init(&b, 0);
	for (k = 0; b.len < (1u << 20); k++)
		cpl_buf_addf(&b, "export V%zu=%zu\n", k, k);
	cpl_buf_adds(&b, "torchrun --nproc_per_node 2 t.py");
	SH(b.data);
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_uint_eq(L.nexports, 1024);
	ck_assert_str_eq(L.exports[1023].name, "V1023");
	cpl_buf_free(&b);

	/* Host-count reads: capped. */
	s = repeat("python t.py", " --w $(nproc)", 80000, "");
	SH(s);
	ck_assert_uint_eq(L.nhostcounts, 256);
	ck_assert_uint_eq(L.nargs, 160000);
	free(s);

	/* A value doubled each line stays bounded. */
	s = repeat("A=xxxxxxxxxxxxxxxx\n", "A=$A$A$A$A\n", 50000,
		   "export OMP_NUM_THREADS=$A; python t.py");
	SH(s);
	ck_assert_ptr_null(export_of("OMP_NUM_THREADS")->value);
	free(s);

	/* One 1 MB word. */
	s = repeat("python ", "a", 1u << 20, ".py");
	SH(s);
	ck_assert_uint_eq(strlen(L.script.text), (1u << 20) + 3);
	free(s);
}
END_TEST

/* taskset and numactl: the CPU ids they bind to are kept (not NUMA
 * nodes, relative lists or variables), and what they run is launched. */
START_TEST(cpu_pins)
{
	SCAN("numactl", "-C", "0-3", "-m", "0", "torchrun",
	     "--nproc_per_node", "2", "train.py");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_TORCHRUN);
	ck_assert_str_eq(L.script.text, "train.py");
	ck_assert_uint_eq(L.npins, 1);
	ck_assert_str_eq(L.pins[0].how, "numactl -C");
	ck_assert_str_eq(L.pins[0].list.text, "0-3");
	ASSERT_POS(L.pins[0].list.pos, 12, 3);

	SH("export OMP_NUM_THREADS=4\ncpus=24-47\n"
	   "numactl -C $cpus --membind=1 python -u gemm.py\n"
	   "taskset -c 0,2,4-7:2 python b.py\nnumactl --physcpubind=8 x\n"
	   "numactl -C4-5 y\ntaskset 0xf z\ntaskset -pc 1 $$");
	ck_assert_int_eq(L.launcher, CPL_LAUNCH_PYTHON);
	ck_assert_str_eq(L.script.text, "gemm.py");
	ck_assert_uint_eq(L.npins, 6);
	ck_assert_str_eq(L.pins[0].list.text, "24-47");
	ck_assert_str_eq(L.pins[1].how, "taskset -c");
	ck_assert_str_eq(L.pins[1].list.text, "0,2,4-7:2");
	ck_assert_str_eq(L.pins[2].how, "numactl --physcpubind");
	ck_assert_str_eq(L.pins[2].list.text, "8");
	ck_assert_str_eq(L.pins[3].list.text, "4-5");
	ck_assert_str_eq(L.pins[4].how, "taskset");
	ck_assert_str_eq(L.pins[4].list.text, "0xf");
	ck_assert_str_eq(L.pins[5].list.text, "1");

	SH("numactl --cpunodebind=0 --membind=0 python a.py\n"
	   "numactl -N 1 -m 1 python b.py\nnumactl -C +0-3 python c.py\n"
	   "numactl --physcpubind all python d.py\ntaskset -c $CPUS e\n"
	   "echo taskset -c 0-3 f");
	ck_assert_uint_eq(L.npins, 0);
	ck_assert_str_eq(L.script.text, "a.py");
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("shscan");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, python_script_and_args);
	tcase_add_test(tc, python_interpreter_options);
	tcase_add_test(tc, python_module);
	tcase_add_test(tc, python_c_has_no_script);
	tcase_add_test(tc, torchrun_nproc_spellings);
	tcase_add_test(tc, torchrun_options_with_values);
	tcase_add_test(tc, torchrun_booleans_and_unknowns);
	tcase_add_test(tc, torchrun_module_script);
	tcase_add_test(tc, torchrun_kin);
	tcase_add_test(tc, torchrun_no_python);
	tcase_add_test(tc, trainjob_example);
	tcase_add_test(tc, python_m_torch_distributed);
	tcase_add_test(tc, accelerate_launch);
	tcase_add_test(tc, deepspeed_launcher);
	tcase_add_test(tc, not_a_launcher);
	tcase_add_test(tc, launcher_names);
	tcase_add_test(tc, shell_options_before_c);
	tcase_add_test(tc, shell_exports_and_prefixes);
	tcase_add_test(tc, shell_env_and_exec);
	tcase_add_test(tc, shell_variables_resolve);
	tcase_add_test(tc, shell_unknown_values);
	tcase_add_test(tc, shell_conditional_exports_are_unknown);
	tcase_add_test(tc, shell_exports_after_launch_do_not_count);
	tcase_add_test(tc, shell_first_launcher_wins);
	tcase_add_test(tc, shell_quoting_and_escapes);
	tcase_add_test(tc, shell_comments_continuations_redirects);
	tcase_add_test(tc, string_command);
	tcase_add_test(tc, hostcount_export);
	tcase_add_test(tc, hostcount_spellings);
	tcase_add_test(tc, hostcount_program_pool_flags);
	tcase_add_test(tc, hostcount_arithmetic_and_variables);
	tcase_add_test(tc, hostcount_flags);
	tcase_add_test(tc, hostcount_printed_or_compared);
	tcase_add_test(tc, hostcount_in_argv);
	tcase_add_test(tc, hostcount_in_argv_env);
	tcase_add_test(tc, hostcount_nested_substitution);
	tcase_add_test(tc, positions_literal_block);
	tcase_add_test(tc, positions_flow_scalars);
	tcase_add_test(tc, positions_fallback);
	tcase_add_test(tc, positions_inside_backticks);
	tcase_add_test(tc, accelerate_options);
	tcase_add_test(tc, deepspeed_options);
	tcase_add_test(tc, tune_run);
	tcase_add_test(tc, launcher_config);
	tcase_add_test(tc, cpu_pins);
	tcase_add_test(tc, hostile_unterminated);
	tcase_add_test(tc, hostile_deep_nesting);
	tcase_add_test(tc, hostile_launcher_chain);
	tcase_add_test(tc, hostile_huge_scripts);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
