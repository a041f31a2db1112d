/*
 * source.h — one file a run read: its text, read once, and its Python
 * scan, made on demand.  The run reads, owns and fills every source;
 * the edits of fixes hold their own index and parse of a text
 * (fix/resolve.h), so nothing below the run writes here.
 *
 * Ownership: the run owns every source and what hangs from it.
 */
#ifndef CPL_SOURCE_H
#define CPL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct cpl_pyfile;	/* python/pyscan.h */
struct cpl_suppress;	/* run/suppress_int.h */

enum file_kind {
	FILE_YAML,
	FILE_PYTHON,
};

/* One source file, read once. */
struct source {
	char *path;
	enum file_kind kind;
	char *text;
	size_t len;
	struct cpl_suppress *sup;	/* inline comments */
	bool linted;			/* a target (not only linked code) */
	struct cpl_pyfile *py;		/* Python: scanned once, lazily */
	bool scanned;
	struct cpl_error scan_err;	/* a scan on a worker failed: kept
					 * until the file is first asked for,
					 * when the error is reported */
	size_t index;			/* in the engine's files */
	bool inflight;			/* being loaded again on another
					 * thread (group.c) */
	bool reread;			/* read from a path (pipeline.c): its
					 * text can be read again */
	bool text_gone;			/* its text let go once judged
					 * (cpl_engine_let_text_go()) */
};

#endif
