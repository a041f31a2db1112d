/*
 * fix_int.h — what the files of fix/ share while they resolve a fix's
 * requests (model/fixreq.h) into edits: the texts being edited, each
 * parsed for edits at most once (struct cpl_fixsrc), and the edits of
 * each kind of request (fixedit.c, fixcode.c, split.c), which
 * resolve.c calls.  Included only inside fix/.
 *
 * Ownership: a struct cpl_fixres owns its sources, their line indexes,
 * parses and memos; texts are borrowed from the caller's text function
 * for as long as the resolver holds them (cpl_fixres_forget()).  Edits go
 * onto the finding handed in, which owns them.
 */
#ifndef CPL_FIX_INT_H
#define CPL_FIX_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "fix/resolve.h"
#include "model/finding.h"
#include "model/fixreq.h"
#include "model/workload.h"
#include "text/lines.h"

struct cpl_yedit;
struct cpl_tinput;

/* One text being edited. */
struct cpl_fixsrc {
	char *path;
	const char *text;		/* borrowed */
	size_t len;
	bool yaml;			/* YAML or JSON, else Python */
	struct cpl_lines lines;		/* where each line starts, lazily */
	struct cpl_yedit *yedit;	/* parsed for edits, lazily */
	bool yedit_tried;
	int quota_helper;		/* CPU301 (fixcode.c): 0 not looked,
					 * 1 to add, 2 defined, 3 name taken */
	size_t quota_at;		/* with 1: where it goes */
};

struct cpl_fixres {
	struct cpl_fixtext t;
	struct cpl_fixsrc **v;
	size_t n, cap;
};

/* The text at path (indexed, parsed on demand), or NULL: not read. */
struct cpl_fixsrc *cpl_fixres_src(struct cpl_fixres *r, const char *path);
/* Its parse for edits, made on the first question; NULL for Python or
 * a text that does not parse. */
const struct cpl_yedit *cpl_fixres_yedit(struct cpl_fixres *r,
					 const char *path);

/* The requests' edits (fixreq.h says what each does); false when none
 * could be made. */
void cpl_fixres_env(struct cpl_fixres *r, struct cpl_finding *f,
		    const struct cpl_container *c, const char *const *names,
		    size_t n, const char *value);
void cpl_fixres_shm(struct cpl_fixres *r, struct cpl_finding *f,
		    const struct cpl_container *c, const char *size);
void cpl_fixres_cpu(struct cpl_fixres *r, struct cpl_finding *f,
		    const struct cpl_container *c, const char *request,
		    const char *limit);
void cpl_fixres_limit(struct cpl_fixres *r, struct cpl_finding *f,
		      const struct cpl_container *c, const char *limit);
void cpl_fixres_scalar(struct cpl_fixres *r, struct cpl_finding *f,
		       const struct cpl_pos *pos, const char *text);
bool cpl_fixres_count(struct cpl_fixres *r, struct cpl_finding *f,
		      const struct cpl_pos *pos, long from, long to);
bool cpl_fixres_env_count(struct cpl_fixres *r, struct cpl_finding *f,
			  const struct cpl_pos *pos, long from, long to);
bool cpl_fixres_args(struct cpl_fixres *r, struct cpl_finding *f,
		     const struct cpl_pos *pos, const char *text);
/* Replaces in's value (model/tinput.h) with to; false when an alias
 * shares it. */
bool cpl_fixres_input(struct cpl_fixres *r, struct cpl_finding *f,
		      const struct cpl_tinput *in, long to);
void cpl_fixres_cpu_quota(struct cpl_fixres *r, struct cpl_finding *f,
			  const struct cpl_pos *call,
			  const struct cpl_pos *end);
void cpl_fixres_annotation(struct cpl_fixres *r, struct cpl_finding *f,
			   const struct cpl_workload *w, const char *key,
			   const char *value, const struct cpl_pos *at);
/* The split of a SPLIT request q (split.c): whole or no edit. */
bool cpl_fixres_split(struct cpl_fixres *r, struct cpl_finding *f,
		      const struct cpl_fixreq *q);

/* Drops f's edits past the first keep: a fix applies whole or not at
 * all. */
void cpl_finding_drop_edits(struct cpl_finding *f, size_t keep);

/* Byte offset of 1-based line:column (column in code points) in src,
 * or -1; the 1-based line and byte column of byte offset off. */
long cpl_fixsrc_offset(struct cpl_fixsrc *src, int line, int column);
struct cpl_pos cpl_fixsrc_pos(struct cpl_fixsrc *src, const char *file,
			      size_t off);

#endif
