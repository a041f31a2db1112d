/*
 * gotmpl.h — the common subset of Go templates (as Helm charts write
 * them) evaluated exactly, with where every output line came from.
 *
 * The subset: `.Values`/`.Release`/`.Chart` lookups (also through `$`
 * and range/with variables), `.Files.Get` of the chart's own files,
 * `if`/`else if`/`else`/`with`/`range` over values, `define`/`include`/
 * `template`, whitespace trimming `{{-`/`-}}`, comments, and the
 * functions default, quote, squote, toYaml, nindent, indent, printf
 * (%s %d %v), trunc, trimSuffix, trimPrefix, trim, replace, contains,
 * lower, upper, toString, not, and, or, eq, ne, empty, required, and the
 * value functions of gotmpl_func.c (comparisons, len, int, arithmetic,
 * split, dict, list, append, hasKey, kindIs, ternary, regexMatch, fail).
 * Anything else (another function, `tpl`, `lookup`, a value the tool
 * could not render exactly as Helm would) is "outside the subset": the
 * render says so and nothing is guessed.
 *
 * Ownership: a cpl_gotmpl owns every value, template text and output it
 * makes; cpl_gotmpl_free() frees them all.  Linear in the template text
 * and the values it renders (include depth and range are bounded).
 */
#ifndef CPL_GOTMPL_H
#define CPL_GOTMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct cpl_gotmpl;

/* Where one line of the output came from. */
struct cpl_gotmpl_line {
	const char *file;	/* the template file (borrowed from the
				 * cpl_gotmpl) */
	int line;		/* its first non-blank byte's place */
	int column;
	int out_column;		/* that byte's column in the output */
	bool literal;		/* the whole line is that template line's
				 * literal text */
	int literal_to;		/* else the output columns before this one
				 * are (0: none) */
	const char *vfile;	/* a values file the line's first value
				 * came from, or NULL */
	int vline;
};

/* The result of a render; owned by the cpl_gotmpl. */
struct cpl_gotmpl_out {
	const char *text;
	size_t len;
	const struct cpl_gotmpl_line *lines;	/* one per output line */
	size_t nlines;
};

struct cpl_gotmpl *cpl_gotmpl_new(void);
void cpl_gotmpl_free(struct cpl_gotmpl *g);	/* NULL-safe */

/* Merges a values file over the values so far (maps deeply, anything
 * else replaced).  -1 with err on a YAML error. */
int cpl_gotmpl_values(struct cpl_gotmpl *g, const char *path,
		      const char *text, size_t len, struct cpl_error *err);
/* Applies one `--set` K=V: dotted keys, V typed as Helm types it
 * (integer, true/false, null, else a string).  -1 with err when it is
 * not of that simple form (lists, escapes). */
int cpl_gotmpl_set(struct cpl_gotmpl *g, const char *kv,
		   struct cpl_error *err);
/* Sets a built-in object's field: ("Release", "Name", "x"). */
void cpl_gotmpl_builtin(struct cpl_gotmpl *g, const char *obj,
			const char *key, const char *value);
/* The reader of `.Files.Get NAME` (NAME relative to the chart): 0 with
 * *text (caller of the hook allocates, g frees) or -1 when absent. */
typedef int (*cpl_gotmpl_files_fn)(void *ctx, const char *name,
				   char **text, size_t *len);
void cpl_gotmpl_files(struct cpl_gotmpl *g, cpl_gotmpl_files_fn fn,
		      void *ctx);

/* Parses a template file (its defines become known to every render).
 * -1 with err at the file, line and column of a syntax error; 1 with
 * err naming what lies outside the subset. */
int cpl_gotmpl_add(struct cpl_gotmpl *g, const char *path, const char *text,
		   size_t len, struct cpl_error *err);
/* Renders the file added as path with the root context.  0: *out is
 * set; -1: an error of the template (err: file, line, column); 1:
 * outside the subset (err says what and where). */
int cpl_gotmpl_render(struct cpl_gotmpl *g, const char *path,
		      struct cpl_gotmpl_out *out, struct cpl_error *err);

#endif
