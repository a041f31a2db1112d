/* polyaxon.c — STUB until the Polyaxon loader lands (see loader.h). */
#include "loader.h"

bool
cpl_polyaxon_detect(const struct cpl_ynode *doc)
{
	return cpl_ynode_get(doc, "version") && cpl_ynode_get(doc, "kind");
}

int
cpl_polyaxon_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		  const struct cpl_ynode *doc, const char *path,
		  struct cpl_error *err)
{
	(void)out; (void)s; (void)doc; (void)path; (void)err;
	return 0;
}
