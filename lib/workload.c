/*
 * workload.c — constructors and destructors of the workload model.
 * Nothing here interprets a workload; that is the rules' job.
 */
#include "workload.h"

#include <stdint.h>
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
	void *p = w->containers;

	/* Geometric growth: a Pod with thousands of containers stays linear
	 * even where realloc copies (sanitizers). */
	cpl_xgrow(&p, &w->containers_cap, w->ncontainers + 1,
		  sizeof(*w->containers));
	w->containers = p;
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
		cpl_strmap_free(&c->env_at);
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
	cpl_xgrow((void **)&c->argv, &c->argv_cap, c->argc + 1,
		  sizeof(*c->argv));
	c->argv[c->argc].text = cpl_xstrdup(text);
	c->argv[c->argc].pos = pos;
	c->argc++;
}

/* Env lookups go through a hash of names, so a container with 200,000
 * variables loads in linear time. */
void
cpl_container_set_env(struct cpl_container *c, const char *name,
		      const char *value, struct cpl_pos pos)
{
	uintptr_t at = (uintptr_t)cpl_strmap_get(&c->env_at, name);
	struct cpl_env *e;

	if (at > 0) {
		e = &c->env[at - 1];
		free(e->value);
		e->value = cpl_xstrdup(value);
		e->pos = pos;
		return;
	}
	cpl_xgrow((void **)&c->env, &c->env_cap, c->nenv + 1,
		  sizeof(*c->env));
	e = &c->env[c->nenv++];
	e->name = cpl_xstrdup(name);
	e->value = cpl_xstrdup(value);
	e->pos = pos;
	cpl_strmap_put(&c->env_at, e->name, (void *)(uintptr_t)c->nenv);
}

const struct cpl_env *
cpl_container_env(const struct cpl_container *c, const char *name)
{
	uintptr_t at = (uintptr_t)cpl_strmap_get(&c->env_at, name);

	return at > 0 ? &c->env[at - 1] : NULL;
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
