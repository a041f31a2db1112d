/*
 * pos.c — freeing the positioned text of pos.h.
 */
#include "text/pos.h"

#include <stdlib.h>

void
cpl_words_free(struct cpl_word *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

void
cpl_envs_free(struct cpl_env *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].value);
	}
	free(v);
}
