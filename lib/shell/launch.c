/*
 * launch.c — releasing a struct cpl_launch (launch.h).
 */
#include "shell/launch.h"

#include <stdlib.h>
#include <string.h>

void
cpl_launch_clear(struct cpl_launch *l)
{
	size_t i;

	free(l->launcher_word.text);
	free(l->nproc.text);
	free(l->script.text);
	cpl_words_free(l->args, l->nargs);
	cpl_envs_free(l->exports, l->nexports);
	for (i = 0; i < l->nhostcounts; i++) {
		free(l->hostcounts[i].expr.text);
		free(l->hostcounts[i].sizes);
	}
	free(l->hostcounts);
	memset(l, 0, sizeof(*l));
}
