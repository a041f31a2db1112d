/*
 * resolve.h — a fix's requests (model/fixreq.h) made into edits of text
 * (struct cpl_edit), after every rule has run and only when an edit is
 * asked for (--fix, --diff, SARIF fixes, JSON edits, serve --mutate's
 * patch, compare --fix).  Each text is parsed for edits at most once
 * while the resolver holds it; requests are resolved in the order
 * recorded, and the edits follow the text's own style (text/yamledit.h).
 *
 * Ownership: the caller owns the resolver (cpl_fixres_free); texts come
 * from its text function and stay the caller's, borrowed until
 * cpl_fixres_forget() or cpl_fixres_free().  The edits go onto the
 * finding, and its requests are freed once resolved.
 */
#ifndef CPL_RESOLVE_H
#define CPL_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/finding.h"

/* Where the texts to edit come from: the text read at path (*yaml:
 * YAML or JSON, else Python) and its length, or NULL when there is
 * none. */
struct cpl_fixtext {
	const char *(*text)(void *arg, const char *path, size_t *len,
			    bool *yaml);
	void *arg;
};

struct cpl_fixres;

struct cpl_fixres *cpl_fixres_new(const struct cpl_fixtext *t);
void cpl_fixres_free(struct cpl_fixres *r);	/* NULL-safe */
/* Lets go of the texts held and their parses (the next finding names
 * other files). */
void cpl_fixres_forget(struct cpl_fixres *r);
/* Lets go of the text of path and its parse (the caller frees the
 * text next); NULL-safe. */
void cpl_fixres_forget_path(struct cpl_fixres *r, const char *path);

/*
 * Makes f's requests into its edits, in order: a request that cannot be
 * made adds nothing (and, where an alias or a merge key is the reason,
 * the fix sentence says so); a WHOLE one failing drops every edit of f.
 * True when every request tried was made.  f's requests are freed.
 */
bool cpl_fixres_finding(struct cpl_fixres *r, struct cpl_finding *f);

#endif
