/*
 * yamledit.h — insertions into YAML and JSON text that follow its style.
 *
 * cpl_yedit_open() parses a source once more (libyaml events) into a
 * small tree that, unlike yamldoc, knows where every node's content ends
 * and whether a collection is block or flow.  cpl_yedit_merge() then
 * works out the text that adds a value tree (struct cpl_yval) to a
 * mapping: keys missing from the mapping are added beside its other keys,
 * mappings present are merged into, sequences present get the new items.
 * Only insertions are produced, never replacements, so every byte of the
 * source outside the insertion points is kept; the inserted text follows
 * the surrounding style: block or flow, the indentation of the sibling
 * keys or items, the entry shape of the items there (block `- name: X`
 * or flow `- {name: X}`), the quote character, JSON (pretty-printed or on
 * one line) and CRLF line ends.  Flow collections and JSON grow at their
 * end; in block style new pairs go after a mapping's first pair (or
 * above its first key) and new items before a list's first item, so
 * that insertions into different collections never share a byte (two
 * into one collection add siblings) and edits of several findings apply
 * in any order.
 *
 * Positions handed in (cpl_yedit_find) are libyaml's, as yamldoc keeps
 * them (1-based line, column in characters); positions handed out are
 * 1-based lines and BYTE columns.
 *
 * Ownership: the tree and the copy of the source belong to the struct
 * cpl_yedit; nodes are borrowed until cpl_yedit_free().  Insertions are
 * owned by their struct cpl_yedit_out (cpl_yedit_out_free).
 *
 * May include: util.h and the text wing's own headers.
 */
#ifndef CPL_TEXT_YAMLEDIT_H
#define CPL_TEXT_YAMLEDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct cpl_yedit;		/* opaque: one parsed source */
struct cpl_yenode;		/* opaque: one node of it */

/* What to insert: a scalar, a sequence of values or a mapping. */
enum cpl_yvkind {
	CPL_YV_SCALAR,
	CPL_YV_SEQ,
	CPL_YV_MAP,
};

/*
 * A value to insert.  In a mapping each kid carries its key.  A scalar is
 * written plain unless quote is set (a string that must stay a string,
 * such as an env value "2"); JSON quotes every scalar.  All borrowed: a
 * caller builds the tree from arrays on its stack.
 */
struct cpl_yval {
	enum cpl_yvkind kind;
	const char *key;		/* in a mapping; NULL otherwise */
	const char *text;		/* scalars */
	bool quote;
	const struct cpl_yval *kids;	/* sequence items or mapping pairs */
	size_t nkids;
};

/* One insertion: text goes before the byte at offset (line:column). */
struct cpl_yedit_ins {
	size_t offset;
	int line;			/* 1-based */
	int column;			/* 1-based, in bytes */
	char *text;
};

/* The insertions merges produced, in the order made. */
struct cpl_yedit_out {
	struct cpl_yedit_ins *v;
	size_t n, cap;
};

/* Parses buf (copied).  -1 with err set when it is not YAML. */
int cpl_yedit_open(struct cpl_yedit **out, const char *path, const char *buf,
		   size_t len, struct cpl_error *err);
void cpl_yedit_free(struct cpl_yedit *ed);	/* NULL-safe */

/* The node that starts at line:column (libyaml's), preferring a mapping
 * there, in any document; NULL when none does. */
const struct cpl_yenode *cpl_yedit_find(const struct cpl_yedit *ed,
					int line, int column);
/* The collection that holds n (for a mapping value: the mapping); NULL
 * for a document root. */
const struct cpl_yenode *cpl_yedit_parent(const struct cpl_yenode *n);
/* The key under which n is a value of its parent mapping, or NULL. */
const char *cpl_yedit_key_of(const struct cpl_yenode *n);
/* The value for key in mapping map, or NULL. */
const struct cpl_yenode *cpl_yedit_get(const struct cpl_yenode *map,
				       const char *key);
bool cpl_yedit_is_map(const struct cpl_yenode *n);
bool cpl_yedit_is_seq(const struct cpl_yenode *n);
/* Items of a sequence (0 for anything else) and item i of one. */
size_t cpl_yedit_count(const struct cpl_yenode *seq);
const struct cpl_yenode *cpl_yedit_item(const struct cpl_yenode *seq,
					size_t i);
/* A scalar's text; NULL for collections and aliases. */
const char *cpl_yedit_str(const struct cpl_yenode *n);
/* The byte offset just after n's content (a block scalar's takes in its
 * last line end); 0 for NULL. */
size_t cpl_yedit_end(const struct cpl_yenode *n);
/* The innermost node whose text holds byte offset off, or NULL. */
const struct cpl_yenode *cpl_yedit_at(const struct cpl_yedit *ed,
				      size_t off);
/* The anchor of n or of the nearest collection holding it that an alias
 * reads (an edit there would change the alias's reader too), or NULL. */
const char *cpl_yedit_shared(const struct cpl_yenode *n);

/*
 * Adds the pairs of val (a CPL_YV_MAP) to mapping map as described above,
 * appending the insertions to *out; insertions that fall on the same
 * offset are joined in the order made, so merge inner mappings first.
 * Returns -1 (and adds nothing) when a key of val exists with another
 * shape (a scalar where a mapping is wanted, a null value) or a block
 * list's first item does not open its line.
 */
int cpl_yedit_merge(const struct cpl_yedit *ed, const struct cpl_yenode *map,
		    const struct cpl_yval *val, struct cpl_yedit_out *out);

void cpl_yedit_out_free(struct cpl_yedit_out *out);	/* members */

#endif
