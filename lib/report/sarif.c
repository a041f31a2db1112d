/*
 * sarif.c — SARIF 2.1.0 for code scanning (GitHub, IDEs).
 *
 * One log, one run: tool.driver with every rule of the registry (results
 * point at them by ruleId and ruleIndex; a rule outside the registry gets
 * a ruleId only), one invocation carrying the input errors as
 * notifications, %SRCROOT% in originalUriBaseIds, and one result per
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
 * upload action (codeql-action, src/fingerprints.ts) would compute: a
 * polynomial rolling hash (base 37, modulo 2^64) over the next 100
 * characters from the start of the line, spaces and tabs skipped, line
 * endings folded to LF, the text read as UTF-16 code units; then
 * "hex:n", n being the occurrence of that hash in the file, from 1.
 *
 * Invariant: the log is built only through jansson and written once, at
 * end.  The state owns the log and the line-hash cache; out and meta are
 * borrowed until end.
 */
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/render.h"

#define SARIF_SCHEMA	"https://json.schemastore.org/sarif-2.1.0.json"
#define TOOL_NAME	"kubectl-cpulint"
#define TOOL_URI	"https://github.com/kubectl-cpulint/kubectl-cpulint"
#define HELP_URI	TOOL_URI "/blob/main/rules/"
#define SRCROOT		"%SRCROOT%"

#define HASH_BLOCK	100	/* characters each line hash covers */
#define HASH_BASE	37
#define HASH_EOF	0xffff	/* the end-of-text marker code unit */

/* The line hashes of one file: hash[i] and count[i] are for line i+1. */
struct linehash {
	char *file;			/* which file; NULL: none yet */
	bool ok;			/* the text was available */
	uint64_t *hash;
	unsigned *count;
	size_t nlines;
};

/* The reporter's state between begin and end. */
struct sarif {
	FILE *out;
	const struct cpl_report_meta *meta;
	char *cwd;		/* absolute, normalised; NULL: unknown */
	char *root;		/* srcroot, absolute and normalised */
	const struct cpl_rule *const *rules;	/* the registry */
	size_t nrules;
	json_t *results;
	unsigned char *rank;		/* per result: what keeps it when
					 * there are too many (higher first) */
	size_t rank_cap;
	struct linehash lines;		/* cache: findings come by file */
};

/*
 * Normalises an absolute path lexically: no "." or ".." segments, no
 * doubled or trailing slashes ("/" stays "/").  Caller frees.
 */
static char *
path_normalise(const char *path)
{
	struct cpl_buf b;
	const char *p = path, *seg;
	size_t n;

	cpl_buf_init(&b, 0);
	while (*p) {
		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (b.len > 0 && b.data[b.len - 1] != '/')
				b.len--;
			if (b.len > 0)
				b.len--;	/* the slash before it */
			if (b.data)
				b.data[b.len] = '\0';
			continue;
		}
		cpl_buf_addc(&b, '/');
		cpl_buf_add(&b, seg, n);
	}
	if (b.len == 0)
		cpl_buf_addc(&b, '/');
	return cpl_buf_detach(&b);
}

/* path made absolute against base (when relative) and normalised. */
static char *
path_absolute(const char *base, const char *path)
{
	char *joined, *norm;

	if (path[0] == '/' || base == NULL)
		return path_normalise(path);
	joined = cpl_xasprintf("%s/%s", base, path);
	norm = path_normalise(joined);
	free(joined);
	return norm;
}

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

/* {"text": s}. */
static json_t *
message(const char *text)
{
	json_t *o = cpl_report_jobject();

	cpl_report_jset(o, "text", cpl_report_jstr(text ? text : ""));
	return o;
}

/*
 * {"uri", "uriBaseId"} of a file, relative to %SRCROOT% when inside it;
 * standard input is {"uri": "stdin", "description"}.
 */
static json_t *
artifact_location(const struct sarif *s, const char *file)
{
	json_t *o = cpl_report_jobject();
	char *abs;
	size_t n = strlen(s->root);
	const char *rel = NULL;
	struct cpl_buf b;

	if (strcmp(file, CPL_REPORT_STDIN) == 0) {
		cpl_report_jset(o, "uri", cpl_report_jstr("stdin"));
		cpl_report_jset(o, "description",
				message("the standard input stream"));
		return o;
	}
	abs = path_absolute(s->cwd ? s->cwd : s->root, file);
	if (strcmp(s->root, "/") == 0 && abs[1] != '\0')
		rel = abs + 1;
	else if (strncmp(abs, s->root, n) == 0 && abs[n] == '/' &&
		 abs[n + 1] != '\0')
		rel = abs + n + 1;
	cpl_buf_init(&b, 0);
	if (rel) {
		add_uri_path(&b, rel);
		cpl_report_jset(o, "uri", cpl_report_jstr(cpl_buf_str(&b)));
		cpl_report_jset(o, "uriBaseId", cpl_report_jstr(SRCROOT));
	} else {
		char *uri = file_uri(abs, false);

		cpl_report_jset(o, "uri", cpl_report_jstr(uri));
		free(uri);
	}
	cpl_buf_free(&b);
	free(abs);
	return o;
}

/* {"artifactLocation", "region"} for a position; line 0: no region. */
static json_t *
physical_location(const struct sarif *s, const char *file, int line,
		  int column)
{
	json_t *o = cpl_report_jobject();

	cpl_report_jset(o, "artifactLocation", artifact_location(s, file));
	if (line > 0) {
		json_t *region = cpl_report_jobject();

		cpl_report_jset(region, "startLine", cpl_report_jint(line));
		if (column > 0)
			cpl_report_jset(region, "startColumn",
					cpl_report_jint(column));
		cpl_report_jset(o, "region", region);
	}
	return o;
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
static json_t *
rule_json(const struct cpl_rule *r)
{
	json_t *o = cpl_report_jobject();
	json_t *conf = cpl_report_jobject();
	json_t *props = cpl_report_jobject();
	json_t *tags = cpl_report_jarray();
	const char *doc = cpl_rule_doc(r);
	char *full = doc ? doc_paragraph(doc, r->summary) : NULL;
	char *uri;

	cpl_report_jset(o, "id", cpl_report_jstr(r->id));
	cpl_report_jset(o, "name", cpl_report_jstr(r->name));
	cpl_report_jset(o, "shortDescription", message(r->summary));
	cpl_report_jset(o, "fullDescription",
			message(full ? full : r->summary));
	free(full);
	if (doc) {
		json_t *help = cpl_report_jobject();

		cpl_report_jset(help, "text", cpl_report_jstr(doc));
		cpl_report_jset(help, "markdown", cpl_report_jstr(doc));
		cpl_report_jset(o, "help", help);
	}
	uri = cpl_xasprintf(HELP_URI "%s.md", r->id);
	cpl_report_jset(o, "helpUri", cpl_report_jstr(uri));
	free(uri);
	cpl_report_jset(conf, "level",
			cpl_report_jstr(sarif_level(r->severity)));
	cpl_report_jset(o, "defaultConfiguration", conf);
	if (r->precision)
		cpl_report_jset(props, "precision",
				cpl_report_jstr(r->precision));
	cpl_report_jset(props, "problem.severity",
			cpl_report_jstr(problem_severity(r->severity)));
	cpl_report_jpush(tags, cpl_report_jstr("cpu"));
	cpl_report_jpush(tags, cpl_report_jstr("performance"));
	cpl_report_jset(props, "tags", tags);
	cpl_report_jset(o, "properties", props);
	return o;
}

/* The tool component: name, versions and the rule table. */
static json_t *
driver_json(const struct sarif *s)
{
	json_t *o = cpl_report_jobject();
	json_t *rules = cpl_report_jarray();
	const char *version = s->meta && s->meta->version ?
		s->meta->version : "unknown";
	size_t i;

	cpl_report_jset(o, "name", cpl_report_jstr(TOOL_NAME));
	cpl_report_jset(o, "version", cpl_report_jstr(version));
	cpl_report_jset(o, "informationUri", cpl_report_jstr(TOOL_URI));
	if (is_semver(version))
		cpl_report_jset(o, "semanticVersion",
				cpl_report_jstr(version));
	for (i = 0; i < s->nrules; i++)
		cpl_report_jpush(rules, rule_json(s->rules[i]));
	cpl_report_jset(o, "rules", rules);
	return o;
}

/*
 * The invocation: success, command line, one notification per error and
 * one saying how many results were left out (dropped > 0).
 */
static json_t *
invocation_json(const struct sarif *s, size_t dropped)
{
	const struct cpl_report_meta *meta = s->meta;
	json_t *o = cpl_report_jobject();
	size_t nerrors = meta ? meta->nerrors : 0, i;

	cpl_report_jset(o, "executionSuccessful",
			json_boolean(nerrors == 0));
	if (meta && meta->command_line)
		cpl_report_jset(o, "commandLine",
				cpl_report_jstr(meta->command_line));
	if (nerrors > 0 || dropped > 0) {
		json_t *notes = cpl_report_jarray();

		if (dropped > 0) {
			json_t *n = cpl_report_jobject();
			char *text = cpl_xasprintf(
				"%zu results were left out: code scanning "
				"takes at most %d results per run, so the "
				"most severe were kept", dropped,
				CPL_REPORT_SARIF_MAX_RESULTS);

			cpl_report_jset(n, "level", cpl_report_jstr("warning"));
			cpl_report_jset(n, "message", message(text));
			cpl_report_jpush(notes, n);
			free(text);
		}

		for (i = 0; i < nerrors; i++) {
			const struct cpl_error *e = &meta->errors[i];
			json_t *n = cpl_report_jobject();

			cpl_report_jset(n, "level", cpl_report_jstr("error"));
			cpl_report_jset(n, "message",
					message(e->message ? e->message :
						"unknown error"));
			if (e->path) {
				json_t *locs = cpl_report_jarray();
				json_t *loc = cpl_report_jobject();

				cpl_report_jset(loc, "physicalLocation",
						physical_location(s, e->path,
								  e->line,
								  e->column));
				cpl_report_jpush(locs, loc);
				cpl_report_jset(n, "locations", locs);
			}
			cpl_report_jpush(notes, n);
		}
		cpl_report_jset(o, "toolExecutionNotifications", notes);
	}
	return o;
}

/* The rolling hash over a window of code units (fingerprints.ts). */
struct roller {
	uint16_t window[HASH_BLOCK];
	int start[HASH_BLOCK];	/* line starting at this slot; 0: none */
	uint64_t hash;
	uint64_t first_mod;		/* HASH_BASE ^ HASH_BLOCK */
	size_t index;
	int line;
	bool line_start;
	bool prev_cr;
	struct linehash *lh;
	size_t cap;
};

/* Records the current hash as the hash of the line that starts here. */
static void
roll_output(struct roller *r)
{
	struct linehash *lh = r->lh;

	cpl_xgrow((void **)&lh->hash, &r->cap, lh->nlines + 1,
		  sizeof(*lh->hash));
	lh->hash[lh->nlines++] = r->hash;
	r->start[r->index] = 0;
}

/* Shifts c into the window. */
static void
roll_update(struct roller *r, uint16_t c)
{
	uint16_t old = r->window[r->index];

	r->window[r->index] = c;
	r->hash = HASH_BASE * r->hash + c - r->first_mod * old;
	r->index = (r->index + 1) % HASH_BLOCK;
}

/* Feeds one UTF-16 code unit of the text. */
static void
roll_char(struct roller *r, uint16_t c)
{
	if (c == ' ' || c == '\t' || (r->prev_cr && c == '\n')) {
		r->prev_cr = false;
		return;
	}
	r->prev_cr = c == '\r';
	if (c == '\r')
		c = '\n';
	if (r->start[r->index])
		roll_output(r);
	if (r->line_start) {
		r->line_start = false;
		r->start[r->index] = ++r->line;
	}
	if (c == '\n')
		r->line_start = true;
	roll_update(r, c);
}

/* Orders (hash, line index) pairs by hash, then by line. */
static int
cmp_hash_line(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Fills lh with the hash and occurrence count of every line of text. */
static void
line_hashes(struct linehash *lh, const char *text, size_t len)
{
	struct roller *r = cpl_xcalloc(1, sizeof(*r));
	uint64_t (*pairs)[2];
	size_t i = 0, adv;
	unsigned run = 0;

	r->lh = lh;
	r->line_start = true;
	r->first_mod = 1;
	for (i = 0; i < HASH_BLOCK; i++)
		r->first_mod *= HASH_BASE;
	for (i = 0; i < len; i += adv) {
		uint32_t cp = cpl_report_utf8_next(&adv, text + i, len - i);

		if (cp >= 0x10000) {
			cp -= 0x10000;
			roll_char(r, (uint16_t)(0xd800 + (cp >> 10)));
			roll_char(r, (uint16_t)(0xdc00 + (cp & 0x3ff)));
		} else {
			roll_char(r, (uint16_t)cp);
		}
	}
	roll_char(r, HASH_EOF);
	for (i = 0; i < HASH_BLOCK; i++) {
		if (r->start[r->index])
			roll_output(r);
		roll_update(r, 0);
	}
	free(r);
	/* The n-th line with a given hash (in file order) gets n. */
	lh->count = cpl_xcalloc(lh->nlines, sizeof(*lh->count));
	pairs = cpl_xcalloc(lh->nlines, sizeof(*pairs));
	for (i = 0; i < lh->nlines; i++) {
		pairs[i][0] = lh->hash[i];
		pairs[i][1] = i;
	}
	qsort(pairs, lh->nlines, sizeof(*pairs), cmp_hash_line);
	for (i = 0; i < lh->nlines; i++) {
		run = i > 0 && pairs[i][0] == pairs[i - 1][0] ? run + 1 : 1;
		lh->count[pairs[i][1]] = run;
	}
	free(pairs);
}

/* Forgets the cached line hashes. */
static void
linehash_clear(struct linehash *lh)
{
	free(lh->file);
	free(lh->hash);
	free(lh->count);
	memset(lh, 0, sizeof(*lh));
}

/* "hex:n" for line of file, or NULL when its text is unknown.  Caller frees. */
static char *
line_fingerprint(struct sarif *s, const char *file, int line)
{
	struct linehash *lh = &s->lines;

	if (s->meta == NULL || s->meta->source_text == NULL || line <= 0)
		return NULL;
	if (!cpl_str_eq(lh->file, file)) {
		const char *text;
		size_t len = 0;

		linehash_clear(lh);
		lh->file = cpl_xstrdup(file);
		text = s->meta->source_text(s->meta->source_ctx, file, &len);
		if (text) {
			lh->ok = true;
			line_hashes(lh, text, len);
		}
	}
	if (!lh->ok || (size_t)line > lh->nlines)
		return NULL;
	return cpl_xasprintf("%" PRIx64 ":%u", lh->hash[line - 1],
			     lh->count[line - 1]);
}

/* The primary location of a finding: physical, or logical when live. */
static json_t *
primary_location(const struct sarif *s, const struct cpl_finding *f)
{
	json_t *o = cpl_report_jobject();

	if (f->file) {
		cpl_report_jset(o, "physicalLocation",
				physical_location(s, f->file, f->line,
						  f->column));
	} else {
		json_t *logicals = cpl_report_jarray();
		json_t *l = cpl_report_jobject();
		char *fqn = f->container ?
			cpl_xasprintf("%s/%s", f->object, f->container) :
			cpl_xstrdup(f->object);
		const char *name = strrchr(fqn, '/');

		cpl_report_jset(l, "fullyQualifiedName", cpl_report_jstr(fqn));
		cpl_report_jset(l, "name",
				cpl_report_jstr(name ? name + 1 : fqn));
		cpl_report_jset(l, "kind", cpl_report_jstr("object"));
		cpl_report_jpush(logicals, l);
		cpl_report_jset(o, "logicalLocations", logicals);
		free(fqn);
	}
	return o;
}

/* relatedLocations: ids from 1, a physical location when there is a file. */
static json_t *
related_locations(const struct sarif *s, const struct cpl_finding *f)
{
	json_t *a = cpl_report_jarray();
	size_t i;

	for (i = 0; i < f->nrelated; i++) {
		const struct cpl_related *r = &f->related[i];
		json_t *o = cpl_report_jobject();

		cpl_report_jset(o, "id", cpl_report_jint((long long)i + 1));
		if (r->file)
			cpl_report_jset(o, "physicalLocation",
					physical_location(s, r->file, r->line,
							  r->column));
		cpl_report_jset(o, "message", message(r->message));
		cpl_report_jpush(a, o);
	}
	return a;
}

/* One replacement: the deleted region and the text put in its place. */
static json_t *
replacement_json(const struct cpl_edit *e)
{
	json_t *o = cpl_report_jobject();
	json_t *region = cpl_report_jobject();

	cpl_report_jset(region, "startLine", cpl_report_jint(e->line));
	cpl_report_jset(region, "startColumn", cpl_report_jint(e->column));
	cpl_report_jset(region, "endLine", cpl_report_jint(e->end_line));
	cpl_report_jset(region, "endColumn", cpl_report_jint(e->end_column));
	cpl_report_jset(o, "deletedRegion", region);
	if (e->text && *e->text) {
		json_t *content = cpl_report_jobject();

		cpl_report_jset(content, "text", cpl_report_jstr(e->text));
		cpl_report_jset(o, "insertedContent", content);
	}
	return o;
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

/* fixes: one fix whose artifactChanges group the edits by file, or NULL. */
static json_t *
fixes_json(const struct sarif *s, const struct cpl_finding *f)
{
	json_t *changes = cpl_report_jarray();
	json_t *fix, *fixes, *props;
	size_t i, j;

	for (i = 0; i < f->nedits; i++) {
		const char *file = edit_file(f, &f->edits[i]);
		json_t *change, *repl;
		bool seen = false;

		if (!edit_usable(f, &f->edits[i]))
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = edit_usable(f, &f->edits[j]) &&
			       strcmp(edit_file(f, &f->edits[j]), file) == 0;
		if (seen)
			continue;
		change = cpl_report_jobject();
		repl = cpl_report_jarray();
		cpl_report_jset(change, "artifactLocation",
				artifact_location(s, file));
		for (j = i; j < f->nedits; j++) {
			const struct cpl_edit *e = &f->edits[j];

			if (edit_usable(f, e) &&
			    strcmp(edit_file(f, e), file) == 0)
				cpl_report_jpush(repl, replacement_json(e));
		}
		cpl_report_jset(change, "replacements", repl);
		cpl_report_jpush(changes, change);
	}
	if (json_array_size(changes) == 0) {
		json_decref(changes);
		return NULL;
	}
	fix = cpl_report_jobject();
	if (f->fix)
		cpl_report_jset(fix, "description", message(f->fix));
	cpl_report_jset(fix, "artifactChanges", changes);
	props = cpl_report_jobject();
	cpl_report_jset(props, "applicability", cpl_report_jstr(
			cpl_fix_safety_name(f->fix_safety)));
	cpl_report_jset(fix, "properties", props);
	fixes = cpl_report_jarray();
	cpl_report_jpush(fixes, fix);
	return fixes;
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

/* Resolves the working directory and srcroot; nothing is written yet. */
static void *
sarif_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct sarif *s = cpl_xcalloc(1, sizeof(*s));
	char *cwd = getcwd(NULL, 0);

	s->out = out;
	s->meta = meta;
	if (cwd) {
		s->cwd = path_normalise(cwd);
		free(cwd);
	}
	if (meta && meta->srcroot)
		s->root = path_absolute(s->cwd, meta->srcroot);
	else
		s->root = cpl_xstrdup(s->cwd ? s->cwd : "/");
	s->rules = cpl_rules_all(&s->nrules);
	s->results = cpl_report_jarray();
	return s;
}

/* Adds the result for a finding, suppressed ones included. */
static void
sarif_emit(void *state, const struct cpl_finding *f)
{
	struct sarif *s = state;
	json_t *r, *locs, *fixes;
	long long index = rule_index(s, f);
	struct cpl_buf text;
	char *print = NULL;

	if (f->severity == CPL_SEV_OFF)
		return;
	r = cpl_report_jobject();
	if (f->rule)
		cpl_report_jset(r, "ruleId", cpl_report_jstr(f->rule->id));
	if (index >= 0)
		cpl_report_jset(r, "ruleIndex", cpl_report_jint(index));
	cpl_report_jset(r, "level",
			cpl_report_jstr(sarif_level(f->severity)));
	cpl_buf_init(&text, 0);
	cpl_buf_adds(&text, f->message ? f->message : "");
	if (f->fix) {
		cpl_buf_adds(&text, "\n\nFix: ");
		cpl_buf_adds(&text, f->fix);
	}
	cpl_report_jset(r, "message", message(cpl_buf_str(&text)));
	cpl_buf_free(&text);
	if (f->file || f->object) {
		locs = cpl_report_jarray();
		cpl_report_jpush(locs, primary_location(s, f));
		cpl_report_jset(r, "locations", locs);
	}
	if (f->nrelated > 0)
		cpl_report_jset(r, "relatedLocations",
				related_locations(s, f));
	fixes = fixes_json(s, f);
	if (fixes)
		cpl_report_jset(r, "fixes", fixes);
	if (f->file)
		print = line_fingerprint(s, f->file, f->line);
	if (print) {
		json_t *fp = cpl_report_jobject();

		cpl_report_jset(fp, "primaryLocationLineHash",
				cpl_report_jstr(print));
		cpl_report_jset(r, "partialFingerprints", fp);
		free(print);
	}
	if (f->suppressed) {
		json_t *sups = cpl_report_jarray();
		json_t *sup = cpl_report_jobject();

		/* In the analysed file (a comment, an annotation), or
		 * in the configuration, outside it. */
		cpl_report_jset(sup, "kind", cpl_report_jstr(
			f->suppressed_external ? "external" : "inSource"));
		if (f->suppression)
			cpl_report_jset(sup, "justification",
					cpl_report_jstr(f->suppression));
		cpl_report_jpush(sups, sup);
		cpl_report_jset(r, "suppressions", sups);
	}
	if (f->pods > 1) {	/* one finding for the Pods of one owner */
		json_t *props = cpl_report_jobject();

		cpl_report_jset(props, "pods",
				cpl_report_jint((long long)f->pods));
		cpl_report_jset(r, "properties", props);
	}
	cpl_xgrow((void **)&s->rank, &s->rank_cap,
		  json_array_size(s->results) + 1, sizeof(*s->rank));
	s->rank[json_array_size(s->results)] = f->suppressed ? 0 :
		(unsigned char)(1 + f->severity);
	cpl_report_jpush(s->results, r);
}

/* Orders result indices by rank, higher first, then by index. */
static int
cmp_keep(const void *a, const void *b, void *ctx)
{
	const size_t *x = a, *y = b;
	const unsigned char *rank = ctx;

	if (rank[*x] != rank[*y])
		return rank[*x] > rank[*y] ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

/*
 * Keeps the CPL_REPORT_SARIF_MAX_RESULTS results that rank highest, in
 * their order; returns how many were left out.
 */
static size_t
cap_results(struct sarif *s)
{
	size_t n = json_array_size(s->results), i;
	size_t max = CPL_REPORT_SARIF_MAX_RESULTS;
	size_t *order;
	bool *keep;
	json_t *kept;

	if (n <= max)
		return 0;
	order = cpl_xcalloc(n, sizeof(*order));
	keep = cpl_xcalloc(n, sizeof(*keep));
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_keep, s->rank);
	for (i = 0; i < max; i++)
		keep[order[i]] = true;
	kept = cpl_report_jarray();
	for (i = 0; i < n; i++)
		if (keep[i])
			cpl_report_jpush(kept,
					 json_incref(json_array_get(s->results,
								    i)));
	json_decref(s->results);
	s->results = kept;
	free(order);
	free(keep);
	return n - max;
}

/* Assembles the log around the results, writes it, frees the state. */
static int
sarif_end(void *state)
{
	struct sarif *s = state;
	json_t *log = cpl_report_jobject();
	json_t *runs = cpl_report_jarray();
	json_t *run = cpl_report_jobject();
	json_t *tool = cpl_report_jobject();
	json_t *invocations = cpl_report_jarray();
	json_t *bases = cpl_report_jobject();
	json_t *root = cpl_report_jobject();
	char *root_uri = file_uri(s->root, true);
	json_t *props;
	size_t dropped = cap_results(s);
	int rc;

	if (s->meta && s->meta->dropped)
		*s->meta->dropped = dropped;
	cpl_report_jset(tool, "driver", driver_json(s));
	cpl_report_jset(run, "tool", tool);
	cpl_report_jpush(invocations, invocation_json(s, dropped));
	cpl_report_jset(run, "invocations", invocations);
	cpl_report_jset(root, "uri", cpl_report_jstr(root_uri));
	cpl_report_jset(bases, SRCROOT, root);
	cpl_report_jset(run, "originalUriBaseIds", bases);
	cpl_report_jset(run, "results", s->results);
	props = cpl_report_jobject();
	cpl_report_jset(props, "budgets", cpl_report_budgets(
		s->meta ? s->meta->budgets : NULL,
		s->meta ? s->meta->nbudgets : 0));
	cpl_report_jset(run, "properties", props);
	cpl_report_jpush(runs, run);
	cpl_report_jset(log, "$schema", cpl_report_jstr(SARIF_SCHEMA));
	cpl_report_jset(log, "version", cpl_report_jstr("2.1.0"));
	cpl_report_jset(log, "runs", runs);
	rc = cpl_report_jdump(s->out, log);
	json_decref(log);
	free(root_uri);
	linehash_clear(&s->lines);
	free(s->rank);
	free(s->cwd);
	free(s->root);
	free(s);
	return rc;
}

const struct cpl_reporter cpl_report_sarif = {
	.name = "sarif",
	.begin = sarif_begin,
	.emit = sarif_emit,
	.end = sarif_end,
};
