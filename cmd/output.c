/*
 * output.c — where the report goes: standard output, or --output-file.
 *
 * Invariant: a report file is complete or absent.  It is written to a
 * temporary file in the same directory (so the rename cannot cross file
 * systems) and renamed over FILE only once every byte was written,
 * flushed and synced; on any failure the temporary file is removed and
 * FILE keeps what it held.  The new file gets the mode a newly created
 * file would (0666 less the umask).  A FILE that exists and is not a
 * regular file (/dev/stdout, a FIFO) is written in place, as there is
 * nothing to replace; a symbolic link is followed, so its target is
 * replaced and the link kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"

/* The mode a new file gets: 0666 less the umask. */
static mode_t
new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

int
cpl_cli_output_open(struct cli_output *o, const char *path)
{
	struct stat st;
	char *real = NULL, *slash;
	int fd;

	memset(o, 0, sizeof(*o));
	if (path == NULL) {
		o->fp = stdout;
		return 0;
	}
	o->shown = path;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		real = realpath(path, NULL);
	o->path = real ? real : cpl_xstrdup(path);
	if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->fp = fopen(o->path, "w");
		if (o->fp == NULL)
			goto fail;
		return 0;
	}
	slash = strrchr(o->path, '/');
	o->tmp = slash ?
		 cpl_xasprintf("%.*s/.%s.XXXXXX", (int)(slash - o->path),
			       o->path, slash + 1) :
		 cpl_xasprintf(".%s.XXXXXX", o->path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	if (fchmod(fd, new_file_mode()) < 0 ||
	    (o->fp = fdopen(fd, "w")) == NULL) {
		int saved = errno;

		close(fd);
		errno = saved;
		goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "kubectl-cpulint: cannot write %s: %s\n", o->shown,
		strerror(errno));
	cpl_cli_output_abort(o);
	return -1;
}

int
cpl_cli_output_close(struct cli_output *o, bool failed)
{
	int err = failed ? (errno ? errno : EIO) : 0;

	if (o->fp == stdout) {
		if (!err && (fflush(stdout) != 0 || ferror(stdout)))
			err = errno ? errno : EIO;
		if (err)
			fprintf(stderr, "kubectl-cpulint: cannot write the "
				"report: %s\n", strerror(err));
		memset(o, 0, sizeof(*o));
		return err ? -1 : 0;
	}
	if (!err && (fflush(o->fp) != 0 || ferror(o->fp)))
		err = errno ? errno : EIO;
	if (!err && o->tmp && fsync(fileno(o->fp)) < 0 && errno != EINVAL)
		err = errno;
	if (fclose(o->fp) != 0 && !err)
		err = errno ? errno : EIO;
	o->fp = NULL;
	if (!err && o->tmp && rename(o->tmp, o->path) < 0)
		err = errno;
	if (!err) {
		free(o->tmp);
		o->tmp = NULL;
		cpl_cli_output_abort(o);
		return 0;
	}
	fprintf(stderr, "kubectl-cpulint: cannot write the report to %s: "
		"%s%s\n", o->shown, strerror(err),
		o->tmp ? " (the file was left as it was)" : "");
	cpl_cli_output_abort(o);
	return -1;
}

void
cpl_cli_output_abort(struct cli_output *o)
{
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}
