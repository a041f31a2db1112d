/*
 * loader.h — the interface shared by the YAML sources (Polyaxonfiles and
 * Kubernetes manifests): how a parsed document becomes workloads.
 *
 * Each loader exports a detect function (cheap: looks at top-level keys)
 * and a load function that appends workloads to a list.  A load function
 * returns 0 when the document was loaded or deliberately skipped (a kind
 * that has no containers), and -1 with err set (path, line, column of the
 * offending node) when the document is not valid; workloads appended
 * before an error stay in the list.
 */
#ifndef CPL_LOADER_H
#define CPL_LOADER_H

#include "util.h"
#include "workload.h"
#include "text/yamldoc.h"

/*
 * Template expansion hook used while reading a container: returns a newly
 * allocated expansion of text, and sets *unknown when some part could not
 * be resolved (the caller then treats the value as unknown).  NULL hook:
 * text is taken literally.
 */
struct cpl_expand {
	char *(*expand)(void *ctx, const char *text, bool *unknown);
	void *ctx;
};

/* Helpers both loaders use. */

/* Sets err at node n (no position when n is NULL) and returns -1. */
int cpl_loader_fail(struct cpl_error *err, const char *path,
		    const struct cpl_ynode *n, const char *fmt, ...)
	CPL_PRINTF(4, 5);
/* The position of node n in file (0:0 when n is NULL). */
struct cpl_pos cpl_loader_pos(const char *file, const struct cpl_ynode *n);
/* Absent, or written as null: both mean "not given". */
bool cpl_loader_absent(const struct cpl_ynode *n);

/* The document is a Kubernetes object (apiVersion and kind). */
bool cpl_manifest_detect(const struct cpl_ynode *doc);
int cpl_manifest_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		      const struct cpl_ynode *doc, const char *path,
		      struct cpl_error *err);

/*
 * Reads one Kubernetes container mapping into c (name, image, command and
 * args, env, resources, GPUs, then cpl_shscan for c->launch).  volumes is
 * the Pod spec's volumes sequence (or NULL), for the /dev/shm check.  Used
 * by both loaders.  -1 with err on an invalid field (a bad CPU quantity).
 */
int cpl_manifest_container(struct cpl_container *c,
			   const struct cpl_ystream *s,
			   const struct cpl_ynode *node,
			   const struct cpl_ynode *volumes, const char *path,
			   const struct cpl_expand *ex, struct cpl_error *err);

/* The document is a Polyaxonfile (version and kind component, operation,
 * experiment, group, job). */
bool cpl_polyaxon_detect(const struct cpl_ynode *doc);
int cpl_polyaxon_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		      const struct cpl_ynode *doc, const char *path,
		      struct cpl_error *err);

#endif
