/*
 * yamldoc.h — a read-only YAML (and JSON) node tree with positions.
 *
 * cpl_yaml_parse() turns a buffer into a stream of documents.  Every node
 * keeps the 1-based line and column where it starts.  Aliases are resolved
 * by reference: an alias is the anchored node itself, never a copy, so the
 * tree is a DAG (an alias inside the node it names is an error: no cycle).  Merge keys (<<) are expanded once, when their mapping
 * ends, so a mapping's pairs already hold the merged keys (own keys first,
 * then each source's in order; "<<" itself is gone).  A key written twice
 * keeps its last value and leaves a warning.  Depth, node count and merge
 * work are capped so hostile input fails cleanly.
 *
 * Ownership: the stream owns every node and string (two arenas); all
 * pointers are borrowed until cpl_ystream_free().  The stream also keeps a
 * copy of the source text for positions inside scalars.
 */
#ifndef CPL_YAMLDOC_H
#define CPL_YAMLDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define CPL_YAML_MAX_DEPTH 200
#define CPL_YAML_MAX_NODES 2000000
/* Merge-key (<<) entries examined per stream: a merge bomb fails here. */
#define CPL_YAML_MAX_MERGE_WORK 4000000
/* Warnings kept per stream; later ones are only counted. */
#define CPL_YAML_MAX_WARNINGS 100

enum cpl_ykind {
	CPL_Y_SCALAR,
	CPL_Y_SEQ,
	CPL_Y_MAP,
};

/* How a scalar was written; plain scalars may be numbers, bools, null. */
enum cpl_ystyle {
	CPL_YS_PLAIN,
	CPL_YS_SINGLE,
	CPL_YS_DOUBLE,
	CPL_YS_LITERAL,		/* | */
	CPL_YS_FOLDED,		/* > */
};

struct cpl_ynode;

/* One key/value pair of a mapping, in document order. */
struct cpl_ypair {
	struct cpl_ynode *key;
	struct cpl_ynode *value;
};

/* A node.  For scalars, value is NUL-terminated and len excludes the NUL.
 * 64 bytes: a large file is millions of them. */
struct cpl_ynode {
	enum cpl_ykind kind : 8;
	enum cpl_ystyle style : 8;	/* scalars only */
	int line;		/* 1-based */
	int column;		/* 1-based */
	uint32_t offset;	/* byte offset of the node in the source (a
				 * text past 4 GiB is refused) */
	const char *tag;	/* explicit tag or NULL */
	const char *value;	/* scalars */
	size_t len;
	struct cpl_ynode **items;	/* sequences: count items */
	struct cpl_ypair *pairs;	/* mappings: count pairs */
	size_t count;
};

struct cpl_ystream;

/*
 * Parses buf (len bytes; need not be NUL-terminated).  path is used in
 * error messages only.  On a syntax error returns -1 with err naming the
 * line and column; documents parsed before the error are discarded.
 */
int cpl_yaml_parse(struct cpl_ystream **out, const char *path,
		   const char *buf, size_t len, struct cpl_error *err);
/*
 * Where a text parsed by cpl_yaml_parse_at() stands in another file: a
 * YAML document held in a string of that file (an Argo resource
 * template's manifest).  A literal block's lines are the file's lines, its
 * indentation stripped: line 1 of the text is the file's line `line` and
 * every column moves right by column - 1.  A quoted string's lines do not
 * map: pinned puts every node at line:column (the string's own place).
 */
struct cpl_yplace {
	int line;
	int column;
	bool pinned;
};
/* As cpl_yaml_parse(), with every node placed by at (positions inside
 * scalars too: cpl_ynode_offset_pos()); errors keep the text's own
 * positions. */
int cpl_yaml_parse_at(struct cpl_ystream **out, const char *path,
		      const char *buf, size_t len,
		      const struct cpl_yplace *at, struct cpl_error *err);
void cpl_ystream_free(struct cpl_ystream *s);	/* NULL-safe */

size_t cpl_ystream_count(const struct cpl_ystream *s);
/* Root of document i; an empty document (or one of comments only) is a
 * null plain scalar (cpl_ynode_is_null), as libyaml reports it. */
const struct cpl_ynode *cpl_ystream_doc(const struct cpl_ystream *s,
					size_t i);
/* Problems that do not stop the parse (duplicate keys), in order; *dropped
 * (may be NULL) counts those past CPL_YAML_MAX_WARNINGS.  Borrowed. */
const struct cpl_error *cpl_ystream_warnings(const struct cpl_ystream *s,
					     size_t *n, size_t *dropped);
/* The source text the stream was parsed from (NUL-terminated). */
const char *cpl_ystream_source(const struct cpl_ystream *s, size_t *len);

/* Value for key in a mapping (merge keys followed); NULL if absent. */
const struct cpl_ynode *cpl_ynode_get(const struct cpl_ynode *map,
				      const char *key);
/* Key node for key (for positions); NULL if absent. */
const struct cpl_ynode *cpl_ynode_key(const struct cpl_ynode *map,
				      const char *key);
/* Walks a path of keys: cpl_ynode_path(n, "spec", "template", NULL). */
const struct cpl_ynode *cpl_ynode_path(const struct cpl_ynode *n, ...)
	__attribute__((sentinel));
/* The scalar text, or NULL for non-scalars and null-valued plain scalars. */
const char *cpl_ynode_str(const struct cpl_ynode *n);
/* The scalar for key, as cpl_ynode_str(cpl_ynode_get(map, key)). */
const char *cpl_ynode_gets(const struct cpl_ynode *map, const char *key);
bool cpl_ynode_is_map(const struct cpl_ynode *n);
bool cpl_ynode_is_seq(const struct cpl_ynode *n);
bool cpl_ynode_is_scalar(const struct cpl_ynode *n);
/* A plain scalar spelling null: "", "~", "null", "Null", "NULL". */
bool cpl_ynode_is_null(const struct cpl_ynode *n);
/* Plain true/false (YAML 1.1 and 1.2 spellings); -1 when not a bool. */
int cpl_ynode_bool(const struct cpl_ynode *n);
/* Integer scalar into *out; -1 when not an integer. */
int cpl_ynode_long(const struct cpl_ynode *n, long *out);

/*
 * Position of byte offset off inside scalar n's value, mapped back to the
 * source: exact for plain and quoted single-line scalars without escapes and
 * for literal blocks; otherwise the scalar's own position.
 */
void cpl_ynode_offset_pos(const struct cpl_ystream *s,
			  const struct cpl_ynode *n, size_t off, int *line,
			  int *column);

#endif
