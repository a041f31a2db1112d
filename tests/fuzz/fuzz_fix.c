/*
 * fuzz_fix.c — libFuzzer entry for the fix path: one input is linted as
 * a YAML file and as a Python file; the edits the findings carry for it
 * are applied (text/patch), their unified diff is written, and the fixed
 * text is linted again, as --fix and --diff do.  Seeded from testdata/fix
 * and testdata/edits, whose cases carry edits.  Besides crashes, leaks
 * and UB it stops on a broken invariant of the patch: the result must be
 * NUL-terminated at its length, and a patch with nothing applied must
 * leave the text as it was.  The same edits then go through the re-parse
 * that proves them (fixcheck.h), which must keep a text with no group
 * refused or deferred equal to the plain patch's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fix/fixcheck.h"
#include "model/finding.h"
#include "run/engine.h"
#include "text/patch.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Lints text as path, applies its findings' edits, diffs, lints again. */
static void
fix_as(const char *path, const char *text, size_t len)
{
	struct cpl_engine *e = cpl_engine_new(), *again;
	const struct cpl_finding *f;
	struct cpl_patch_edit *edits = NULL;
	struct cpl_patch p = { 0 };
	struct cpl_buf diff;
	struct cpl_error err = { 0 };
	size_t n, i, k, nedits = 0, cap = 0;

	cpl_engine_add_buffer(e, path, text, len, true);
	cpl_engine_want_edits(e);	/* the edits are what is fuzzed */
	cpl_engine_run(e);
	cpl_engine_resolve_fixes(e);
	f = cpl_engine_findings(e, &n);
	for (i = 0; i < n; i++)
		for (k = 0; k < f[i].nedits; k++) {
			const struct cpl_edit *d = &f[i].edits[k];

			if (d->file == NULL || strcmp(d->file, path) != 0)
				continue;
			CPL_GROW(edits, cap, nedits + 1);
			edits[nedits++] = (struct cpl_patch_edit){
				.line = d->line, .column = d->column,
				.end_line = d->end_line,
				.end_column = d->end_column,
				.text = d->text, .group = i,
			};
		}
	cpl_patch_apply(&p, text, len, edits, nedits);
	if (p.text == NULL || p.text[p.len] != '\0' ||
	    (p.napplied == 0 && (p.len != len || memcmp(p.text, text, len))))
		abort();
	cpl_buf_init(&diff, 0);
	if (cpl_patch_diff(&diff, path, text, len, p.text, p.len, p.regions,
			   p.nregions, &err) < 0)
		abort();	/* the fuzzer's paths are plain relative names */
	cpl_buf_free(&diff);
	if (p.napplied > 0) {
		again = cpl_engine_new();
		cpl_engine_add_buffer(again, path, p.text, p.len, true);
		cpl_engine_run(again);
		cpl_engine_free(again);
	}
	cpl_patch_free(&p);
	{
		struct cpl_fixcheck refused = { 0 };
		bool py = strstr(path, ".py") != NULL;

		cpl_fixcheck_apply(&p, &refused, text, len,
				   py ? CPL_FIXCHECK_PYTHON :
				   CPL_FIXCHECK_YAML, edits, nedits);
		if (p.text == NULL || p.text[p.len] != '\0')
			abort();
		cpl_fixcheck_free(&refused);
		cpl_patch_free(&p);
	}
	free(edits);
	cpl_engine_free(e);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fix_as("fuzz.yaml", (const char *)data, size);
	fix_as("fuzz.py", (const char *)data, size);
	return 0;
}
