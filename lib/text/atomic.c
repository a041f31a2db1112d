/*
 * atomic.c — replacing a file whole or not at all (atomic.h).
 *
 * Invariant: a file is complete or as it was.  Nothing here prints;
 * every failure comes back in a struct cpl_error.
 *
 * May include: util.h and its own header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text/atomic.h"
#include "util.h"

/* The mode a new file gets: 0666 less the umask. */
static mode_t
new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

static void
set_errno(struct cpl_error *err, const char *path, int e)
{
	cpl_error_set(err, path, 0, 0, "%s", strerror(e));
}

int
cpl_atomic_open(struct cpl_atomic *a, const char *path, int mode,
		struct cpl_error *err)
{
	struct stat st;
	char *real = NULL, *slash;
	int fd, saved;

	memset(a, 0, sizeof(*a));
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		real = realpath(path, NULL);
	a->path = real ? real : cpl_xstrdup(path);
	if (stat(a->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		a->fp = fopen(a->path, "w");
		if (a->fp == NULL)
			goto fail;
		return 0;
	}
	slash = strrchr(a->path, '/');
	a->tmp = slash ?
		 cpl_xasprintf("%.*s/.%s.XXXXXX", (int)(slash - a->path),
			       a->path, slash + 1) :
		 cpl_xasprintf(".%s.XXXXXX", a->path);
	fd = mkstemp(a->tmp);
	if (fd < 0) {
		free(a->tmp);
		a->tmp = NULL;
		goto fail;
	}
	if (fchmod(fd, mode == CPL_ATOMIC_NEW_MODE ? new_file_mode() :
		   (mode_t)mode) < 0 ||
	    (a->fp = fdopen(fd, "w")) == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
		goto fail;
	}
	return 0;
fail:
	saved = errno;
	set_errno(err, path, saved);
	cpl_atomic_abort(a);
	return -1;
}

int
cpl_atomic_commit(struct cpl_atomic *a, bool failed, struct cpl_error *err)
{
	int e = failed ? (errno ? errno : EIO) : 0;

	if (!e && (fflush(a->fp) != 0 || ferror(a->fp)))
		e = errno ? errno : EIO;
	if (!e && a->tmp && fsync(fileno(a->fp)) < 0 && errno != EINVAL)
		e = errno;
	if (fclose(a->fp) != 0 && !e)
		e = errno ? errno : EIO;
	a->fp = NULL;
	if (!e && a->tmp && rename(a->tmp, a->path) < 0)
		e = errno;
	if (!e) {
		free(a->tmp);
		a->tmp = NULL;
		cpl_atomic_abort(a);
		return 0;
	}
	set_errno(err, a->path, e);
	cpl_atomic_abort(a);
	return -1;
}

void
cpl_atomic_abort(struct cpl_atomic *a)
{
	if (a == NULL)
		return;
	if (a->fp)
		fclose(a->fp);
	if (a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof(*a));
}

/* 0 when path holds exactly expect, 1 when not, -1 with err. */
static int
still_holds(const char *path, const char *expect, size_t elen,
	    struct cpl_error *err)
{
	char *now = NULL;
	size_t len = 0;
	int rc;

	if (cpl_read_file(&now, &len, path, elen + 1, err) < 0) {
		/* Grown past what was linted: changed, not an error. */
		if (access(path, R_OK) == 0) {
			cpl_error_clear(err);
			return 1;
		}
		return -1;
	}
	rc = len != elen || memcmp(now, expect, len) != 0;
	free(now);
	return rc;
}

/* Writes text over the file at path in place (its inode, links, owner
 * and mode kept), if it still holds expect; as cpl_atomic_replace. */
static int
write_in_place(const char *path, const char *expect, size_t elen,
	       const char *text, size_t len, struct cpl_error *err)
{
	size_t done = 0;
	ssize_t w;
	int fd, rc;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		set_errno(err, path, errno);
		return -1;
	}
	rc = still_holds(path, expect, elen, err);
	if (rc != 0)
		goto out;
	while (done < len) {
		w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			set_errno(err, path, w < 0 ? errno : EIO);
			rc = -1;
			goto out;
		}
		done += (size_t)w;
	}
	if (ftruncate(fd, (off_t)len) < 0 ||
	    (fsync(fd) < 0 && errno != EINVAL)) {
		set_errno(err, path, errno);
		rc = -1;
	}
out:
	if (close(fd) < 0 && rc == 0) {
		set_errno(err, path, errno);
		rc = -1;
	}
	if (rc > 0)
		cpl_error_set(err, path, 0, 0, "changed since it was read: "
			      "not written (run again)");
	return rc;
}

/* Why path (st) is not rewritten without --force, or NULL. */
static const char *
refusal(const char *path, const struct stat *st)
{
	if ((st->st_mode & 0222) == 0 || access(path, W_OK) != 0)
		return "read-only: not fixed (--force rewrites it and keeps "
		       "its mode)";
	if (st->st_nlink > 1)
		return "has more than one hard link: not fixed, as a rewrite "
		       "would split them (--force writes it in place)";
	return NULL;
}

int
cpl_atomic_replace(const char *path, const char *expect, size_t elen,
		   const char *text, size_t len, unsigned flags,
		   struct cpl_error *err)
{
	struct cpl_atomic a;
	struct stat st;
	const char *why;
	bool failed, force = flags & CPL_ATOMIC_FORCE;
	int rc;

	if (stat(path, &st) < 0) {
		set_errno(err, path, errno);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		cpl_error_set(err, path, 0, 0, "not a regular file");
		return -1;
	}
	rc = still_holds(path, expect, elen, err);
	if (rc != 0)
		goto changed;
	why = refusal(path, &st);
	if (why != NULL && !force) {
		cpl_error_set(err, path, 0, 0, "%s", why);
		return 1;
	}
	if (force && st.st_nlink > 1 && access(path, W_OK) == 0)
		return write_in_place(path, expect, elen, text, len, err);
	if (cpl_atomic_open(&a, path, (int)(st.st_mode & 07777), err) < 0)
		return -1;
	if (a.tmp != NULL && fchown(fileno(a.fp), st.st_uid, st.st_gid) < 0) {
		/* Another user's file: the rename would make it ours. */
		cpl_atomic_abort(&a);
		if (force && access(path, W_OK) == 0)
			return write_in_place(path, expect, elen, text, len,
					      err);
		cpl_error_set(err, path, 0, 0, "owned by user %lu, group %lu,"
			      " which a rewrite cannot keep: not fixed "
			      "(--force writes it in place)",
			      (unsigned long)st.st_uid,
			      (unsigned long)st.st_gid);
		return 1;
	}
	errno = 0;
	failed = fwrite(text, 1, len, a.fp) != len;
	if (!failed && fflush(a.fp) != 0)
		failed = true;
	if (!failed) {
		rc = still_holds(path, expect, elen, err);
		if (rc != 0) {
			cpl_atomic_abort(&a);
			goto changed;
		}
	}
	return cpl_atomic_commit(&a, failed, err);
changed:
	if (rc > 0)
		cpl_error_set(err, path, 0, 0, "changed since it was read: "
			      "not written (run again)");
	return rc;
}
