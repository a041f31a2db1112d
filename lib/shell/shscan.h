/*
 * shscan.h — reads a container's command line: what it launches, with how
 * many ranks, which script and arguments, which variables it exports and
 * where it reads the host's CPU count.
 *
 * Input is the container's argv (command then args).  When the argv is a
 * shell invocation (sh|bash|dash|ash|zsh -c SCRIPT, with any of -e -x -l
 * -o pipefail before -c), or a single word holding spaces (a Polyaxon
 * string command), the text is split as POSIX shell: quotes, escapes,
 * $(...) and backticks, ';' '&&' '||' '|' '&' and newlines between simple
 * commands, `export A=1 B=2`, `A=1 cmd` prefixes, `env A=1 cmd`, `exec`,
 * `cd d &&`.  Recognised launchers, in all their spellings (one row each
 * in the launchers[] table of shlaunch.c, where a new one is added):
 *   torchrun / python[3][.X] -m torch.distributed.run   --nproc_per_node
 *   python -m torch.distributed.launch                   --nproc-per-node
 *   accelerate launch   --num_processes / --num-processes, --num_machines,
 *                       --num_cpu_threads_per_process, --config_file,
 *                       --cpu, --multi_gpu, --use_deepspeed ...
 *   deepspeed           --num_gpus / --num-gpus, --num_nodes,
 *                       --include / -i, --exclude / -e, --hostfile / -H,
 *                       --bind_cores_to_rank
 *   tune run            torchrun's options, then the recipe
 * with "--flag value" and "--flag=value" (the options kept besides the
 * rank count are in cpl_launch.opt[] and .flags).  The first launching
 * command in the script is the one reported.
 *
 * Ownership: out is filled with owned copies; release with
 * cpl_launch_clear().  words are borrowed.
 */
#ifndef CPL_SHSCAN_H
#define CPL_SHSCAN_H

#include "shell/launch.h"
#include "text/yamldoc.h"

/*
 * Scans argv.  nodes, when not NULL, holds for each word the scalar node it
 * came from and s its stream, so positions of words inside a shell script
 * point at the exact line and column; otherwise each word's own position is
 * used.  Never fails: what is not recognised is left out.
 */
void cpl_shscan(struct cpl_launch *out, const struct cpl_word *argv,
		size_t argc, const struct cpl_ynode *const *nodes,
		const struct cpl_ystream *s);

/*
 * Scans text, the whole of a shell script file at path (a wrapper a
 * container runs: `bash scripts/train.sh`), as cpl_shscan() scans sh -c
 * SCRIPT; positions are the file's lines and columns.  path and text are
 * borrowed for the call; path is copied into out's positions by pointer,
 * so it must outlive out.
 */
void cpl_shscan_file(struct cpl_launch *out, const char *path,
		     const char *text);

/* Human name of a launcher: "torchrun", "accelerate launch" ... */
const char *cpl_launcher_name(enum cpl_launcher l);

#endif
