/*
 * mutate.c — the JSONPatch of `serve --mutate` (see mutate.h).
 *
 * Invariant: a patch is sent only after it was applied to a copy of the
 * object and read again (check() below): every env it touches holds
 * valid, distinct names, and removing exactly what it added gives back
 * the object sent, byte for byte as JSON values compare.  So a patch
 * never changes a value the user wrote, never adds to a container no
 * fix named, and never makes an object the API server would refuse for
 * its env.  Every JSON pointer written escapes '~' and '/' (RFC 6901).
 */
#include "live/mutate.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "model/finding.h"
#include "model/rule.h"
#include "run/engine.h"
#include "text/patch.h"

/* The annotation's length past which containers are only counted, and
 * the API server's limit on all of an object's annotations together
 * (keys and values: TotalAnnotationSizeLimitB). */
#define NOTE_MAX 4096
#define ANNOTATIONS_MAX ((size_t)256 << 10)

/* ---- JSON pointers (RFC 6901) ------------------------------------------ */

/* Appends "/" and key, escaped ('~' as ~0, '/' as ~1), to b. */
static void
ptr_add(struct cpl_buf *b, const char *key)
{
	cpl_buf_addc(b, '/');
	for (; *key; key++) {
		if (*key == '~')
			cpl_buf_adds(b, "~0");
		else if (*key == '/')
			cpl_buf_adds(b, "~1");
		else
			cpl_buf_addc(b, *key);
	}
}

/* The next token of pointer *p (after its '/'), unescaped, into b;
 * *p moves past it.  -1 when *p does not start with '/' or holds a '~'
 * not followed by 0 or 1. */
static int
ptr_next(struct cpl_buf *b, const char **p)
{
	const char *s = *p;

	if (*s != '/')
		return -1;
	b->len = 0;
	cpl_buf_adds(b, "");
	for (s++; *s && *s != '/'; s++) {
		if (*s != '~') {
			cpl_buf_addc(b, *s);
			continue;
		}
		if (s[1] == '0')
			cpl_buf_addc(b, '~');
		else if (s[1] == '1')
			cpl_buf_addc(b, '/');
		else
			return -1;
		s++;
	}
	*p = s;
	return 0;
}

/* An array index token: digits only, no leading zero; -1 if not. */
static long
ptr_index(const char *t)
{
	long n = 0;

	if (*t == '\0' || (t[0] == '0' && t[1] != '\0'))
		return -1;
	for (; *t; t++) {
		if (*t < '0' || *t > '9' || n > 100000000)
			return -1;
		n = n * 10 + (*t - '0');
	}
	return n;
}

/* The value at pointer in v (borrowed), or NULL. */
static json_t *
ptr_get(json_t *v, const char *pointer)
{
	struct cpl_buf b;
	const char *p = pointer;
	long i;

	cpl_buf_init(&b, 0);
	while (v && *p) {
		if (ptr_next(&b, &p) < 0) {
			v = NULL;
			break;
		}
		if (json_is_object(v)) {
			v = json_object_get(v, b.data);
		} else if (json_is_array(v)) {
			i = ptr_index(b.data);
			v = i < 0 ? NULL : json_array_get(v, (size_t)i);
		} else {
			v = NULL;
		}
	}
	cpl_buf_free(&b);
	return v;
}

/* RFC 6902 "add" of value (a reference is taken) at pointer in root. */
static int
ptr_add_value(json_t *root, const char *pointer, json_t *value)
{
	struct cpl_buf b;
	const char *p = pointer, *last = strrchr(pointer, '/');
	json_t *parent;
	char *head;
	long i;
	int rc = -1;

	if (last == NULL)
		return -1;
	head = cpl_xstrndup(pointer, (size_t)(last - pointer));
	parent = ptr_get(root, head);
	free(head);
	cpl_buf_init(&b, 0);
	p = last;
	if (parent == NULL || ptr_next(&b, &p) < 0)
		goto out;
	if (json_is_object(parent)) {
		rc = json_object_set(parent, b.data, value);
	} else if (json_is_array(parent)) {
		if (strcmp(b.data, "-") == 0) {
			rc = json_array_append(parent, value);
		} else {
			i = ptr_index(b.data);
			if (i >= 0 && (size_t)i <= json_array_size(parent))
				rc = json_array_insert(parent, (size_t)i,
						       value);
		}
	}
out:
	cpl_buf_free(&b);
	return rc;
}

json_t *
cpl_mutate_apply(const json_t *obj, const char *patch, char **why)
{
	json_error_t jerr;
	json_t *ops, *op, *copy = NULL;
	const char *path;
	size_t i;

	*why = NULL;
	ops = json_loads(patch, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_array(ops)) {
		*why = cpl_xasprintf("the patch is not a JSON array");
		goto out;
	}
	copy = json_deep_copy(obj);
	json_array_foreach(ops, i, op) {
		path = json_string_value(json_object_get(op, "path"));
		if (!cpl_str_eq(json_string_value(json_object_get(op, "op")),
				"add") || path == NULL ||
		    json_object_get(op, "value") == NULL) {
			*why = cpl_xasprintf("operation %zu is not an add of "
					     "a value at a path", i);
			break;
		}
		if (ptr_add_value(copy, path, json_object_get(op, "value"))
		    < 0) {
			*why = cpl_xasprintf("operation %zu: path %s does not "
					     "resolve", i, path);
			break;
		}
	}
	if (*why) {
		json_decref(copy);
		copy = NULL;
	}
out:
	json_decref(ops);
	return copy;
}

/* ---- what the fixes add ------------------------------------------------ */

/* A thread variable a fix may add: *_NUM_THREADS. */
static bool
thread_var(const char *name)
{
	size_t n = strlen(name);

	return n > 12 && strcmp(name + n - 12, "_NUM_THREADS") == 0;
}

/* Whether env (an array of entries) names name. */
static bool
env_names(const json_t *env, const char *name)
{
	const json_t *e;
	size_t i;

	json_array_foreach(env, i, e)
		if (cpl_str_eq(json_string_value(json_object_get(e, "name")),
			       name))
			return true;
	return false;
}

/* What a walk reads additions for: the findings whose edits were
 * applied (fs[order[0..n)]), to say which one (and its budget) each
 * addition comes from. */
struct mutate_walk {
	struct cpl_mutation *m;
	const struct cpl_admit *a;
	const struct cpl_finding *fs;
	const size_t *order;
	size_t n;
};

static char *budget_why(const struct cpl_admit *a,
			const struct cpl_finding *f);

/*
 * Why container cname at pointer p of the judged text gets variable
 * name: the first finding (in rule order) on that container, of that
 * replica when it names one ("PyTorchJob/x[Worker]": p passes through
 * /Worker/), whose edits write the name.  Caller frees; NULL if none.
 */
static char *
attribute(const struct mutate_walk *wk, const char *p, const char *cname,
	  const char *name)
{
	const struct cpl_finding *f;
	const char *rep, *end;
	char *quoted = cpl_xasprintf("\"%s\"", name), *seg, *why = NULL;
	size_t i, j;

	for (i = 0; i < wk->n && why == NULL; i++) {
		f = &wk->fs[wk->order[i]];
		if (!cpl_str_eq(f->container, cname))
			continue;
		rep = f->object ? strchr(f->object, '[') : NULL;
		end = rep ? strchr(rep, ']') : NULL;
		if (rep && end) {
			seg = cpl_xasprintf("/%.*s/", (int)(end - rep - 1),
					    rep + 1);
			j = strstr(p, seg) != NULL;
			free(seg);
			if (!j)
				continue;
		}
		for (j = 0; j < f->nedits; j++)
			if (f->edits[j].text &&
			    strstr(f->edits[j].text, quoted) != NULL)
				break;
		if (j < f->nedits)
			why = budget_why(wk->a, f);
	}
	free(quoted);
	return why;
}

/* The pointer p of the judged text as a pointer into the object sent
 * (a wrapped Pod: its spec is /spec); NULL when it is outside it. */
static char *
to_object(const struct cpl_admit *a, const char *p)
{
	size_t n;

	if (a->wrapped == NULL)
		return cpl_xstrdup(p);
	n = strlen(a->wrapped);
	if (strncmp(p, a->wrapped, n) != 0 || (p[n] != '/' && p[n] != '\0'))
		return NULL;
	return cpl_xasprintf("/spec%s", p + n);
}

/* Records the entries edited's env adds to orig's (one container, at
 * pointer p of the judged text). */
static void
additions(struct mutate_walk *wk, const json_t *orig, const json_t *edited,
	  const char *p)
{
	const json_t *oenv = json_object_get(orig, "env");
	const json_t *e;
	const char *name, *value;
	char *at;
	size_t i, j;

	json_array_foreach(json_object_get(edited, "env"), i, e) {
		name = json_string_value(json_object_get(e, "name"));
		value = json_string_value(json_object_get(e, "value"));
		if (name == NULL || value == NULL || !thread_var(name) ||
		    json_object_size(e) != 2 || env_names(oenv, name) ||
		    json_object_get(orig, "envFrom"))
			continue;
		at = to_object(wk->a, p);
		if (at == NULL)
			continue;
		for (j = 0; j < wk->m->nsets; j++)
			if (strcmp(wk->m->sets[j].pointer, at) == 0 &&
			    strcmp(wk->m->sets[j].name, name) == 0)
				break;
		if (j < wk->m->nsets) {	/* an earlier fix set it */
			free(at);
			continue;
		}
		wk->m->sets = cpl_xrealloc(wk->m->sets, (wk->m->nsets + 1) *
					   sizeof(*wk->m->sets));
		wk->m->sets[wk->m->nsets++] = (struct cpl_mutate_set){
			.pointer = at,
			.container = cpl_xstrdup(json_string_value(
				json_object_get(orig, "name")) ?
				json_string_value(json_object_get(orig,
								  "name")) :
				""),
			.name = cpl_xstrdup(name),
			.value = cpl_xstrdup(value),
			.env_absent = oenv == NULL,
			.why = attribute(wk, p, json_string_value(
				json_object_get(orig, "name")), name),
		};
	}
}

/*
 * Walks the judged object and its edited copy side by side; in every
 * "containers" array (a Pod template's main containers: never
 * initContainers) of the same length, compares each container's env.
 */
static void
walk(struct mutate_walk *wk, const json_t *orig, const json_t *edited,
     struct cpl_buf *p, int depth)
{
	const char *key;
	const json_t *v, *ev;
	size_t i, mark = p->len;

	if (depth > 64)
		return;
	if (json_is_object(orig) && json_is_object(edited)) {
		json_object_foreach((json_t *)orig, key, v) {
			ev = json_object_get(edited, key);
			ptr_add(p, key);
			if (strcmp(key, "containers") == 0 &&
			    json_is_array(v) && json_is_array(ev) &&
			    json_array_size(v) == json_array_size(ev)) {
				size_t cm = p->len;

				for (i = 0; i < json_array_size(v); i++) {
					cpl_buf_addf(p, "/%zu", i);
					additions(wk, json_array_get(v, i),
						  json_array_get(ev, i),
						  p->data);
					p->len = cm;
					p->data[cm] = '\0';
				}
			} else {
				walk(wk, v, ev, p, depth + 1);
			}
			p->len = mark;
			p->data[mark] = '\0';
		}
	} else if (json_is_array(orig) && json_is_array(edited) &&
		   json_array_size(orig) == json_array_size(edited)) {
		for (i = 0; i < json_array_size(orig); i++) {
			cpl_buf_addf(p, "/%zu", i);
			walk(wk, json_array_get(orig, i),
			     json_array_get(edited, i), p, depth + 1);
			p->len = mark;
			p->data[mark] = '\0';
		}
	}
}

/* "[Worker] CPU limit 4, 2 ranks, CPU201 thread-env-missing" for the
 * container f judges, from its budget (what is unknown left out). */
static char *
budget_why(const struct cpl_admit *a, const struct cpl_finding *f)
{
	const struct cpl_budget_entry *b;
	const char *rep = f->object ? strchr(f->object, '[') : NULL;
	struct cpl_buf w;
	size_t n, i;

	cpl_buf_init(&w, 0);
	if (rep)
		cpl_buf_addf(&w, "%s ", rep);
	b = cpl_engine_budgets(a->e, &n);
	for (i = 0; i < n; i++) {
		if (!cpl_str_eq(b[i].object, f->object) ||
		    !cpl_str_eq(b[i].container, f->container))
			continue;
		if (b[i].cpu_limit >= 0)
			cpl_buf_addf(&w, "CPU limit %g, ", b[i].cpu_limit);
		else if (b[i].cpu_request >= 0)
			cpl_buf_addf(&w, "CPU request %g, ",
				     b[i].cpu_request);
		else
			cpl_buf_adds(&w, "no CPU limit, ");
		if (b[i].ranks > 0)
			cpl_buf_addf(&w, "%ld %s, ", b[i].ranks,
				     b[i].ranks == 1 ? "rank" : "ranks");
		break;
	}
	cpl_buf_addf(&w, "%s %s", f->rule->id, f->rule->name);
	return cpl_buf_detach(&w);
}

/*
 * The additions of the edits of findings fs[order[0..n)], applied
 * together to the judged text (as --fix applies a file's edits; each
 * finding's a group, all or none) and read again: one parse however
 * many findings, so a 3 MiB object of 128 containers is read twice,
 * not 128 times.  Two fixes adding the same variable to one container
 * are inserted in rule order, and the first is taken.
 */
static void
from_findings(struct cpl_mutation *m, const struct cpl_admit *a,
	      const json_t *judged, const struct cpl_finding *fs,
	      const size_t *order, size_t n)
{
	struct cpl_patch_edit *pe;
	struct cpl_patch out = { 0 };
	struct cpl_buf p;
	struct mutate_walk wk = { m, a, fs, order, n };
	const struct cpl_finding *f;
	json_t *edited;
	size_t i, k, ne = 0, cap = 0;

	for (i = 0; i < n; i++)
		cap += fs[order[i]].nedits;
	pe = cpl_xcalloc(cap + 1, sizeof(*pe));
	for (i = 0; i < n; i++) {
		f = &fs[order[i]];
		for (k = 0; k < f->nedits; k++) {
			if (!cpl_str_eq(f->edits[k].file, CPL_ADMIT_PATH))
				continue;
			pe[ne].line = f->edits[k].line;
			pe[ne].column = f->edits[k].column;
			pe[ne].end_line = f->edits[k].end_line;
			pe[ne].end_column = f->edits[k].end_column;
			pe[ne].text = f->edits[k].text;
			pe[ne].group = i;
			ne++;
		}
	}
	if (ne > 0) {
		cpl_patch_apply(&out, a->text, a->tlen, pe, ne);
		edited = out.napplied > 0 ?
			 json_loadb(out.text, out.len, 0, NULL) : NULL;
		if (edited == NULL && out.napplied > 0)
			m->refused = cpl_xstrdup("the fixes' edits, applied "
						 "together, do not make JSON");
		if (edited) {
			cpl_buf_init(&p, 0);
			cpl_buf_adds(&p, "");
			walk(&wk, judged, edited, &p, 0);
			cpl_buf_free(&p);
		}
		json_decref(edited);
		cpl_patch_free(&out);
	}
	free(pe);
}

/* Whether the object opts out: cpulint.io/mutate: "false" as an
 * annotation or a label. */
static bool
opted_out(const json_t *obj)
{
	const json_t *meta = json_object_get(obj, "metadata");

	return cpl_str_eq(json_string_value(json_object_get(json_object_get(
			  meta, "annotations"), CPL_MUTATE_OPT_OUT)),
			  "false") ||
	       cpl_str_eq(json_string_value(json_object_get(json_object_get(
			  meta, "labels"), CPL_MUTATE_OPT_OUT)), "false");
}

/* ---- the patch and its check ------------------------------------------- */

/* The annotation: per container, what is set and why; past
 * NOTE_MAX bytes the containers left are counted instead. */
static char *
note_text(const struct cpl_mutation *m, bool dry_run)
{
	struct cpl_buf b;
	size_t i, left = 0;
	bool skip = false;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, dry_run ? "dry run (--mutate-dry-run), would set: " :
		     "");
	for (i = 0; i < m->nsets; i++) {
		const struct cpl_mutate_set *s = &m->sets[i];
		bool first = i == 0 ||
			     strcmp(m->sets[i - 1].pointer, s->pointer) != 0;
		bool last = i + 1 == m->nsets ||
			    strcmp(m->sets[i + 1].pointer, s->pointer) != 0;

		if (first && b.len > NOTE_MAX) {
			skip = true;
			left++;
		}
		if (skip)
			continue;
		if (first)
			cpl_buf_addf(&b, "%scontainer \"%s\": ", i ? "; " : "",
				     s->container);
		else
			cpl_buf_adds(&b, ", ");
		cpl_buf_addf(&b, "%s=%s", s->name, s->value);
		if (last && s->why)
			cpl_buf_addf(&b, " (%s)", s->why);
	}
	if (left > 0)
		cpl_buf_addf(&b, "; and %zu more container%s", left,
			     left == 1 ? "" : "s");
	return cpl_buf_detach(&b);
}

/* The patch's operations: env entries (unless env_too is false) and the
 * annotation. */
static json_t *
build(const struct cpl_mutation *m, const json_t *obj, bool env_too)
{
	json_t *ops = json_array(), *arr = NULL, *entry;
	const json_t *ann;
	struct cpl_buf p;
	size_t i;

	for (i = 0; env_too && i < m->nsets; i++) {
		const struct cpl_mutate_set *s = &m->sets[i];
		bool first = i == 0 ||
			     strcmp(m->sets[i - 1].pointer, s->pointer) != 0;

		entry = json_pack("{s:s,s:s}", "name", s->name, "value",
				  s->value);
		if (!s->env_absent) {
			char *path = cpl_xasprintf("%s/env/-", s->pointer);

			json_array_append_new(ops, json_pack("{s:s,s:s,s:o}",
				"op", "add", "path", path, "value", entry));
			free(path);
			continue;
		}
		if (first) {
			char *path = cpl_xasprintf("%s/env", s->pointer);

			arr = json_array();
			json_array_append_new(ops, json_pack("{s:s,s:s,s:o}",
				"op", "add", "path", path, "value", arr));
			free(path);
		}
		json_array_append_new(arr, entry);
	}
	ann = json_object_get(json_object_get(obj, "metadata"),
			      "annotations");
	if (json_is_object(ann)) {
		cpl_buf_init(&p, 0);
		cpl_buf_adds(&p, "/metadata/annotations");
		ptr_add(&p, CPL_MUTATE_NOTE);
		json_array_append_new(ops, json_pack("{s:s,s:s,s:s}", "op",
			"add", "path", p.data, "value", m->note));
		cpl_buf_free(&p);
	} else {
		json_array_append_new(ops, json_pack("{s:s,s:s,s:{s:s}}",
			"op", "add", "path", "/metadata/annotations", "value",
			CPL_MUTATE_NOTE, m->note));
	}
	return ops;
}

/* A Kubernetes env variable name: [-._a-zA-Z][-._a-zA-Z0-9]*. */
static bool
env_name_ok(const char *s)
{
	size_t i;

	if (s == NULL || *s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		      s[i] == '.' || s[i] == '_'))
			return false;
	return true;
}

/* Checks an env after the patch: valid, distinct names; why or NULL. */
static char *
env_check(const json_t *env, const char *pointer)
{
	const json_t *e;
	const char *name;
	size_t i;

	if (!json_is_array(env))
		return cpl_xasprintf("%s/env is not a list", pointer);
	json_array_foreach(env, i, e) {
		name = json_string_value(json_object_get(e, "name"));
		if (!env_name_ok(name))
			return cpl_xasprintf("%s/env/%zu has no valid name",
					     pointer, i);
	}
	for (i = 0; i < json_array_size(env); i++) {
		size_t j;

		name = json_string_value(json_object_get(
			json_array_get(env, i), "name"));
		for (j = i + 1; j < json_array_size(env); j++)
			if (cpl_str_eq(name, json_string_value(
				json_object_get(json_array_get(env, j),
						"name"))))
				return cpl_xasprintf("%s/env names %s twice",
						     pointer, name);
	}
	return NULL;
}

/* The bytes of an object's annotations, keys and values, as the API
 * server counts them. */
static size_t
annotations_size(const json_t *ann)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	json_object_foreach((json_t *)ann, k, v)
		n += strlen(k) + (json_is_string(v) ?
				  json_string_length(v) : 0);
	return n;
}

/*
 * The patch applied to a copy of obj and read again: every env it
 * touches valid, and the copy with what it added taken out equal to
 * obj.  NULL when it holds; else why (caller frees).
 */
static char *
check(const struct cpl_mutation *m, const json_t *obj, const char *patch,
      bool env_too)
{
	json_t *done, *c, *env, *ann, *meta, *before;
	char *why = NULL;
	size_t i, j, drop;

	done = cpl_mutate_apply(obj, patch, &why);
	if (done == NULL)
		return why;
	for (i = 0; env_too && i < m->nsets && why == NULL; i++) {
		c = ptr_get(done, m->sets[i].pointer);
		why = env_check(json_object_get(c, "env"),
				m->sets[i].pointer);
	}
	/* Take out what was added, container by container. */
	for (i = 0; env_too && i < m->nsets && why == NULL; i = j) {
		for (j = i, drop = 0; j < m->nsets &&
		     strcmp(m->sets[j].pointer, m->sets[i].pointer) == 0; j++)
			drop++;
		c = ptr_get(done, m->sets[i].pointer);
		env = json_object_get(c, "env");
		if (m->sets[i].env_absent) {
			json_object_del(c, "env");
			continue;
		}
		while (drop-- > 0 && json_array_size(env) > 0)
			json_array_remove(env, json_array_size(env) - 1);
	}
	meta = json_object_get(done, "metadata");
	ann = json_object_get(meta, "annotations");
	if (why == NULL && annotations_size(ann) > ANNOTATIONS_MAX)
		why = cpl_xasprintf("the annotations would pass the API "
				    "server's %zu bytes", ANNOTATIONS_MAX);
	/* Taken out: the note (back to the one sent, when it had one: an
	 * object copied from one mutated before), or the annotations. */
	before = json_object_get(json_object_get(json_object_get(obj,
		 "metadata"), "annotations"), CPL_MUTATE_NOTE);
	if (before)
		json_object_set(ann, CPL_MUTATE_NOTE, before);
	else if (json_object_get(json_object_get(obj, "metadata"),
				 "annotations"))
		json_object_del(ann, CPL_MUTATE_NOTE);
	else
		json_object_del(meta, "annotations");
	if (why == NULL && !json_equal(done, (json_t *)obj))
		why = cpl_xstrdup("the patched object differs from the one "
				  "sent in more than the env entries and the "
				  "annotation");
	json_decref(done);
	return why;
}

void
cpl_mutate_plan(struct cpl_mutation *m, const struct cpl_admit *a,
		bool dry_run)
{
	const struct cpl_finding *fs;
	json_t *judged = NULL, *ops;
	char *full = NULL;
	size_t n, i, j, k, *order;

	memset(m, 0, sizeof(*m));
	/* CREATE only: a Pod's containers cannot change on UPDATE (the
	 * API server refuses it), and a job's running Pods would not see
	 * a template changed under them. */
	if (a->e == NULL || a->object == NULL || a->text == NULL ||
	    !cpl_str_eq(a->operation, "CREATE"))
		return;
	if (opted_out(a->object)) {
		m->skipped = cpl_xstrdup("the object opts out (cpulint.io/"
					 "mutate: \"false\")");
		return;
	}
	if (!json_is_object(json_object_get(a->object, "metadata")))
		return;
	judged = json_loadb(a->text, a->tlen, 0, NULL);
	if (judged == NULL)
		return;
	fs = cpl_engine_findings(a->e, &n);
	/* Rule by rule, so CPU201's thread fix goes first when two rules'
	 * fixes add the same variable. */
	order = cpl_xcalloc(n + 1, sizeof(*order));
	for (i = 0, k = 0; i < n; i++) {
		if (fs[i].suppressed || fs[i].nedits == 0 ||
		    fs[i].container == NULL)
			continue;
		for (j = k; j > 0 && strcmp(fs[order[j - 1]].rule->id,
					    fs[i].rule->id) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
		k++;
	}
	from_findings(m, a, judged, fs, order, k);
	free(order);
	json_decref(judged);
	if (m->refused)
		return;		/* nothing is sent */
	if (m->nsets == 0)
		return;
	m->note = note_text(m, dry_run);
	ops = build(m, a->object, true);
	full = json_dumps(ops, JSON_COMPACT);
	json_decref(ops);
	m->refused = check(m, a->object, full, true);
	if (m->refused == NULL && dry_run) {
		ops = build(m, a->object, false);
		m->patch = json_dumps(ops, JSON_COMPACT);
		json_decref(ops);
		m->refused = check(m, a->object, m->patch, false);
	} else if (m->refused == NULL) {
		m->patch = full;
		full = NULL;
	}
	if (m->refused) {
		free(m->patch);
		m->patch = NULL;
	}
	free(full);
}

void
cpl_mutate_clear(struct cpl_mutation *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nsets; i++) {
		free(m->sets[i].pointer);
		free(m->sets[i].container);
		free(m->sets[i].name);
		free(m->sets[i].value);
		free(m->sets[i].why);
	}
	free(m->sets);
	free(m->note);
	free(m->patch);
	free(m->skipped);
	free(m->refused);
	memset(m, 0, sizeof(*m));
}
