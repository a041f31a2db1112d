/*
 * sarif.c — SARIF 2.1.0 for code scanning (GitHub, IDEs).
 *
 * One log, one run: tool.driver with every rule of the registry (results
 * point at them by ruleId and ruleIndex; a rule outside the registry gets
 * a ruleId only), one invocation carrying the input errors as
 * notifications (and, as notes, the documents holding containers that
 * were not judged), %SRCROOT% in originalUriBaseIds, and one result per
 * finding, suppressed ones included with a suppression: kind inSource
 * for a comment or an annotation, external for the configuration, the
 * reason as its justification.
 *
 * File locations are URIs relative to %SRCROOT% (meta->srcroot), or
 * absolute file:// URIs when a file lies outside it; both are percent-
 * encoded (RFC 3986: everything but unreserved characters and "/").
 * Paths are resolved lexically against the working directory at begin,
 * never through the file system, so the output depends only on the
 * arguments.  Live findings use logicalLocations.  Standard input
 * (CPL_REPORT_STDIN) is the relative URI "stdin" with no uriBaseId and a
 * description: it is no file of the source root, and a physical location
 * keeps the line and column (and code scanning needs one).
 *
 * At most CPL_REPORT_SARIF_MAX_RESULTS results are written (GitHub code
 * scanning rejects more): past it the most severe are kept (unsuppressed
 * before suppressed, then in the order they came: file, line, column),
 * and a warning notification in the invocation says how many were left
 * out; meta->dropped gets that number.
 *
 * partialFingerprints.primaryLocationLineHash is the value GitHub's
 * upload action would compute, and "cpulint/v1" the finding's own
 * fingerprint, distinct for two results on one line (fingerprint.h).
 * The run has automationDetails.id (meta->category, default
 * "kubectl-cpulint/": a category; in Azure Pipelines, meta->ado, the
 * build's id and properties) and the driver a fullName.
 *
 * Invariant: the log is streamed (jsonw.h), never built as a tree: each
 * result is serialised when its finding is emitted and kept as text only
 * while it can still be among the results written (so at most
 * CPL_REPORT_SARIF_MAX_RESULTS are held; a result sure to be left out is
 * never serialised); the rest of the log is written at end, around them,
 * byte for byte as jansson would print the same log (JSON_INDENT(2) |
 * JSON_PRESERVE_ORDER, then a newline).  Results must wait for end
 * because the invocation, which comes first, says how many were left
 * out.  The state owns the kept results and the line-hash cache; out and
 * meta are borrowed until end.
 */
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/fingerprint.h"
#include "report/jsonw.h"
#include "report/render_int.h"
#include "report/wbuf.h"

#define SARIF_SCHEMA	"https://json.schemastore.org/sarif-2.1.0.json"
#define TOOL_NAME	"kubectl-cpulint"
#define TOOL_URI	CPL_REPORT_TOOL_URI
#define HELP_URI	CPL_REPORT_HELP_URI
#define SRCROOT		"%SRCROOT%"
/* partialFingerprints key of the finding's own fingerprint. */
#define FINGERPRINT_KEY	"cpulint/v1"



/* Past the last rank a result can have (suppressed 0, else 1 + severity). */
#define NRANKS		(CPL_SEV_ERROR + 2)
/* Where a result's object stands in the log: runs[0].results[i]. */
#define RESULT_DEPTH	4

/* A result serialised while it may still be kept. */
struct kept {
	size_t index;			/* order of emission */
	char *text;			/* at RESULT_DEPTH; owned */
	size_t len;
};

/* The kept results of one rank, in the order they came. */
struct keptlist {
	struct kept *v;
	size_t n;
	size_t cap;
};

/* The reporter's state between begin and end. */
struct sarif {
	FILE *out;
	const struct cpl_report_meta *meta;
	char *cwd;		/* absolute, normalised; NULL: unknown */
	char *root;		/* srcroot, absolute and normalised */
	const struct cpl_rule *const *rules;	/* the registry */
	size_t nrules;
	struct cpl_wbuf scratch;	/* in memory: the result at hand */
	struct keptlist kept[NRANKS];	/* by rank: higher ranks are kept
					 * first when there are too many */
	size_t nkept;
	size_t nresults;		/* results emitted, kept or not */
	struct cpl_report_prints *prints;	/* line hashes, fingerprints */
};

/* Appends s percent-encoded: all but unreserved characters and '/'. */
static void
add_uri_path(struct cpl_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~' || c == '/') {
			cpl_buf_addc(b, (char)c);
		} else {
			cpl_buf_addc(b, '%');
			cpl_buf_addc(b, hex[c >> 4]);
			cpl_buf_addc(b, hex[c & 15]);
		}
	}
}

/* "file:///abs/path" (with a trailing slash when dir) for an absolute path. */
static char *
file_uri(const char *abs, bool dir)
{
	struct cpl_buf b;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "file://");
	add_uri_path(&b, abs);
	if (dir && !cpl_str_ends(abs, "/"))
		cpl_buf_addc(&b, '/');
	return cpl_buf_detach(&b);
}


/* {"text": s} as the next value. */
static void
message(struct cpl_jsonw *j, const char *text)
{
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "text");
	cpl_jsonw_str(j, text ? text : "");
	cpl_jsonw_close(j);
}

/*
 * {"uri", "uriBaseId"} of a file, relative to %SRCROOT% when inside it;
 * standard input is {"uri": "stdin", "description"}.
 */
static void
artifact_location(struct cpl_jsonw *j, const struct sarif *s,
		  const char *file)
{
	char *abs;
	size_t n = strlen(s->root);
	const char *rel = NULL;
	struct cpl_buf b;

	cpl_jsonw_object(j);
	if (strcmp(file, CPL_REPORT_STDIN) == 0) {
		cpl_jsonw_key(j, "uri");
		cpl_jsonw_str(j, "stdin");
		cpl_jsonw_key(j, "description");
		message(j, "the standard input stream");
		cpl_jsonw_close(j);
		return;
	}
	abs = cpl_report_path_absolute(s->cwd ? s->cwd : s->root, file);
	if (strcmp(s->root, "/") == 0 && abs[1] != '\0')
		rel = abs + 1;
	else if (strncmp(abs, s->root, n) == 0 && abs[n] == '/' &&
		 abs[n + 1] != '\0')
		rel = abs + n + 1;
	cpl_buf_init(&b, 0);
	if (rel) {
		add_uri_path(&b, rel);
		cpl_jsonw_key(j, "uri");
		cpl_jsonw_str(j, cpl_buf_str(&b));
		cpl_jsonw_key(j, "uriBaseId");
		cpl_jsonw_str(j, SRCROOT);
	} else {
		char *uri = file_uri(abs, false);

		cpl_jsonw_key(j, "uri");
		cpl_jsonw_str(j, uri);
		free(uri);
	}
	cpl_buf_free(&b);
	free(abs);
	cpl_jsonw_close(j);
}

/* {"artifactLocation", "region"} for a position; line 0: no region. */
static void
physical_location(struct cpl_jsonw *j, const struct sarif *s,
		  const char *file, int line, int column)
{
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "artifactLocation");
	artifact_location(j, s, file);
	if (line > 0) {
		cpl_jsonw_key(j, "region");
		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "startLine");
		cpl_jsonw_int(j, line);
		if (column > 0) {
			cpl_jsonw_key(j, "startColumn");
			cpl_jsonw_int(j, column);
		}
		cpl_jsonw_close(j);
	}
	cpl_jsonw_close(j);
}

/* SARIF level of a severity. */
static const char *
sarif_level(enum cpl_severity s)
{
	return s == CPL_SEV_OFF ? "none" : cpl_severity_name(s);
}

/* GitHub's problem.severity of a severity. */
static const char *
problem_severity(enum cpl_severity s)
{
	switch (s) {
	case CPL_SEV_ERROR:
		return "error";
	case CPL_SEV_WARNING:
		return "warning";
	case CPL_SEV_NOTE:
	case CPL_SEV_OFF:
		break;
	}
	return "recommendation";
}

/* True when v looks like a semantic version: N.N.N[-pre][+build]. */
static bool
is_semver(const char *v)
{
	int part;

	for (part = 0; part < 3; part++) {
		if (*v < '0' || *v > '9')
			return false;
		while (*v >= '0' && *v <= '9')
			v++;
		if (part < 2 && *v++ != '.')
			return false;
	}
	return *v == '\0' || *v == '-' || *v == '+';
}

/*
 * The first paragraph of a rule's markdown that is neither a heading nor
 * the same text as skip (the docs repeat the summary under the title),
 * joined into one line; NULL when there is none.  Caller frees.
 */
static char *
doc_paragraph(const char *doc, const char *skip)
{
	struct cpl_buf b;
	const char *p = doc, *eol;
	bool end;

	cpl_buf_init(&b, 0);
	for (;;) {
		eol = strchr(p, '\n');
		if (eol == NULL)
			eol = p + strlen(p);
		end = p == eol || *p == '#';
		if (end && b.len > 0) {
			if (!cpl_str_eq(cpl_buf_str(&b), skip))
				break;
			cpl_buf_reset(&b);
		}
		if (!end) {
			if (b.len)
				cpl_buf_addc(&b, ' ');
			cpl_buf_add(&b, p, (size_t)(eol - p));
		}
		if (*eol == '\0')
			break;
		p = eol + 1;
	}
	if (b.len == 0 || cpl_str_eq(cpl_buf_str(&b), skip)) {
		cpl_buf_free(&b);
		return NULL;
	}
	return cpl_buf_detach(&b);
}


/* The reportingDescriptor of a rule. */
static void
rule_json(struct cpl_jsonw *j, const struct cpl_rule *r)
{
	const char *doc = cpl_rule_doc(r);
	char *full = doc ? doc_paragraph(doc, r->summary) : NULL;
	char *uri;

	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "id");
	cpl_jsonw_str(j, r->id);
	cpl_jsonw_key(j, "name");
	cpl_jsonw_str(j, r->name);
	cpl_jsonw_key(j, "shortDescription");
	message(j, r->summary);
	cpl_jsonw_key(j, "fullDescription");
	message(j, full ? full : r->summary);
	free(full);
	if (doc) {
		cpl_jsonw_key(j, "help");
		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "text");
		cpl_jsonw_str(j, doc);
		cpl_jsonw_key(j, "markdown");
		cpl_jsonw_str(j, doc);
		cpl_jsonw_close(j);
	}
	uri = cpl_xasprintf(HELP_URI "%s.md", r->id);
	cpl_jsonw_key(j, "helpUri");
	cpl_jsonw_str(j, uri);
	free(uri);
	cpl_jsonw_key(j, "defaultConfiguration");
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "level");
	cpl_jsonw_str(j, sarif_level(r->severity));
	cpl_jsonw_close(j);
	cpl_jsonw_key(j, "properties");
	cpl_jsonw_object(j);
	if (r->precision) {
		cpl_jsonw_key(j, "precision");
		cpl_jsonw_str(j, r->precision);
	}
	cpl_jsonw_key(j, "problem.severity");
	cpl_jsonw_str(j, problem_severity(r->severity));
	cpl_jsonw_key(j, "tags");
	cpl_jsonw_array(j);
	cpl_jsonw_str(j, "cpu");
	cpl_jsonw_str(j, "performance");
	cpl_jsonw_close(j);
	cpl_jsonw_close(j);
	cpl_jsonw_close(j);
}

/* The tool component: name, versions and the rule table. */
static void
driver_json(struct cpl_jsonw *j, const struct sarif *s)
{
	const char *version = s->meta && s->meta->version ?
		s->meta->version : "unknown";
	char *full;
	size_t i;

	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "name");
	cpl_jsonw_str(j, TOOL_NAME);
	full = cpl_xasprintf("%s %s", TOOL_NAME, version);
	cpl_jsonw_key(j, "fullName");	/* Azure DevOps asks for it */
	cpl_jsonw_str(j, full);
	free(full);
	cpl_jsonw_key(j, "version");
	cpl_jsonw_str(j, version);
	cpl_jsonw_key(j, "informationUri");
	cpl_jsonw_str(j, TOOL_URI);
	if (is_semver(version)) {
		cpl_jsonw_key(j, "semanticVersion");
		cpl_jsonw_str(j, version);
	}
	cpl_jsonw_key(j, "rules");
	cpl_jsonw_array(j);
	for (i = 0; i < s->nrules; i++)
		rule_json(j, s->rules[i]);
	cpl_jsonw_close(j);
	cpl_jsonw_close(j);
}

/*
 * The invocation: success, command line, one notification per error, one
 * saying how many results were left out (dropped > 0), and a note per
 * document holding containers that was not judged.
 */
static void
invocation_json(struct cpl_jsonw *j, const struct sarif *s, size_t dropped)
{
	const struct cpl_report_meta *meta = s->meta;
	size_t nerrors = meta ? meta->nerrors : 0, i;
	size_t nskipped = meta ? meta->nskipped : 0;

	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "executionSuccessful");
	cpl_jsonw_bool(j, nerrors == 0);
	if (meta && meta->command_line) {
		cpl_jsonw_key(j, "commandLine");
		cpl_jsonw_str(j, meta->command_line);
	}
	if (nerrors > 0 || dropped > 0 || nskipped > 0) {
		cpl_jsonw_key(j, "toolExecutionNotifications");
		cpl_jsonw_array(j);
		if (dropped > 0) {
			char *text = cpl_xasprintf(
				"%zu results were left out: code scanning "
				"takes at most %d results per run, so the "
				"most severe were kept", dropped,
				CPL_REPORT_SARIF_MAX_RESULTS);

			cpl_jsonw_object(j);
			cpl_jsonw_key(j, "level");
			cpl_jsonw_str(j, "warning");
			cpl_jsonw_key(j, "message");
			message(j, text);
			cpl_jsonw_close(j);
			free(text);
		}
		for (i = 0; i < nerrors; i++) {
			const struct cpl_error *e = &meta->errors[i];

			cpl_jsonw_object(j);
			cpl_jsonw_key(j, "level");
			cpl_jsonw_str(j, "error");
			cpl_jsonw_key(j, "message");
			message(j, e->message ? e->message : "unknown error");
			if (e->path) {
				cpl_jsonw_key(j, "locations");
				cpl_jsonw_array(j);
				cpl_jsonw_object(j);
				cpl_jsonw_key(j, "physicalLocation");
				physical_location(j, s, e->path, e->line,
						  e->column);
				cpl_jsonw_close(j);
				cpl_jsonw_close(j);
			}
			cpl_jsonw_close(j);
		}
		for (i = 0; i < nskipped; i++) {
			const struct cpl_report_skip *k = &meta->skipped[i];
			char *text = cpl_xasprintf("%s not judged: it holds "
				"containers, but %s", k->what ? k->what :
				"a document", k->reason ? k->reason :
				"cpulint could not read them");

			cpl_jsonw_object(j);
			cpl_jsonw_key(j, "level");
			cpl_jsonw_str(j, "note");
			cpl_jsonw_key(j, "message");
			message(j, text);
			free(text);
			if (k->file) {
				cpl_jsonw_key(j, "locations");
				cpl_jsonw_array(j);
				cpl_jsonw_object(j);
				cpl_jsonw_key(j, "physicalLocation");
				physical_location(j, s, k->file, k->line,
						  k->column);
				cpl_jsonw_close(j);
				cpl_jsonw_close(j);
			}
			cpl_jsonw_close(j);
		}
		cpl_jsonw_close(j);
	}
	cpl_jsonw_close(j);
}

/* The primary location of a finding: physical, or logical when live. */
static void
primary_location(struct cpl_jsonw *j, const struct sarif *s,
		 const struct cpl_finding *f)
{
	cpl_jsonw_object(j);
	if (f->file) {
		cpl_jsonw_key(j, "physicalLocation");
		physical_location(j, s, f->file, f->line, f->column);
	} else {
		char *fqn = f->container ?
			cpl_xasprintf("%s/%s", f->object, f->container) :
			cpl_xstrdup(f->object);
		const char *name = strrchr(fqn, '/');

		cpl_jsonw_key(j, "logicalLocations");
		cpl_jsonw_array(j);
		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "fullyQualifiedName");
		cpl_jsonw_str(j, fqn);
		cpl_jsonw_key(j, "name");
		cpl_jsonw_str(j, name ? name + 1 : fqn);
		cpl_jsonw_key(j, "kind");
		cpl_jsonw_str(j, "object");
		cpl_jsonw_close(j);
		cpl_jsonw_close(j);
		free(fqn);
	}
	cpl_jsonw_close(j);
}

/* relatedLocations: ids from 1, a physical location when there is a file. */
static void
related_locations(struct cpl_jsonw *j, const struct sarif *s,
		  const struct cpl_finding *f)
{
	size_t i;

	cpl_jsonw_array(j);
	for (i = 0; i < f->nrelated; i++) {
		const struct cpl_related *r = &f->related[i];

		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "id");
		cpl_jsonw_int(j, (long long)i + 1);
		if (r->file) {
			cpl_jsonw_key(j, "physicalLocation");
			physical_location(j, s, r->file, r->line, r->column);
		}
		cpl_jsonw_key(j, "message");
		message(j, r->message);
		cpl_jsonw_close(j);
	}
	cpl_jsonw_close(j);
}

/* One replacement: the deleted region and the text put in its place. */
static void
replacement_json(struct cpl_jsonw *j, const struct cpl_edit *e)
{
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "deletedRegion");
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "startLine");
	cpl_jsonw_int(j, e->line);
	cpl_jsonw_key(j, "startColumn");
	cpl_jsonw_int(j, e->column);
	cpl_jsonw_key(j, "endLine");
	cpl_jsonw_int(j, e->end_line);
	cpl_jsonw_key(j, "endColumn");
	cpl_jsonw_int(j, e->end_column);
	cpl_jsonw_close(j);
	if (e->text && *e->text) {
		cpl_jsonw_key(j, "insertedContent");
		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "text");
		cpl_jsonw_str(j, e->text);
		cpl_jsonw_close(j);
	}
	cpl_jsonw_close(j);
}

/* The file an edit changes: its own, else the finding's. */
static const char *
edit_file(const struct cpl_finding *f, const struct cpl_edit *e)
{
	return e->file ? e->file : f->file;
}

/* True when an edit has a file and a valid, non-inverted range. */
static bool
edit_usable(const struct cpl_finding *f, const struct cpl_edit *e)
{
	return edit_file(f, e) && e->line > 0 && e->column > 0 &&
	       (e->end_line > e->line ||
		(e->end_line == e->line && e->end_column >= e->column));
}

/*
 * "fixes": one fix whose artifactChanges group the edits by file; nothing
 * when no edit is usable.
 */
static void
fixes_json(struct cpl_jsonw *j, const struct sarif *s,
	   const struct cpl_finding *f)
{
	size_t i, k;
	bool any = false;

	for (i = 0; i < f->nedits && !any; i++)
		any = edit_usable(f, &f->edits[i]);
	if (!any)
		return;
	cpl_jsonw_key(j, "fixes");
	cpl_jsonw_array(j);
	cpl_jsonw_object(j);
	if (f->fix) {
		cpl_jsonw_key(j, "description");
		message(j, f->fix);
	}
	cpl_jsonw_key(j, "artifactChanges");
	cpl_jsonw_array(j);
	for (i = 0; i < f->nedits; i++) {
		const char *file = edit_file(f, &f->edits[i]);
		bool seen = false;

		if (!edit_usable(f, &f->edits[i]))
			continue;
		for (k = 0; k < i && !seen; k++)
			seen = edit_usable(f, &f->edits[k]) &&
			       strcmp(edit_file(f, &f->edits[k]), file) == 0;
		if (seen)
			continue;
		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "artifactLocation");
		artifact_location(j, s, file);
		cpl_jsonw_key(j, "replacements");
		cpl_jsonw_array(j);
		for (k = i; k < f->nedits; k++) {
			const struct cpl_edit *e = &f->edits[k];

			if (edit_usable(f, e) &&
			    strcmp(edit_file(f, e), file) == 0)
				replacement_json(j, e);
		}
		cpl_jsonw_close(j);
		cpl_jsonw_close(j);
	}
	cpl_jsonw_close(j);
	cpl_jsonw_key(j, "properties");
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "applicability");
	cpl_jsonw_str(j, cpl_fix_safety_name(f->fix_safety));
	cpl_jsonw_close(j);
	cpl_jsonw_close(j);
	cpl_jsonw_close(j);
}

/* The index of the registry rule with f's rule id, or -1. */
static long long
rule_index(const struct sarif *s, const struct cpl_finding *f)
{
	size_t i;

	for (i = 0; f->rule && i < s->nrules; i++)
		if (s->rules[i] == f->rule ||
		    strcmp(s->rules[i]->id, f->rule->id) == 0)
			return (long long)i;
	return -1;
}

/* Writes the result object of a finding. */
static void
result_json(struct cpl_jsonw *j, struct sarif *s, const struct cpl_finding *f,
	    const char *own)
{
	long long index = rule_index(s, f);
	struct cpl_buf text;
	char *print = NULL;

	cpl_jsonw_object(j);
	if (f->rule) {
		cpl_jsonw_key(j, "ruleId");
		cpl_jsonw_str(j, f->rule->id);
	}
	if (index >= 0) {
		cpl_jsonw_key(j, "ruleIndex");
		cpl_jsonw_int(j, index);
	}
	cpl_jsonw_key(j, "level");
	cpl_jsonw_str(j, sarif_level(f->severity));
	cpl_buf_init(&text, 0);
	cpl_buf_adds(&text, f->message ? f->message : "");
	if (f->fix) {
		cpl_buf_adds(&text, "\n\nFix: ");
		cpl_buf_adds(&text, f->fix);
	}
	cpl_jsonw_key(j, "message");
	message(j, cpl_buf_str(&text));
	cpl_buf_free(&text);
	if (f->file || f->object) {
		cpl_jsonw_key(j, "locations");
		cpl_jsonw_array(j);
		primary_location(j, s, f);
		cpl_jsonw_close(j);
	}
	if (f->nrelated > 0) {
		cpl_jsonw_key(j, "relatedLocations");
		related_locations(j, s, f);
	}
	fixes_json(j, s, f);
	if (f->file)
		print = cpl_report_prints_line(s->prints, f->file, f->line);
	cpl_jsonw_key(j, "partialFingerprints");
	cpl_jsonw_object(j);
	if (print) {
		cpl_jsonw_key(j, "primaryLocationLineHash");
		cpl_jsonw_str(j, print);
		free(print);
	}
	/* The finding's own: distinct for two results on one line. */
	cpl_jsonw_key(j, FINGERPRINT_KEY);
	cpl_jsonw_str(j, own);
	cpl_jsonw_close(j);
	if (f->suppressed) {
		cpl_jsonw_key(j, "suppressions");
		cpl_jsonw_array(j);
		cpl_jsonw_object(j);
		/* In the analysed file (a comment, an annotation), or
		 * in the configuration, outside it. */
		cpl_jsonw_key(j, "kind");
		cpl_jsonw_str(j, f->suppressed_external ? "external" :
			      "inSource");
		if (f->suppression) {
			cpl_jsonw_key(j, "justification");
			cpl_jsonw_str(j, f->suppression);
		}
		cpl_jsonw_close(j);
		cpl_jsonw_close(j);
	}
	if (f->pods > 1) {	/* one finding for the Pods of one owner */
		cpl_jsonw_key(j, "properties");
		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "pods");
		cpl_jsonw_int(j, (long long)f->pods);
		cpl_jsonw_close(j);
	}
	cpl_jsonw_close(j);
}

/* Resolves the working directory and srcroot; nothing is written yet. */
static void *
sarif_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct sarif *s = cpl_xcalloc(1, sizeof(*s));
	char *cwd = getcwd(NULL, 0);

	s->out = out;
	s->meta = meta;
	if (cwd) {
		s->cwd = cpl_report_path_absolute(NULL, cwd);
		free(cwd);
	}
	if (meta && meta->srcroot)
		s->root = cpl_report_path_absolute(s->cwd, meta->srcroot);
	else
		s->root = cpl_xstrdup(s->cwd ? s->cwd : "/");
	s->rules = cpl_rules_all(&s->nrules);
	s->prints = cpl_report_prints_new(meta);
	cpl_wbuf_init(&s->scratch, NULL);
	return s;
}

/*
 * Serialises the result for a finding (suppressed ones included) and
 * keeps it, unless CPL_REPORT_SARIF_MAX_RESULTS results that rank as high
 * or higher came before it: then it is left out unwritten.  When the
 * results are full, the one that ranks lowest (and came last) makes room.
 */
static void
sarif_emit(void *state, const struct cpl_finding *f)
{
	struct sarif *s = state;
	struct cpl_jsonw j;
	struct keptlist *kl;
	struct kept *k;
	unsigned rank, low;
	char *made = NULL;

	if (f->severity == CPL_SEV_OFF)
		return;
	/* Every result is fingerprinted in order, kept or not (k counts
	 * the results before it at its place). */
	if (f->fingerprint == NULL)
		made = cpl_report_prints_finding(s->prints, f);
	rank = f->suppressed ? 0 : 1 + (unsigned)f->severity;
	s->nresults++;
	if (s->nkept == CPL_REPORT_SARIF_MAX_RESULTS) {
		for (low = 0; s->kept[low].n == 0; low++)
			;
		if (rank <= low) {
			free(made);
			return;
		}
		kl = &s->kept[low];
		free(kl->v[--kl->n].text);
		s->nkept--;
	}
	cpl_jsonw_init(&j, &s->scratch, RESULT_DEPTH);
	result_json(&j, s, f, made ? made : f->fingerprint);
	free(made);
	kl = &s->kept[rank];
	CPL_GROW(kl->v, kl->cap, kl->n + 1);
	k = &kl->v[kl->n++];
	k->index = s->nresults - 1;
	k->text = cpl_wbuf_take(&s->scratch, &k->len);
	s->nkept++;
}

/* Writes the kept results in the order they came, freeing them. */
static void
write_results(struct cpl_jsonw *j, struct sarif *s)
{
	size_t at[NRANKS] = { 0 };
	unsigned r, best;

	cpl_jsonw_array(j);
	for (;;) {
		best = NRANKS;
		for (r = 0; r < NRANKS; r++)
			if (at[r] < s->kept[r].n &&
			    (best == NRANKS ||
			     s->kept[r].v[at[r]].index <
			     s->kept[best].v[at[best]].index))
				best = r;
		if (best == NRANKS)
			break;
		cpl_jsonw_raw(j, s->kept[best].v[at[best]].text,
			      s->kept[best].v[at[best]].len);
		free(s->kept[best].v[at[best]].text);
		s->kept[best].v[at[best]].text = NULL;
		at[best]++;
	}
	cpl_jsonw_close(j);
}

/* Frees the state, kept results included. */
static void
sarif_free(struct sarif *s)
{
	size_t i;
	unsigned r;

	for (r = 0; r < NRANKS; r++) {
		for (i = 0; i < s->kept[r].n; i++)
			free(s->kept[r].v[i].text);
		free(s->kept[r].v);
	}
	cpl_wbuf_free(&s->scratch);
	cpl_report_prints_free(s->prints);
	free(s->cwd);
	free(s->root);
	free(s);
}

/* Writes the log around the kept results and frees the state. */
/* The Azure Pipelines build's id (after the "id" key) and the properties
 * Advanced Security for Azure DevOps reads. */
static void
ado_details(struct cpl_jsonw *j, const struct cpl_report_ado *a)
{
	char *id = cpl_xasprintf("azuredevops/pipeline/build/%s/%s/%s/%s/%s/%s",
				 a->org, a->project_id, a->definition_id,
				 a->phase_id, a->branch, a->build_id);

	cpl_jsonw_str(j, id);
	free(id);
	cpl_jsonw_key(j, "properties");
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "azuredevops/pipeline/build/buildDefinitionId");
	cpl_jsonw_str(j, a->definition_id);
	cpl_jsonw_key(j, "azuredevops/pipeline/build/buildDefinitionName");
	cpl_jsonw_str(j, a->definition_name);
	cpl_jsonw_key(j, "azuredevops/pipeline/build/phaseId");
	cpl_jsonw_str(j, a->phase_id);
	cpl_jsonw_key(j, "azuredevops/pipeline/build/phaseName");
	cpl_jsonw_str(j, a->phase_name);
	cpl_jsonw_close(j);
}

static int
sarif_end(void *state)
{
	struct sarif *s = state;
	const struct cpl_report_meta *meta = s->meta;
	size_t dropped = s->nresults - s->nkept;
	char *root_uri = file_uri(s->root, true);
	struct cpl_wbuf w;
	struct cpl_jsonw j;
	int rc;

	if (meta && meta->dropped)
		*meta->dropped = dropped;
	cpl_wbuf_init(&w, s->out);
	cpl_jsonw_init(&j, &w, 0);
	cpl_jsonw_object(&j);
	cpl_jsonw_key(&j, "$schema");
	cpl_jsonw_str(&j, SARIF_SCHEMA);
	cpl_jsonw_key(&j, "version");
	cpl_jsonw_str(&j, "2.1.0");
	cpl_jsonw_key(&j, "runs");
	cpl_jsonw_array(&j);
	cpl_jsonw_object(&j);
	cpl_jsonw_key(&j, "tool");
	cpl_jsonw_object(&j);
	cpl_jsonw_key(&j, "driver");
	driver_json(&j, s);
	cpl_jsonw_close(&j);
	/* The category code scanning files the run under (the trailing
	 * slash: a category, no run id); live runs are a category apart. */
	cpl_jsonw_key(&j, "automationDetails");
	cpl_jsonw_object(&j);
	cpl_jsonw_key(&j, "id");
	if (meta && meta->ado)
		ado_details(&j, meta->ado);
	else
		cpl_jsonw_str(&j, meta && meta->category ? meta->category :
			      TOOL_NAME "/");
	cpl_jsonw_close(&j);
	cpl_jsonw_key(&j, "invocations");
	cpl_jsonw_array(&j);
	invocation_json(&j, s, dropped);
	cpl_jsonw_close(&j);
	cpl_jsonw_key(&j, "originalUriBaseIds");
	cpl_jsonw_object(&j);
	cpl_jsonw_key(&j, SRCROOT);
	cpl_jsonw_object(&j);
	cpl_jsonw_key(&j, "uri");
	cpl_jsonw_str(&j, root_uri);
	cpl_jsonw_close(&j);
	cpl_jsonw_close(&j);
	cpl_jsonw_key(&j, "results");
	write_results(&j, s);
	cpl_jsonw_key(&j, "properties");
	cpl_jsonw_object(&j);
	cpl_jsonw_key(&j, "budgets");
	cpl_report_budgets(&j, meta ? meta->budgets : NULL,
			   meta ? meta->nbudgets : 0);
	cpl_jsonw_close(&j);
	cpl_jsonw_close(&j);		/* the run */
	cpl_jsonw_close(&j);		/* runs */
	cpl_jsonw_close(&j);		/* the log */
	cpl_wbuf_addc(&w, '\n');
	rc = cpl_wbuf_finish(&w);
	free(root_uri);
	sarif_free(s);
	return rc;
}

const struct cpl_reporter cpl_report_sarif = {
	.name = "sarif",
	.begin = sarif_begin,
	.emit = sarif_emit,
	.end = sarif_end,
};
