/*
 * pytokcache.h — a bound on the token arrays that scanned Python files
 * hold after their scan.
 *
 * A scanned file does not keep its tokens (pyscan.h): cpl_pyfile_toks()
 * makes them again from the text when an evaluation reads them.  A file
 * attached to a cache hands the array it made to the cache, which keeps
 * the arrays in order of last use and, at a trim, frees the oldest until
 * what is held fits the budget.  Without a cache a remade array stays
 * with its file until the file is freed.
 *
 * Invariant: arrays are freed only by cpl_pytokcache_trim() (and the
 * frees), never by cpl_pyfile_toks(), so a token pointer taken during an
 * evaluation stays valid until that evaluation returns: call trim only
 * where no evaluation is running (between workloads, files, containers).
 * The cache and the files attached to it are used from one thread.
 *
 * Ownership: the caller owns the cache (cpl_pytokcache_free); files stay
 * the caller's.  A file may be freed before its cache (it leaves the
 * cache), and the cache before its files (they keep what they hold and
 * are no longer bounded).
 */
#ifndef CPL_PYTHON_PYTOKCACHE_H
#define CPL_PYTHON_PYTOKCACHE_H

#include <stddef.h>

#include "python/pyscan.h"

/* The engine's budget: about 400,000 tokens, the files of a project or
 * the core modules of a large package.  Reads are local (one process's
 * files while linking, one file through its rules), but the processes of
 * one group read the same modules in the same order, and a list that
 * holds less than those modules keeps none of them (the oldest goes
 * first): on make bench's six public repositories the scripts that
 * import huggingface/accelerate tokenize its core modules again for each
 * script, 313 arrays (1.8 million tokens) at 1 MiB, 81 at 4 MiB, 21
 * (40,000 tokens) at 8 MiB.  Small trees do not fill it: the bench's
 * 2,000 projects make no array again at 1 MiB and peak at the same
 * memory at 8 MiB (the peak is before judging, every text read). */
#ifndef CPL_PYTOKCACHE_BUDGET	/* -D...=0 frees all at each trim: a
				 * test of the trim points under ASan */
#define CPL_PYTOKCACHE_BUDGET ((size_t)8 << 20)
#endif

struct cpl_pytokcache;

/* A cache that keeps at most budget bytes of tokens past a trim. */
struct cpl_pytokcache *cpl_pytokcache_new(size_t budget);
/* Detaches every file (each keeps what it holds) and frees the cache. */
void cpl_pytokcache_free(struct cpl_pytokcache *c);	/* NULL-safe */

/* Puts f's remade tokens under c's bound from now on (once per file; a
 * file attached already, to c or another cache, stays where it is). */
void cpl_pytokcache_attach(struct cpl_pytokcache *c,
			   const struct cpl_pyfile *f);

/* Frees the arrays used longest ago until the rest fit the budget.  Only
 * where no evaluation holds a token pointer. */
void cpl_pytokcache_trim(struct cpl_pytokcache *c);

/* Bytes of tokens held now by files attached to c. */
size_t cpl_pytokcache_bytes(const struct cpl_pytokcache *c);
/* How many arrays c's files have made again since c was made. */
size_t cpl_pytokcache_made(const struct cpl_pytokcache *c);

#endif
