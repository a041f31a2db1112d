/*
 * launch.h — what a container's command line launches: the launcher, its
 * rank-count flag, the script and its arguments, the variables the shell
 * exports and where it reads the host's CPU count.  Filled by shscan.c,
 * read by the workload model and the budget.
 *
 * Ownership: a struct cpl_launch owns every word and array in it; release
 * it with cpl_launch_clear().
 */
#ifndef CPL_SHELL_LAUNCH_H
#define CPL_SHELL_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "text/pos.h"

enum cpl_launcher {
	CPL_LAUNCH_NONE,	/* nothing recognised */
	CPL_LAUNCH_PYTHON,	/* python [-u] script.py | -m module */
	CPL_LAUNCH_TORCHRUN,	/* torchrun, python -m torch.distributed.run */
	CPL_LAUNCH_TORCH_LAUNCH,	/* python -m torch.distributed.launch */
	CPL_LAUNCH_ACCELERATE,	/* accelerate launch */
	CPL_LAUNCH_DEEPSPEED,	/* deepspeed */
	CPL_LAUNCH_TUNE,	/* tune run (torchtune) */
	CPL_LAUNCH_PADDLE,	/* python -m paddle.distributed.launch,
				 * fleetrun */
};

/* Launcher options with a value that the record keeps besides the rank
 * count (cpl_launch.opt[]). */
enum cpl_lopt {
	CPL_LOPT_NODES,		/* accelerate --num_machines, deepspeed
				 * --num_nodes, torchrun --nnodes */
	CPL_LOPT_THREADS,	/* accelerate --num_cpu_threads_per_process */
	CPL_LOPT_CONFIG,	/* accelerate --config_file */
	CPL_LOPT_INCLUDE,	/* deepspeed --include / -i */
	CPL_LOPT_EXCLUDE,	/* deepspeed --exclude / -e */
	CPL_LOPT_HOSTFILE,	/* deepspeed --hostfile / -H, accelerate
				 * --mpirun_hostfile */
	CPL_LOPT_CORES,		/* deepspeed --bind_core_list */
	CPL_LOPT_DEVICES,	/* paddle --devices / --gpus / --xpus and
				 * their selected_ aliases: "0,1,2,3" */
	CPL_LOPT_COUNT
};

/* Launcher switches (cpl_launch.flags). */
#define CPL_LFLAG_OPTIONS 0x01u	/* some launcher option was given */
#define CPL_LFLAG_CPU 0x02u	/* accelerate --cpu / --use_cpu */
#define CPL_LFLAG_MULTI 0x04u	/* accelerate --multi_gpu, --use_fsdp,
				 * --use_megatron_lm */
#define CPL_LFLAG_DEEPSPEED 0x08u	/* accelerate --use_deepspeed */
#define CPL_LFLAG_BIND_CORES 0x10u	/* deepspeed --bind_cores_to_rank */

/*
 * What a launcher's own config file says (accelerate launch --config_file),
 * filled by cpl_launch_read_config() when the file is in the repository.
 * Words point into that file; text NULL when the key is absent.
 */
struct cpl_launch_cfg {
	bool read;		/* the file was found and parsed */
	struct cpl_word nproc;	/* num_processes */
	struct cpl_word machines;	/* num_machines */
	struct cpl_word dtype;	/* distributed_type: MULTI_GPU, DEEPSPEED */
	struct cpl_word env;	/* compute_environment: LOCAL_MACHINE */
	bool use_cpu;		/* use_cpu: true */
};

/* A place where the command reads the host's CPU count ($(nproc), ...). */
struct cpl_hostcount {
	struct cpl_word expr;	/* "$(nproc)" as written */
	char *sizes;		/* "OMP_NUM_THREADS", "--workers"; NULL when
				 * it only printed or compared */
	bool pool;		/* sizes is a flag its program sizes a pool
				 * of workers or threads by, whatever its
				 * name says: gunicorn's -w, celery's -c */
};

/*
 * A command that binds what it runs to CPU ids of the node: `taskset -c
 * 0-3`, `taskset 0xf`, `numactl -C 0-3` / `--physcpubind=0-3`.  Only
 * absolute ids are kept (numactl's relative `+0-3` and `all` are not).
 */
struct cpl_pin {
	const char *how;	/* "taskset -c", "numactl --physcpubind"
				 * (static) */
	struct cpl_word list;	/* the ids or mask as written: "0-3" */
};

/*
 * What the container's command line launches (see shscan.h).  All words
 * point into the command or the shell text with positions.
 */
struct cpl_launch {
	enum cpl_launcher launcher;
	struct cpl_word launcher_word;	/* "torchrun", "accelerate" ... */
	bool has_nproc;			/* a rank-count flag was given */
	struct cpl_word nproc;		/* its value: "4", "auto", "cpu",
					 * "gpu", "$(nproc)" */
	struct cpl_word opt[CPL_LOPT_COUNT];	/* text NULL: not given */
	unsigned flags;			/* CPL_LFLAG_* */
	struct cpl_launch_cfg cfg;	/* --config_file's contents */
	bool has_script;
	struct cpl_word script;		/* "train.py" or module "pkg.train" */
	bool is_module;			/* python -m MODULE */
	struct cpl_word *args;		/* the script's own arguments */
	size_t nargs;
	struct cpl_env *exports;	/* export X=..., X=... cmd, env X=... */
	size_t nexports;
	struct cpl_hostcount *hostcounts;
	size_t nhostcounts;
	struct cpl_pin *pins;		/* taskset/numactl CPU ids, in order */
	size_t npins;
	bool is_shell;			/* came from sh -c / a string command */
	bool has_wrapper;		/* no launcher, but a command runs a
					 * shell script file: */
	struct cpl_word wrapper;	/* its path as written (bash FILE,
					 * ./FILE.sh), the first one */
};

/* Frees what l holds and zeroes it (a cleared launch is "nothing"). */
void cpl_launch_clear(struct cpl_launch *l);

/*
 * Reads the launcher config file l names (CPL_LOPT_CONFIG) from text (len
 * bytes, at path; path is borrowed into the positions of l->cfg and must
 * outlive l).  Returns 0 and sets l->cfg.read when it parsed, -1 when it is
 * not YAML or JSON, or not an accelerate config (neither
 * compute_environment nor distributed_type): l->cfg is then left unread.
 */
int cpl_launch_read_config(struct cpl_launch *l, const char *path,
			   const char *text, size_t len);

/* True for the launchers that start ranks of their own (torchrun and its
 * module spellings, accelerate launch, deepspeed, tune run). */
bool cpl_launcher_starts_ranks(enum cpl_launcher l);

#endif
