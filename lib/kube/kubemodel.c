/*
 * kubemodel.c — the model of what kubeconfig files say: reading one file
 * into it (clusters, users, contexts, current-context, with each entry's
 * position), and merging one file's model under another's.
 *
 * Invariant: inside one file a later entry of the same name replaces an
 * earlier one (kubectl decodes into a map); across files the first one
 * wins.  Relative paths are made absolute against the directory of the
 * file that wrote them, and -data fields are stored decoded.  Secrets
 * (key data, tokens, passwords, exec env values) are wiped when freed.
 *
 * Ownership: a model owns its entries and every string in them; positions
 * borrow the file name from the caller (the handle's file list).
 */
#include "kube/kubeconfig_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text/yamldoc.h"

#define KUBECONFIG_MAX ((size_t)16 << 20)	/* one kubeconfig file */
#define EXEC_EXTENSION "client.authentication.k8s.io/exec"

/* ---- paths and base64 ---------------------------------------------------- */

/* Absolute directory of path (cwd-relative paths made absolute). */
static char *
abs_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *cwd, *out;

	if (slash == path)
		return cpl_xstrdup("/");
	dir = slash ? cpl_xstrndup(path, (size_t)(slash - path))
		    : cpl_xstrdup(".");
	if (dir[0] == '/')
		return dir;
	cwd = getcwd(NULL, 0);
	if (cwd == NULL)
		return dir;
	out = strcmp(dir, ".") == 0 ? cpl_xstrdup(cwd)
				    : cpl_xasprintf("%s/%s", cwd, dir);
	free(cwd);
	free(dir);
	return out;
}

/*
 * dir/rel with "." and ".." segments and repeated '/' removed, as Go's
 * filepath.Join does; dir is absolute, so the result is too.
 */
static char *
join_clean(const char *dir, const char *rel)
{
	char *joined = cpl_xasprintf("%s/%s", dir, rel);
	char *out = cpl_xmalloc(strlen(joined) + 2);
	size_t len = 0;
	const char *p = joined;

	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;	/* the '/' before the segment */
		} else {
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		p += n;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	free(joined);
	return out;
}

/* Makes *ref absolute against dir when it is relative (kubectl's rule). */
static void
resolve_path(char **ref, const char *dir)
{
	char *p;

	if (*ref == NULL || (*ref)[0] == '\0' || (*ref)[0] == '/')
		return;
	p = join_clean(dir, *ref);
	free(*ref);
	*ref = p;
}

/* The value of one base64 digit, or -1. */
static int
b64_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Decodes standard base64 (whitespace ignored, padding optional at the
 * end).  -1 with *bad set to the offending input byte.
 */
static int
b64_decode(char **out, size_t *outlen, const char *in, size_t *bad)
{
	size_t n = strlen(in), i, len = 0, pad = 0;
	unsigned acc = 0;
	int bits = 0;
	char *buf = cpl_xmalloc(n / 4 * 3 + 4);

	for (i = 0; i < n; i++) {
		int c = (unsigned char)in[i], v;

		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		v = b64_value(c);
		if (v < 0 || pad > 0)
			goto bad;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[len++] = (char)((acc >> bits) & 0xff);
		}
	}
	if (pad > 2 || bits >= 6)
		goto bad;
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
bad:
	*bad = i;
	secret_free(buf, n / 4 * 3 + 4);
	return -1;
}

/* ---- entries and lists --------------------------------------------------- */

/* Frees an exec block, wiping its env values. */
static void
exec_free(struct exec_cfg *e)
{
	size_t i;

	if (e == NULL)
		return;
	free(e->command);
	free(e->api_version);
	for (i = 0; i < e->nargs; i++)
		free(e->args[i]);
	free(e->args);
	for (i = 0; i < e->nenv; i++) {
		free(e->env[i].name);
		secret_free_str(e->env[i].value);
	}
	free(e->env);
	free(e->interactive_mode);
	free(e->install_hint);
	free(e);
}

/* Frees a cluster entry (NULL-safe). */
static void
cluster_free(struct cluster *c)
{
	if (c == NULL)
		return;
	free(c->name);
	free(c->server);
	free(c->ca_file);
	free(c->ca_data);
	free(c->tls_server_name);
	secret_free_str(c->proxy_url);
	json_decref(c->exec_config);
	free(c);
}

/* Frees a user entry, wiping its secrets (NULL-safe). */
static void
user_free(struct user *u)
{
	if (u == NULL)
		return;
	free(u->name);
	free(u->cert_file);
	free(u->cert_data);
	free(u->key_file);
	secret_free(u->key_data, u->key_data_len);
	secret_free_str(u->token);
	free(u->token_file);
	free(u->username);
	secret_free_str(u->password);
	exec_free(u->exec);
	free(u->auth_provider);
	secret_free_str(u->id_token);
	free(u);
}

/* Frees a context entry (NULL-safe). */
static void
context_free(struct context *c)
{
	if (c == NULL)
		return;
	free(c->name);
	free(c->cluster);
	free(c->user);
	free(c->namespace);
	free(c);
}

/* cluster_free for a struct list. */
static void
cluster_del(void *p)
{
	cluster_free(p);
}

/* user_free for a struct list. */
static void
user_del(void *p)
{
	user_free(p);
}

/* context_free for a struct list. */
static void
context_del(void *p)
{
	context_free(p);
}

/* Frees every item with del, then the list. */
static void
list_free(struct list *l, void (*del)(void *))
{
	size_t i;

	for (i = 0; i < l->n; i++)
		del(l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* The item named name, or NULL (an item's first member is its name). */
void *
cpl_kubeconfig_list_find(const struct list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(*(char *const *)l->items[i], name) == 0)
			return l->items[i];
	return NULL;
}

/*
 * Adds item, taking it.  An item of the same name is replaced when
 * replace is set (later entries win inside one file, as kubectl's decoding
 * into a map does), else the new item is dropped (first file wins).
 */
static void
list_put(struct list *l, void *item, void (*del)(void *), bool replace)
{
	const char *name = *(char *const *)item;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (strcmp(*(char *const *)l->items[i], name) != 0)
			continue;
		if (replace) {
			del(l->items[i]);
			l->items[i] = item;
		} else {
			del(item);
		}
		return;
	}
	l->items = cpl_xgrow_to(l->items, &l->cap, l->n + 1, sizeof(void *));
	l->items[l->n++] = item;
}

/* Frees everything a model holds and zeroes it. */
void
cpl_kubeconfig_model_free(struct model *m)
{
	list_free(&m->clusters, cluster_del);
	list_free(&m->users, user_del);
	list_free(&m->contexts, context_del);
	free(m->current);
	memset(m, 0, sizeof(*m));
}

/* Nothing was defined: no file, or only empty ones. */
bool
cpl_kubeconfig_model_empty(const struct model *m)
{
	return m->clusters.n == 0 && m->users.n == 0 &&
	       m->contexts.n == 0 && m->current == NULL;
}

/* ---- reading one file ---------------------------------------------------- */

/* A parse in progress: the file, its directory, the error sink. */
struct reader {
	const char *file;
	char *dir;
	struct cpl_error *err;
};

/* Node n's position in the file being read (0 when n is NULL). */
static struct cpl_pos
pos_of(const struct reader *r, const struct cpl_ynode *n)
{
	struct cpl_pos p = { r->file, n ? n->line : 0, n ? n->column : 0 };

	return p;
}

/* A string field: absent, null and "" all mean unset (*out NULL). */
static int
get_str(char **out, const struct reader *r, const struct cpl_ynode *map,
	const char *key)
{
	const struct cpl_ynode *n = cpl_ynode_get(map, key);
	const char *s;

	*out = NULL;
	if (n == NULL || cpl_ynode_is_null(n))
		return 0;
	if (!cpl_ynode_is_scalar(n)) {
		cpl_error_set(r->err, r->file, n->line, n->column,
			      "%s must be a string", key);
		return -1;
	}
	s = cpl_ynode_str(n);
	if (s && *s)
		*out = cpl_xstrdup(s);
	return 0;
}

/* A true/false field; absent and null mean false. */
static int
get_bool(bool *out, const struct reader *r, const struct cpl_ynode *map,
	 const char *key)
{
	const struct cpl_ynode *n = cpl_ynode_get(map, key);
	int v;

	*out = false;
	if (n == NULL || cpl_ynode_is_null(n))
		return 0;
	v = cpl_ynode_bool(n);
	if (v < 0) {
		cpl_error_set(r->err, r->file, n->line, n->column,
			      "%s must be true or false", key);
		return -1;
	}
	*out = v == 1;
	return 0;
}

/* A base64 "-data" field, decoded. */
static int
get_data(char **out, size_t *len, const struct reader *r,
	 const struct cpl_ynode *map, const char *key)
{
	const struct cpl_ynode *n = cpl_ynode_get(map, key);
	char *text = NULL;
	size_t bad;

	*out = NULL;
	*len = 0;
	if (get_str(&text, r, map, key) < 0)
		return -1;
	if (text == NULL)
		return 0;
	if (b64_decode(out, len, text, &bad) < 0) {
		cpl_error_set(r->err, r->file, n->line, n->column,
			      "%s: illegal base64 data at input byte %zu",
			      key, bad);
		secret_free_str(text);
		return -1;
	}
	secret_free_str(text);
	return 0;
}

/* A YAML node as JSON (plain scalars typed as YAML types them). */
static json_t *
yaml_to_json(const struct cpl_ynode *n)
{
	json_t *j;
	size_t i;
	long l;

	if (n == NULL)
		return json_null();
	switch (n->kind) {
	case CPL_Y_SCALAR:
		if (n->style == CPL_YS_PLAIN) {
			char *end;
			double d;

			if (cpl_ynode_is_null(n))
				return json_null();
			if (cpl_ynode_bool(n) >= 0)
				return json_boolean(cpl_ynode_bool(n) == 1);
			if (cpl_ynode_long(n, &l) == 0)
				return json_integer(l);
			d = strtod(n->value, &end);
			if (end != n->value && *end == '\0')
				return json_real(d);
		}
		return json_stringn(n->value, n->len);
	case CPL_Y_SEQ:
		j = json_array();
		for (i = 0; j && i < n->count; i++) {
			json_t *v = yaml_to_json(n->items[i]);

			if (v == NULL || json_array_append_new(j, v) < 0) {
				json_decref(j);
				return NULL;
			}
		}
		return j;
	case CPL_Y_MAP:
		j = json_object();
		for (i = 0; j && i < n->count; i++) {
			const char *k = cpl_ynode_str(n->pairs[i].key);
			json_t *v = yaml_to_json(n->pairs[i].value);

			if (k == NULL || v == NULL ||
			    json_object_set_new(j, k, v) < 0) {
				json_decref(v);
				json_decref(j);
				return NULL;
			}
		}
		return j;
	}
	return NULL;
}

/* users[].user.exec: the plugin's command, args, env, modes. */
static int
read_exec(struct exec_cfg **out, const struct reader *r,
	  const struct cpl_ynode *n)
{
	struct exec_cfg *e = cpl_xcalloc(1, sizeof(*e));
	const struct cpl_ynode *args, *env;
	size_t i;

	*out = NULL;
	e->pos = pos_of(r, n);
	if (!cpl_ynode_is_map(n)) {
		cpl_error_set(r->err, r->file, n->line, n->column,
			      "exec must be a mapping");
		goto fail;
	}
	if (get_str(&e->command, r, n, "command") < 0 ||
	    get_str(&e->api_version, r, n, "apiVersion") < 0 ||
	    get_str(&e->interactive_mode, r, n, "interactiveMode") < 0 ||
	    get_str(&e->install_hint, r, n, "installHint") < 0 ||
	    get_bool(&e->provide_cluster_info, r, n,
		     "provideClusterInfo") < 0)
		goto fail;
	args = cpl_ynode_get(n, "args");
	if (args && !cpl_ynode_is_null(args)) {
		if (!cpl_ynode_is_seq(args)) {
			cpl_error_set(r->err, r->file, args->line,
				      args->column, "args must be a list");
			goto fail;
		}
		e->args = cpl_xcalloc(args->count, sizeof(*e->args));
		for (i = 0; i < args->count; i++) {
			const char *s = cpl_ynode_str(args->items[i]);

			if (!cpl_ynode_is_scalar(args->items[i])) {
				cpl_error_set(r->err, r->file,
					      args->items[i]->line,
					      args->items[i]->column,
					      "args must be strings");
				goto fail;
			}
			e->args[e->nargs++] = cpl_xstrdup(s ? s : "");
		}
	}
	env = cpl_ynode_get(n, "env");
	if (env && !cpl_ynode_is_null(env)) {
		if (!cpl_ynode_is_seq(env)) {
			cpl_error_set(r->err, r->file, env->line, env->column,
				      "env must be a list");
			goto fail;
		}
		e->env = cpl_xcalloc(env->count, sizeof(*e->env));
		for (i = 0; i < env->count; i++) {
			const struct cpl_ynode *item = env->items[i];
			struct named_env *ne = &e->env[e->nenv++];

			if (!cpl_ynode_is_map(item)) {
				cpl_error_set(r->err, r->file, item->line,
					      item->column,
					      "env entries must be mappings");
				goto fail;
			}
			/* A missing name is kubectl's error when the user
			 * is used (check_exec), not the file's. */
			if (get_str(&ne->name, r, item, "name") < 0 ||
			    get_str(&ne->value, r, item, "value") < 0)
				goto fail;
		}
	}
	/* Only a command with a '/' is a path; a bare name is looked up
	 * in PATH when the plugin runs. */
	if (e->command && strchr(e->command, '/'))
		resolve_path(&e->command, r->dir);
	*out = e;
	return 0;
fail:
	exec_free(e);
	return -1;
}

/* One clusters[] entry; relative paths resolved. */
static int
read_cluster(struct cluster **out, const struct reader *r,
	     const struct cpl_ynode *item)
{
	struct cluster *c = cpl_xcalloc(1, sizeof(*c));
	const struct cpl_ynode *body = cpl_ynode_get(item, "cluster");
	const struct cpl_ynode *exts, *n;
	size_t i;

	*out = NULL;
	c->pos = pos_of(r, item);
	if (get_str(&c->name, r, item, "name") < 0)
		goto fail;
	if (body == NULL || cpl_ynode_is_null(body))
		goto done;
	if (!cpl_ynode_is_map(body)) {
		cpl_error_set(r->err, r->file, body->line, body->column,
			      "cluster must be a mapping");
		goto fail;
	}
	n = cpl_ynode_get(body, "certificate-authority");
	c->ca_file_pos = pos_of(r, n);
	n = cpl_ynode_get(body, "proxy-url");
	c->proxy_pos = pos_of(r, n);
	if (get_str(&c->server, r, body, "server") < 0 ||
	    get_str(&c->ca_file, r, body, "certificate-authority") < 0 ||
	    get_data(&c->ca_data, &c->ca_data_len, r, body,
		     "certificate-authority-data") < 0 ||
	    get_bool(&c->insecure, r, body, "insecure-skip-tls-verify") < 0 ||
	    get_str(&c->tls_server_name, r, body, "tls-server-name") < 0 ||
	    get_str(&c->proxy_url, r, body, "proxy-url") < 0)
		goto fail;
	resolve_path(&c->ca_file, r->dir);
	exts = cpl_ynode_get(body, "extensions");
	for (i = 0; exts && cpl_ynode_is_seq(exts) && i < exts->count; i++) {
		const struct cpl_ynode *e = exts->items[i];

		if (!cpl_str_eq(cpl_ynode_gets(e, "name"), EXEC_EXTENSION))
			continue;
		json_decref(c->exec_config);
		c->exec_config = yaml_to_json(cpl_ynode_get(e, "extension"));
		if (c->exec_config == NULL) {
			cpl_error_set(r->err, r->file, e->line, e->column,
				      "%s extension cannot be given to an "
				      "exec plugin as JSON", EXEC_EXTENSION);
			goto fail;
		}
	}
done:
	*out = c;
	return 0;
fail:
	cluster_free(c);
	return -1;
}

/* One users[] entry; relative paths resolved. */
static int
read_user(struct user **out, const struct reader *r,
	  const struct cpl_ynode *item)
{
	struct user *u = cpl_xcalloc(1, sizeof(*u));
	const struct cpl_ynode *body = cpl_ynode_get(item, "user");
	const struct cpl_ynode *n;

	*out = NULL;
	u->pos = pos_of(r, item);
	if (get_str(&u->name, r, item, "name") < 0)
		goto fail;
	if (body == NULL || cpl_ynode_is_null(body))
		goto done;
	if (!cpl_ynode_is_map(body)) {
		cpl_error_set(r->err, r->file, body->line, body->column,
			      "user must be a mapping");
		goto fail;
	}
	u->cert_file_pos = pos_of(r, cpl_ynode_get(body, "client-certificate"));
	u->key_file_pos = pos_of(r, cpl_ynode_get(body, "client-key"));
	u->token_file_pos = pos_of(r, cpl_ynode_get(body, "tokenFile"));
	if (get_str(&u->cert_file, r, body, "client-certificate") < 0 ||
	    get_data(&u->cert_data, &u->cert_data_len, r, body,
		     "client-certificate-data") < 0 ||
	    get_str(&u->key_file, r, body, "client-key") < 0 ||
	    get_data(&u->key_data, &u->key_data_len, r, body,
		     "client-key-data") < 0 ||
	    get_str(&u->token, r, body, "token") < 0 ||
	    get_str(&u->token_file, r, body, "tokenFile") < 0 ||
	    get_str(&u->username, r, body, "username") < 0 ||
	    get_str(&u->password, r, body, "password") < 0)
		goto fail;
	resolve_path(&u->cert_file, r->dir);
	resolve_path(&u->key_file, r->dir);
	resolve_path(&u->token_file, r->dir);
	n = cpl_ynode_get(body, "exec");
	if (n && !cpl_ynode_is_null(n) && read_exec(&u->exec, r, n) < 0)
		goto fail;
	n = cpl_ynode_get(body, "auth-provider");
	if (n && cpl_ynode_is_map(n)) {
		u->provider_pos = pos_of(r, n);
		if (get_str(&u->auth_provider, r, n, "name") < 0)
			goto fail;
		if (u->auth_provider == NULL)
			u->auth_provider = cpl_xstrdup("");
		n = cpl_ynode_get(n, "config");
		if (n && cpl_ynode_is_map(n) &&
		    get_str(&u->id_token, r, n, "id-token") < 0)
			goto fail;
	}
done:
	*out = u;
	return 0;
fail:
	user_free(u);
	return -1;
}

/* One contexts[] entry. */
static int
read_context(struct context **out, const struct reader *r,
	     const struct cpl_ynode *item)
{
	struct context *c = cpl_xcalloc(1, sizeof(*c));
	const struct cpl_ynode *body = cpl_ynode_get(item, "context");

	*out = NULL;
	c->pos = pos_of(r, item);
	if (get_str(&c->name, r, item, "name") < 0)
		goto fail;
	if (body && !cpl_ynode_is_null(body) && !cpl_ynode_is_map(body)) {
		cpl_error_set(r->err, r->file, body->line, body->column,
			      "context must be a mapping");
		goto fail;
	}
	if (body && cpl_ynode_is_map(body) &&
	    (get_str(&c->cluster, r, body, "cluster") < 0 ||
	     get_str(&c->user, r, body, "user") < 0 ||
	     get_str(&c->namespace, r, body, "namespace") < 0))
		goto fail;
	*out = c;
	return 0;
fail:
	context_free(c);
	return -1;
}

/* One of clusters, users, contexts: a list of named entries. */
static int
read_list(struct model *m, const struct reader *r,
	  const struct cpl_ynode *doc, const char *key)
{
	const struct cpl_ynode *seq = cpl_ynode_get(doc, key);
	size_t i;

	if (seq == NULL || cpl_ynode_is_null(seq))
		return 0;
	if (!cpl_ynode_is_seq(seq)) {
		cpl_error_set(r->err, r->file, seq->line, seq->column,
			      "%s must be a list", key);
		return -1;
	}
	for (i = 0; i < seq->count; i++) {
		const struct cpl_ynode *item = seq->items[i];
		struct cluster *cl;
		struct user *u;
		struct context *cx;

		if (!cpl_ynode_is_map(item)) {
			cpl_error_set(r->err, r->file, item->line,
				      item->column,
				      "%s entries must be mappings", key);
			return -1;
		}
		if (strcmp(key, "clusters") == 0) {
			if (read_cluster(&cl, r, item) < 0)
				return -1;
			if (cl->name == NULL)
				cluster_free(cl);	/* unnamed: unusable */
			else
				list_put(&m->clusters, cl, cluster_del, true);
		} else if (strcmp(key, "users") == 0) {
			if (read_user(&u, r, item) < 0)
				return -1;
			if (u->name == NULL)
				user_free(u);
			else
				list_put(&m->users, u, user_del, true);
		} else {
			if (read_context(&cx, r, item) < 0)
				return -1;
			if (cx->name == NULL)
				context_free(cx);
			else
				list_put(&m->contexts, cx, context_del, true);
		}
	}
	return 0;
}

/*
 * Reads one kubeconfig file into m.  *found is false (and 0 returned) when
 * the file does not exist; an empty file is an empty configuration.
 */
int
cpl_kubeconfig_model_read(struct model *m, bool *found, const char *file,
			  struct cpl_error *err)
{
	struct reader r = { file, NULL, err };
	struct cpl_ystream *ys = NULL;
	const struct cpl_ynode *doc;
	struct stat st;
	char *buf = NULL;
	size_t len;
	int rc = -1;

	*found = false;
	if (stat(file, &st) < 0 && errno == ENOENT)
		return 0;
	*found = true;
	if (cpl_read_file(&buf, &len, file, KUBECONFIG_MAX, err) < 0)
		return -1;
	if (cpl_yaml_parse(&ys, file, buf, len, err) < 0)
		goto out;
	doc = cpl_ystream_count(ys) ? cpl_ystream_doc(ys, 0) : NULL;
	if (doc == NULL || cpl_ynode_is_null(doc)) {
		rc = 0;
		goto out;
	}
	if (!cpl_ynode_is_map(doc)) {
		cpl_error_set(err, file, doc->line, doc->column,
			      "not a kubeconfig: expected a mapping");
		goto out;
	}
	r.dir = abs_dir(file);
	if (read_list(m, &r, doc, "clusters") < 0 ||
	    read_list(m, &r, doc, "users") < 0 ||
	    read_list(m, &r, doc, "contexts") < 0 ||
	    get_str(&m->current, &r, doc, "current-context") < 0)
		goto out;
	m->current_pos = pos_of(&r, cpl_ynode_get(doc, "current-context"));
	rc = 0;
out:
	free(r.dir);
	cpl_ystream_free(ys);
	free(buf);
	return rc;
}

/* ---- merging ------------------------------------------------------------- */

/* Moves src's entries into dst where dst has none of that name yet. */
void
cpl_kubeconfig_model_merge(struct model *dst, struct model *src)
{
	size_t i;

	for (i = 0; i < src->clusters.n; i++)
		list_put(&dst->clusters, src->clusters.items[i], cluster_del,
			 false);
	for (i = 0; i < src->users.n; i++)
		list_put(&dst->users, src->users.items[i], user_del, false);
	for (i = 0; i < src->contexts.n; i++)
		list_put(&dst->contexts, src->contexts.items[i], context_del,
			 false);
	src->clusters.n = src->users.n = src->contexts.n = 0;
	if (dst->current == NULL && src->current) {
		dst->current = src->current;
		dst->current_pos = src->current_pos;
		src->current = NULL;
	}
	cpl_kubeconfig_model_free(src);
}
