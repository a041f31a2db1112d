/*
 * link.h — joins workloads to the Python they run: from a container's
 * command (`python train.py`, `python -m pkg.train`, `torchrun … train.py`,
 * `sh -c "… python x.py"`) to its entry script in the repository, and from
 * it to the local modules it imports, transitively; and the same for an
 * entry script linted on its own, with no container.
 *
 * The linker never reads a file itself: it asks a loader callback for the
 * scanned file at a path (the engine's, which reads each file once, from
 * the working tree or the index, and scans it once however many workloads
 * link it).  Paths are joined lexically ("a/./b/../c.py" → "a/c.py").
 *
 * Ownership: cpl_link_code() returns a struct cpl_code (pyscan.h) the
 * caller frees with cpl_pyscan_code_free(); its files are borrowed from
 * the loader.
 */
#ifndef CPL_LINK_H
#define CPL_LINK_H

#include <stdbool.h>

#include "model/workload.h"
#include "python/pyscan.h"

/* Returns the scanned file at path, or NULL when there is none. */
typedef const struct cpl_pyfile *(*cpl_link_load_fn)(void *ctx,
						     const char *path);

/* A memo of module lookups (see cpl_link_memo_new()); opaque. */
struct cpl_link_memo;

struct cpl_linker {
	cpl_link_load_fn load;
	void *ctx;
	const char *root;	/* do not look above this directory (the
				 * repository root); NULL: the workload
				 * file's directory and 4 parents */
	struct cpl_link_memo *memo;	/* NULL: none; else each module
					 * name is looked up once per base
					 * directory */
	/* NULL, or called on each file a linked process takes and each an
	 * evaluation asks for, before its facts are read: where the loader
	 * or memo may hand out an unloaded file (pyscan.h), the hook loads
	 * it again. */
	void (*ready)(void *ctx, const struct cpl_pyfile *f);
	/* NULL, or true when directory dir (a path as the linker joins
	 * them) is known to hold no entry called any of names[0, n), which
	 * load would then also answer for every path below them: `import
	 * torch` from a directory listed without torch.py or torch/ is
	 * answered without joining a path or asking load.  false when
	 * unknown. */
	bool (*missing)(void *ctx, const char *dir, const char *const *names,
			size_t n);
};

/*
 * A memo for cpl_linker.memo: remembers, per (base directory, module), the
 * file a module import resolved to (or that there was none), so `import
 * torch` costs one look-up per directory, not two loads per script.  Only
 * valid while the loader answers the same for the same path (the engine's
 * does: it remembers what it found and what was missing).  Free with
 * cpl_link_memo_free() (NULL is fine).
 */
struct cpl_link_memo *cpl_link_memo_new(void);
void cpl_link_memo_free(struct cpl_link_memo *m);
/* Forgets every look-up once m holds more than max (a bound on what a
 * run keeps: look-ups are local to a directory, walked together). */
void cpl_link_memo_bound(struct cpl_link_memo *m, size_t max);

/*
 * The code a container runs: NULL when its command names no script, or
 * the script is not found next to the workload file (or above it, up to
 * the root).  w->file must be set (static workloads only).
 */
struct cpl_code *cpl_link_code(const struct cpl_linker *lk,
			       const struct cpl_workload *w,
			       const struct cpl_container *c);

/*
 * The code of a Python entry script linted on its own, with no container
 * running it: the script and the local modules it imports, resolved as
 * `python script.py` would (sys.path[0] is the script's directory; when
 * the script sits in a package, also the directory above it, as
 * `python -m pkg.script` would), with no command-line arguments (argparse
 * defaults hold) and an unknown environment.  NULL when entry is NULL.
 */
struct cpl_code *cpl_link_script(const struct cpl_linker *lk,
				 const struct cpl_pyfile *entry);

/*
 * The files cpl_link_code() and cpl_link_script() would join, without
 * evaluating: the entry script first, then the local modules its imports
 * reach, breadth-first, with no cap on their number (linked code stops
 * at 4,096), so a superset of the linked files.  Reads only the files'
 * paths and imports (unloaded files do) and calls no ready hook.
 * Returns how many; *files is the caller's (free it), the files the
 * loader's; 0 and NULL when no script runs.
 */
size_t cpl_link_code_files(const struct cpl_linker *lk,
			   const struct cpl_workload *w,
			   const struct cpl_container *c,
			   const struct cpl_pyfile ***files);
size_t cpl_link_script_files(const struct cpl_linker *lk,
			     const struct cpl_pyfile *entry,
			     const struct cpl_pyfile ***files);

/*
 * A batch of files-only walks for what they join, not their order: the
 * graph of a run (group.c), where a file and everything a walk from it
 * reaches belong together.  Each walk asked for is the one
 * cpl_link_code_files() or cpl_link_script_files() makes; running the
 * batch reports, for every file those walks reach, an edge to each file
 * its imports lead to, so that joining the files along the edges (and
 * each walk's asker with its entry script) joins what joining each
 * asker with every file of its walk would.  Each file's imports are
 * resolved once per package root, not once per walk: the walks from
 * directories that provably hold none of the modules imported
 * absolutely (their listing, cpl_linker.missing) are those of their
 * package root alone, and are made together; the others once per
 * directory.  The order of the edges is unspecified.
 *
 * cpl_link_batch_code() returns the container's entry script (NULL: it
 * runs none, and no walk is asked for).  The batch borrows lk until
 * freed; free with cpl_link_batch_free() (NULL is fine).
 */
struct cpl_link_batch;
typedef void (*cpl_link_edge_fn)(void *ctx, const struct cpl_pyfile *from,
				 const struct cpl_pyfile *to);
struct cpl_link_batch *cpl_link_batch_new(const struct cpl_linker *lk);
const struct cpl_pyfile *cpl_link_batch_code(struct cpl_link_batch *b,
					     const struct cpl_workload *w,
					     const struct cpl_container *c);
void cpl_link_batch_script(struct cpl_link_batch *b,
			   const struct cpl_pyfile *entry);
void cpl_link_batch_run(struct cpl_link_batch *b, cpl_link_edge_fn edge,
			void *ctx);
void cpl_link_batch_free(struct cpl_link_batch *b);

/*
 * Whether f is an entry script: it has `if __name__ == "__main__":` or
 * builds a DataLoader at module level.  A module that is only imported is
 * judged with the scripts that import it.
 */
bool cpl_link_is_entry(const struct cpl_pyfile *f);

/* Whether the linked code imports torch (false for NULL). */
bool cpl_code_imports_torch(const struct cpl_code *code);

/* Whether p is as cpl_link_join() leaves a path: no empty, "." or
 * ".." component that a join would drop (leading ".." stay). */
bool cpl_link_is_joined(const char *p);

/* One attempt of cpl_link_find_up(): what is at path, or NULL. */
typedef const void *(*cpl_link_try_fn)(void *ctx, const char *path);

/*
 * Tries rel in start, then in each parent (up to root, or 4 parents when
 * root is NULL; never above "." when start is relative): the first
 * non-NULL answer of try wins.  How both scripts and launcher configs are
 * found next to a workload file or above it.
 */
const void *cpl_link_find_up(const char *start, const char *rel,
			     const char *root, cpl_link_try_fn try,
			     void *ctx);

/* Joins dir and rel lexically; caller frees.  An absolute rel is kept. */
char *cpl_link_join(const char *dir, const char *rel);

#endif
