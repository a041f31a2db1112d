/*
 * workload.c — constructors and destructors of the workload model.
 * Nothing here interprets a workload; that is the rules' job.
 */
#include "model/workload.h"

#include <stdarg.h>
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

	/* Doubling, not one more each time: the copies stay linear even
	 * where realloc always moves (ASan), with 10,000s of containers.
	 * From one slot, as most workloads have one container and a
	 * container is large: eight would keep 6 KiB per workload idle. */
	if (w->containers_cap == 0) {
		w->containers = cpl_xmalloc(sizeof(*w->containers));
		w->containers_cap = 1;
	}
	CPL_GROW(w->containers, w->containers_cap, w->ncontainers + 1);
	c = &w->containers[w->ncontainers++];
	memset(c, 0, sizeof(*c));
	c->cpu_request = CPL_CPU_ABSENT;
	c->cpu_limit = CPL_CPU_ABSENT;
	c->mem_request = CPL_CPU_ABSENT;
	c->mem_limit = CPL_CPU_ABSENT;
	c->shm_bytes = -1;
	c->threads_now = -1;
	c->cpu_used = -1;
	c->throttled_pct = -1;
	c->pids_max = -1;
	c->pos.file = w->file;
	return c;
}

/* Frees what container c holds (not c itself). */
static void
container_clear(struct cpl_container *c)
{
	free(c->name);
	free(c->image);
	free(c->base_image);
	free(c->slots.text);
	free(c->ranks_native);
	cpl_words_free(c->argv, c->argc);
	cpl_envs_free(c->env, c->nenv);
	cpl_strmap_free(&c->env_at);
	cpl_launch_clear(&c->launch);
	free(c->script_py);
	free(c->measure_notes);
	free(c->measured_pod);
	free(c->facts);
	free(c->pools);
	free(c->cpu_note);
	cpl_limits_free(c->limits);
}

struct cpl_limits *
cpl_limits_dup(const struct cpl_limits *l)
{
	struct cpl_limits *d;

	if (l == NULL)
		return NULL;
	d = cpl_xmalloc(sizeof(*d));
	*d = *l;
	d->name = l->name ? cpl_xstrdup(l->name) : NULL;
	return d;
}

void
cpl_limits_free(struct cpl_limits *l)
{
	if (l == NULL)
		return;
	free(l->name);
	free(l);
}

void
cpl_workload_free(struct cpl_workload *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->ncontainers; i++)
		container_clear(&w->containers[i]);
	free(w->containers);
	for (i = 0; i < w->nignores; i++) {
		free(w->ignores[i].rule);
		free(w->ignores[i].reason);
	}
	free(w->ignores);
	free(w->measured);
	free(w->kind);
	free(w->name);
	free(w->namespace);
	free(w->replica);
	free(w->file);
	free(w->object);
	free(w->nproc.text);
	free(w->merged_into);
	free(w->exclusive_hint);
	if (w->trainer)
		w->trainer_ops->free(w->trainer);
	free(w);
}

/* Copies n words (texts duplicated, positions shared). */
static struct cpl_word *
words_dup(const struct cpl_word *v, size_t n)
{
	struct cpl_word *d;
	size_t i;

	if (n == 0)
		return NULL;
	d = cpl_xcalloc(n, sizeof(*d));
	for (i = 0; i < n; i++)
		d[i] = cpl_word_dup(&v[i]);
	return d;
}

/* A word copied, or a zero word when w has no text. */
static struct cpl_word
word_copy(const struct cpl_word *w)
{
	struct cpl_word z = { NULL, { NULL, 0, 0 } };

	return w->text ? cpl_word_dup(w) : z;
}

/* Copies launch src into dst (zeroed). */
static void
launch_copy(struct cpl_launch *dst, const struct cpl_launch *src)
{
	size_t i;

	*dst = *src;
	dst->launcher_word = word_copy(&src->launcher_word);
	dst->nproc = word_copy(&src->nproc);
	dst->script = word_copy(&src->script);
	dst->wrapper = word_copy(&src->wrapper);
	for (i = 0; i < CPL_LOPT_COUNT; i++)
		dst->opt[i] = word_copy(&src->opt[i]);
	dst->cfg.nproc = word_copy(&src->cfg.nproc);
	dst->cfg.machines = word_copy(&src->cfg.machines);
	dst->cfg.dtype = word_copy(&src->cfg.dtype);
	dst->cfg.env = word_copy(&src->cfg.env);
	dst->args = words_dup(src->args, src->nargs);
	dst->exports = cpl_envs_dup(src->exports, src->nexports);
	dst->hostcounts = NULL;
	if (src->nhostcounts > 0)
		dst->hostcounts = cpl_xcalloc(src->nhostcounts,
					      sizeof(*dst->hostcounts));
	for (i = 0; i < src->nhostcounts; i++) {
		dst->hostcounts[i].expr = word_copy(&src->hostcounts[i].expr);
		dst->hostcounts[i].sizes =
			cpl_xstrdup(src->hostcounts[i].sizes);
	}
	dst->pins = NULL;
	if (src->npins > 0)
		dst->pins = cpl_xcalloc(src->npins, sizeof(*dst->pins));
	for (i = 0; i < src->npins; i++) {
		dst->pins[i].how = src->pins[i].how;
		dst->pins[i].list = word_copy(&src->pins[i].list);
	}
}

void
cpl_container_copy(struct cpl_container *dst, const struct cpl_container *src)
{
	size_t i;

	if (dst == src)
		return;
	container_clear(dst);
	*dst = *src;
	dst->name = cpl_xstrdup(src->name);
	dst->image = cpl_xstrdup(src->image);
	dst->base_image = cpl_xstrdup(src->base_image);
	dst->slots = word_copy(&src->slots);
	dst->ranks_native = cpl_xstrdup(src->ranks_native);
	dst->argv = words_dup(src->argv, src->argc);
	dst->argv_cap = src->argc;
	dst->env = cpl_envs_dup(src->env, src->nenv);
	dst->env_cap = src->nenv;
	/* The copy's own name index, over its own name strings. */
	memset(&dst->env_at, 0, sizeof(dst->env_at));
	for (i = 0; i < dst->nenv; i++)
		cpl_strmap_put(&dst->env_at, dst->env[i].name,
			       (void *)(uintptr_t)(i + 1));
	launch_copy(&dst->launch, &src->launch);
	if (src->script_py != NULL) {
		dst->script_py = cpl_xmalloc(src->script_len + 1);
		memcpy(dst->script_py, src->script_py, src->script_len + 1);
	}
	dst->code = NULL;
	dst->measure_notes = cpl_xstrdup(src->measure_notes);
	dst->measured_pod = cpl_xstrdup(src->measured_pod);
	dst->facts = NULL;	/* gathered for the copy when asked */
	dst->pools = NULL;
	dst->cpu_note = src->cpu_note ? cpl_xstrdup(src->cpu_note) : NULL;
	dst->limits = cpl_limits_dup(src->limits);
}

void
cpl_container_copy_command(struct cpl_container *dst,
			   const struct cpl_container *src)
{
	cpl_words_free(dst->argv, dst->argc);
	cpl_launch_clear(&dst->launch);
	dst->argv = words_dup(src->argv, src->argc);
	dst->argc = dst->argv_cap = src->argc;
	dst->ncommand = src->ncommand;
	launch_copy(&dst->launch, &src->launch);
}

struct cpl_workload *
cpl_workload_copy(const struct cpl_workload *w)
{
	struct cpl_workload *d = cpl_xcalloc(1, sizeof(*d));
	size_t i;

	*d = *w;
	d->kind = cpl_xstrdup(w->kind);
	d->name = cpl_xstrdup(w->name);
	d->namespace = cpl_xstrdup(w->namespace);
	d->replica = cpl_xstrdup(w->replica);
	d->file = cpl_xstrdup(w->file);
	d->object = cpl_xstrdup(w->object);
	d->nproc = word_copy(&w->nproc);
	d->merged = false;
	d->merged_into = NULL;
	d->exclusive_hint = cpl_xstrdup(w->exclusive_hint);
	d->trainer = w->trainer ? w->trainer_ops->copy(w->trainer) : NULL;
	d->ignores = NULL;
	d->nignores = 0;
	for (i = 0; i < w->nignores; i++)
		cpl_workload_add_ignore(d, &w->ignores[i]);
	d->measured = w->measured ? cpl_xstrdup(w->measured) : NULL;
	d->containers = NULL;
	d->ncontainers = 0;
	d->containers_cap = w->ncontainers;
	if (w->ncontainers > 0)
		d->containers = cpl_xcalloc(w->ncontainers,
					    sizeof(*d->containers));
	for (i = 0; i < w->ncontainers; i++) {
		cpl_container_copy(&d->containers[i], &w->containers[i]);
		d->ncontainers++;
	}
	return d;
}

void
cpl_workload_add_ignore(struct cpl_workload *w, const struct cpl_wignore *ig)
{
	struct cpl_wignore *d;

	w->ignores = cpl_xrealloc(w->ignores, (w->nignores + 1) *
				  sizeof(*w->ignores));
	d = &w->ignores[w->nignores++];
	d->rule = cpl_xstrdup(ig->rule);
	d->reason = cpl_xstrdup(ig->reason ? ig->reason : "");
	d->pos = ig->pos;
}

void
cpl_workload_add_annotation(struct cpl_workload *w, const char *key,
			    const char *value, struct cpl_pos pos)
{
	static const char *const crio[] = {
		"cpu-load-balancing.crio.io", "cpu-quota.crio.io",
		"irq-load-balancing.crio.io",
	};
	size_t n = strlen(CPL_IGNORE_ANNOTATION), i;
	struct cpl_wignore ig;

	for (i = 0; key && i < CPL_ARRAY_LEN(crio); i++)
		if (strcmp(key, crio[i]) == 0 && w->exclusive_hint == NULL)
			w->exclusive_hint = cpl_xasprintf("annotation %s: %s",
							  key, value ? value :
							  "");
	if (key == NULL || strncmp(key, CPL_IGNORE_ANNOTATION, n) != 0)
		return;
	ig.rule = (char *)(key + n);
	ig.reason = (char *)(value ? value : "");
	ig.pos = pos;
	cpl_workload_add_ignore(w, &ig);
}

void
cpl_workload_set_measured(struct cpl_workload *w, const char *value,
			  struct cpl_pos pos)
{
	if (w->measured != NULL || value == NULL)
		return;
	w->measured = cpl_xstrdup(value);
	w->measured_pos = pos;
}

/* The number of digits at s (a count), or 0; *n gets its value. */
static size_t
count_at(const char *s, long *n)
{
	size_t i = 0;

	*n = 0;
	while (s[i] >= '0' && s[i] <= '9' && i < 9)
		*n = *n * 10 + (s[i++] - '0');
	return s[i] >= '0' && s[i] <= '9' ? 0 : i;
}

/*
 * "tT-wW on B CPU..." or "tT on B CPU...": the setting and the budget,
 * B a decimal number of CPUs ("0.5", "2") or millicores ("500m").
 */
bool
cpl_workload_measured(const struct cpl_workload *w, long t, long wk,
		      long cpu)
{
	const char *s = w ? w->measured : NULL;
	long mt, mw = -1, whole, frac = 0, scale = 1000;
	size_t k;

	if (s == NULL || *s++ != 't' || (k = count_at(s, &mt)) == 0)
		return false;
	s += k;
	if (strncmp(s, "-w", 2) == 0) {
		if ((k = count_at(s + 2, &mw)) == 0)
			return false;
		s += 2 + k;
	}
	if (strncmp(s, " on ", 4) != 0 || (k = count_at(s + 4, &whole)) == 0)
		return false;
	s += 4 + k;
	if (*s == 'm') {
		s++;
		scale = 1;
	} else if (*s == '.') {
		s++;
		for (k = 0; s[k] >= '0' && s[k] <= '9' && k < 3; k++) {
			frac = frac * 10 + (s[k] - '0');
			scale /= 10;
		}
		if (k == 0 || (s[k] >= '0' && s[k] <= '9'))
			return false;
		frac *= scale;
		scale = 1000;
		s += k;
	}
	if (strncmp(s, " CPU", 4) != 0)
		return false;
	return mt == t && mw == (wk < 0 ? -1 : wk) &&
	       whole * scale + frac == cpu;
}

void
cpl_container_add_arg(struct cpl_container *c, const char *text,
		      struct cpl_pos pos)
{
	CPL_GROW(c->argv, c->argv_cap, c->argc + 1);
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
	CPL_GROW(c->env, c->env_cap, c->nenv + 1);
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
	CPL_GROW(l->items, l->cap, l->count + 1);
	l->items[l->count++] = w;
}

struct cpl_skip *
cpl_wlist_skip(struct cpl_wlist *l, const char *file, int line, int column,
	       const char *why, const char *fmt, ...)
{
	struct cpl_skip *k;
	va_list ap;

	CPL_GROW(l->skipped, l->skipped_cap, l->nskipped + 1);
	k = &l->skipped[l->nskipped++];
	va_start(ap, fmt);
	k->what = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	k->why = cpl_xstrdup(why);
	k->file = cpl_xstrdup(file);
	k->line = line;
	k->column = column;
	k->kind = NULL;
	k->containers = false;
	return k;
}

size_t
cpl_wlist_not_judged(const struct cpl_wlist *l)
{
	size_t i, n = 0;

	for (i = 0; l != NULL && i < l->nskipped; i++)
		n += l->skipped[i].containers;
	return n;
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
	for (i = 0; i < l->nskipped; i++) {
		free(l->skipped[i].what);
		free(l->skipped[i].why);
		free(l->skipped[i].file);
		free(l->skipped[i].kind);
	}
	free(l->skipped);
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
