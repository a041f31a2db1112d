/*
 * plan.c — which engine a document is for, and the Polyaxon and plain
 * manifest writers (plan_int.h; Katib's is katib.c).  Each writer works on a
 * deep copy of the user's document and leaves every field it does not
 * set as it was.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "load/kinds.h"
#include "model/budget.h"
#include "plan/knobs_int.h"
#include "plan/plan_int.h"
#include "plan/targets_int.h"

enum cpl_plan_engine
cpl_plan_engine_of(const json_t *doc, const char **why)
{
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	const char *api = json_string_value(json_object_get(doc,
							    "apiVersion"));
	json_t *ver = json_object_get(doc, "version");
	const struct cpl_kind *k;

	*why = NULL;
	if (ver != NULL) {
		double v = json_is_number(ver) ? json_number_value(ver) :
			   json_string_value(ver) ?
			   strtod(json_string_value(ver), NULL) : 0;

		if (v < 1.05) {
			*why = "a Polyaxonfile of version 1 (plan writes v1.1 "
			       "operations: move the file to version 1.1 "
			       "first)";
			return CPL_PLAN_NONE;
		}
		if (!cpl_str_eq(kind, "component") &&
		    !cpl_str_eq(kind, "operation")) {
			*why = "a Polyaxonfile that is neither a component nor "
			       "an operation";
			return CPL_PLAN_NONE;
		}
		return CPL_PLAN_POLYAXON;
	}
	/* The kinds table says which kinds plan writes sweeps for. */
	k = api != NULL ? cpl_kinds_find(api, kind) : NULL;
	if (k != NULL && k->plan)
		return CPL_PLAN_KUBEFLOW;
	return CPL_PLAN_NONE;
}

char *
cpl_plan_kinds_why(void)
{
	const struct cpl_kind *k;
	struct cpl_buf b;
	size_t i;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "not a ");
	for (i = 0; (k = cpl_kinds_at(i)) != NULL; i++)
		if (k->plan && k->kind != NULL)
			cpl_buf_addf(&b, "%s, ", k->kind);
	if (b.len >= 2 && b.data[b.len - 2] == ',')
		b.len -= 2;
	cpl_buf_adds(&b, " or v1.1 Polyaxonfile (plan writes sweeps for "
		     "those)");
	return cpl_buf_detach(&b);
}

/* Whether every (all) or any (!all) training container of doc passes
 * test; false when there is none. */
static bool
each_target(const json_t *doc, const char *const *names, size_t n,
	    bool (*test)(const json_t *c), bool all)
{
	json_t *copy = json_deep_copy(doc);
	json_t **t;
	size_t nt, i;
	bool ok = all;

	t = cpl_plan_targets(&nt, copy, names, n);
	for (i = 0; i < nt; i++)
		ok = all ? ok && test(t[i]) : ok || test(t[i]);
	free(t);
	json_decref(copy);
	return nt > 0 && ok;
}

static bool
has_worker_flag(const json_t *c)
{
	char *v = cpl_knob_flag(c, NULL);

	free(v);
	return v != NULL;
}

bool
cpl_plan_can_set_workers(const json_t *doc, const char *const *names,
			 size_t n)
{
	return each_target(doc, names, n, has_worker_flag, true);
}

/* Whether one of v's strings assigns a thread variable (NAME=). */
static bool
assigns_threads(const json_t *v)
{
	const char *s = json_string_value(v);
	json_t *x;
	size_t i;

	if (s)
		return strstr(s, "OMP_NUM_THREADS=") != NULL ||
		       strstr(s, "MKL_NUM_THREADS=") != NULL;
	json_array_foreach(v, i, x)
		if (assigns_threads(x))
			return true;
	return false;
}

static bool
command_assigns_threads(const json_t *c)
{
	return assigns_threads(json_object_get(c, "command")) ||
	       assigns_threads(json_object_get(c, "args"));
}

bool
cpl_plan_command_sets_threads(const json_t *doc, const char *const *names,
			      size_t n)
{
	return each_target(doc, names, n, command_assigns_threads, false);
}

/* "{{ name }}" → name (a new string), or NULL. */
static char *
template_input(const char *v)
{
	const char *p, *e, *end;

	if (v == NULL || strncmp(v, "{{", 2) != 0)
		return NULL;
	p = v + 2;
	while (*p == ' ')
		p++;
	e = p;
	while ((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') ||
	       (*e >= '0' && *e <= '9') || *e == '_')
		e++;
	if (e == p)
		return NULL;
	end = e;
	while (*e == ' ')
		e++;
	if (strcmp(e, "}}") != 0)
		return NULL;
	return cpl_xstrndup(p, (size_t)(end - p));
}

/* The input called name of component comp, or NULL. */
static json_t *
input_of(json_t *comp, const char *name)
{
	json_t *in, *x;
	size_t i;

	json_array_foreach(json_object_get(comp, "inputs"), i, in)
		if (cpl_str_eq(json_string_value(json_object_get(in, "name")),
			       name))
			return in;
	x = NULL;
	return x;
}

static void
add_input(json_t *comp, const char *name, const char *type, json_t *value,
	  const char *description)
{
	json_t *inputs = json_object_get(comp, "inputs");

	if (!json_is_array(inputs)) {
		inputs = json_array();
		json_object_set_new(comp, "inputs", inputs);
	}
	json_array_append_new(inputs, json_pack("{s:s,s:s,s:s,s:o,s:b}",
		"name", name, "description", description, "type", type,
		"value", value, "isOptional", 1));
}

/* A value as the YAML reads best: a number when it is one. */
static json_t *
typed_value(const char *v)
{
	long n;

	if (cpl_parse_long(&n, v) == 0)
		return json_integer(n);
	return json_string(v);
}

/*
 * Whether a --segment NAME is one of the plan's own knobs: a --workers
 * style flag (cpl_budget_worker_flag's names), the worker input wname
 * (NULL: none) or an input the plan adds.  A segment that set it would
 * override the sweep (and its runs then oversubscribe: CPU401).
 */
static bool
segment_is_knob(const char *name, const char *wname)
{
	char *flag = cpl_xasprintf("--%s", name);
	bool knob = cpl_budget_worker_flag(flag, strlen(flag)) ||
		    cpl_str_eq(name, wname) ||
		    strncmp(name, "cpulint_", 8) == 0;

	free(flag);
	return knob;
}

/* The error of such a segment. */
static void
segment_knob_error(struct cpl_error *err, const char *segment)
{
	cpl_error_set(err, NULL, 0, 0, "--segment %s: that is a knob the plan "
		      "sweeps itself, not a step or epoch count: name the "
		      "script's own (--segment max-steps=200)", segment);
}

/* Splits "NAME=VALUE"; -1 when it has no '='. */
static int
segment_split(char **name, const char **value, const char *seg)
{
	const char *eq = seg ? strchr(seg, '=') : NULL;

	if (eq == NULL || eq == seg)
		return -1;
	*name = cpl_xstrndup(seg, (size_t)(eq - seg));
	*value = eq + 1;
	return 0;
}

/* The input that carries pool variable var: "cpulint_openblas_num_
 * threads".  Caller frees. */
static char *
pool_input(const char *var)
{
	char *s = cpl_xasprintf("cpulint_%s", var);
	char *q;

	for (q = s; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return s;
}

/*
 * The plan's labels on every run's Pods: Polyaxon puts the run's
 * environment labels on them, with the setting from the run's own
 * cpulint_setting input, so `compare -l cpulint.io/plan=ID` finds the
 * sweep.  -1 with err when the run's environment or labels are not
 * mappings.
 */
static int
environment_labels(json_t *comp, const char *id, bool repeats,
		   struct cpl_error *err)
{
	json_t *run = json_object_get(comp, "run"), *env, *labels;

	if (!json_is_object(run)) {
		cpl_error_set(err, NULL, 0, 0, "the component has no run");
		return -1;
	}
	env = json_object_get(run, "environment");
	if (env == NULL) {
		env = json_object();
		json_object_set_new(run, "environment", env);
	}
	labels = json_is_object(env) ? json_object_get(env, "labels") : NULL;
	if (json_is_object(env) && labels == NULL) {
		labels = json_object();
		json_object_set_new(env, "labels", labels);
	}
	if (!json_is_object(labels)) {
		cpl_error_set(err, NULL, 0, 0, "the run's environment or its "
			      "labels are not a mapping");
		return -1;
	}
	json_object_set_new(labels, CPL_PLAN_LABEL, json_string(id));
	json_object_set_new(labels, CPL_PLAN_SETTING_LABEL,
			    json_string("{{ cpulint_setting }}"));
	if (repeats)
		json_object_set_new(labels, CPL_PLAN_REPEAT_LABEL,
				    json_string("{{ cpulint_repeat }}"));
	return 0;
}

int
cpl_plan_polyaxon(struct cpl_buf *out, const struct cpl_plan *p,
		  struct cpl_error *err)
{
	json_t *src = json_deep_copy(p->doc), *op = NULL, *comp, *values;
	json_t *params, **t = NULL;
	const char *kind = json_string_value(json_object_get(src, "kind"));
	char *wname = NULL, *sname = NULL;
	bool workers = p->settings[0].workers >= 0;
	long rep, reps = p->repeats > 1 ? p->repeats : 1;
	size_t nt, i, j, run;
	int rc = -1;

	if (cpl_str_eq(kind, "operation")) {
		comp = json_incref(json_object_get(src, "component"));
		if (!json_is_object(comp)) {
			cpl_error_set(err, NULL, 0, 0, "the operation runs a "
				      "component it does not hold (pathRef, "
				      "hubRef, urlRef): plan that component's "
				      "file");
			goto out;
		}
		if (json_object_get(src, "matrix") != NULL) {
			cpl_error_set(err, NULL, 0, 0, "the operation has a "
				      "matrix already: plan its component");
			goto out;
		}
		op = json_incref(src);
	} else {
		comp = json_incref(src);
		json_object_del(comp, "version");
		json_object_del(comp, "kind");
		op = json_object();
	}
	t = cpl_plan_targets(&nt, comp, p->containers, p->ncontainers);
	if (nt == 0) {
		cpl_error_set(err, NULL, 0, 0, "no run container to set");
		goto out;
	}
	for (i = 0; i < nt; i++)
		cpl_knob_set_threads(t[i], "{{ cpulint_threads }}");
	add_input(comp, "cpulint_threads", "int",
		  json_integer(p->settings[0].threads),
		  "intra-op threads (OMP_NUM_THREADS, MKL_NUM_THREADS), set "
		  "by kubectl cpulint plan");
	if (workers) {
		char *v = cpl_knob_flag(t[0], NULL);

		wname = template_input(v);
		free(v);
		if (wname == NULL || input_of(comp, wname) == NULL) {
			free(wname);
			wname = cpl_xstrdup("cpulint_workers");
			for (i = 0; i < nt; i++)
				cpl_knob_set_flag(t[i], NULL,
						  "{{ cpulint_workers }}");
			add_input(comp, wname, "int",
				  json_integer(p->settings[0].workers),
				  "DataLoader workers, set by kubectl cpulint "
				  "plan");
		}
	}
	for (i = 0; i < p->npools; i++) {
		char *in = pool_input(p->pool_vars[i]);
		char *ref = cpl_xasprintf("{{ %s }}", in);

		for (j = 0; j < nt; j++)
			cpl_knob_set_env(t[j], p->pool_vars[i], ref);
		add_input(comp, in, "int",
			  json_integer(p->settings[0].pools[i]),
			  "a native pool's threads, set by kubectl cpulint "
			  "plan with the threads and workers");
		free(ref);
		free(in);
	}
	add_input(comp, "cpulint_setting", "str",
		  json_string(p->settings[0].id),
		  "the setting of the comparison this run is (kubectl "
		  "cpulint plan)");
	if (p->repeats > 1)
		add_input(comp, "cpulint_repeat", "int", json_integer(1),
			  "which run of its setting this run is (kubectl "
			  "cpulint plan --repeat)");
	if (environment_labels(comp, p->id, p->repeats > 1, err) < 0)
		goto out;
	params = json_object_get(op, "params");
	if (p->segment) {
		const char *sval;

		if (segment_split(&sname, &sval, p->segment) < 0) {
			cpl_error_set(err, NULL, 0, 0, "--segment takes "
				      "NAME=VALUE, not \"%s\"", p->segment);
			goto out;
		}
		if (segment_is_knob(sname, wname)) {
			segment_knob_error(err, p->segment);
			goto out;
		}
		if (input_of(comp, sname) == NULL) {
			cpl_error_set(err, NULL, 0, 0, "--segment %s: the "
				      "component has no input \"%s\" (a step "
				      "or epoch count of its own)", p->segment,
				      sname);
			goto out;
		}
		if (!json_is_object(params)) {
			params = json_object();
			json_object_set_new(op, "params", params);
		}
		json_object_set_new(params, sname, json_pack("{s:o}", "value",
					typed_value(sval)));
	}
	values = json_array();
	/* run by run: each setting once, then each again */
	for (run = 0; run < (size_t)reps * p->nsettings; run++) {
		json_t *row = json_object();

		i = run % p->nsettings;
		rep = (long)(run / p->nsettings) + 1;

		json_object_set_new(row, "cpulint_threads",
				    json_integer(p->settings[i].threads));
		if (workers)
			json_object_set_new(row, wname, json_integer(
					p->settings[i].workers));
		for (j = 0; j < p->npools; j++) {
			char *in = pool_input(p->pool_vars[j]);

			json_object_set_new(row, in, json_integer(
					p->settings[i].pools[j]));
			free(in);
		}
		json_object_set_new(row, "cpulint_setting",
				    json_string(p->settings[i].id));
		if (reps > 1)
			json_object_set_new(row, "cpulint_repeat",
					    json_integer(rep));
		json_array_append_new(values, row);
	}
	{
		json_t *o = json_object(), *tags;
		const char *k;
		json_t *x;

		json_object_set_new(o, "version", json_real(1.1));
		json_object_set_new(o, "kind", json_string("operation"));
		json_object_set_new(o, "name", json_string(p->id));
		json_object_set_new(o, "description",
				    json_string(p->summary));
		tags = json_pack("[s,s]", "cpulint", p->id);
		json_object_set_new(o, "tags", tags);
		json_object_foreach(op, k, x)
			if (strcmp(k, "version") != 0 &&
			    strcmp(k, "kind") != 0 && strcmp(k, "name") != 0 &&
			    strcmp(k, "description") != 0 &&
			    strcmp(k, "tags") != 0 &&
			    strcmp(k, "component") != 0)
				json_object_set(o, k, x);
		json_object_set_new(o, "matrix", json_pack("{s:s,s:i,s:o}",
			"kind", "mapping", "concurrency", 1, "values", values));
		json_object_set(o, "component", comp);
		json_decref(op);
		op = o;
	}
	if (cpl_plan_emit(out, op, false, err) < 0)
		goto out;
	rc = 0;
out:
	free(t);
	free(wname);
	free(sname);
	json_decref(comp);
	json_decref(op);
	json_decref(src);
	return rc;
}

/* Sets the script's --NAME flag for a segment; -1 with err if absent. */
static int
set_segment(json_t **t, size_t nt, const char *segment,
	    struct cpl_error *err)
{
	char *name = NULL;
	const char *val;
	size_t i;
	bool any = false;

	if (segment_split(&name, &val, segment) < 0) {
		cpl_error_set(err, NULL, 0, 0, "--segment takes NAME=VALUE, "
			      "not \"%s\"", segment);
		return -1;
	}
	if (segment_is_knob(name, NULL)) {
		segment_knob_error(err, segment);
		free(name);
		return -1;
	}
	for (i = 0; i < nt; i++)
		any = cpl_knob_set_flag(t[i], name, val) || any;
	if (!any)
		cpl_error_set(err, NULL, 0, 0, "--segment %s: no --%s flag in "
			      "the training command to set", segment, name);
	free(name);
	return any ? 0 : -1;
}

void
cpl_plan_set_pools(json_t **t, size_t nt, const struct cpl_plan *p,
		   const struct cpl_sweep_setting *s)
{
	char num[32];
	size_t i, j;

	for (i = 0; i < p->npools; i++) {
		cpl_format(num, sizeof(num), "%ld", s->pools[i]);
		for (j = 0; j < nt; j++)
			cpl_knob_set_env(t[j], p->pool_vars[i], num);
	}
}

/* A name for the setting's object: NAME-SETTING within 63 bytes. */
static char *
setting_name(const char *name, const char *id)
{
	size_t room = 63 - strlen(id) - 1;
	size_t len = strlen(name);

	if (len > room)
		len = room;
	while (len > 0 && name[len - 1] == '-')
		len--;
	return cpl_xasprintf("%.*s-%s", (int)len, name, id);
}

/* Drops what the server writes (a manifest read from the cluster). */
static void
strip_server_fields(json_t *doc)
{
	json_t *md = json_object_get(doc, "metadata");
	static const char *const drop[] = {
		"uid", "resourceVersion", "creationTimestamp", "generation",
		"managedFields", "selfLink", "ownerReferences",
	};
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(drop); i++)
		json_object_del(md, drop[i]);
	json_object_del(doc, "status");
}

/* Writes the Job of setting s (run rep of reps) to out. */
static int
one_job(struct cpl_buf *out, const struct cpl_plan *p,
	const struct cpl_sweep_setting *s, long rep, long reps,
	struct cpl_error *err)
{
	json_t *d = json_deep_copy(p->doc), *md, **t;
	const char *name;
	char *n, num[32], id[48];
	size_t j, nt;
	int rc = 0;

	strip_server_fields(d);
	md = json_object_get(d, "metadata");
	if (!json_is_object(md)) {
		md = json_object();
		json_object_set_new(d, "metadata", md);
	}
	name = json_string_value(json_object_get(md, "name"));
	if (reps > 1)
		cpl_format(id, sizeof(id), "%s-r%ld", s->id, rep);
	else
		cpl_format(id, sizeof(id), "%s", s->id);
	n = setting_name(name && *name ? name : "cpulint", id);
	json_object_set_new(md, "name", json_string(n));
	free(n);
	json_object_del(md, "generateName");
	cpl_plan_label(d, CPL_PLAN_LABEL, p->id);
	cpl_plan_label(d, CPL_PLAN_SETTING_LABEL, s->id);
	if (reps > 1) {
		cpl_format(num, sizeof(num), "%ld", rep);
		cpl_plan_label(d, CPL_PLAN_REPEAT_LABEL, num);
	}
	t = cpl_plan_targets(&nt, d, p->containers, p->ncontainers);
	cpl_format(num, sizeof(num), "%ld", s->threads);
	for (j = 0; j < nt; j++)
		cpl_knob_set_threads(t[j], num);
	if (s->workers >= 0) {
		cpl_format(num, sizeof(num), "%ld", s->workers);
		for (j = 0; j < nt; j++)
			cpl_knob_set_flag(t[j], NULL, num);
	}
	cpl_plan_set_pools(t, nt, p, s);
	if (p->segment && set_segment(t, nt, p->segment, err) < 0)
		rc = -1;
	if (rc == 0)
		rc = cpl_plan_emit(out, d, true, err);
	free(t);
	json_decref(d);
	return rc;
}

int
cpl_plan_jobs(struct cpl_buf *out, const struct cpl_plan *p,
	      struct cpl_error *err)
{
	long rep, reps = p->repeats > 1 ? p->repeats : 1;
	size_t i;
	int rc = 0;

	/* Run by run: Jobs applied in order run every setting once
	 * before any setting twice. */
	for (rep = 1; rep <= reps && rc == 0; rep++)
		for (i = 0; i < p->nsettings && rc == 0; i++)
			rc = one_job(out, p, &p->settings[i], rep, reps, err);
	return rc;
}

int
cpl_plan_segment(json_t **t, size_t nt, const char *segment,
		 struct cpl_error *err)
{
	return set_segment(t, nt, segment, err);
}
