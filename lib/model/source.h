/*
 * source.h — one file a run read: its text, read once, and what is made
 * from it on demand (its Python scan, its line index, its parse for
 * edits).  A type the run (which reads and owns sources) and the edits of
 * fixes (which read their text through the check context, checkctx.h) share.
 *
 * Ownership: the run owns every source and what hangs from it; the edits
 * of fixes fill the lazy members (lines, yedit, quota_helper) and the run
 * frees them.
 */
#ifndef CPL_SOURCE_H
#define CPL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "text/lines.h"
#include "util.h"

struct cpl_pyfile;	/* python/pyscan.h */
struct cpl_suppress;	/* run/suppress.h */
struct cpl_yedit;	/* text/yamledit.h */

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
	struct cpl_lines lines;		/* where each line starts, lazily
					 * (fixedit.c) */
	struct cpl_yedit *yedit;	/* parsed for edits, lazily; freed
					 * once its workloads are judged */
	bool yedit_tried;
	size_t index;			/* in the engine's files */
	bool inflight;			/* being loaded again on another
					 * thread (group.c) */
	bool reread;			/* read from a path (pipeline.c): its
					 * text can be read again */
	bool text_gone;			/* its text let go once judged
					 * (cpl_engine_let_text_go()) */
	int quota_helper;		/* CPU301 (fixcode.c): 0 not looked,
					 * 1 to add, 2 defined, 3 name taken */
	size_t quota_at;		/* with 1: where it goes */
};

#endif
