/*
 * loader.c — the small helpers the YAML loaders share: errors at a node,
 * node positions, absent-or-null, skipped objects, counts, whether a Pod
 * runs to completion.
 */
#include "load/loader.h"
#include "text/lines.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int
cpl_loader_fail(struct cpl_error *err, const char *path,
		const struct cpl_ynode *n, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	cpl_error_set(err, path, n ? n->line : 0, n ? n->column : 0, "%s",
		      msg);
	free(msg);
	return -1;
}

struct cpl_pos
cpl_loader_pos(const char *file, const struct cpl_ynode *n)
{
	struct cpl_pos p = { file, n ? n->line : 0, n ? n->column : 0 };

	return p;
}

bool
cpl_loader_absent(const struct cpl_ynode *n)
{
	return n == NULL || cpl_ynode_is_null(n);
}

int
cpl_loader_finish(struct cpl_wlist *out, struct cpl_workload *w, int rc)
{
	if (rc < 0)
		cpl_workload_free(w);
	else
		cpl_wlist_add(out, w);
	return rc;
}

void
cpl_loader_skip(const struct cpl_lctx *x, const struct cpl_ynode *obj,
		const char *kind, const char *why, bool containers)
{
	const struct cpl_ynode *md = cpl_ynode_get(obj, "metadata");
	const char *name = cpl_ynode_gets(md, "name");
	struct cpl_skip *k;

	if (name == NULL)
		name = cpl_ynode_gets(md, "generateName");

	if (name)
		k = cpl_wlist_skip(x->out, x->path, obj->line, obj->column, why,
				   "%s \"%s\"", kind, name);
	else
		k = cpl_wlist_skip(x->out, x->path, obj->line, obj->column, why,
				   "%s", kind);
	k->kind = cpl_xstrdup(kind);
	k->containers = containers;
}

/* Somewhere under n (depth levels down at most) is a containers list. */
static bool
holds(const struct cpl_ynode *n, int depth)
{
	size_t i;

	if (n == NULL || depth > 10)
		return false;
	if (n->kind == CPL_Y_SEQ) {
		for (i = 0; i < n->count; i++)
			if (holds(n->items[i], depth + 1))
				return true;
		return false;
	}
	if (n->kind != CPL_Y_MAP)
		return false;
	for (i = 0; i < n->count; i++) {
		const char *k = cpl_ynode_str(n->pairs[i].key);
		const struct cpl_ynode *v = n->pairs[i].value;

		if (cpl_str_eq(k, "containers") && cpl_ynode_is_seq(v))
			return true;
		/* Only a map or a list can hold one (a scalar is most
		 * values: no call for it). */
		if (v != NULL &&
		    (v->kind == CPL_Y_MAP || v->kind == CPL_Y_SEQ) &&
		    !cpl_str_eq(k, "status") && holds(v, depth + 1))
			return true;
	}
	return false;
}

bool
cpl_loader_holds_containers(const struct cpl_ynode *n)
{
	return holds(n, 0);
}

long
cpl_loader_long(const struct cpl_ynode *map, const char *key, long def)
{
	long v;

	return cpl_ynode_long(cpl_ynode_get(map, key), &v) == 0 ? v : def;
}

/* An owner that runs to completion: a Job, CronJob, JobSet or any
 * operator's *Job (PyTorchJob, MPIJob, TrainJob, RayJob ...). */
static bool
owned_by_job(const struct cpl_ynode *obj)
{
	const struct cpl_ynode *refs = cpl_ynode_path(obj, "metadata",
						      "ownerReferences",
						      NULL);
	size_t i;

	if (!cpl_ynode_is_seq(refs))
		return false;
	for (i = 0; i < refs->count; i++) {
		const char *k = cpl_ynode_gets(refs->items[i], "kind");

		if (k && (cpl_str_ends(k, "Job") ||
			  strcmp(k, "JobSet") == 0))
			return true;
	}
	return false;
}

bool
cpl_loader_pod_completes(const struct cpl_ynode *obj,
			 const struct cpl_ynode *spec)
{
	const char *rp = cpl_ynode_gets(spec, "restartPolicy");

	return cpl_str_eq(rp, "Never") || cpl_str_eq(rp, "OnFailure") ||
	       owned_by_job(obj);
}

/* Whether the n bytes at p are blanks only. */
static bool
blank(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t')
			return false;
	return true;
}

const char *
cpl_loader_block_start(struct cpl_yplace *at, const struct cpl_ystream *s,
		       const struct cpl_ynode *n)
{
	size_t len;
	const char *src = cpl_ystream_source(s, &len), *end = src + len;
	const char *p;
	int line = 1;

	if (n->style != CPL_YS_LITERAL)
		return NULL;
	/* The line after the indicator's, from the node's offset: not
	 * counted from the file's start for each block (quadratic in a
	 * file of many).  Counted only when the offset is not that. */
	if (n->offset < len && (p = memchr(src + n->offset, '\n',
					   len - n->offset)) != NULL &&
	    cpl_loader_block_from(at, p + 1, end, n))
		return p + 1;
	p = src;
	while (line < n->line + 1 && p < end) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (p == NULL)
			return NULL;
		p++;
		line++;
	}
	return cpl_loader_block_from(at, p, end, n) ? p : NULL;
}

bool
cpl_loader_block_place(struct cpl_yplace *at, const struct cpl_ystream *s,
		       const struct cpl_ynode *n)
{
	return cpl_loader_block_start(at, s, n) != NULL;
}

bool
cpl_loader_block_from(struct cpl_yplace *at, const char *p, const char *end,
		      const struct cpl_ynode *n)
{
	const char *v = n->value, *vend = n->value + n->len;
	long indent = -1;
	size_t i;

	while (v < vend) {
		size_t sl, vl;

		if (p >= end)
			return false;
		sl = cpl_lines_len(p, end);
		vl = cpl_lines_len(v, vend);
		if (vl == 0) {
			if (!blank(p, sl))
				return false;
		} else {
			if (sl < vl || memcmp(p + sl - vl, v, vl) != 0 ||
			    !blank(p, sl - vl))
				return false;
			if (indent < 0)
				indent = (long)(sl - vl);
			else if ((long)(sl - vl) != indent)
				return false;
			for (i = 0; i < sl - vl; i++)
				if (p[i] != ' ')
					return false;
		}
		v = memchr(v, '\n', (size_t)(vend - v));
		v = v ? v + 1 : vend;
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
	at->line = n->line + 1;
	at->column = (int)(indent < 0 ? 0 : indent) + 1;
	at->pinned = false;
	return true;
}

bool
cpl_manifest_detect(const struct cpl_ynode *doc)
{
	return cpl_ynode_is_map(doc) &&
	       cpl_ynode_is_scalar(cpl_ynode_get(doc, "apiVersion")) &&
	       cpl_ynode_is_scalar(cpl_ynode_get(doc, "kind"));
}
