/*
 * gitlab.c — GitLab Code Quality (a Code Climate subset): one JSON array,
 * one object per finding, for the merge request widget and diff:
 *
 *   [{"description": "MESSAGE; fix: FIX", "check_name": "CPU202",
 *     "fingerprint": "…", "severity": "major",
 *     "location": {"path": "deploy/job.yaml", "lines": {"begin": 23}}}]
 *
 * The fields are those GitLab documents as required; the description,
 * all the merge request widget shows, carries the fix after the message.  severity: error →
 * major, warning → minor, note → info (GitLab's scale is info, minor,
 * major, critical, blocker; nothing this tool finds stops a build the
 * way "blocker" means).  path is relative to the repository root
 * (meta->srcroot), as GitLab matches it against the diff; standard
 * input is "stdin", a live finding its OBJECT[container], at line 1.
 * fingerprint is the finding's own (fingerprint.h), unique in the
 * report: it names the rule, the path and the place, and k tells two
 * findings at one place apart.  Suppressed findings are left out (Code
 * Quality has no way to show them).
 *
 * Streamed through jsonw.h (JSON's escapes: the one escaper's promises);
 * the state is freed by end; out and meta are borrowed.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/fingerprint.h"
#include "report/jsonw.h"
#include "report/wbuf.h"

/* The reporter's state between begin and end. */
struct gitlab {
	struct cpl_wbuf w;
	struct cpl_jsonw j;
	const struct cpl_report_meta *meta;	/* borrowed */
	struct cpl_report_prints *prints;	/* when a finding has none */
	char *cwd;				/* NULL: unknown */
};

/* GitLab's severity for ours. */
static const char *
severity(enum cpl_severity s)
{
	switch (s) {
	case CPL_SEV_ERROR:
		return "major";
	case CPL_SEV_WARNING:
		return "minor";
	case CPL_SEV_NOTE:
	case CPL_SEV_OFF:
		break;
	}
	return "info";
}

static void *
gitlab_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct gitlab *g = cpl_xcalloc(1, sizeof(*g));

	cpl_wbuf_init(&g->w, out);
	cpl_jsonw_init(&g->j, &g->w, 0);
	g->meta = meta;
	g->prints = cpl_report_prints_new(meta);
	g->cwd = getcwd(NULL, 0);
	cpl_jsonw_array(&g->j);
	return g;
}

/* The path GitLab shows for f (caller frees). */
static char *
path_of(const struct gitlab *g, const struct cpl_finding *f)
{
	char *rel;

	if (f->file == NULL)
		return f->container ? cpl_xasprintf("%s[%s]", f->object ?
						    f->object : "", f->container) :
		       cpl_xstrdup(f->object ? f->object : "");
	if (strcmp(f->file, CPL_REPORT_STDIN) == 0)
		return cpl_xstrdup("stdin");
	rel = g->meta && g->meta->srcroot ?
	      cpl_report_relpath(g->cwd, g->meta->srcroot, f->file) : NULL;
	return rel ? rel : cpl_xstrdup(f->file);
}

static void
gitlab_emit(void *state, const struct cpl_finding *f)
{
	struct gitlab *g = state;
	struct cpl_jsonw *j = &g->j;
	char *made = NULL, *path, *desc;

	if (f->severity == CPL_SEV_OFF)
		return;
	if (f->fingerprint == NULL)	/* in order, shown or not */
		made = cpl_report_prints_finding(g->prints, f);
	if (f->suppressed) {
		free(made);
		return;
	}
	path = path_of(g, f);
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "description");
	if (f->fix && f->fix[0]) {
		desc = cpl_xasprintf("%s; fix: %s", f->message ?
				     f->message : "", f->fix);
		cpl_jsonw_str(j, desc);
		free(desc);
	} else {
		cpl_jsonw_str(j, f->message ? f->message : "");
	}
	cpl_jsonw_key(j, "check_name");
	cpl_jsonw_str(j, f->rule ? f->rule->id : "kubectl-cpulint");
	cpl_jsonw_key(j, "fingerprint");
	cpl_jsonw_str(j, made ? made : f->fingerprint);
	cpl_jsonw_key(j, "severity");
	cpl_jsonw_str(j, severity(f->severity));
	cpl_jsonw_key(j, "location");
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "path");
	cpl_jsonw_str(j, path);
	cpl_jsonw_key(j, "lines");
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "begin");
	cpl_jsonw_int(j, f->file && f->line > 0 ? f->line : 1);
	cpl_jsonw_close(j);
	cpl_jsonw_close(j);
	cpl_jsonw_close(j);
	free(path);
	free(made);
}

static int
gitlab_end(void *state)
{
	struct gitlab *g = state;
	int rc;

	cpl_jsonw_close(&g->j);
	cpl_wbuf_addc(&g->w, '\n');
	rc = cpl_wbuf_finish(&g->w) < 0 ? -1 : 0;
	cpl_report_prints_free(g->prints);
	free(g->cwd);
	free(g);
	return rc;
}

const struct cpl_reporter cpl_report_gitlab = {
	.name = "gitlab",
	.begin = gitlab_begin,
	.emit = gitlab_emit,
	.end = gitlab_end,
};
