/*
 * fixedit.h — edits that add what a fix asks for to the workload's source:
 * env variables, the memory-backed /dev/shm volume and its mount, CPU
 * requests and limits; and the replacements of a value already written
 * (a YAML scalar, a count, a call's arguments).  Rules call these after
 * cpl_check_report(); each adds its edits to the finding (or nothing,
 * when the container's mapping or the value cannot be found in the
 * source, or a key already holds something else), following the
 * source's own style (text/yamledit.h).  Columns handed in count code
 * points, as the readers do; edits carry byte columns.  Defined in
 * fixedit.c, and fixcode.c for the Python edit.
 */
#ifndef CPL_FIXEDIT_H
#define CPL_FIXEDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/finding.h"
#include "model/workload.h"

struct cpl_check;
struct source;

/* Adds env variables names[0..n) = value (a string) to container c: to
 * the Polyaxonfile's simplified env when it has one, else to the
 * container's env (created when missing). */
void cpl_check_insert_env(struct cpl_check *ck, struct cpl_finding *f,
			  const struct cpl_container *c,
			  const char *const *names, size_t n,
			  const char *value);

/* Adds the volume {name: dshm, emptyDir: {medium: Memory, sizeLimit:
 * size}} beside the containers and the mount at /dev/shm to c; nothing
 * when a volume dshm or a mount at /dev/shm is already there. */
void cpl_check_insert_shm(struct cpl_check *ck, struct cpl_finding *f,
			  const struct cpl_container *c, const char *size);

/* Adds resources.requests.cpu and resources.limits.cpu (either NULL: not
 * that one) to container c, whose CPU fields are absent. */
void cpl_check_insert_cpu(struct cpl_check *ck, struct cpl_finding *f,
			  const struct cpl_container *c, const char *request,
			  const char *limit);

/* Adds the limit beside the request written at c->request_pos
 * (requests: {cpu} → limits: {cpu}; cpu: {requests} → limits; a
 * Polyaxon range "R.." → "R..limit"). */
void cpl_check_insert_limit(struct cpl_check *ck, struct cpl_finding *f,
			    const struct cpl_container *c, const char *limit);

/* Replaces the count from, written at pos or later on its line (a
 * digit run standing alone: "8", --workers=8, num_workers=8), with to;
 * false (no edit) when the first such number there is not from. */
bool cpl_check_replace_count(struct cpl_check *ck, struct cpl_finding *f,
			     const struct cpl_pos *pos, long from, long to);

/* A Polyaxon input or param that a template {{ NAME }} reads. */
struct cpl_tinput {
	char name[64];
	struct cpl_pos at;	/* where its value is written (columns in
				 * code points, as readers count them) */
	size_t start, end;	/* the value's digits, bytes of the source */
	long value;
};

/* The input or param of the same document (params over inputs, an
 * operation's inline component's inputs too) that the first {{ NAME }}
 * (inputs.NAME, params.NAME, .value) written at pos or later on its line
 * reads, when its value is written as a plain count; false otherwise. */
bool cpl_check_template_input(struct cpl_check *ck,
			      const struct cpl_pos *pos,
			      struct cpl_tinput *out);

/* Replaces in's value with to; false (no edit) when an alias shares it. */
bool cpl_check_replace_input(struct cpl_check *ck, struct cpl_finding *f,
			     const struct cpl_tinput *in, long to);

/* Replaces an env variable's count from, written at pos, with to: a
 * YAML scalar that is only the number becomes "to" (as CPU202 writes
 * it), else as cpl_check_replace_count. */
bool cpl_check_replace_env_count(struct cpl_check *ck,
				 struct cpl_finding *f,
				 const struct cpl_pos *pos, long from,
				 long to);

/* Replaces the arguments of the call whose name starts at pos (Python:
 * torch.set_num_threads(...)) with text; false when not found. */
bool cpl_check_replace_args(struct cpl_check *ck, struct cpl_finding *f,
			    const struct cpl_pos *pos, const char *text);

/* CPU301's edit (fixcode.c): the CPU count call [call, end) of a Python
 * file becomes cpu_quota(), and the helper defining it is added after
 * the file's docstring and imports (the same insertion for every finding
 * of the file); nothing when the file uses the name otherwise. */
void cpl_check_cpu_quota_fix(struct cpl_check *ck, struct cpl_finding *f,
			     const struct cpl_pos *call,
			     const struct cpl_pos *end);

/* Drops f's edits past the first keep: a fix applies whole or not at
 * all. */
void cpl_finding_drop_edits(struct cpl_finding *f, size_t keep);

/* Byte offset of 1-based line:column (column in code points, as every
 * reader counts) in src, or -1; indexes src's lines on first use. */
long cpl_fixedit_offset(const struct source *src, int line, int column);
/* The 1-based line and byte column of byte offset off of src. */
struct cpl_pos cpl_fixedit_pos(const struct source *src, const char *file,
			       size_t off);

/* Sets the annotation key = value (a string with no quote or backslash)
 * on w's own metadata (a Polyaxon run's or replica's environment):
 * replaces the value written at at (when at names one) or adds it, with
 * metadata (environment) and annotations when missing.  Nothing when
 * that mapping cannot be found. */
void cpl_check_set_annotation(struct cpl_check *ck, struct cpl_finding *f,
			      const struct cpl_workload *w, const char *key,
			      const char *value, const struct cpl_pos *at);

#endif
