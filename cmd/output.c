/*
 * output.c — where the report goes: standard output, or --output-file.
 *
 * Invariant: a report file is complete or absent.  It is replaced the
 * way atomic.h replaces files (a temporary file in the same directory,
 * renamed only once complete; a FILE that is not a regular file is
 * written in place; a symbolic link is followed).  The new file gets the
 * mode a newly created file would (0666 less the umask).  This file only
 * adds the messages.  Also here: where -o markdown links to (the
 * commit's files on GitHub), read from the environment and checked so
 * that no value there shapes the report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "report/report.h"
#include "text/atomic.h"
#include "util.h"

int
cpl_cli_output_guard(const char *flag, const char *output,
		     const char *const *paths, size_t n)
{
	struct stat out, in;
	size_t i;
	int rc;

	if (output == NULL || stat(output, &out) < 0 || !S_ISREG(out.st_mode))
		return 0;
	for (i = 0; i < n; i++) {
		bool std;

		if (paths[i] == NULL)
			continue;
		std = strcmp(paths[i], CLI_STDIN) == 0;
		rc = std ? fstat(STDIN_FILENO, &in) : stat(paths[i], &in);
		if (rc < 0 || !S_ISREG(in.st_mode) ||
		    in.st_dev != out.st_dev || in.st_ino != out.st_ino)
			continue;
		cpl_cli_say("kubectl-cpulint: --%s %s is %s, an input of this "
			    "run: the %s would replace it (write the %s "
			    "elsewhere)", flag, output,
			    std ? "the file standard input reads" : paths[i],
			    strcmp(flag, "output-file") == 0 ? "report" :
			    "baseline", strcmp(flag, "output-file") == 0 ?
			    "report" : "baseline");
		return -1;
	}
	return 0;
}

int
cpl_cli_output_open(struct cli_output *o, const char *path, FILE *std)
{
	struct cpl_error err = { 0 };

	memset(o, 0, sizeof(*o));
	if (path == NULL) {
		o->fp = std;
		return 0;
	}
	o->shown = path;
	if (cpl_atomic_open(&o->file, path, CPL_ATOMIC_NEW_MODE, &err) < 0) {
		cpl_cli_say("kubectl-cpulint: cannot write %s: %s", o->shown,
			    err.message);
		cpl_error_clear(&err);
		memset(o, 0, sizeof(*o));
		return -1;
	}
	o->fp = o->file.fp;
	return 0;
}

int
cpl_cli_output_close(struct cli_output *o, bool failed)
{
	struct cpl_error err = { 0 };
	bool replacing = o->file.tmp != NULL;
	int e = failed ? (errno ? errno : EIO) : 0;

	if (o->file.fp == NULL) {
		if (!e && (fflush(o->fp) != 0 || ferror(o->fp)))
			e = errno ? errno : EIO;
		if (e)
			cpl_cli_say("kubectl-cpulint: cannot write the "
				    "report: %s", strerror(e));
		memset(o, 0, sizeof(*o));
		return e ? -1 : 0;
	}
	if (cpl_atomic_commit(&o->file, failed, &err) == 0) {
		memset(o, 0, sizeof(*o));
		return 0;
	}
	cpl_cli_say("kubectl-cpulint: cannot write the report to %s: %s%s",
		    o->shown, err.message,
		    replacing ? " (the file was left as it was)" : "");
	cpl_error_clear(&err);
	memset(o, 0, sizeof(*o));
	return -1;
}

void
cpl_cli_output_abort(struct cli_output *o)
{
	cpl_atomic_abort(&o->file);
	memset(o, 0, sizeof(*o));
}

/* Whether s[0, n) is only characters of set (and n > 0). */
static bool
only_of(const char *s, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\0' || strchr(set, s[i]) == NULL)
			return false;
	return n > 0;
}

char *
cpl_cli_link_base(void)
{
	static const char host[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:";
	static const char name[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	const char *server = getenv("GITHUB_SERVER_URL");
	const char *repo = getenv("GITHUB_REPOSITORY");
	const char *sha = getenv("GITHUB_SHA");
	const char *h, *slash;
	size_t n;

	if (server == NULL || repo == NULL || sha == NULL)
		return NULL;
	h = strncmp(server, "https://", 8) == 0 ? server + 8 :
	    strncmp(server, "http://", 7) == 0 ? server + 7 : NULL;
	n = h ? strlen(h) : 0;
	if (n > 0 && h[n - 1] == '/')
		n--;
	if (h == NULL || !only_of(h, n, host) || n > 253)
		return NULL;
	slash = strchr(repo, '/');
	if (slash == NULL || !only_of(repo, (size_t)(slash - repo), name) ||
	    !only_of(slash + 1, strlen(slash + 1), name) ||
	    strlen(repo) > 200 || strcmp(slash + 1, ".") == 0 ||
	    strcmp(slash + 1, "..") == 0 || strncmp(repo, "..", 2) == 0)
		return NULL;
	n = strlen(sha);
	if ((n != 40 && n != 64) || !only_of(sha, n, "0123456789abcdef"))
		return NULL;
	return cpl_xasprintf("%.*s%.*s/%s/blob/%s/",
			     (int)(h - server), server,
			     (int)(strlen(h) - (h[strlen(h) - 1] == '/')), h,
			     repo, sha);
}

/* Whether s is a GUID in canonical 8-4-4-4-12 form, not all zeros. */
static bool
is_guid(const char *s)
{
	static const char hexd[] = "0123456789abcdefABCDEF";
	size_t i;
	bool zero = true;

	if (s == NULL || strlen(s) != 36)
		return false;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (s[i] == '\0' || strchr(hexd, s[i]) == NULL) {
			return false;
		} else if (s[i] != '0') {
			zero = false;
		}
	}
	return !zero;
}

/* Whether s is a positive decimal integer that fits an int. */
static bool
is_positive(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n > 0 && n <= 9 && s[0] != '0' &&
	       only_of(s, n, "0123456789");
}

/* The first of two variables that is set and not blank, or NULL. */
static const char *
env2(const char *a, const char *b)
{
	const char *v = getenv(a);

	if ((v == NULL || *v == '\0') && b)
		v = getenv(b);
	return v && *v && strlen(v) <= 256 ? v : NULL;
}

bool
cpl_cli_ado(struct cpl_report_ado *a, char *org, size_t n)
{
	static const char name[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	const char *tf = getenv("TF_BUILD"), *uri, *h, *e;

	memset(a, 0, sizeof(*a));
	if (tf == NULL || (strcasecmp(tf, "true") != 0 && strcmp(tf, "1") != 0))
		return false;
	/* https://dev.azure.com/ORG/ or https://ORG.visualstudio.com/ */
	uri = env2("SYSTEM_COLLECTIONURI", NULL);
	if (uri == NULL || strncmp(uri, "https://", 8) != 0)
		return false;
	h = uri + 8;
	if (strncmp(h, "dev.azure.com/", 14) == 0) {
		h += 14;
		e = strchr(h, '/');
		e = e ? e : h + strlen(h);
	} else if ((e = strstr(h, ".visualstudio.com")) == NULL) {
		return false;
	}
	if (e == h || (size_t)(e - h) >= n || !only_of(h, (size_t)(e - h), name))
		return false;
	memcpy(org, h, (size_t)(e - h));
	org[e - h] = '\0';
	a->org = org;
	a->project_id = env2("SYSTEM_TEAMPROJECTID", NULL);
	a->definition_id = env2("BUILD_DEFINITIONID", "SYSTEM_DEFINITIONID");
	a->definition_name = env2("BUILD_DEFINITIONNAME", NULL);
	a->phase_id = env2("SYSTEM_PHASEID", "SYSTEM_JOBID");
	a->phase_name = env2("SYSTEM_PHASENAME", "SYSTEM_JOBNAME");
	a->branch = env2("BUILD_SOURCEBRANCH", NULL);
	a->build_id = env2("BUILD_BUILDID", NULL);
	return is_guid(a->project_id) && is_positive(a->definition_id) &&
	       a->definition_name && is_guid(a->phase_id) && a->phase_name &&
	       a->branch && is_positive(a->build_id);
}
