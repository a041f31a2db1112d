/*
 * pos.c — copying and freeing the positioned text of pos.h.
 */
#include "text/pos.h"

#include <stdlib.h>

#include "util.h"

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

struct cpl_env *
cpl_envs_dup(const struct cpl_env *v, size_t n)
{
	struct cpl_env *d;
	size_t i;

	if (n == 0)
		return NULL;
	d = cpl_xcalloc(n, sizeof(*d));
	for (i = 0; i < n; i++) {
		d[i].name = cpl_xstrdup(v[i].name);
		d[i].value = cpl_xstrdup(v[i].value);
		d[i].pos = v[i].pos;
	}
	return d;
}
