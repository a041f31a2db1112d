/*
 * pyvalue.h — resolves the pool sizes a scanned Python file sets:
 * DataLoader workers, set_num_threads counts, pool sizes, environment
 * values.  The result (struct cpl_pyval, pyscan.h) is KNOWN (a number),
 * HOST (it depends on a CPU-count call, so it tracks the node) or UNKNOWN.
 * Never a guess: what the text does not fix is UNKNOWN.
 *
 * What is followed: literals (1_000, 0x10, 2.0), + - * / // % ** and
 * unary minus, comparisons, `is None`, min() max() int() float() round()
 * abs() str() math.floor/ceil/trunc, `a or b`, `x if c else y`; names
 * through the assignments that reach the use (module, class, function;
 * an assignment in a nested block only combines with the others),
 * augmented assignments, tuple unpacking of tuple displays, walrus,
 * self.X of the same class, Class.X and module.Class.X (the class body's
 * value unless the dotted name is assigned first), names and attributes
 * of linked modules, and names a star import brings;
 * parameters through the call site (keyword or positional, self skipped)
 * or their default; return values of local defs and of defs in linked
 * modules, also through a package's re-exports (MAX_REEXPORT hops), and
 * UNKNOWN for a quota-aware def (pyscan's quota_reader: its CPU count is
 * the fallback where no quota is set); args.X where args comes from parse_args() and X is an argparse
 * dest, overridden by the command line ("--workers 8", "--workers=8",
 * "-j 4", "-j4", unique prefixes of long flags, dest renames, type=int /
 * float, store_true); os.environ[...] / os.environ.get / os.getenv through
 * an environment callback; CPU counts (pyscan's CPU_COUNT calls) as HOST.
 * Several values reaching one use combine: equal numbers stay KNOWN, any
 * HOST makes HOST, anything else is UNKNOWN.
 *
 * Cost: each resolution is bounded (recursion depth and a step budget);
 * past them the answer is UNKNOWN.
 *
 * Ownership: everything passed in is borrowed for the call; results hold
 * positions into the files and argv words given.
 */
#ifndef CPL_PYVALUE_H
#define CPL_PYVALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "python/pyscan.h"
#include "text/pos.h"

struct cpl_pycallmap;	/* private (pyvalue_int.h) */

/*
 * A call site that binds the parameters of the def an expression is in:
 * call `call` of file; up is the caller's own site (NULL: look for it).
 */
struct cpl_pysite {
	const struct cpl_pyfile *file;
	size_t call;
	const struct cpl_pysite *up;
};

/* What a resolution may consult beyond the file; zero it for nothing. */
struct cpl_pyenv {
	/* The script's command-line arguments (after the script name). */
	const struct cpl_word *argv;
	size_t argc;
	/* More arguments may exist than argv shows ("$@", an unresolved
	 * template): an absent flag then proves nothing (UNKNOWN). */
	bool argv_partial;
	/* The files of the process (entry script and linked modules):
	 * parameters with no call site given are looked up at the calls
	 * in these files (NULL: the file itself only). */
	const struct cpl_pyfile *const *files;
	size_t nfiles;
	/* The scanned file of a module imported by from (dotted name and
	 * relative level as written), NULL when it is not linked. */
	const struct cpl_pyfile *(*module)(void *ctx,
					   const struct cpl_pyfile *from,
					   const char *module, int level);
	/* A command-line value that is not a number, e.g. a Polyaxon
	 * template "{{ workers }}": 0 and *out when it resolves, else -1. */
	int (*word)(void *ctx, const char *text, long *out);
	/* An environment variable: 1 with *value (borrowed until the
	 * resolution returns) and *pos (where it is set) when set to a
	 * known value, 0 when unset, -1 when unknown.  NULL: every read
	 * is unknown. */
	int (*getenv)(void *ctx, const char *name, const char **value,
		      struct cpl_pos *pos);
	void *ctx;
	/* The CPUs the node surely has (a container's CPU request: the
	 * scheduler places it only where that many are allocatable); a CPU
	 * count is at least this.  0: unknown (at least 1). */
	long host_min;
	/* Optional: the calls of files through their imports, by the last
	 * name of what they call.  cpl_pyvalue_code() builds one for its
	 * own resolutions; NULL: each file's calls are read in turn. */
	const struct cpl_pycallmap *callmap;
};

/*
 * Resolves expression e of file f.  site binds the parameters of the def
 * that e is in (NULL: the calls of that def in env->files, or its
 * defaults when nothing calls it).  env may be NULL.
 */
void cpl_pyvalue_expr(struct cpl_pyval *out, const struct cpl_pyfile *f,
		      const struct cpl_pyexpr *e,
		      const struct cpl_pysite *site,
		      const struct cpl_pyenv *env);

/* The workers of f->loaders[i]: num_workers not given is KNOWN 0
 * (IMPLICIT, at the call) unless **kwargs may hold it. */
void cpl_pyvalue_loader(struct cpl_pyval *out, const struct cpl_pyfile *f,
			size_t i, const struct cpl_pysite *site,
			const struct cpl_pyenv *env);

/* The thread count f->threads[i] sets. */
void cpl_pyvalue_threads(struct cpl_pyval *out, const struct cpl_pyfile *f,
			 size_t i, const struct cpl_pysite *site,
			 const struct cpl_pyenv *env);

/* The size of f->pools[i]; not given is HOST (the pools default to the
 * CPU count), at the call. */
void cpl_pyvalue_pool(struct cpl_pyval *out, const struct cpl_pyfile *f,
		      size_t i, const struct cpl_pysite *site,
		      const struct cpl_pyenv *env);

/* The value f->envsets[i] sets, read as a number ("4" is KNOWN 4). */
void cpl_pyvalue_envset(struct cpl_pyval *out, const struct cpl_pyfile *f,
			size_t i, const struct cpl_pyenv *env);

/*
 * Builds the linked code of a process (pyvalue_code.c): files[0] is the
 * entry script, the rest the local modules it imports.  Every DataLoader
 * and every set_num_threads outside a worker_init_fn of the files is
 * resolved with env (env->files defaults to files); the files are joined
 * through env->module: the roles defs play in the data pipeline across
 * modules, and the CPU counts that size a pool in another file.  Caller
 * frees *out with cpl_pyscan_code_free().  Returns 0.
 */
int cpl_pyvalue_code(struct cpl_code **out,
		     const struct cpl_pyfile *const *files, size_t nfiles,
		     const struct cpl_pyenv *env);

/* "known", "host", "unknown". */
const char *cpl_pyvalue_kind_name(enum cpl_pyval_kind k);

#endif
