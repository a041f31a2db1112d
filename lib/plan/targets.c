/*
 * targets.c — the containers a plan changes and the Pod templates it
 * labels (targets_int.h), found by walking the document: a "containers" list
 * anywhere (not "initContainers"), a Polyaxon "container" mapping under
 * "run", a "template" whose spec holds containers.  metadata is never
 * walked into.
 */
#include <stdlib.h>
#include <string.h>

#include "load/kinds.h"
#include "plan/targets_int.h"
#include "plan/ydoc_int.h"
#include "util.h"

struct found {
	json_t **v;
	size_t n;
	size_t cap;
};

static void
add(struct found *f, json_t *v)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->v[i] == v)
			return;
	CPL_GROW(f->v, f->cap, f->n + 1);
	f->v[f->n++] = v;
}

static bool
named(const json_t *c, const char *const *names, size_t n)
{
	const char *name = json_string_value(json_object_get(c, "name"));
	size_t i;

	for (i = 0; i < n; i++)
		if (cpl_str_eq(name, names[i]))
			return true;
	return false;
}

static void
walk(struct found *f, json_t *v, const char *const *names, size_t n,
     bool polyaxon, int depth)
{
	const char *k;
	json_t *x;
	size_t i;

	if (depth > 64)
		return;
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			walk(f, x, names, n, polyaxon, depth + 1);
		return;
	}
	json_object_foreach(v, k, x) {
		if (strcmp(k, "metadata") == 0 ||
		    strcmp(k, "initContainers") == 0 ||
		    strcmp(k, "sidecars") == 0 || strcmp(k, "init") == 0)
			continue;
		if (strcmp(k, "containers") == 0 && json_is_array(x)) {
			json_t *c;

			json_array_foreach(x, i, c)
				if (json_is_object(c) && named(c, names, n))
					add(f, c);
			continue;
		}
		if (polyaxon && strcmp(k, "container") == 0 &&
		    json_is_object(x)) {
			add(f, x);
			continue;
		}
		if (json_is_object(x) || json_is_array(x))
			walk(f, x, names, n, polyaxon, depth + 1);
	}
}

json_t **
cpl_plan_targets(size_t *n, json_t *doc, const char *const *names,
		 size_t nnames)
{
	struct found f = { 0 };
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	const char *api = json_string_value(json_object_get(doc,
							    "apiVersion"));
	const struct cpl_kind *k = kind ? cpl_kinds_find(api, kind) : NULL;
	json_t *spec = json_object_get(doc, "spec");

	if (json_object_get(doc, "version") != NULL ||
	    json_is_object(json_object_get(doc, "run"))) {
		json_t *run = json_object_get(doc, "run");
		json_t *comp = json_object_get(doc, "component");

		if (run == NULL)
			run = json_object_get(comp, "run");
		walk(&f, run, names, nnames, true, 0);
	} else if (k != NULL && k->plan_at != NULL && json_is_object(spec)) {
		/* Its row says where the settings go (a TrainJob's trainer). */
		json_t *t = json_object_get(spec, k->plan_at);

		if (!json_is_object(t)) {
			t = json_object();
			json_object_set_new(spec, k->plan_at, t);
		}
		add(&f, t);
	} else {
		walk(&f, spec, names, nnames, false, 0);
	}
	*n = f.n;
	return f.v;
}

static void
label_in(json_t *obj, const char *key, const char *value)
{
	json_t *md = json_object_get(obj, "metadata"), *labels;

	if (!json_is_object(md)) {
		md = json_object();
		json_object_set_new(obj, "metadata", md);
	}
	labels = json_object_get(md, "labels");
	if (!json_is_object(labels)) {
		labels = json_object();
		json_object_set_new(md, "labels", labels);
	}
	json_object_set_new(labels, key, json_string(value));
}

static void
label_templates(json_t *v, const char *key, const char *value, int depth)
{
	const char *k;
	json_t *x;
	size_t i;

	if (depth > 64)
		return;
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			label_templates(x, key, value, depth + 1);
		return;
	}
	json_object_foreach(v, k, x) {
		if (strcmp(k, "metadata") == 0)
			continue;
		if (strcmp(k, "template") == 0 && json_is_object(x) &&
		    json_is_array(json_object_get(json_object_get(x, "spec"),
						  "containers")))
			label_in(x, key, value);
		if (json_is_object(x) || json_is_array(x))
			label_templates(x, key, value, depth + 1);
	}
}

void
cpl_plan_label(json_t *doc, const char *key, const char *value)
{
	label_in(doc, key, value);
	label_templates(json_object_get(doc, "spec"), key, value, 0);
}

int
cpl_plan_emit(struct cpl_buf *out, const json_t *v, bool start,
	      struct cpl_error *err)
{
	if (cpl_ydoc_emit(out, v, start) == 0)
		return 0;
	cpl_error_set(err, NULL, 0, 0, "the plan cannot be written as YAML");
	return -1;
}
