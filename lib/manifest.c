/* manifest.c — STUB until the manifest loader lands (see loader.h). */
#include "loader.h"

bool
cpl_manifest_detect(const struct cpl_ynode *doc)
{
	return cpl_ynode_get(doc, "apiVersion") && cpl_ynode_get(doc, "kind");
}

int
cpl_manifest_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		  const struct cpl_ynode *doc, const char *path,
		  struct cpl_error *err)
{
	(void)out; (void)s; (void)doc; (void)path; (void)err;
	return 0;
}

int
cpl_manifest_container(struct cpl_container *c, const struct cpl_ystream *s,
		       const struct cpl_ynode *node,
		       const struct cpl_ynode *volumes, const char *path,
		       const struct cpl_expand *ex, struct cpl_error *err)
{
	(void)c; (void)s; (void)node; (void)volumes; (void)path; (void)ex;
	(void)err;
	return 0;
}
