/*
 * gotmpl_int.h — what the three files of the template evaluator share:
 * the parsed template (gotmpl.c parses; it also holds the pool), the
 * values it runs over (gotmpl_eval.c evaluates) and YAML scalars and
 * toYaml as Helm reads and writes them (gotmpl_yaml.c).  Calls run
 * eval → yaml → gotmpl.c, never back.  Only those files include it.
 *
 * Everything here is allocated through the cpl_gotmpl's pool and freed
 * with it: nothing is freed one by one.
 */
#ifndef CPL_GOTMPL_INT_H
#define CPL_GOTMPL_INT_H

#include "text/gotmpl.h"

/* A value: YAML values as Helm reads them, and what functions return. */
enum gv_kind {
	GV_NIL,
	GV_STR,
	GV_INT,		/* s: its decimal text */
	GV_FLOAT,	/* s: its shortest text, as Go prints it */
	GV_BOOL,	/* b */
	GV_MAP,		/* keys[i] → vals[i], insertion order */
	GV_SEQ,		/* vals */
	GV_ODD,		/* a YAML scalar Helm reads in a way not modelled
			 * (0x1F, 1e3, a timestamp): outside the subset */
	GV_FILES,	/* the root's .Files */
};

/* Where each line of a string came from in a values file. */
struct gorigin {
	const char *file;
	int line;
};

struct gval {
	enum gv_kind kind;
	bool b;
	int gokind;		/* GV_INT's Go type: 0 float64 (values
				 * files), 1 int (template literals, len,
				 * int), 2 int64 (--set, arithmetic) */
	const char *s;
	size_t len;
	const char **keys;
	struct gval **vals;
	size_t n, cap;
	struct cpl_strmap *index;	/* GV_MAP past a few keys: key →
					 * position + 1 (owned by the
					 * cpl_gotmpl's list) */
	const char *file;	/* the values file it was read from */
	int line;
	const struct gorigin *lines;	/* GV_STR: per line, or NULL */
	size_t nlines;
	/* GV_STR made by include: the template place of each line (file
	 * NULL: none), so that its text maps to the helper's lines */
	const struct cpl_gotmpl_line *tlines;
	size_t ntlines;
};

/* One parsed piece of a template. */
enum nkind {
	N_TEXT,
	N_ACTION,	/* a pipeline printed (or only assigned) */
	N_IF,
	N_WITH,
	N_RANGE,
	N_TEMPLATE,	/* {{ template "name" pipe }} */
};

enum akind {
	A_DOT,		/* . */
	A_FIELD,	/* .a.b */
	A_VAR,		/* $x.a.b ($ alone: name "") */
	A_STR,
	A_NUM,
	A_BOOL,
	A_NIL,
	A_IDENT,	/* a function */
	A_PIPE,		/* ( pipe ) */
};

struct pipe;

struct arg {
	enum akind kind;
	const char *name;	/* A_VAR, A_STR, A_NUM, A_IDENT; A_BOOL:
				 * "true"/"false" */
	const char **fields;
	size_t nfields;
	struct pipe *sub;
	int line, column;
};

struct cmd {
	struct arg *args;
	size_t n;
};

struct pipe {
	const char *vars[2];
	int nvars;
	int assign;		/* 0 none, 1 :=, 2 = */
	struct cmd *cmds;
	size_t n;
	int line, column;
};

struct node;

struct nlist {
	struct node **v;
	size_t n, cap;
};

struct node {
	enum nkind kind;
	const char *file;
	int line, column;	/* of the text's first byte, or the action */
	const char *text;	/* N_TEXT */
	size_t len;
	struct pipe *pipe;
	struct nlist body, alt;	/* alt: the else branch */
	const char *name;	/* N_TEMPLATE */
};

/* A parsed template file or define. */
struct gtfile {
	const char *path;
	struct nlist list;
};

struct cpl_gotmpl {
	void **pool;		/* every allocation, freed together */
	size_t npool, pool_cap;
	struct gval *values, *release, *chart, *root;
	struct cpl_strmap files;	/* path → struct gtfile */
	struct cpl_strmap defines;	/* name → struct nlist */
	cpl_gotmpl_files_fn files_fn;
	void *files_ctx;
	struct cpl_strmap **indexes;	/* of large maps, freed with g */
	size_t nindexes, indexes_cap;
};

/* Pool allocation (zeroed) and copies. */
/* Values from the pool (gotmpl.c): an empty one of kind k, a copy of
 * s[0, len) as a string, a bool; freed with g. */
struct gval *cpl_gotmpl_val_new(struct cpl_gotmpl *g, enum gv_kind k);
struct gval *cpl_gotmpl_val_str(struct cpl_gotmpl *g, const char *s, size_t len);
struct gval *cpl_gotmpl_val_bool(struct cpl_gotmpl *g, bool b);
void *cpl_gotmpl_alloc(struct cpl_gotmpl *g, size_t n);
const char *cpl_gotmpl_strndup(struct cpl_gotmpl *g, const char *s,
			       size_t n);
void cpl_gotmpl_grow(struct cpl_gotmpl *g, void **p, size_t *cap,
		     size_t need, size_t elem);
/* Parses a template's text into list (gotmpl.c): 0, -1 (syntax, err),
 * 1 (outside the subset, err). */
int cpl_gotmpl_parse(struct cpl_gotmpl *g, const char *path,
		     const char *text, size_t len, struct nlist *list,
		     struct cpl_error *err);

/* A plain YAML scalar as Helm reads it (go-yaml v2's YAML 1.1, then
 * JSON): nil, bool, int, float, string, or GV_ODD (gotmpl_yaml.c). */
struct gval *cpl_gotmpl_resolve(struct cpl_gotmpl *g, const char *s,
				size_t len);
/* toYaml as Helm writes it (gotmpl_yaml.c): v's YAML appended to out
 * without the final newline, with the values-file origin of each line
 * it starts in *origins (pool memory).  0, or 1 with *why when the tool
 * cannot write it exactly as Helm would. */
int cpl_gotmpl_yaml(struct cpl_gotmpl *g, const struct gval *v,
		    struct cpl_buf *out, struct gorigin **origins,
		    size_t *norigins, const char **why);

/* Compares two scalars as text/template does (gotmpl_func.c): *cmp
 * -1, 0, 1, or 2 for equal-comparable but unordered (bools, nil).  -1
 * with *why where Helm fails too (a float64 against an int), 1 where the
 * subset does not model it. */
int cpl_gotmpl_compare(const struct gval *a, const struct gval *b,
		       int *cmp, const char **why);
/* The value functions (gotmpl_func.c): 0 with *out, -1 an error of the
 * template (*why), 1 outside the subset (*why), 2 not one of them. */
int cpl_gotmpl_func(struct cpl_gotmpl *g, const char *name,
		    struct gval **args, size_t n, struct gval **out,
		    const char **why);

#endif
