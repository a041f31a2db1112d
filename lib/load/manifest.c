/*
 * manifest.c — the pieces of Kubernetes objects every kind is made of:
 * containers, Pod specs (Kubernetes', an Argo template's, a Tekton task
 * spec's) and the workload an object starts.  Which kinds hold Pod specs,
 * where, and what their containers are is the kinds table's (kinds.c);
 * kinds it has no row for are read by the generic model (generic.c).
 * The container reader is shared with the Polyaxon loader
 * (cpl_manifest_container).
 *
 * Invariant: every string taken from the tree is copied (the stream may
 * be freed before the workloads); positions borrow the owning workload's
 * file name.  Unknown fields are ignored; only a wrong type where a
 * structure is required, or an invalid CPU quantity, is an error.  A
 * placeholder another system fills in (Argo's {{...}}, Katib's
 * ${trialParameters.x}, Tekton's $(params.x)) is an unknown value.
 */
#include "load/loader.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "shell/shscan.h"
#include "text/quantity.h"

/* The value of the first of two spellings of a key (camelCase first). */
static const struct cpl_ynode *
get2(const struct cpl_ynode *map, const char *key, const char *alt)
{
	const struct cpl_ynode *n = cpl_ynode_get(map, key);

	return n ? n : cpl_ynode_get(map, alt);
}

/*
 * A value the system that runs the object fills in before Kubernetes sees
 * it: Argo's {{inputs.parameters.x}} (and Katib's old {{.Name}}), Katib's
 * ${trialParameters.x}, Tekton's $(params.x).  Unknown, never an error.
 * A plain $(VAR) or ${VAR} is no placeholder (Kubernetes or the shell
 * expands it; the budget reads it).
 */
static bool
placeholder(const char *t)
{
	const char *p;

	if ((p = strstr(t, "{{")) != NULL && strstr(p + 2, "}}") != NULL)
		return true;
	for (p = t; (p = strchr(p, '$')) != NULL; p++) {
		const char *end;
		char close;

		if (p[1] != '{' && p[1] != '(')
			continue;
		close = p[1] == '{' ? '}' : ')';
		end = strchr(p + 2, close);
		if (end != NULL && memchr(p + 2, '.', (size_t)(end - p - 2)))
			return true;
	}
	return false;
}

/* text through the hook, as a new string; *unknown when unresolved (a
 * placeholder, without a hook). */
static char *
expand(const struct cpl_expand *ex, const char *text, bool *unknown)
{
	*unknown = false;
	if (ex == NULL || ex->expand == NULL) {
		*unknown = placeholder(text);
		return cpl_xstrdup(text);
	}
	return ex->expand(ex->ctx, text, unknown);
}

/* ---- container -------------------------------------------------------- */

/* The scalar node each argv word came from, parallel to the argv. */
struct word_nodes {
	const struct cpl_ynode **v;
	size_t cap;
};

/*
 * Appends scalar n as one word, expanded; an unresolved word keeps its
 * text as written.  Its node is kept only when the text is unchanged.
 */
static void
add_word(struct cpl_container *c, struct word_nodes *wn,
	 const struct cpl_ynode *n, const struct cpl_expand *ex)
{
	bool unknown;
	char *text = expand(ex, n->value, &unknown);

	if (unknown) {
		free(text);
		text = cpl_xstrdup(n->value);
	}
	CPL_GROW(wn->v, wn->cap, c->argc + 1);
	wn->v[c->argc] = strcmp(text, n->value) == 0 ? n : NULL;
	cpl_container_add_arg(c, text, cpl_loader_pos(c->pos.file, n));
	free(text);
}

/* Reads command or args: a list of strings, or one string (one word). */
static int
read_words(struct cpl_container *c, struct word_nodes *wn,
	   const struct cpl_ynode *n, const char *field, const char *path,
	   const struct cpl_expand *ex, struct cpl_error *err)
{
	size_t i;

	if (cpl_loader_absent(n))
		return 0;
	if (n->kind == CPL_Y_SCALAR) {
		add_word(c, wn, n, ex);
		return 0;
	}
	if (n->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, n, "%s must be a list of strings",
			       field);
	for (i = 0; i < n->count; i++) {
		if (n->items[i]->kind != CPL_Y_SCALAR)
			return cpl_loader_fail(err, path, n->items[i],
				       "%s items must be strings", field);
		add_word(c, wn, n->items[i], ex);
	}
	return 0;
}

/* Sets one variable from a scalar value node v (NULL: empty string). */
static void
set_env_value(struct cpl_container *c, const char *name,
	      const struct cpl_ynode *v, const struct cpl_ynode *at,
	      const struct cpl_expand *ex)
{
	bool unknown;
	char *text;

	if (cpl_loader_absent(v)) {
		cpl_container_set_env(c, name, "", cpl_loader_pos(c->pos.file, at));
		return;
	}
	if (v->kind != CPL_Y_SCALAR) {
		cpl_container_set_env(c, name, NULL, cpl_loader_pos(c->pos.file, v));
		return;
	}
	text = expand(ex, v->value, &unknown);
	cpl_container_set_env(c, name, unknown ? NULL : text,
			      cpl_loader_pos(c->pos.file, v));
	free(text);
}

/*
 * Reads env: the Kubernetes list of {name, value | valueFrom} (valueFrom
 * is unknown), or a {NAME: value} mapping.  Later definitions win.
 */
static int
read_env(struct cpl_container *c, const struct cpl_ynode *env,
	 const char *path, const struct cpl_expand *ex,
	 struct cpl_error *err)
{
	size_t i;

	if (cpl_loader_absent(env))
		return 0;
	if (env->kind == CPL_Y_MAP) {
		for (i = 0; i < env->count; i++) {
			const struct cpl_ypair *p = &env->pairs[i];

			if (p->key->kind == CPL_Y_SCALAR)
				set_env_value(c, p->key->value, p->value,
					      p->key, ex);
		}
		return 0;
	}
	if (env->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, env, "env must be a list");
	for (i = 0; i < env->count; i++) {
		const struct cpl_ynode *e = env->items[i];
		const struct cpl_ynode *v, *from;
		const char *name;

		if (e->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, e,
				       "env entries must be mappings");
		name = cpl_ynode_gets(e, "name");
		if (name == NULL)
			continue;
		v = cpl_ynode_get(e, "value");
		from = cpl_ynode_get(e, "valueFrom");
		if (!cpl_loader_absent(from))
			cpl_container_set_env(c, name, NULL,
					      cpl_loader_pos(c->pos.file,
						       v ? v : e));
		else
			set_env_value(c, name, v, e, ex);
	}
	return 0;
}

/* Reads one CPU quantity node into *out (millicores) and *pos. */
static int
read_cpu(int64_t *out, struct cpl_pos *pos, const char *file,
	 const struct cpl_ynode *n, const char *path,
	 const struct cpl_expand *ex, struct cpl_error *err)
{
	const char *why;
	bool unknown;
	char *text;
	int rc = 0;

	if (cpl_loader_absent(n))
		return 0;
	if (n->kind != CPL_Y_SCALAR)
		return cpl_loader_fail(err, path, n,
			       "CPU quantity must be a string or number");
	text = expand(ex, n->value, &unknown);
	if (unknown)
		*out = CPL_CPU_UNKNOWN;
	else if (cpl_quantity_cpu(out, text, &why) < 0)
		rc = cpl_loader_fail(err, path, n, "invalid CPU quantity \"%s\": %s",
			     text, why);
	*pos = cpl_loader_pos(file, n);
	free(text);
	return rc;
}

/* A memory quantity into *out (as read_cpu, in thousandths of a byte);
 * one that does not parse or resolve is CPL_CPU_UNKNOWN, never an error:
 * it only tells the QoS class. */
static void
read_mem(int64_t *out, const struct cpl_ynode *n, const struct cpl_expand *ex)
{
	const char *why;
	bool unknown;
	char *text;

	if (cpl_loader_absent(n))
		return;
	*out = CPL_CPU_UNKNOWN;
	if (n->kind != CPL_Y_SCALAR)
		return;
	text = expand(ex, n->value, &unknown);
	if (unknown || cpl_quantity_cpu(out, text, &why) < 0)
		*out = CPL_CPU_UNKNOWN;
	free(text);
}

/*
 * The GPU count in a requests or limits mapping: the first resource whose
 * name after the last '/' is "gpu".  An unresolved count is 1.
 */
static long
read_gpus(const struct cpl_ynode *map, const struct cpl_expand *ex)
{
	size_t i;

	if (!cpl_ynode_is_map(map))
		return 0;
	for (i = 0; i < map->count; i++) {
		const struct cpl_ynode *k = map->pairs[i].key;
		const struct cpl_ynode *v = map->pairs[i].value;
		const char *slash, *why;
		int64_t millis;
		bool unknown;
		char *text;
		long n = 0;

		if (k->kind != CPL_Y_SCALAR || !cpl_ynode_is_scalar(v))
			continue;
		slash = strrchr(k->value, '/');
		if (strcmp(slash ? slash + 1 : k->value, "gpu") != 0)
			continue;
		text = expand(ex, v->value, &unknown);
		if (unknown)
			n = 1;
		else if (cpl_quantity_cpu(&millis, text, &why) == 0)
			n = (long)((millis + 999) / 1000);
		free(text);
		if (n > 0)
			return n;
	}
	return 0;
}

/* Reads the resources mapping under key (CPU request, limit, GPUs). */
static int
read_resources(struct cpl_container *c, const struct cpl_ynode *node,
	       const char *key, const char *path,
	       const struct cpl_expand *ex, struct cpl_error *err)
{
	const struct cpl_ynode *res = cpl_ynode_get(node, key);
	const struct cpl_ynode *keyn = cpl_ynode_key(node, key);
	const struct cpl_ynode *req, *lim;

	c->resources_pos = keyn ? cpl_loader_pos(c->pos.file, keyn) : c->pos;
	if (cpl_loader_absent(res))
		return 0;
	if (res->kind != CPL_Y_MAP)
		return cpl_loader_fail(err, path, res, "%s must be a mapping", key);
	req = cpl_ynode_get(res, "requests");
	lim = cpl_ynode_get(res, "limits");
	if (!cpl_loader_absent(req) && req->kind != CPL_Y_MAP)
		return cpl_loader_fail(err, path, req, "%s.requests must be a mapping",
			       key);
	if (!cpl_loader_absent(lim) && lim->kind != CPL_Y_MAP)
		return cpl_loader_fail(err, path, lim, "%s.limits must be a mapping",
			       key);
	if (read_cpu(&c->cpu_request, &c->request_pos, c->pos.file,
		     cpl_ynode_get(req, "cpu"), path, ex, err) < 0 ||
	    read_cpu(&c->cpu_limit, &c->limit_pos, c->pos.file,
		     cpl_ynode_get(lim, "cpu"), path, ex, err) < 0)
		return -1;
	read_mem(&c->mem_request, cpl_ynode_get(req, "memory"), ex);
	read_mem(&c->mem_limit, cpl_ynode_get(lim, "memory"), ex);
	c->gpus = read_gpus(lim, ex);
	if (c->gpus == 0)
		c->gpus = read_gpus(req, ex);
	return 0;
}

/* The Pod volume named name, or NULL. */
static const struct cpl_ynode *
find_volume(const struct cpl_ynode *volumes, const char *name)
{
	size_t i;

	if (!cpl_ynode_is_seq(volumes) || name == NULL)
		return NULL;
	for (i = 0; i < volumes->count; i++)
		if (cpl_str_eq(cpl_ynode_gets(volumes->items[i], "name"),
			       name))
			return volumes->items[i];
	return NULL;
}

/* Checks one volumeMount for a memory-backed emptyDir at /dev/shm. */
static void
read_shm_mount(struct cpl_container *c, const struct cpl_ynode *m,
	       const struct cpl_ynode *volumes)
{
	const char *mp = cpl_ynode_str(get2(m, "mountPath", "mount_path"));
	const struct cpl_ynode *vol, *ed;
	const char *size, *why;
	int64_t millis;

	if (!cpl_str_eq(mp, "/dev/shm") && !cpl_str_eq(mp, "/dev/shm/"))
		return;
	vol = find_volume(volumes, cpl_ynode_gets(m, "name"));
	ed = get2(vol, "emptyDir", "empty_dir");
	if (!cpl_str_eq(cpl_ynode_gets(ed, "medium"), "Memory"))
		return;
	c->shm = true;
	c->shm_bytes = -1;
	size = cpl_ynode_str(get2(ed, "sizeLimit", "size_limit"));
	if (size && cpl_quantity_cpu(&millis, size, &why) == 0)
		c->shm_bytes = millis / 1000;
}

/* Looks for /dev/shm among the volumeMounts (a list, or one mapping). */
static void
read_shm(struct cpl_container *c, const struct cpl_ynode *node,
	 const struct cpl_ynode *volumes)
{
	const struct cpl_ynode *mounts = get2(node, "volumeMounts",
					      "volume_mounts");
	size_t i;

	if (cpl_ynode_is_map(mounts)) {
		read_shm_mount(c, mounts, volumes);
		return;
	}
	if (!cpl_ynode_is_seq(mounts))
		return;
	for (i = 0; i < mounts->count; i++)
		read_shm_mount(c, mounts->items[i], volumes);
}

/* base names python, python3, python3.11 ... */
static bool
is_python(const char *base)
{
	if (strncmp(base, "python", 6) != 0)
		return false;
	base += 6;
	while (*base == '.' || (*base >= '0' && *base <= '9'))
		base++;
	return *base == '\0';
}

/* The last path component of a word of n bytes, as a new string. */
static char *
base_of(const char *w, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i < n; i++)
		if (w[i] == '/')
			from = i + 1;
	return cpl_xstrndup(w + from, n - from);
}

/* What interpreter a program's base name is: "python", "sh" (a POSIX
 * shell or bash), or NULL. */
static const char *
interpreter(const char *base)
{
	static const char *const shells[] = { "sh", "bash", "ash", "dash",
					      "zsh", "ksh", NULL };
	const char *const *p;

	if (is_python(base))
		return "python";
	for (p = shells; *p; p++)
		if (strcmp(base, *p) == 0)
			return "sh";
	return NULL;
}

/* The interpreter a script's first line names (#!/usr/bin/env python3,
 * #!/bin/bash); a script without one runs under sh (Tekton's default). */
static const char *
shebang(const char *text)
{
	const char *p = text + 2, *w;
	const char *what = NULL;
	bool first = true;

	if (strncmp(text, "#!", 2) != 0)
		return "sh";
	/* The program, or env's first word that is no option or
	 * assignment. */
	while (*p != '\0' && *p != '\n') {
		char *base;
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		for (w = p; *p != '\0' && *p != '\n' && *p != ' ' &&
			    *p != '\t'; p++)
			;
		n = (size_t)(p - w);
		if (n == 0)
			break;
		base = base_of(w, n);
		if (first && strcmp(base, "env") == 0) {
			first = false;
			free(base);
			continue;
		}
		if (!first && (w[0] == '-' || memchr(w, '=', n) != NULL)) {
			free(base);
			continue;
		}
		what = interpreter(base);
		free(base);
		break;
	}
	return what;
}

/*
 * Keeps inline script n as Python laid at its lines of the file: a
 * literal block's lines as they stand (indentation kept, under an `if 1:`
 * on the indicator's line), so every position in it is the file's;
 * another string from the line after its own (columns then relative to
 * the string).
 */
static void
keep_script_py(struct cpl_container *c, const struct cpl_ystream *s,
	       const struct cpl_ynode *n)
{
	struct cpl_yplace at;
	struct cpl_buf b;
	size_t len, i, lines = 0;
	const char *src = cpl_ystream_source(s, &len), *p;

	cpl_buf_init(&b, (size_t)1 << 30);
	for (i = 0; i < n->len; i++)
		lines += n->value[i] == '\n';
	if (n->len > 0 && n->value[n->len - 1] != '\n')
		lines++;
	if ((p = cpl_loader_block_start(&at, s, n)) != NULL &&
	    at.line >= 2) {
		c->script_line = at.line - 1;
		cpl_buf_adds(&b, "if 1:\n");
		for (i = 0; p != NULL && i < lines; i++) {
			const char *nl = memchr(p, '\n',
						len - (size_t)(p - src));
			size_t n_ = nl ? (size_t)(nl - p) + 1 :
					 len - (size_t)(p - src);

			cpl_buf_add(&b, p, n_);
			p = nl ? nl + 1 : NULL;
		}
	} else {
		/* A quoted string: escapes and folding make its lines
		 * other than the file's, so it is laid past the file's
		 * end and its positions are reported at the string. */
		/* Past the last line without counting them (a count per
		 * script was quadratic in a file of many): a file has at
		 * most one line per byte, plus one. */
		int last = len < (size_t)(INT_MAX / 4) ? (int)len + 1 :
			   INT_MAX / 4;

		c->script_base = last + 1;
		c->script_line = last + 1;
		c->script_at = cpl_loader_pos(c->pos.file, n);
		cpl_buf_add(&b, n->value, n->len);
	}
	free(c->script_py);
	c->script_len = b.len;
	c->script_py = cpl_buf_detach(&b);
}

/* Appends a word that no scalar of the stream holds (no node). */
static void
add_text_word(struct cpl_container *c, struct word_nodes *wn,
	      const char *text, struct cpl_pos pos)
{
	CPL_GROW(wn->v, wn->cap, c->argc + 1);
	wn->v[c->argc] = NULL;
	cpl_container_add_arg(c, text, pos);
}

/*
 * The inline script of an Argo script template (source, run by its
 * command) or a Tekton step (script, run by its #! line): a shell script
 * becomes the command's `sh -c SCRIPT`, so the launchers in it are read
 * with their lines; a Python script makes the command python and is kept
 * as the code it runs (c->script_py).
 */
static void
read_script(struct cpl_container *c, struct word_nodes *wn,
	    const struct cpl_ystream *s, const struct cpl_ynode *node,
	    const char *key)
{
	const struct cpl_ynode *src = cpl_ynode_get(node, key);
	const char *what;
	struct cpl_pos at;
	char *base = NULL;

	if (!cpl_ynode_is_scalar(src) || cpl_ynode_is_null(src))
		return;
	at = cpl_loader_pos(c->pos.file, src);
	if (c->ncommand > 0) {
		base = base_of(c->argv[0].text, strlen(c->argv[0].text));
		what = interpreter(base);
		free(base);
	} else {
		what = shebang(src->value);
	}
	if (what == NULL)
		return;
	if (strcmp(what, "python") == 0) {
		if (c->argc == 0) {
			add_text_word(c, wn, "python", at);
			c->ncommand = c->argc;
		}
		keep_script_py(c, s, src);
		return;
	}
	if (c->argc == 0) {
		add_text_word(c, wn, "sh", at);
		c->ncommand = c->argc;
	}
	add_text_word(c, wn, "-c", at);
	CPL_GROW(wn->v, wn->cap, c->argc + 1);
	wn->v[c->argc] = src;
	cpl_container_add_arg(c, src->value, at);
}

/*
 * The program of `python -c PROGRAM` in the command (python first, or
 * after env), kept as the code the container runs (c->script_py) as an
 * Argo script's source is: the code rules judge it at its lines.  Only a
 * word written as a scalar of the file counts (one a template changed
 * has no lines to point at).
 */
static void
python_c_program(struct cpl_container *c, const struct word_nodes *wn,
		 const struct cpl_ystream *s)
{
	static const char *const flags[] = { "-u", "-B", "-O", "-OO", "-s",
		"-S", "-E", "-I", "-b", "-bb", "-q", "-v", NULL };
	const char *const *fl;
	size_t i = 0, j;
	char *base;
	bool py;

	if (c->script_py != NULL || c->argc < 3)
		return;
	if (strcmp(c->argv[0].text, "env") == 0 ||
	    cpl_str_ends(c->argv[0].text, "/env"))
		i = 1;
	/* python3 -u -c PROGRAM: the flags that take no value first. */
	for (j = i + 1; j < c->argc; j++) {
		for (fl = flags; *fl && strcmp(*fl, c->argv[j].text) != 0;
		     fl++)
			;
		if (*fl == NULL)
			break;
	}
	if (j + 1 >= c->argc || strcmp(c->argv[j].text, "-c") != 0 ||
	    wn->v == NULL || wn->v[j + 1] == NULL ||
	    !cpl_ynode_is_scalar(wn->v[j + 1]))
		return;
	base = base_of(c->argv[i].text, strlen(c->argv[i].text));
	py = is_python(base);
	free(base);
	if (py)
		keep_script_py(c, s, wn->v[j + 1]);
}

/*
 * Env variables the Downward API fills from this container's CPU
 * (valueFrom.resourceFieldRef, resource limits.cpu or requests.cpu): the
 * quantity over the divisor (1 CPU unless given), rounded up, as the
 * kubelet writes it; a request not written is the limit, as the API
 * server defaults it.  A limit not written stays unknown (the kubelet
 * then writes the node's allocatable CPUs), and so does another
 * container's quantity.  The variable keeps its place at its entry: an
 * edit that looks for a value there finds a key and leaves it.
 */
static void
downward_cpu(struct cpl_container *c, const struct cpl_ynode *env)
{
	size_t i;

	if (!cpl_ynode_is_seq(env))
		return;
	for (i = 0; i < env->count; i++) {
		const struct cpl_ynode *e = env->items[i];
		const struct cpl_ynode *ref = cpl_ynode_path(e, "valueFrom",
							     "resourceFieldRef",
							     NULL);
		const char *name = cpl_ynode_gets(e, "name");
		const char *res = cpl_ynode_gets(ref, "resource");
		const char *cname = cpl_ynode_gets(ref, "containerName");
		const char *div = cpl_ynode_gets(ref, "divisor"), *why;
		int64_t cpu, per = 1000;
		char *value;

		if (name == NULL || res == NULL ||
		    (cname != NULL && *cname != '\0' &&
		     !cpl_str_eq(cname, c->name)))
			continue;
		if (strcmp(res, "limits.cpu") == 0)
			cpu = c->cpu_limit;
		else if (strcmp(res, "requests.cpu") == 0)
			cpu = c->cpu_request != CPL_CPU_ABSENT ?
			      c->cpu_request : c->cpu_limit;
		else
			continue;
		if (cpu <= 0 || (div != NULL &&
				 (cpl_quantity_cpu(&per, div, &why) < 0 ||
				  per <= 0)))
			continue;
		value = cpl_xasprintf("%lld",
				      (long long)((cpu + per - 1) / per));
		cpl_container_set_env(c, name, value,
				      cpl_container_env(c, name)->pos);
		free(value);
	}
}

/*
 * Reads a container mapping whose resources sit under res_key ("resources"
 * for a container, "resourcesPerNode" for a TrainJob trainer; a Tekton
 * step's computeResources when it has them), and its inline script under
 * script (NULL: none).  A name already set in c is kept when the mapping
 * has none; what c already holds (a Tekton stepTemplate) stays where the
 * mapping says nothing, but its command is the mapping's.
 */
static int
read_container(struct cpl_container *c, const struct cpl_ystream *s,
	       const struct cpl_ynode *node, const char *res_key,
	       const char *script, const struct cpl_ynode *volumes,
	       const char *path, const struct cpl_expand *ex,
	       struct cpl_error *err)
{
	struct word_nodes wn = { NULL, 0 };
	const char *name, *image;
	long gpus = c->gpus;
	bool unknown;
	int rc = -1;

	if (!cpl_ynode_is_map(node)) {
		cpl_loader_fail(err, path, node, "a container must be a mapping");
		goto out;
	}
	c->pos = cpl_loader_pos(c->pos.file, node);
	if ((name = cpl_ynode_gets(node, "name")) != NULL) {
		free(c->name);
		c->name = cpl_xstrdup(name);
	} else if (c->name == NULL) {
		c->name = cpl_xstrdup("");
	}
	if ((image = cpl_ynode_gets(node, "image")) != NULL) {
		free(c->image);
		c->image = expand(ex, image, &unknown);
		if (unknown) {
			free(c->image);
			c->image = cpl_xstrdup(image);
		}
	}
	cpl_words_free(c->argv, c->argc);
	c->argv = NULL;
	c->argc = c->argv_cap = c->ncommand = 0;
	if (read_words(c, &wn, cpl_ynode_get(node, "command"), "command",
		       path, ex, err) < 0)
		goto out;
	c->ncommand = c->argc;
	if (read_words(c, &wn, cpl_ynode_get(node, "args"), "args", path, ex,
		       err) < 0 ||
	    read_env(c, cpl_ynode_get(node, "env"), path, ex, err) < 0)
		goto out;
	if (script != NULL)
		read_script(c, &wn, s, node, script);
	python_c_program(c, &wn, s);
	if (!cpl_loader_absent(get2(node, "envFrom", "env_from")))
		c->env_from = true;
	if (strcmp(res_key, "resources") == 0 &&
	    !cpl_loader_absent(cpl_ynode_get(node, "computeResources")))
		res_key = "computeResources";
	if (read_resources(c, node, res_key, path, ex, err) < 0)
		goto out;
	downward_cpu(c, cpl_ynode_get(node, "env"));
	if (c->gpus == 0)
		c->gpus = gpus;
	read_shm(c, node, volumes);
	cpl_launch_clear(&c->launch);
	cpl_shscan(&c->launch, c->argv, c->argc, wn.v, s);
	rc = 0;
out:
	free(wn.v);
	return rc;
}

int
cpl_manifest_kfp_container(struct cpl_container *c,
			   const struct cpl_ystream *s,
			   const struct cpl_ynode *node, const char *path,
			   struct cpl_error *err)
{
	const struct cpl_ynode *cmd = cpl_ynode_get(node, "command"), *code;
	bool lightweight = false;
	size_t i;

	/* KFP's resources are its own (the caller's); none here. */
	if (read_container(c, s, node, "", NULL, NULL, path, NULL, err) < 0)
		return -1;
	if (!cpl_ynode_is_seq(cmd) || cmd->count < 2)
		return 0;
	/* A lightweight component: sh -ec writes "$0" to a module and runs
	 * kfp's executor on it; "$0" is the last word, the function's
	 * Python. */
	for (i = 0; i + 1 < cmd->count; i++) {
		const char *t = cpl_ynode_str(cmd->items[i]);

		if (t && (strstr(t, "kfp.dsl.executor_main") ||
			  strstr(t, "ephemeral_component.py")))
			lightweight = true;
	}
	code = cmd->items[cmd->count - 1];
	if (lightweight && cpl_ynode_is_scalar(code) &&
	    !cpl_ynode_is_null(code))
		keep_script_py(c, s, code);
	return 0;
}

int
cpl_manifest_container(struct cpl_container *c, const struct cpl_ystream *s,
		       const struct cpl_ynode *node,
		       const struct cpl_ynode *volumes, const char *path,
		       const struct cpl_expand *ex, struct cpl_error *err)
{
	return read_container(c, s, node, "resources", NULL, volumes, path,
			      ex, err);
}

/* ---- Pod specs -------------------------------------------------------- */

/*
 * Appends the containers of one list of a Pod spec with role role, each
 * read over the template tmpl first when there is one (Tekton's
 * stepTemplate) and with its inline script under script (NULL: none).
 */
static int
add_containers(struct cpl_workload *w, const struct cpl_ystream *s,
	       const struct cpl_ynode *list, const char *field,
	       enum cpl_crole role, const struct cpl_ynode *tmpl,
	       const char *script, const struct cpl_ynode *volumes,
	       const char *path, struct cpl_error *err)
{
	size_t i;

	if (cpl_loader_absent(list))
		return 0;
	if (list->kind != CPL_Y_SEQ)
		return cpl_loader_fail(err, path, list, "%s must be a list", field);
	for (i = 0; i < list->count; i++) {
		const struct cpl_ynode *n = list->items[i];
		struct cpl_container *c = cpl_workload_add_container(w);

		c->role = role;
		if (role == CPL_CROLE_INIT &&
		    cpl_str_eq(cpl_ynode_gets(n, "restartPolicy"), "Always"))
			c->role = CPL_CROLE_SIDECAR;
		if (cpl_ynode_is_map(tmpl) &&
		    read_container(c, s, tmpl, "resources", NULL, volumes,
				   path, NULL, err) < 0)
			return -1;
		if (read_container(c, s, n, "resources", script, volumes, path,
				   NULL, err) < 0)
			return -1;
	}
	return 0;
}

/* Appends the one main container at key of spec (an Argo template's
 * container or script), read over tmpl when there is one. */
static int
add_single(struct cpl_workload *w, const struct cpl_ystream *s,
	   const struct cpl_ynode *spec, const char *key,
	   const struct cpl_ynode *tmpl, const char *script,
	   const struct cpl_ynode *volumes, const char *path,
	   struct cpl_error *err)
{
	const struct cpl_ynode *n = cpl_ynode_get(spec, key);
	struct cpl_container *c;

	if (cpl_loader_absent(n))
		return 0;
	if (n->kind != CPL_Y_MAP)
		return cpl_loader_fail(err, path, n, "%s must be a mapping", key);
	c = cpl_workload_add_container(w);
	c->name = cpl_xstrdup("main");	/* Argo's name for it */
	if (cpl_ynode_is_map(tmpl) &&
	    read_container(c, s, tmpl, "resources", NULL, volumes, path,
			   NULL, err) < 0)
		return -1;
	return read_container(c, s, n, "resources", script, volumes, path,
			      NULL, err);
}

/*
 * Marks the run container of a job replica: the first main container
 * named one of names (in order of preference), else the first main one.
 */
static void
mark_run(struct cpl_workload *w, const char *const *names)
{
	size_t i;

	for (; names && *names; names++) {
		for (i = 0; i < w->ncontainers; i++) {
			struct cpl_container *c = &w->containers[i];

			if (c->role == CPL_CROLE_MAIN &&
			    cpl_str_eq(c->name, *names)) {
				c->run_container = true;
				return;
			}
		}
	}
	for (i = 0; i < w->ncontainers; i++) {
		if (w->containers[i].role == CPL_CROLE_MAIN) {
			w->containers[i].run_container = true;
			return;
		}
	}
}

/*
 * Pod-level resources (spec.resources, Kubernetes 1.32+): the Pod's CPU
 * limit bounds all its containers together, so a main container without
 * a limit of its own shares it (its budget is at most the Pod's), and one
 * with neither request nor limit takes the Pod's request too.  Positions
 * are the Pod's values.
 */
static int
pod_resources(struct cpl_workload *w, const struct cpl_ynode *spec,
	      const char *path, struct cpl_error *err)
{
	struct cpl_container pod;
	size_t i;

	if (w->ncontainers == 0 ||
	    !cpl_ynode_is_map(cpl_ynode_get(spec, "resources")))
		return 0;
	memset(&pod, 0, sizeof(pod));
	pod.pos = w->containers[0].pos;
	pod.cpu_request = pod.cpu_limit = CPL_CPU_ABSENT;
	pod.mem_request = pod.mem_limit = CPL_CPU_ABSENT;
	w->pod_resources = true;
	if (read_resources(&pod, spec, "resources", path, NULL, err) < 0)
		return -1;
	for (i = 0; i < w->ncontainers; i++) {
		struct cpl_container *c = &w->containers[i];

		if (c->role != CPL_CROLE_MAIN)
			continue;
		if (c->cpu_request == CPL_CPU_ABSENT &&
		    c->cpu_limit == CPL_CPU_ABSENT) {
			c->cpu_request = pod.cpu_request;
			c->request_pos = pod.request_pos;
		}
		if (c->cpu_limit == CPL_CPU_ABSENT) {
			c->cpu_limit = pod.cpu_limit;
			c->limit_pos = pod.limit_pos;
		}
	}
	return 0;
}

/* A nodeSelector asking for nodes labelled as running the static CPU
 * Manager policy (KubeVirt's cpumanager: "true", or a label of the
 * cluster's own naming "cpu-manager"): w's exclusive_hint. */
static void
node_selector(struct cpl_workload *w, const struct cpl_ynode *sel)
{
	size_t i;

	for (i = 0; cpl_ynode_is_map(sel) && i < sel->count; i++) {
		const char *k = cpl_ynode_str(sel->pairs[i].key);
		const char *v = cpl_ynode_str(sel->pairs[i].value);

		if (k == NULL || w->exclusive_hint != NULL ||
		    (strcasestr(k, "cpumanager") == NULL &&
		     strcasestr(k, "cpu-manager") == NULL))
			continue;
		w->exclusive_hint = cpl_xasprintf("nodeSelector %s: %s", k,
						  v ? v : "");
	}
}

int
cpl_manifest_pod(struct cpl_workload *w, const struct cpl_ystream *s,
		 const struct cpl_ynode *spec, const struct cpl_podread *how,
		 const char *path, struct cpl_error *err)
{
	const struct cpl_ynode *set, *own = cpl_ynode_get(spec, "volumes");
	const struct cpl_ynode *volumes = how->volumes, *def = how->defaults;
	int rc = 0;

	if (!cpl_loader_absent(own) || volumes == NULL)
		volumes = own;
	if (add_containers(w, s, cpl_ynode_get(spec, "initContainers"),
			   "initContainers", CPL_CROLE_INIT, NULL, NULL,
			   volumes, path, err) < 0)
		return -1;
	switch (how->shape) {
	case CPL_POD_K8S:
		rc = add_containers(w, s, cpl_ynode_get(spec, "containers"),
				    "containers", CPL_CROLE_MAIN, def, NULL,
				    volumes, path, err);
		break;
	case CPL_POD_ARGO:
		set = cpl_ynode_get(spec, "containerSet");
		if (add_single(w, s, spec, "container", def, NULL, volumes,
			       path, err) < 0 ||
		    add_single(w, s, spec, "script", def, "source", volumes,
			       path, err) < 0 ||
		    (cpl_ynode_is_map(set) &&
		     add_containers(w, s, cpl_ynode_get(set, "containers"),
				    "containerSet.containers",
				    CPL_CROLE_MAIN, def, NULL, volumes, path,
				    err) < 0))
			return -1;
		rc = add_containers(w, s, cpl_ynode_get(spec, "sidecars"),
				    "sidecars", CPL_CROLE_SIDECAR, NULL, NULL,
				    volumes, path, err);
		break;
	case CPL_POD_TEKTON:
		if (add_containers(w, s, cpl_ynode_get(spec, "steps"), "steps",
				   CPL_CROLE_MAIN,
				   cpl_ynode_get(spec, "stepTemplate"),
				   "script", volumes, path, err) < 0)
			return -1;
		rc = add_containers(w, s, cpl_ynode_get(spec, "sidecars"),
				    "sidecars", CPL_CROLE_SIDECAR, NULL,
				    "script", volumes, path, err);
		break;
	}
	if (rc == 0 && how->shape == CPL_POD_K8S) {
		node_selector(w, cpl_ynode_get(spec, "nodeSelector"));
		w->pod_spec = true;
		rc = pod_resources(w, spec, path, err);
	}
	if (rc == 0 && how->job)
		mark_run(w, how->run);
	return rc;
}

int
cpl_manifest_pod_spec(struct cpl_workload *w, const struct cpl_ystream *s,
		      const struct cpl_ynode *spec, const char *path,
		      struct cpl_error *err)
{
	static const struct cpl_podread how = { CPL_POD_K8S, false, NULL,
						NULL, NULL };

	return cpl_manifest_pod(w, s, spec, &how, path, err);
}

int
cpl_manifest_trainer(struct cpl_container *c, const struct cpl_ystream *s,
		     const struct cpl_ynode *node, const char *path,
		     struct cpl_error *err)
{
	return read_container(c, s, node, "resourcesPerNode", NULL, NULL,
			      path, NULL, err);
}

/*
 * Follows keys (NULL-terminated) from n.  *out is the mapping at the end,
 * or NULL when a key is absent; a non-mapping on the way is an error.
 */
static int
walk(const struct cpl_ynode **out, const struct cpl_ynode *n,
     const char *const *keys, const char *path, struct cpl_error *err)
{
	const char *const *k;

	*out = NULL;
	for (k = keys; *k; k++) {
		const struct cpl_ynode *next = cpl_ynode_get(n, *k);

		if (cpl_loader_absent(next))
			return 0;
		if (next->kind != CPL_Y_MAP)
			return cpl_loader_fail(err, path, next,
				       "%s must be a mapping", *k);
		n = next;
	}
	*out = n;
	return 0;
}

int
cpl_manifest_walk(const struct cpl_ynode **out, const struct cpl_ynode *n,
		  const char *const *keys, const char *path,
		  struct cpl_error *err)
{
	return walk(out, n, keys, path, err);
}

/* ---- objects ---------------------------------------------------------- */

/*
 * Reads the ignore-check annotations of an object's metadata, then of its
 * Pod template's metadata (tmpl: the template mapping, holding metadata
 * and spec; NULL when there is none or it is the object itself).
 */
static void
read_annotations(struct cpl_workload *w, const struct cpl_ynode *obj,
		 const struct cpl_ynode *tmpl)
{
	const struct cpl_ynode *from[2] = { obj, tmpl };
	size_t i, j;

	for (i = 0; i < 2; i++) {
		const struct cpl_ynode *a = cpl_ynode_path(from[i], "metadata",
							  "annotations", NULL);

		for (j = 0; cpl_ynode_is_map(a) && j < a->count; j++) {
			const struct cpl_ynode *k = a->pairs[j].key;

			cpl_workload_add_annotation(w, cpl_ynode_str(k),
				cpl_ynode_str(a->pairs[j].value),
				cpl_loader_pos(w->file, k));
			if (cpl_str_eq(cpl_ynode_str(k),
				       CPL_MEASURED_ANNOTATION))
				cpl_workload_set_measured(w,
					cpl_ynode_str(a->pairs[j].value),
					cpl_loader_pos(w->file,
						       a->pairs[j].value));
		}
	}
}

struct cpl_workload *
cpl_manifest_workload(const struct cpl_ynode *obj, const char *kind,
		      const struct cpl_ynode *tmpl, const char *path)
{
	const struct cpl_ynode *md = cpl_ynode_get(obj, "metadata");
	const char *name = cpl_ynode_gets(md, "name");
	struct cpl_workload *w = cpl_workload_new(CPL_SRC_MANIFEST, path);

	/* An Argo workflow or a submitted job is often named by its
	 * prefix alone. */
	if (name == NULL)
		name = cpl_ynode_gets(md, "generateName");

	w->kind = cpl_xstrdup(kind);
	w->name = cpl_xstrdup(name ? name : "");
	w->namespace = cpl_xstrdup(cpl_ynode_gets(md, "namespace"));
	w->pos = cpl_loader_pos(w->file, obj);
	read_annotations(w, obj, tmpl != obj ? tmpl : NULL);
	return w;
}
