/*
 * polyaxon.c — Polyaxonfiles → workloads.
 *
 * Forms read: v1.1 components (run kinds job and service, and the
 * distributed kinds with one workload per replica type; an mpijob's
 * launcher starts its ranks on the workers, slotsPerWorker each),
 * operations with an inline component (params, matrix, runPatch), the
 * simplified top-level resources/env of Polyaxon 2.18, and legacy v1
 * experiments and groups, a distributed experiment's workers and
 * parameter servers each with the resources Polyaxon gives its task.
 * Kinds that start no training container are recorded as skipped.
 * Containers are read by cpl_manifest_container() through a template hook
 * that resolves {{ name }} from literal input and param values; anything
 * else in braces is unknown.
 *
 * Invariant: as in manifest.c, a workload enters the caller's list only
 * once it is complete.  Template variables borrow names and values from the
 * stream, which outlives the load call; everything stored in a workload is
 * copied.  Every workload is a training job; the platform mounts /dev/shm
 * unless plugins.shm is false.
 */
#include "load/loader.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "shell/shscan.h"
#include "text/quantity.h"

/* Template expressions longer than this are left unresolved. */
#define MAX_EXPR 128
/* Legacy workers or parameter servers read past this many are ignored. */
#define MAX_TASKS 100000

/* s is one of the NULL-terminated list. */
static bool
one_of(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* ---- templates -------------------------------------------------------- */

/* The variables a Polyaxonfile's templates may use, name → value (NULL
 * when it cannot be resolved); later sets win.  Names and values are
 * borrowed from the document. */
struct tvars {
	struct cpl_strmap map;
};

/* Defines or redefines name. */
static void
tvars_set(struct tvars *t, const char *name, const char *value)
{
	cpl_strmap_put(&t->map, name, (void *)value);
}

/*
 * The text a literal value renders as (Python's spelling for booleans, as
 * Polyaxon renders them); NULL for null, lists, mappings.
 */
static const char *
literal(const struct cpl_ynode *n)
{
	int b;

	if (!cpl_ynode_is_scalar(n) || cpl_ynode_is_null(n))
		return NULL;
	if ((b = cpl_ynode_bool(n)) >= 0)
		return b ? "True" : "False";
	return n->value;
}

/* inputs: [{name, value}]: a literal value resolves, else unknown. */
static void
tvars_inputs(struct tvars *t, const struct cpl_ynode *inputs)
{
	size_t i;

	if (!cpl_ynode_is_seq(inputs))
		return;
	for (i = 0; i < inputs->count; i++) {
		const char *name = cpl_ynode_gets(inputs->items[i], "name");

		if (name)
			tvars_set(t, name,
				  literal(cpl_ynode_get(inputs->items[i],
							"value")));
	}
}

/* params: {name: {value}} (a ref is unknown) or legacy {name: value}. */
static void
tvars_params(struct tvars *t, const struct cpl_ynode *params)
{
	size_t i;

	if (!cpl_ynode_is_map(params))
		return;
	for (i = 0; i < params->count; i++) {
		const struct cpl_ynode *k = params->pairs[i].key;
		const struct cpl_ynode *v = params->pairs[i].value;

		if (k->kind != CPL_Y_SCALAR)
			continue;
		if (cpl_ynode_is_map(v))
			tvars_set(t, k->value,
				  cpl_ynode_get(v, "ref") ? NULL :
				  literal(cpl_ynode_get(v, "value")));
		else
			tvars_set(t, k->value, literal(v));
	}
}

/* Names a mapping defines become unknown (matrix params vary per run). */
static void
tvars_unknown(struct tvars *t, const struct cpl_ynode *map)
{
	size_t i;

	if (!cpl_ynode_is_map(map))
		return;
	for (i = 0; i < map->count; i++)
		if (map->pairs[i].key->kind == CPL_Y_SCALAR)
			tvars_set(t, map->pairs[i].key->value, NULL);
}

/* A matrix: its params and the keys of its mapping values are unknown. */
static void
tvars_matrix(struct tvars *t, const struct cpl_ynode *matrix)
{
	const struct cpl_ynode *values = cpl_ynode_get(matrix, "values");
	size_t i;

	tvars_unknown(t, cpl_ynode_get(matrix, "params"));
	if (cpl_ynode_is_seq(values))
		for (i = 0; i < values->count; i++)
			tvars_unknown(t, values->items[i]);
}

/*
 * The value of the expression between "{{" and "}}" (b..e): a name,
 * params.NAME, inputs.NAME, optionally followed by .value; NULL when it is
 * anything else or has no literal value.
 */
static const char *
resolve(const struct tvars *t, const char *b, const char *e)
{
	char expr[MAX_EXPR];
	const char *p;
	size_t n, i;

	while (b < e && (isspace((unsigned char)*b) || *b == '-'))
		b++;
	while (e > b && (isspace((unsigned char)e[-1]) || e[-1] == '-'))
		e--;
	n = (size_t)(e - b);
	if (n == 0 || n >= sizeof(expr))
		return NULL;
	memcpy(expr, b, n);
	expr[n] = '\0';
	p = expr;
	if (cpl_str_starts(p, "params."))
		p += 7;
	else if (cpl_str_starts(p, "inputs."))
		p += 7;
	n = strlen(p);
	if (n > 6 && cpl_str_ends(p, ".value"))
		expr[(size_t)(p - expr) + n - 6] = '\0';
	if (!isalpha((unsigned char)*p) && *p != '_')
		return NULL;
	for (i = 0; p[i]; i++)
		if (!isalnum((unsigned char)p[i]) && p[i] != '_')
			return NULL;
	return cpl_strmap_get(&t->map, p);
}

/*
 * The expansion hook (struct cpl_expand): every {{ ... }} replaced by its
 * value; when one cannot be resolved, *unknown is set and the text is
 * returned as written.
 */
static char *
tpl_expand(void *ctx, const char *text, bool *unknown)
{
	const struct tvars *t = ctx;
	struct cpl_buf b;
	const char *p = text, *open, *close, *v;

	if (strstr(text, "{%") != NULL) {
		*unknown = true;
		return cpl_xstrdup(text);
	}
	cpl_buf_init(&b, 0);
	while ((open = strstr(p, "{{")) != NULL) {
		close = strstr(open + 2, "}}");
		if (close == NULL ||
		    (v = resolve(t, open + 2, close)) == NULL) {
			*unknown = true;
			cpl_buf_free(&b);
			return cpl_xstrdup(text);
		}
		cpl_buf_add(&b, p, (size_t)(open - p));
		cpl_buf_adds(&b, v);
		p = close + 2;
	}
	cpl_buf_adds(&b, p);
	return cpl_buf_detach(&b);
}

/* ---- loader state ----------------------------------------------------- */

/* What one Polyaxonfile load carries around. */
struct pl {
	struct cpl_wlist *out;
	const struct cpl_ystream *s;
	const struct cpl_ynode *root;	/* the document */
	const char *path;
	struct cpl_error *err;
	struct tvars vars;
	struct cpl_expand ex;		/* tpl_expand over vars */
	const char *name;		/* workload name (borrowed) */
	char *stem;			/* file name without extension */
	bool shm;			/* platform_shm */
	const struct cpl_ynode *patch;	/* the operation's runPatch */
	const struct cpl_ynode *layers[2];	/* simplified fields, in
						 * order of precedence */
	const struct cpl_ynode *nproc;	/* run.nProcPerNode */
	const struct cpl_ynode *run;	/* the run section */
};

/* The file's name without directories and extension. */
static char *
file_stem(const char *path)
{
	const char *b, *dot;

	if (path == NULL)
		return cpl_xstrdup("");
	b = strrchr(path, '/');
	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	return dot && dot != b ? cpl_xstrndup(b, (size_t)(dot - b)) :
				 cpl_xstrdup(b);
}

/* A scalar's text expanded; NULL (and *unknown) when unresolved. */
static char *
expand_node(struct pl *pl, const struct cpl_ynode *n, bool *unknown)
{
	char *text;

	*unknown = false;
	text = tpl_expand(&pl->vars, n->value, unknown);
	if (*unknown) {
		free(text);
		return NULL;
	}
	return text;
}

/* An integer field (templates resolved), def when absent or not one. */
static long
get_long(struct pl *pl, const struct cpl_ynode *map, const char *key,
	 long def)
{
	const struct cpl_ynode *n = cpl_ynode_get(map, key);
	bool unknown;
	char *text;
	long v = def;

	if (!cpl_ynode_is_scalar(n) || cpl_ynode_is_null(n))
		return def;
	text = expand_node(pl, n, &unknown);
	if (text == NULL || cpl_parse_long(&v, text) < 0)
		v = def;
	free(text);
	return v;
}

/* A new workload for the run kind rkind ("job", "pytorchjob" ...). */
static struct cpl_workload *
new_workload(struct pl *pl, const char *rkind)
{
	struct cpl_workload *w = cpl_workload_new(CPL_SRC_POLYAXON, pl->path);

	w->kind = cpl_xasprintf("Polyaxon %s", rkind);
	w->name = cpl_xstrdup(pl->name);
	w->pos = cpl_loader_pos(w->file, pl->root);
	w->training_job = true;
	w->run_to_completion = true;
	w->platform_shm = pl->shm;
	return w;
}


/* ---- patches and simplified fields ------------------------------------ */

/* Scalar node i of a command or args node (one string or a list). */
static const struct cpl_ynode *
word_node(const struct cpl_ynode *n, size_t i)
{
	if (cpl_ynode_is_scalar(n))
		return i == 0 ? n : NULL;
	if (cpl_ynode_is_seq(n) && i < n->count &&
	    cpl_ynode_is_scalar(n->items[i]))
		return n->items[i];
	return NULL;
}

/*
 * Rebuilds c's argv after a patch that replaced command or args (taken from
 * t, the patch read as a container), then scans it again.
 */
static void
patch_argv(struct pl *pl, struct cpl_container *c,
	   const struct cpl_container *t, const struct cpl_ynode *base,
	   const struct cpl_ynode *patch, bool has_cmd, bool has_args)
{
	const struct cpl_container *cs = has_cmd ? t : c;
	const struct cpl_container *as = has_args ? t : c;
	const struct cpl_ynode *cmdn = cpl_ynode_get(has_cmd ? patch : base,
						     "command");
	const struct cpl_ynode *argn = cpl_ynode_get(has_args ? patch : base,
						     "args");
	const struct cpl_ynode **nodes;
	struct cpl_word *v;
	size_t n = 0, i, ncmd = cs->ncommand;
	size_t total = ncmd + (as->argc - as->ncommand);

	v = cpl_xcalloc(total + 1, sizeof(*v));
	nodes = cpl_xcalloc(total + 1, sizeof(*nodes));
	for (i = 0; i < ncmd; i++, n++) {
		v[n] = cpl_word_dup(&cs->argv[i]);
		nodes[n] = word_node(cmdn, i);
	}
	for (i = as->ncommand; i < as->argc; i++, n++) {
		v[n] = cpl_word_dup(&as->argv[i]);
		nodes[n] = word_node(argn, i - as->ncommand);
	}
	for (i = 0; i < n; i++)
		if (nodes[i] && strcmp(nodes[i]->value, v[i].text) != 0)
			nodes[i] = NULL;
	for (i = 0; i < c->argc; i++)
		free(c->argv[i].text);
	free(c->argv);
	c->argv = v;
	c->argc = c->argv_cap = n;
	c->ncommand = ncmd;
	cpl_launch_clear(&c->launch);
	cpl_shscan(&c->launch, c->argv, c->argc, nodes, pl->s);
	free(nodes);
}

/*
 * Applies runPatch's container fields (image, command, args, env,
 * resources) to c, read from base.  The patch wins field by field.
 */
static int
apply_patch(struct pl *pl, struct cpl_container *c,
	    const struct cpl_ynode *base, const struct cpl_ynode *patch,
	    const struct cpl_ynode *volumes)
{
	struct cpl_workload *tw = cpl_workload_new(CPL_SRC_POLYAXON, NULL);
	struct cpl_container *t = cpl_workload_add_container(tw);
	size_t i;
	int rc = -1;

	t->pos.file = c->pos.file;
	if (cpl_manifest_container(t, pl->s, patch, volumes, pl->path,
				   &pl->ex, pl->err) < 0)
		goto out;
	if (t->cpu_request != CPL_CPU_ABSENT) {
		c->cpu_request = t->cpu_request;
		c->request_pos = t->request_pos;
	}
	if (t->cpu_limit != CPL_CPU_ABSENT) {
		c->cpu_limit = t->cpu_limit;
		c->limit_pos = t->limit_pos;
	}
	if (cpl_ynode_get(patch, "resources"))
		c->resources_pos = t->resources_pos;
	if (t->gpus > 0)
		c->gpus = t->gpus;
	for (i = 0; i < t->nenv; i++)
		cpl_container_set_env(c, t->env[i].name, t->env[i].value,
				      t->env[i].pos);
	c->env_from = c->env_from || t->env_from;
	if (t->shm) {
		c->shm = true;
		c->shm_bytes = t->shm_bytes;
	}
	if (t->image) {
		free(c->image);
		c->image = cpl_xstrdup(t->image);
	}
	if (!cpl_loader_absent(cpl_ynode_get(patch, "command")) ||
	    !cpl_loader_absent(cpl_ynode_get(patch, "args")))
		patch_argv(pl, c, t, base, patch,
			   !cpl_loader_absent(cpl_ynode_get(patch, "command")),
			   !cpl_loader_absent(cpl_ynode_get(patch, "args")));
	rc = 0;
out:
	cpl_workload_free(tw);
	return rc;
}

/* Sets one variable from a scalar (expanded) or unknown value node. */
static void
set_env_node(struct pl *pl, struct cpl_container *c, const char *name,
	     const struct cpl_ynode *v)
{
	bool unknown;
	char *text = NULL;

	if (cpl_ynode_is_scalar(v))
		text = cpl_ynode_is_null(v) ? cpl_xstrdup("") :
					      expand_node(pl, v, &unknown);
	cpl_container_set_env(c, name, text, cpl_loader_pos(c->pos.file, v));
	free(text);
}

/* The simplified env: {NAME: value}, or a Kubernetes env list. */
static int
simple_env(struct pl *pl, struct cpl_container *c,
	   const struct cpl_ynode *env)
{
	size_t i;

	if (cpl_ynode_is_map(env)) {
		for (i = 0; i < env->count; i++)
			if (env->pairs[i].key->kind == CPL_Y_SCALAR)
				set_env_node(pl, c, env->pairs[i].key->value,
					     env->pairs[i].value);
		return 0;
	}
	if (!cpl_ynode_is_seq(env))
		return cpl_loader_fail(pl->err, pl->path, env,
			       "env must be a mapping of NAME: value");
	for (i = 0; i < env->count; i++) {
		const struct cpl_ynode *e = env->items[i], *v;
		const char *name = cpl_ynode_gets(e, "name");

		if (name == NULL)
			continue;
		v = cpl_ynode_get(e, "value");
		if (cpl_ynode_get(e, "valueFrom"))
			cpl_container_set_env(c, name, NULL,
					      cpl_loader_pos(c->pos.file, e));
		else if (v == NULL)
			cpl_container_set_env(c, name, "",
					      cpl_loader_pos(c->pos.file, e));
		else
			set_env_node(pl, c, name, v);
	}
	return 0;
}

/*
 * Reads a CPU range or quantity node ("2..4", "..4", "2", 2) into req and
 * lim; sides not written are left as they were.
 */
static int
read_range(struct pl *pl, struct cpl_container *c,
	   const struct cpl_ynode *n, bool as_request, bool as_limit)
{
	const char *why;
	int64_t req = -1, lim = -1;
	bool unknown;
	char *text;
	int rc = 0;

	if (cpl_loader_absent(n))
		return 0;
	if (n->kind != CPL_Y_SCALAR)
		return cpl_loader_fail(pl->err, pl->path, n,
			       "cpu must be a quantity or a range REQ..LIM");
	text = expand_node(pl, n, &unknown);
	if (text == NULL) {
		req = lim = CPL_CPU_UNKNOWN;
	} else if (!as_request || !as_limit) {
		if (cpl_quantity_cpu(&req, text, &why) < 0)
			rc = cpl_loader_fail(pl->err, pl->path, n,
				     "invalid CPU quantity \"%s\": %s", text,
				     why);
		lim = req;
	} else if (cpl_quantity_range(&req, &lim, text, &why) < 0) {
		rc = cpl_loader_fail(pl->err, pl->path, n,
			     "invalid CPU range \"%s\": %s", text, why);
	}
	free(text);
	if (rc < 0)
		return -1;
	if (as_request && req != -1) {
		c->cpu_request = req;
		c->request_pos = cpl_loader_pos(c->pos.file, n);
	}
	if (as_limit && lim != -1) {
		c->cpu_limit = lim;
		c->limit_pos = cpl_loader_pos(c->pos.file, n);
	}
	return 0;
}

/*
 * Merges one layer's simplified top-level fields into the run container:
 * resources {cpu: "REQ..LIM"} (or requests/limits) and env {NAME: value}.
 * They win over the container's own values.
 */
static int
apply_simple(struct pl *pl, struct cpl_container *c,
	     const struct cpl_ynode *layer)
{
	const struct cpl_ynode *res = cpl_ynode_get(layer, "resources");
	const struct cpl_ynode *env = cpl_ynode_get(layer, "env");

	if (!cpl_loader_absent(res)) {
		if (res->kind != CPL_Y_MAP)
			return cpl_loader_fail(pl->err, pl->path, res,
				       "resources must be a mapping");
		c->resources_pos = cpl_loader_pos(c->pos.file,
					    cpl_ynode_key(layer,
							  "resources"));
		if (read_range(pl, c, cpl_ynode_get(res, "cpu"), true,
			       true) < 0 ||
		    read_range(pl, c, cpl_ynode_path(res, "requests", "cpu",
						     NULL), true, false) < 0 ||
		    read_range(pl, c, cpl_ynode_path(res, "limits", "cpu",
						     NULL), false, true) < 0)
			return -1;
	}
	if (!cpl_loader_absent(env) && simple_env(pl, c, env) < 0)
		return -1;
	return 0;
}

/* ---- v1.1 components -------------------------------------------------- */

/* Replica type name as Kubeflow spells it: "master" → "Master", "PS". */
static char *
replica_name(const char *key)
{
	char *r;

	if (strcmp(key, "ps") == 0)
		return cpl_xstrdup("PS");
	r = cpl_xstrdup(key);
	r[0] = (char)toupper((unsigned char)r[0]);
	return r;
}

/* Adds the containers of a list (init entries or sidecars) to w. */
static int
add_extra(struct pl *pl, struct cpl_workload *w,
	  const struct cpl_ynode *list, enum cpl_crole role,
	  const struct cpl_ynode *volumes)
{
	size_t i;

	if (!cpl_ynode_is_seq(list))
		return 0;
	for (i = 0; i < list->count; i++) {
		const struct cpl_ynode *n = list->items[i];
		struct cpl_container *c;

		if (role == CPL_CROLE_INIT)
			n = cpl_ynode_get(n, "container");
		if (!cpl_ynode_is_map(n))
			continue;
		c = cpl_workload_add_container(w);
		c->role = role;
		if (cpl_manifest_container(c, pl->s, n, volumes, pl->path,
					   &pl->ex, pl->err) < 0)
			return -1;
	}
	return 0;
}

/*
 * An mpijob replica: the launcher only starts the ranks with mpirun (the
 * MPI operator hands it the workers' hostfile); each worker runs
 * slotsPerWorker of them.
 */
static void
mpijob_replica(struct pl *pl, struct cpl_workload *w, struct cpl_container *c,
	       const char *key)
{
	const struct cpl_ynode *slots = cpl_ynode_get(pl->run, "slotsPerWorker");

	if (strcmp(key, "launcher") == 0) {
		cpl_loader_mpi(w, true);
		return;
	}
	c->has_slots = true;
	if (cpl_ynode_is_scalar(slots) && !cpl_ynode_is_null(slots)) {
		bool unknown;
		char *text = expand_node(pl, slots, &unknown);

		c->slots.text = text ? text : cpl_xstrdup(slots->value);
		c->slots.pos = cpl_loader_pos(w->file, slots);
		c->slots_from = "slotsPerWorker";
	} else {
		c->slots.text = cpl_xstrdup("1");
		c->slots_from = "slotsPerWorker (default)";
	}
}

/* The cpulint.io/measured annotation of a run or replica's
 * environment.annotations, kept on w. */
static void
patch_measured(struct cpl_workload *w, const struct cpl_ynode *spec)
{
	const struct cpl_ynode *m = cpl_ynode_path(spec, "environment",
		"annotations", CPL_MEASURED_ANNOTATION, NULL);

	if (cpl_ynode_is_scalar(m) && cpl_ynode_str(m) != NULL)
		cpl_workload_set_measured(w, cpl_ynode_str(m),
					  cpl_loader_pos(w->file, m));
}

/*
 * Loads one replica (or a job's run): init containers, the run container
 * (patched, then merged with the simplified fields), sidecars.  key is the
 * replica key, NULL for job and service.
 */
static int
load_replica(struct pl *pl, const char *rkind, const struct cpl_ynode *spec,
	     const char *key)
{
	struct cpl_workload *w = new_workload(pl, rkind);
	const struct cpl_ynode *volumes = cpl_ynode_get(spec, "volumes");
	const struct cpl_ynode *cn = cpl_ynode_get(spec, "container");
	const struct cpl_ynode *patch;
	struct cpl_container *c;
	size_t i;
	int rc = -1;

	if (key) {
		w->replica = replica_name(key);
		w->replicas = get_long(pl, spec, "replicas", 1);
		patch = cpl_ynode_path(pl->patch, key, "container", NULL);
	} else {
		patch = cpl_ynode_get(pl->patch, "container");
	}
	if (cpl_ynode_is_scalar(pl->nproc) && !cpl_loader_absent(pl->nproc)) {
		w->has_nproc = true;
		w->nproc.text = cpl_xstrdup(pl->nproc->value);
		w->nproc.pos = cpl_loader_pos(w->file, pl->nproc);
	}
	if (add_extra(pl, w, cpl_ynode_get(spec, "init"), CPL_CROLE_INIT,
		      volumes) < 0)
		goto out;
	/* compare --fix's record (keep.h), in Polyaxon's place for a
	 * run's annotations: the replica's environment. */
	patch_measured(w, spec);
	c = cpl_workload_add_container(w);
	c->name = cpl_xstrdup("polyaxon-main");
	c->run_container = true;
	if (cpl_manifest_container(c, pl->s, cn, volumes, pl->path, &pl->ex,
				   pl->err) < 0)
		goto out;
	if (cpl_ynode_is_map(patch) &&
	    apply_patch(pl, c, cn, patch, volumes) < 0)
		goto out;
	for (i = 0; i < CPL_ARRAY_LEN(pl->layers); i++)
		if (pl->layers[i] && apply_simple(pl, c, pl->layers[i]) < 0)
			goto out;
	if (add_extra(pl, w, cpl_ynode_get(spec, "sidecars"),
		      CPL_CROLE_SIDECAR, volumes) < 0)
		goto out;
	if (strcmp(rkind, "mpijob") == 0 && key != NULL)
		mpijob_replica(pl, w, c, key);
	rc = 0;
out:
	return cpl_loader_finish(pl->out, w, rc);
}

/* The run kinds with one replica spec per role. */
static const char *const dist_kinds[] = {
	"pytorchjob", "tfjob", "mpijob", "mxnetjob", "xgboostjob",
	"paddlejob", "daskjob", "daskcluster", "rayjob", "raycluster", NULL
};

/* Run kinds that start no training container of their own. */
static const char *const skip_kinds[] = {
	"dag", "notifier", "cleaner", "tuner", "watchdog", NULL
};

/*
 * A distributed run: every entry that holds a container is a replica
 * (master, worker, chief, ps, launcher, head ...); "workers" without a
 * container of its own is a mapping of named groups (Ray), each a replica.
 */
static int
load_distributed(struct pl *pl, const char *rkind,
		 const struct cpl_ynode *run)
{
	size_t i, j, n = 0, first = pl->out->count;

	pl->run = run;
	if (strcmp(rkind, "pytorchjob") == 0)
		pl->nproc = cpl_ynode_get(run, "nProcPerNode");
	for (i = 0; i < run->count; i++) {
		const struct cpl_ynode *k = run->pairs[i].key;
		const struct cpl_ynode *v = run->pairs[i].value;

		if (k->kind != CPL_Y_SCALAR || !cpl_ynode_is_map(v))
			continue;
		if (cpl_ynode_get(v, "container")) {
			if (load_replica(pl, rkind, v, k->value) < 0)
				return -1;
			n++;
			continue;
		}
		if (strcmp(k->value, "workers") != 0)
			continue;
		for (j = 0; j < v->count; j++) {
			const struct cpl_ynode *gk = v->pairs[j].key;
			const struct cpl_ynode *gv = v->pairs[j].value;

			if (gk->kind != CPL_Y_SCALAR ||
			    !cpl_ynode_get(gv, "container"))
				continue;
			if (load_replica(pl, rkind, gv, gk->value) < 0)
				return -1;
			n++;
		}
	}
	if (n == 0)
		return cpl_loader_fail(pl->err, pl->path, run,
			       "%s run has no replica with a container",
			       rkind);
	if (strcmp(rkind, "mpijob") == 0)
		cpl_loader_mpi_cap(pl->out, first);
	return 0;
}

/* Loads a component's run section by its kind. */
static int
load_run(struct pl *pl, const struct cpl_ynode *run)
{
	const struct cpl_ynode *kn = cpl_ynode_get(run, "kind");
	const char *rkind = cpl_ynode_str(kn);

	if (rkind == NULL)
		return cpl_loader_fail(pl->err, pl->path, kn ? kn : run,
			       "run has no kind (job, service, pytorchjob "
			       "...)");
	if (strcmp(rkind, "job") == 0 || strcmp(rkind, "service") == 0) {
		if (cpl_loader_absent(cpl_ynode_get(run, "container")))
			return cpl_loader_fail(pl->err, pl->path, run,
				       "%s run has no container", rkind);
		return load_replica(pl, rkind, run, NULL);
	}
	if (one_of(rkind, dist_kinds))
		return load_distributed(pl, rkind, run);
	if (one_of(rkind, skip_kinds)) {
		cpl_wlist_skip(pl->out, pl->path, pl->root->line,
			       pl->root->column, "its run starts no container "
			       "of its own", "Polyaxon %s \"%s\"", rkind,
			       pl->name);
		return 0;
	}
	return cpl_loader_fail(pl->err, pl->path, kn, "unknown run kind \"%s\"",
		       rkind);
}

/* plugins.shm of node: 1, 0, or -1 when not written. */
static int
plugin_shm(const struct cpl_ynode *node)
{
	return cpl_ynode_bool(cpl_ynode_path(node, "plugins", "shm", NULL));
}

/*
 * Loads a component, standing alone (op NULL) or inline in operation op
 * whose params, matrix, runPatch and simplified fields apply to it.
 */
static int
load_component(struct pl *pl, const struct cpl_ynode *comp,
	       const struct cpl_ynode *op)
{
	const struct cpl_ynode *run = cpl_ynode_get(comp, "run");
	int shm;

	tvars_inputs(&pl->vars, cpl_ynode_get(comp, "inputs"));
	tvars_params(&pl->vars, cpl_ynode_get(op, "params"));
	tvars_matrix(&pl->vars, cpl_ynode_get(op, "matrix"));
	pl->name = cpl_ynode_gets(op, "name");
	if (pl->name == NULL)
		pl->name = cpl_ynode_gets(comp, "name");
	if (pl->name == NULL)
		pl->name = pl->stem;
	shm = plugin_shm(op);
	if (shm < 0)
		shm = plugin_shm(comp);
	pl->shm = shm != 0;
	pl->patch = cpl_ynode_get(op, "runPatch");
	pl->layers[0] = comp;
	pl->layers[1] = op;
	if (cpl_loader_absent(run))
		return cpl_loader_fail(pl->err, pl->path, comp,
			       "component has no run section (it needs a run "
			       "with a container)");
	if (run->kind != CPL_Y_MAP)
		return cpl_loader_fail(pl->err, pl->path, run,
			       "run must be a mapping");
	return load_run(pl, run);
}

/* An operation: its inline component, or nothing for a reference. */
static int
load_operation(struct pl *pl)
{
	const struct cpl_ynode *comp = cpl_ynode_get(pl->root, "component");

	if (cpl_loader_absent(comp)) {	/* hubRef, pathRef, urlRef, dagRef */
		const char *name = cpl_ynode_gets(pl->root, "name");

		cpl_wlist_skip(pl->out, pl->path, pl->root->line,
			       pl->root->column, "its component is in another "
			       "file or hub (a reference)",
			       "Polyaxon operation \"%s\"",
			       name ? name : pl->stem);
		return 0;
	}
	if (comp->kind != CPL_Y_MAP)
		return cpl_loader_fail(pl->err, pl->path, comp,
			       "component must be a mapping");
	return load_component(pl, comp, pl->root);
}

/* ---- legacy v1 (experiment, group, job) ------------------------------- */

/* Appends the words of run.cmd (one string, or a list) to c. */
static int
legacy_cmd(struct pl *pl, struct cpl_container *c,
	   const struct cpl_ynode *cmd, const struct cpl_ynode ***nodes)
{
	size_t i, n;

	if (cpl_loader_absent(cmd))
		return 0;
	if (cmd->kind == CPL_Y_MAP)
		return cpl_loader_fail(pl->err, pl->path, cmd,
			       "cmd must be a string or a list");
	n = cmd->kind == CPL_Y_SEQ ? cmd->count : 1;
	*nodes = cpl_xcalloc(n + 1, sizeof(**nodes));
	for (i = 0; i < n; i++) {
		const struct cpl_ynode *w = word_node(cmd, i);
		bool unknown;
		char *text;

		if (w == NULL)
			return cpl_loader_fail(pl->err, pl->path, cmd->items[i],
				       "cmd items must be strings");
		text = expand_node(pl, w, &unknown);
		if (text == NULL)
			text = cpl_xstrdup(w->value);
		(*nodes)[c->argc] = strcmp(text, w->value) == 0 ? w : NULL;
		cpl_container_add_arg(c, text, cpl_loader_pos(c->pos.file, w));
		free(text);
	}
	c->ncommand = c->argc;
	return 0;
}

/* GPUs of legacy environment.resources.gpu {requests, limits}. */
static long
legacy_gpus(struct pl *pl, const struct cpl_ynode *gpu)
{
	long n = get_long(pl, gpu, "limits", 0);

	return n > 0 ? n : get_long(pl, gpu, "requests", 0);
}

/*
 * Reads legacy resources res (cpu {requests, limits} or one quantity, gpu
 * {requests, limits}; NULL: none) into c, replacing what it had; at is
 * where they are written.
 */
static int
legacy_resources(struct pl *pl, struct cpl_container *c,
		 const struct cpl_ynode *res, const struct cpl_ynode *at)
{
	const struct cpl_ynode *cpu = cpl_ynode_get(res, "cpu");

	c->cpu_request = CPL_CPU_ABSENT;
	c->cpu_limit = CPL_CPU_ABSENT;
	c->request_pos = c->limit_pos = (struct cpl_pos){ NULL, 0, 0 };
	c->resources_pos = res && at ? cpl_loader_pos(c->pos.file, at) :
				       c->pos;
	if (cpl_ynode_is_map(cpu)) {
		if (read_range(pl, c, cpl_ynode_get(cpu, "requests"), true,
			       false) < 0 ||
		    read_range(pl, c, cpl_ynode_get(cpu, "limits"), false,
			       true) < 0)
			return -1;
	} else if (read_range(pl, c, cpu, true, true) < 0) {
		return -1;
	}
	c->gpus = legacy_gpus(pl, cpl_ynode_get(res, "gpu"));
	return 0;
}

/* The section of a legacy environment that sizes a distributed run:
 * replicas (v0.4 on), or the framework's own (earlier); NULL when the
 * experiment is not distributed. */
static const struct cpl_ynode *
legacy_cluster(const struct cpl_ynode *env)
{
	static const char *const fw[] = { "replicas", "pytorch", "tensorflow",
					  "horovod", "mxnet", "mpi", NULL };
	const char *const *f;

	for (f = fw; *f; f++)
		if (cpl_ynode_is_map(cpl_ynode_get(env, *f)))
			return cpl_ynode_get(env, *f);
	return NULL;
}

/* Resources of a legacy task entry, and where they are written: its
 * "resources" (worker: [{index: 2, resources: ...}], default_worker), or
 * the entry itself in the earliest form (worker_resources: [{index: 2,
 * cpu: ...}], default_worker_resources). */
struct lres {
	const struct cpl_ynode *res;
	const struct cpl_ynode *at;
};

static struct lres
legacy_entry(const struct cpl_ynode *e, bool bare)
{
	struct lres r = { NULL, NULL };

	if (bare) {
		if (cpl_ynode_is_map(e))
			r.res = r.at = e;
	} else if (!cpl_loader_absent(cpl_ynode_get(e, "resources"))) {
		r.res = cpl_ynode_get(e, "resources");
		r.at = cpl_ynode_key(e, "resources");
	}
	return r;
}

/* The entry for task index i of a per-index list that sets resources. */
static struct lres
legacy_indexed(const struct cpl_ynode *list, long i, bool bare)
{
	struct lres none = { NULL, NULL };
	size_t k;
	long idx;

	if (!cpl_ynode_is_seq(list))
		return none;
	for (k = 0; k < list->count; k++) {
		const struct cpl_ynode *e = list->items[k];
		struct lres r;

		if (cpl_ynode_long(cpl_ynode_get(e, "index"), &idx) != 0 ||
		    idx != i)
			continue;
		r = legacy_entry(e, bare);
		if (r.res)
			return r;
	}
	return none;
}

/* One legacy replica: a copy of the master's workload with resources r;
 * with none, findings about them go to the count that asks for the
 * replicas (count). */
static int
legacy_replica(struct pl *pl, const struct cpl_workload *master,
	       struct lres r, const struct cpl_ynode *count,
	       const char *replica, long replicas)
{
	struct cpl_workload *w = cpl_workload_copy(master);
	int rc;

	free(w->replica);
	w->replica = cpl_xstrdup(replica);
	w->replicas = replicas;
	rc = legacy_resources(pl, &w->containers[0], r.res, r.at);
	if (r.res == NULL && count != NULL)
		w->containers[0].resources_pos = cpl_loader_pos(w->file,
								count);
	return cpl_loader_finish(pl->out, w, rc);
}

/*
 * The workers (task "worker", count key n_workers) or parameter servers
 * ("ps", n_ps) of a distributed legacy experiment: Polyaxon gives task i
 * the resources of its per-index entry, else of the default entry
 * (default_worker, default_ps; or the earlier
 * default_worker_resources), else none.  Tasks that share the default
 * are one workload.
 */
static int
legacy_tasks(struct pl *pl, const struct cpl_workload *master,
	     const struct cpl_ynode *cluster, const char *task,
	     const char *label)
{
	char *key = cpl_xasprintf("%s_resources", task);
	char *def = cpl_xasprintf("default_%s", task);
	char *def_old = cpl_xasprintf("default_%s_resources", task);
	const struct cpl_ynode *list = cpl_ynode_get(cluster, task);
	const struct cpl_ynode *list_old = cpl_ynode_get(cluster, key);
	struct lres dflt = legacy_entry(cpl_ynode_get(cluster, def), false);
	const char *nkey = strcmp(task, "ps") == 0 ? "n_ps" : "n_workers";
	const struct cpl_ynode *count = cpl_ynode_key(cluster, nkey);
	long n = get_long(pl, cluster, nkey, 0), i, shared = 0;
	int rc = 0;

	if (dflt.res == NULL)
		dflt = legacy_entry(cpl_ynode_get(cluster, def_old), true);
	if (n > MAX_TASKS)
		n = MAX_TASKS;
	for (i = 0; i < n && rc == 0; i++) {
		struct lres r = legacy_indexed(list, i, false);
		char *name;

		if (r.res == NULL)
			r = legacy_indexed(list_old, i, true);
		if (r.res == NULL) {
			shared++;
			continue;
		}
		name = cpl_xasprintf("%s#%ld", label, i);
		rc = legacy_replica(pl, master, r, count, name, 1);
		free(name);
	}
	if (rc == 0 && shared > 0)
		rc = legacy_replica(pl, master, dflt, count, label, shared);
	free(key);
	free(def);
	free(def_old);
	return rc;
}

/*
 * A legacy experiment, group or job: the master's container is run.image
 * running run.cmd, sized by environment.resources.  A distributed
 * experiment (environment.replicas, or the framework section) runs the
 * same command in its workers and parameter servers, each sized by its
 * own entry.
 */
static int
load_legacy(struct pl *pl, const char *kind)
{
	const struct cpl_ynode *run = cpl_ynode_get(pl->root, "run");
	const struct cpl_ynode *env = cpl_ynode_get(pl->root, "environment");
	const struct cpl_ynode *cluster = legacy_cluster(env);
	const struct cpl_ynode **nodes = NULL;
	const char *image;
	struct cpl_workload *w;
	struct cpl_container *c;
	bool unknown;
	int rc = -1;

	tvars_params(&pl->vars, cpl_ynode_get(pl->root, "declarations"));
	tvars_params(&pl->vars, cpl_ynode_get(pl->root, "params"));
	tvars_unknown(&pl->vars, cpl_ynode_path(pl->root, "hptuning",
						"matrix", NULL));
	tvars_unknown(&pl->vars, cpl_ynode_get(pl->root, "matrix"));
	pl->name = cpl_ynode_gets(pl->root, "name");
	if (pl->name == NULL)
		pl->name = pl->stem;
	pl->shm = true;
	if (cpl_loader_absent(run))
		return cpl_loader_fail(pl->err, pl->path, pl->root,
			       "%s has no run section", kind);
	if (run->kind != CPL_Y_MAP)
		return cpl_loader_fail(pl->err, pl->path, run,
			       "run must be a mapping");
	w = new_workload(pl, kind);
	c = cpl_workload_add_container(w);
	c->name = cpl_xstrdup("polyaxon-main");
	c->run_container = true;
	c->pos = cpl_loader_pos(w->file, run);
	image = cpl_ynode_gets(run, "image");
	if (image == NULL)
		image = cpl_ynode_gets(cpl_ynode_get(pl->root, "build"),
				       "image");
	if (image) {
		unknown = false;
		c->image = tpl_expand(&pl->vars, image, &unknown);
		if (unknown) {
			free(c->image);
			c->image = cpl_xstrdup(image);
		}
	}
	if (legacy_cmd(pl, c, cpl_ynode_get(run, "cmd"), &nodes) < 0 ||
	    legacy_resources(pl, c, cpl_ynode_get(env, "resources"),
			     cpl_ynode_key(env, "resources")) < 0)
		goto out;
	cpl_shscan(&c->launch, c->argv, c->argc, nodes, pl->s);
	if (get_long(pl, cluster, "n_workers", 0) > 0 ||
	    get_long(pl, cluster, "n_ps", 0) > 0)
		w->replica = cpl_xstrdup("Master");
	rc = 0;
out:
	free(nodes);
	if (cpl_loader_finish(pl->out, w, rc) < 0)
		return -1;
	if (w->replica == NULL)
		return 0;
	if (legacy_tasks(pl, w, cluster, "worker", "Worker") < 0)
		return -1;
	return legacy_tasks(pl, w, cluster, "ps", "PS");
}

/* A legacy notebook, tensorboard or build: no training container. */
static int
legacy_skipped(struct pl *pl, const char *kind)
{
	const char *name = cpl_ynode_gets(pl->root, "name");

	cpl_wlist_skip(pl->out, pl->path, pl->root->line, pl->root->column,
		       "not a training run", "Polyaxon %s \"%s\"", kind,
		       name ? name : pl->stem);
	return 0;
}

/* ---- entry points ----------------------------------------------------- */

/* Top-level kinds of v1.1 and legacy Polyaxonfiles. */
static const char *const plx_kinds[] = {
	"component", "operation", "experiment", "group", "job", "notebook",
	"tensorboard", "build", NULL
};

/* Legacy kinds that start no training container. */
static const char *const legacy_skip[] = {
	"notebook", "tensorboard", "build", NULL
};

/* Top-level keys a Polyaxonfile may have (v1.1 and legacy). */
static const char *const plx_keys[] = {
	"version", "kind", "name", "description", "tags", "presets", "queue",
	"cache", "termination", "plugins", "build", "hooks", "inputs",
	"outputs", "run", "template", "isApproved", "cost", "namespace",
	"params", "runPatch", "patchStrategy", "matrix", "schedule",
	"events", "joins", "dependencies", "trigger", "conditions",
	"skipOnUpstreamSkip", "hubRef", "dagRef", "urlRef", "pathRef",
	"component", "environment", "declarations", "logging", "resources",
	"env", "project", "settings", "hptuning", "connections", NULL
};

/* Versions this loader reads. */
static const char *const plx_versions[] = { "1", "1.0", "1.1", NULL };

/* Every key of map doc is a Polyaxonfile key. */
static bool
only_plx_keys(const struct cpl_ynode *doc)
{
	size_t i;

	for (i = 0; i < doc->count; i++)
		if (doc->pairs[i].key->kind != CPL_Y_SCALAR ||
		    !one_of(doc->pairs[i].key->value, plx_keys))
			return false;
	return true;
}

bool
cpl_polyaxon_detect(const struct cpl_ynode *doc)
{
	const struct cpl_ynode *version, *kind;
	bool known;

	if (!cpl_ynode_is_map(doc) || cpl_ynode_get(doc, "apiVersion"))
		return false;
	version = cpl_ynode_get(doc, "version");
	kind = cpl_ynode_get(doc, "kind");
	known = one_of(cpl_ynode_str(kind), plx_kinds);
	if (known && version)
		return true;
	/* A run or component mapping with a known kind, a Polyaxonfile's
	 * version or among Polyaxonfile keys only: a Hydra config (NeMo's
	 * launcher: run: {name, results_dir, time_limit} beside keys of its
	 * own; SageMaker HyperPod's recipes: version: 2.2.1, the recipe's
	 * own) is not one. */
	if ((cpl_ynode_is_map(cpl_ynode_get(doc, "run")) ||
	     cpl_ynode_is_map(cpl_ynode_get(doc, "component"))) &&
	    (known || one_of(cpl_ynode_str(version), plx_versions) ||
	     only_plx_keys(doc)))
		return true;
	/* Invalid ones, so that the loader can say what is missing: only
	 * Polyaxonfile keys, and a known kind or a version. */
	if (!only_plx_keys(doc))
		return false;
	return known || (version && (kind || one_of(cpl_ynode_str(version),
						    plx_versions)));
}

int
cpl_polyaxon_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		  const struct cpl_ynode *doc, const char *path,
		  struct cpl_error *err)
{
	struct pl pl;
	const struct cpl_ynode *kn, *vn;
	const char *kind, *version;
	int rc = -1;

	memset(&pl, 0, sizeof(pl));
	pl.out = out;
	pl.s = s;
	pl.root = doc;
	pl.path = path;
	pl.err = err;
	pl.ex.expand = tpl_expand;
	pl.ex.ctx = &pl.vars;
	pl.stem = file_stem(path);
	if (!cpl_ynode_is_map(doc)) {
		cpl_loader_fail(err, path, doc, "a Polyaxonfile must be a mapping");
		goto out;
	}
	kn = cpl_ynode_get(doc, "kind");
	vn = cpl_ynode_get(doc, "version");
	if (cpl_loader_absent(kn)) {
		cpl_loader_fail(err, path, doc, "missing kind (component or "
			"operation)");
		goto out;
	}
	if (cpl_loader_absent(vn)) {
		cpl_loader_fail(err, path, doc, "missing version (expected 1.1)");
		goto out;
	}
	kind = cpl_ynode_str(kn);
	version = cpl_ynode_str(vn);
	if (kind == NULL) {
		cpl_loader_fail(err, path, kn, "kind must be a string");
		goto out;
	}
	if (!one_of(version, plx_versions)) {
		cpl_loader_fail(err, path, vn, "unsupported Polyaxonfile version %s "
			"(expected 1.1)", version ? version : "(not a number)");
		goto out;
	}
	if (strcmp(kind, "component") == 0)
		rc = load_component(&pl, doc, NULL);
	else if (strcmp(kind, "operation") == 0)
		rc = load_operation(&pl);
	else if (one_of(kind, legacy_skip))
		rc = legacy_skipped(&pl, kind);
	else if (one_of(kind, plx_kinds))
		rc = load_legacy(&pl, kind);
	else
		cpl_loader_fail(err, path, kn, "unknown Polyaxonfile kind \"%s\"",
			kind);
out:
	cpl_strmap_free(&pl.vars.map);
	free(pl.stem);
	return rc;
}
