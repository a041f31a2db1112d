/*
 * workload.c — constructors and destructors of the workload model.
 * Nothing here interprets a workload; that is the rules' job.
 */
#include "workload.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct cpl_workload *
cpl_workload_new(enum cpl_source source, const char *file)
{
	struct cpl_workload *w = cpl_xcalloc(1, sizeof(*w));

	w->source = source;
	w->file = cpl_xstrdup(file);
	w->pos.file = w->file;
	w->replicas = 1;
	return w;
}

struct cpl_container *
cpl_workload_add_container(struct cpl_workload *w)
{
	struct cpl_container *c;

	w->containers = cpl_xrealloc(w->containers, (w->ncontainers + 1) *
				     sizeof(*w->containers));
	c = &w->containers[w->ncontainers++];
	memset(c, 0, sizeof(*c));
	c->cpu_request = CPL_CPU_ABSENT;
	c->cpu_limit = CPL_CPU_ABSENT;
	c->shm_bytes = -1;
	c->pos.file = w->file;
	return c;
}


void
cpl_workload_free(struct cpl_workload *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->ncontainers; i++) {
		struct cpl_container *c = &w->containers[i];

		free(c->name);
		free(c->image);
		cpl_words_free(c->argv, c->argc);
		cpl_envs_free(c->env, c->nenv);
		cpl_launch_clear(&c->launch);
		free(c->throttle_note);
	}
	free(w->containers);
	free(w->kind);
	free(w->name);
	free(w->namespace);
	free(w->replica);
	free(w->file);
	free(w->object);
	free(w->nproc.text);
	free(w);
}

void
cpl_container_add_arg(struct cpl_container *c, const char *text,
		      struct cpl_pos pos)
{
	c->argv = cpl_xrealloc(c->argv, (c->argc + 1) * sizeof(*c->argv));
	c->argv[c->argc].text = cpl_xstrdup(text);
	c->argv[c->argc].pos = pos;
	c->argc++;
}

void
cpl_container_set_env(struct cpl_container *c, const char *name,
		      const char *value, struct cpl_pos pos)
{
	size_t i;

	for (i = 0; i < c->nenv; i++) {
		if (strcmp(c->env[i].name, name) == 0) {
			free(c->env[i].value);
			c->env[i].value = cpl_xstrdup(value);
			c->env[i].pos = pos;
			return;
		}
	}
	c->env = cpl_xrealloc(c->env, (c->nenv + 1) * sizeof(*c->env));
	c->env[c->nenv].name = cpl_xstrdup(name);
	c->env[c->nenv].value = cpl_xstrdup(value);
	c->env[c->nenv].pos = pos;
	c->nenv++;
}

const struct cpl_env *
cpl_container_env(const struct cpl_container *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nenv; i++)
		if (strcmp(c->env[i].name, name) == 0)
			return &c->env[i];
	return NULL;
}

const struct cpl_env *
cpl_container_env_effective(const struct cpl_container *c, const char *name)
{
	size_t i;

	for (i = c->launch.nexports; i > 0; i--)
		if (strcmp(c->launch.exports[i - 1].name, name) == 0)
			return &c->launch.exports[i - 1];
	return cpl_container_env(c, name);
}

void
cpl_wlist_add(struct cpl_wlist *l, struct cpl_workload *w)
{
	cpl_xgrow((void **)&l->items, &l->cap, l->count + 1,
		  sizeof(*l->items));
	l->items[l->count++] = w;
}

void
cpl_wlist_free(struct cpl_wlist *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->count; i++)
		cpl_workload_free(l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

struct cpl_word
cpl_word_dup(const struct cpl_word *w)
{
	struct cpl_word d;

	d.text = cpl_xstrdup(w->text);
	d.pos = w->pos;
	return d;
}
