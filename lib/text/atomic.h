/*
 * atomic.h — replacing a file whole or not at all: the report file
 * (--output-file) and the files --fix rewrites.
 *
 * A file is written to a temporary file in its own directory (so the
 * rename cannot cross file systems) and renamed over it only once every
 * byte was written, flushed and synced; on any failure the temporary
 * file is removed and the file keeps what it held.  A path that exists
 * and is not a regular file (/dev/stdout, a FIFO) is written in place,
 * as there is nothing to replace; a symbolic link is followed, so its
 * target is replaced and the link kept.  Errors are returned, never
 * printed.
 */
#ifndef CPL_ATOMIC_H
#define CPL_ATOMIC_H

#include <stdbool.h>
#include <stdio.h>

#include "util.h"

/* A file being replaced. */
struct cpl_atomic {
	FILE *fp;		/* write here */
	char *path;		/* the file, a symbolic link resolved */
	char *tmp;		/* the temporary file; NULL: in place */
};

/* cpl_atomic_open's mode for a new file: 0666 less the umask. */
#define CPL_ATOMIC_NEW_MODE (-1)

/*
 * Opens path for replacing; mode is the permission bits the file gets
 * (or CPL_ATOMIC_NEW_MODE).  -1 with err (path, strerror's message).
 */
int cpl_atomic_open(struct cpl_atomic *a, const char *path, int mode,
		    struct cpl_error *err);
/*
 * Finishes: with failed false, flushes, syncs and renames the temporary
 * file over the file.  failed (the caller's writing failed, errno says
 * why) or any failure here: removes the temporary file and returns -1
 * with err (strerror's message).  a is reset either way.
 */
int cpl_atomic_commit(struct cpl_atomic *a, bool failed,
		      struct cpl_error *err);
/* Drops an unfinished file: the file is left as it was.  NULL-safe. */
void cpl_atomic_abort(struct cpl_atomic *a);

/* cpl_atomic_replace's flags. */
#define CPL_ATOMIC_FORCE 1u	/* rewrite what is otherwise refused */

/*
 * Replaces the regular file path with text (len bytes), keeping its
 * permission bits, owner and group, but only if it still holds expect
 * (elen bytes): the bytes it was linted from.  The file is compared
 * before the temporary file is written and again just before the
 * rename.  Refused unless flags has CPL_ATOMIC_FORCE: a read-only file
 * (no write bit, or not writable by this user), a file with more than
 * one hard link (a rename would split them), a file whose owner or group
 * the new file cannot be given (another user's).  With the flag a
 * read-only file is replaced (its mode kept) and the other two are
 * written in place (every link sees the new text; not atomic).  0 when
 * replaced; 1 when it changed since or was refused (left as it is, err
 * says why); -1 with err.
 */
int cpl_atomic_replace(const char *path, const char *expect, size_t elen,
		       const char *text, size_t len, unsigned flags,
		       struct cpl_error *err);

#endif
