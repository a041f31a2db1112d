/*
 * baseline.c — --baseline FILE and --write-baseline FILE: the findings a
 * repository has accepted, so that a gate reports only new ones.
 *
 * A finding is in the baseline when its fingerprint is
 * (report/fingerprint.h: rule, path from the repository root, the hash
 * of its line's text, object, container; not the line number, so moved
 * lines still match).  The file this writes is JSON of our own design:
 *
 *   {"version": 1, "tool": "kubectl-cpulint", "findings": [
 *     {"rule", "file", "line", "fingerprint", "message"}, ...]}
 *
 * where only "fingerprint" is read back (the rest is for the reader of a
 * review).  A SARIF log the tool wrote is read as a baseline too (the
 * partialFingerprints "cpulint/v1" of its results).  The file is
 * written as every report is (output.c: complete or absent), streamed
 * through report/jsonw.h (JSON's escapes, the same promises as the
 * one escaper's).  A file that is not
 * one of those (or one over 16 MiB, or not a regular file) is one
 * clear error, before anything is linted.  The set
 * owns its strings; the writer's list owns its entries.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

#define BASELINE_VERSION 1
#define SARIF_PRINT "cpulint/v1"
/* The largest baseline read, as the largest file linted (16 MiB). */
#define BASELINE_MAX_BYTES ((size_t)16 << 20)

/* The fingerprints of a baseline. */
struct cli_baseline {
	struct cpl_strmap set;		/* fingerprint (owned) → the
					 * baseline */
};

/* Adds one fingerprint (copied). */
static void
add_print(struct cli_baseline *b, const char *fp)
{
	cpl_strmap_put(&b->set, fp, b);
}

/* Reads our own format's findings; -1 after a message. */
static int
read_ours(struct cli_baseline *b, const char *path, json_t *findings)
{
	size_t i;
	json_t *v;

	json_array_foreach(findings, i, v) {
		const char *fp = json_string_value(json_object_get(v,
							"fingerprint"));

		if (fp == NULL || *fp == '\0') {
			cpl_cli_say("kubectl-cpulint: --baseline %s: findings"
				    "[%zu] has no \"fingerprint\" string (write "
				    "the file again with --write-baseline)",
				    path, i);
			return -1;
		}
		add_print(b, fp);
	}
	return 0;
}

/* Reads the results of a SARIF log; -1 after a message. */
static int
read_sarif(struct cli_baseline *b, const char *path, json_t *runs)
{
	size_t i, k, found = 0;
	json_t *run, *r;

	json_array_foreach(runs, i, run) {
		json_array_foreach(json_object_get(run, "results"), k, r) {
			const char *fp = json_string_value(json_object_get(
				json_object_get(r, "partialFingerprints"),
				SARIF_PRINT));

			if (fp) {
				add_print(b, fp);
				found++;
			}
		}
		if (json_array_size(json_object_get(run, "results")) > found) {
			cpl_cli_say("kubectl-cpulint: --baseline %s: a SARIF "
				    "log whose results have no \"%s\" "
				    "fingerprint (not written by this version "
				    "of kubectl-cpulint)", path, SARIF_PRINT);
			return -1;
		}
	}
	return 0;
}

int
cpl_cli_baseline_load(struct cli_baseline **out, const char *path)
{
	struct cli_baseline *b = cpl_xcalloc(1, sizeof(*b));
	struct cpl_error err = { 0 };
	json_error_t jerr;
	json_t *root, *findings, *runs;
	char *text = NULL;
	size_t len;
	int rc = -1;

	*out = NULL;
	b->set.own_keys = true;
	/* Read as every input is: a FIFO or a device refused at once,
	 * never waited on; at most the limit of an input file. */
	if (cpl_read_file(&text, &len, path, BASELINE_MAX_BYTES, &err) < 0) {
		cpl_cli_say("kubectl-cpulint: --baseline %s: %s", path,
			    err.message);
		cpl_error_clear(&err);
		goto out;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (root == NULL) {
		if (jerr.line < 1)
			cpl_cli_say("kubectl-cpulint: --baseline %s: %s", path,
				    jerr.text);
		else
			cpl_cli_say("kubectl-cpulint: --baseline %s:%d:%d: "
				    "not JSON: %s", path, jerr.line,
				    jerr.column, jerr.text);
		goto out;
	}
	findings = json_object_get(root, "findings");
	runs = json_object_get(root, "runs");
	if (json_is_array(findings) && json_integer_value(json_object_get(
		    root, "version")) == BASELINE_VERSION)
		rc = read_ours(b, path, findings);
	else if (json_is_array(runs) && json_is_string(json_object_get(root,
							"version")))
		rc = read_sarif(b, path, runs);
	else
		cpl_cli_say("kubectl-cpulint: --baseline %s: not a "
			    "kubectl-cpulint baseline (version %d with a "
			    "\"findings\" array) nor a SARIF log: write one "
			    "with --write-baseline", path, BASELINE_VERSION);
	json_decref(root);
out:
	if (rc < 0)
		cpl_cli_baseline_free(b);
	else
		*out = b;
	return rc;
}

bool
cpl_cli_baseline_has(const struct cli_baseline *b, const char *fingerprint)
{
	return b && fingerprint && cpl_strmap_get(&b->set, fingerprint);
}

size_t
cpl_cli_baseline_size(const struct cli_baseline *b)
{
	return b ? b->set.count : 0;
}

void
cpl_cli_baseline_free(struct cli_baseline *b)
{
	if (b == NULL)
		return;
	cpl_strmap_free(&b->set);
	free(b);
}

int
cpl_cli_baseline_begin(struct cli_baseline_out *b, const char *path)
{
	memset(b, 0, sizeof(*b));
	if (cpl_cli_output_open(&b->out, path, NULL) < 0)
		return -1;
	b->path = path;
	cpl_wbuf_init(&b->w, b->out.fp);
	cpl_jsonw_init(&b->j, &b->w, 0);
	cpl_jsonw_object(&b->j);
	cpl_jsonw_key(&b->j, "version");
	cpl_jsonw_int(&b->j, BASELINE_VERSION);
	cpl_jsonw_key(&b->j, "tool");
	cpl_jsonw_str(&b->j, "kubectl-cpulint");
	cpl_jsonw_key(&b->j, "findings");
	cpl_jsonw_array(&b->j);
	return 0;
}

void
cpl_cli_baseline_add(struct cli_baseline_out *b, const char *rule,
		     const char *file, int line, const char *fingerprint,
		     const char *message)
{
	if (b->path == NULL)
		return;
	cpl_jsonw_object(&b->j);
	cpl_jsonw_key(&b->j, "rule");
	cpl_jsonw_str(&b->j, rule ? rule : "");
	if (file) {
		cpl_jsonw_key(&b->j, "file");
		cpl_jsonw_str(&b->j, file);
		cpl_jsonw_key(&b->j, "line");
		cpl_jsonw_int(&b->j, line);
	}
	cpl_jsonw_key(&b->j, "fingerprint");
	cpl_jsonw_str(&b->j, fingerprint);
	cpl_jsonw_key(&b->j, "message");
	cpl_jsonw_str(&b->j, message ? message : "");
	cpl_jsonw_close(&b->j);
	b->n++;
}

int
cpl_cli_baseline_end(struct cli_baseline_out *b, bool abort)
{
	bool failed;

	if (b->path == NULL)
		return 0;
	if (abort) {
		cpl_wbuf_free(&b->w);
		cpl_cli_output_abort(&b->out);
		memset(b, 0, sizeof(*b));
		return 0;
	}
	cpl_jsonw_close(&b->j);
	cpl_jsonw_close(&b->j);
	cpl_wbuf_addc(&b->w, '\n');
	errno = 0;
	failed = cpl_wbuf_finish(&b->w) < 0;
	if (cpl_cli_output_close(&b->out, failed) < 0) {
		memset(b, 0, sizeof(*b));
		return -1;
	}
	cpl_cli_say("kubectl-cpulint: wrote %zu finding%s to the baseline %s",
		    b->n, b->n == 1 ? "" : "s", b->path);
	memset(b, 0, sizeof(*b));
	return 0;
}
