/*
 * nested.c — objects inside objects: a mapping with apiVersion and kind
 * held in another object (a Katib trialSpec, an AppWrapper component),
 * or a string holding one as YAML or JSON (an Argo resource template's
 * manifest, when its action creates, applies or replaces it), each
 * loaded as a document of its own.
 *
 * A string's object keeps its positions in the outer file: a literal
 * block's lines are the file's lines (its indentation stripped, which is
 * checked line by line), so a finding inside it names the line of the
 * file; a string whose lines do not map (quoted, folded) puts every
 * position at the string's own.  The system that applies the manifest
 * fills in its placeholders first: an Argo {{...}} that starts a plain
 * scalar (YAML would read a flow mapping) is quoted before parsing, and
 * every placeholder is an unknown value (manifest.c).
 *
 * An object in a string that cannot be read (a wrong type where a
 * placeholder stands for a whole structure) is skipped as not judged,
 * not an error: what Argo would fill in is unknown.
 *
 * Invariant: the string's stream lives only while its objects load; what
 * they keep is copied.
 */
#include "load/loader.h"
#include "text/lines.h"

#include <stdlib.h>
#include <string.h>

/*
 * text with each {{...}} that starts a plain scalar (after "key: ", "- "
 * or at a line's start) quoted with the rest of its line, which YAML
 * would otherwise read as a flow mapping; a new string, *outlen its
 * length.  Columns after it on that line move right by one.
 */
static char *
quote_placeholders(const char *text, size_t len, size_t *outlen)
{
	struct cpl_buf b;
	const char *p = text, *end = text + len;
	char *out;

	cpl_buf_init(&b, 4 * len + 64);
	while (p < end) {
		size_t n = cpl_lines_len(p, end), i = 0, j, stop;
		const char *nl;
		char q;

		while (i < n && p[i] == ' ')
			i++;
		/* after the key or the dash that starts a scalar */
		for (j = i; j < n; j++) {
			if (p[j] == ':' && j + 1 < n && p[j + 1] == ' ')
				break;
			if (p[j] == '"' || p[j] == '\'' || p[j] == '#' ||
			    p[j] == '{' || p[j] == '[')
				j = n;
		}
		if (j < n)
			j += 2;
		else if (i + 1 < n && p[i] == '-' && p[i + 1] == ' ')
			j = i + 2;
		else
			j = i;
		while (j < n && p[j] == ' ')
			j++;
		stop = n;
		for (i = j; i + 1 < n; i++)
			if (p[i] == ' ' && p[i + 1] == '#') {
				stop = i;
				break;
			}
		while (stop > j && p[stop - 1] == ' ')
			stop--;
		q = memchr(p + j, '"', stop - j) == NULL &&
		    memchr(p + j, '\\', stop - j) == NULL ? '"' :
		    memchr(p + j, '\'', stop - j) == NULL ? '\'' : '\0';
		if (stop - j >= 4 && strncmp(p + j, "{{", 2) == 0 && q) {
			cpl_buf_add(&b, p, j);
			cpl_buf_addc(&b, q);
			cpl_buf_add(&b, p + j, stop - j);
			cpl_buf_addc(&b, q);
			cpl_buf_add(&b, p + stop, n - stop);
		} else {
			cpl_buf_add(&b, p, n);
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			break;
		cpl_buf_addc(&b, '\n');
		p = nl + 1;
	}
	*outlen = b.len;
	out = cpl_buf_detach(&b);
	return out ? out : cpl_xstrdup("");
}

/* Whether a string may hold a Kubernetes object (cheap: both keys). */
static bool
manifest_like(const char *t)
{
	return strstr(t, "apiVersion") != NULL && strstr(t, "kind") != NULL;
}

/* Loads the objects a string n holds; how many, or -1. */
static int
load_string(const struct cpl_lctx *x, const struct cpl_ynode *n,
	    const char *holder)
{
	struct cpl_yplace at = { n->line, n->column, true };
	struct cpl_error perr = { 0 };
	struct cpl_ystream *in = NULL;
	struct cpl_lctx ix = *x;
	size_t len, i;
	char *text;
	int got = 0;

	if (!manifest_like(n->value))
		return 0;
	cpl_loader_block_place(&at, x->s, n);
	text = quote_placeholders(n->value, n->len, &len);
	if (cpl_yaml_parse_at(&in, x->path, text, len, &at, &perr) < 0) {
		char *why = cpl_xasprintf("not YAML until its placeholders "
					  "are filled in (%s)", perr.message ?
					  perr.message : "invalid");
		struct cpl_skip *k = cpl_wlist_skip(x->out, x->path, n->line,
						    n->column, why,
						    "a manifest in %s", holder);

		free(why);
		k->kind = cpl_xstrdup(holder);
		k->containers = strstr(n->value, "containers") != NULL;
		goto out;
	}
	ix.s = in;
	for (i = 0; i < cpl_ystream_count(in); i++) {
		const struct cpl_ynode *doc = cpl_ystream_doc(in, i);

		if (!cpl_manifest_detect(doc))
			continue;
		/* Whatever the filled-in text would hold there is unknown:
		 * an object that cannot be read is not judged, no error. */
		if (cpl_kinds_load(&ix, doc, NULL, NULL) < 0) {
			const char *kind = cpl_ynode_gets(doc, "kind") ?
					   cpl_ynode_gets(doc, "kind") : "object";
			char *why = cpl_xasprintf("%s (line %d), until its "
						  "placeholders are filled in",
						  x->err->message ?
						  x->err->message : "unreadable",
						  x->err->line);

			cpl_loader_skip(&ix, doc, kind, why,
					strstr(n->value, "containers") != NULL);
			free(why);
			cpl_error_clear(x->err);
			continue;
		}
		got++;
	}
out:
	cpl_error_clear(&perr);
	cpl_ystream_free(in);
	free(text);
	return got;
}

/* An Argo resource template's action makes the object it names run:
 * create, apply, replace (get, delete and patch run nothing new). */
static bool
makes_object(const struct cpl_ynode *resource)
{
	const char *a = cpl_ynode_gets(resource, "action");

	return a == NULL || strcmp(a, "create") == 0 ||
	       strcmp(a, "apply") == 0 || strcmp(a, "replace") == 0;
}

int
cpl_nested_load(const struct cpl_lctx *x, const struct cpl_ynode *n,
		const char *holder)
{
	if (cpl_manifest_detect(n))
		return cpl_kinds_load(x, n, NULL, NULL) < 0 ? -1 : 1;
	if (cpl_ynode_is_map(n) && cpl_ynode_get(n, "manifest") != NULL)
		return makes_object(n) ?
		       cpl_nested_load(x, cpl_ynode_get(n, "manifest"),
				       holder) : 0;
	if (cpl_ynode_is_scalar(n) && !cpl_ynode_is_null(n) && n->len > 0)
		return load_string(x, n, holder);
	return 0;
}
