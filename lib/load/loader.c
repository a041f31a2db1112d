/*
 * loader.c — the small helpers both YAML loaders (manifest.c, polyaxon.c)
 * share: errors at a node, node positions, absent-or-null.
 */
#include "load/loader.h"

#include <stdarg.h>
#include <stdlib.h>

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
