/* shscan.c — STUB until the shscan module lands (see shscan.h). */
#include "shscan.h"

#include <string.h>

void
cpl_shscan(struct cpl_launch *out, const struct cpl_word *argv, size_t argc,
	   const struct cpl_ynode *const *nodes, const struct cpl_ystream *s)
{
	(void)argv; (void)argc; (void)nodes; (void)s;
	memset(out, 0, sizeof(*out));
}

const char *
cpl_launcher_name(enum cpl_launcher l)
{
	(void)l;
	return "?";
}
