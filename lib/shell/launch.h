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
};

/* A place where the command reads the host's CPU count ($(nproc), ...). */
struct cpl_hostcount {
	struct cpl_word expr;	/* "$(nproc)" as written */
	char *sizes;		/* "OMP_NUM_THREADS", "--workers"; NULL when
				 * it only printed or compared */
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
	bool has_script;
	struct cpl_word script;		/* "train.py" or module "pkg.train" */
	bool is_module;			/* python -m MODULE */
	struct cpl_word *args;		/* the script's own arguments */
	size_t nargs;
	struct cpl_env *exports;	/* export X=..., X=... cmd, env X=... */
	size_t nexports;
	struct cpl_hostcount *hostcounts;
	size_t nhostcounts;
	bool is_shell;			/* came from sh -c / a string command */
};

/* Frees what l holds and zeroes it (a cleared launch is "nothing"). */
void cpl_launch_clear(struct cpl_launch *l);

#endif
