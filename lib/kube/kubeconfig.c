/*
 * kubeconfig.c — kubectl's configuration rules: find the files, merge
 * them, pick the context, cluster and user, load the TLS material and the
 * credentials (token, token file, client certificate, basic auth, exec
 * plugins), or fall back to the in-cluster service account.
 *
 * Invariant: secrets (tokens, passwords, key data, exec plugin output)
 * never reach an error message, and are wiped before they are freed.  Every
 * error names the kubeconfig file, line and column of the offending entry,
 * or the context it concerns.
 *
 * Ownership: the handle owns the merged model (every cluster, user and
 * context read) and the resolved strings; the public info view borrows
 * from both.  Positions borrow file names from the handle's file list.
 */
#include "kube/kubeconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "text/yamldoc.h"

#define KUBECONFIG_MAX ((size_t)16 << 20)	/* one kubeconfig file */
#define PEM_MAX ((size_t)4 << 20)		/* a CA bundle, cert or key */
#define EXEC_OUTPUT_MAX ((size_t)1 << 20)	/* an ExecCredential */
#define EXEC_TIMEOUT_MS 60000L
#define EXEC_EXTENSION "client.authentication.k8s.io/exec"
#define EXEC_V1 "client.authentication.k8s.io/v1"
#define EXEC_V1BETA1 "client.authentication.k8s.io/v1beta1"

/* ---- small helpers ------------------------------------------------------- */

/* Where an entry or field was written; file borrowed from the handle. */
struct pos {
	const char *file;
	int line;
	int column;
};

/* Wipes and frees a secret of n bytes (NULL-safe). */
static void
secret_free(char *p, size_t n)
{
	if (p == NULL)
		return;
	explicit_bzero(p, n);
	free(p);
}

/* Wipes and frees a NUL-terminated secret (NULL-safe). */
static void
secret_free_str(char *p)
{
	if (p)
		secret_free(p, strlen(p));
}

/* The value of name in env (a NULL-terminated "N=V" array). */
static const char *
env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

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

/* Standard base64 of n bytes, padded; caller frees. */
static char *
b64_encode(const char *in, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz0123456789+/";
	struct cpl_buf b;
	size_t i;

	cpl_buf_init(&b, 0);
	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)(unsigned char)in[i] << 16 |
			     (unsigned)(unsigned char)in[i + 1] << 8 |
			     (unsigned)(unsigned char)in[i + 2];

		cpl_buf_addc(&b, tab[v >> 18 & 63]);
		cpl_buf_addc(&b, tab[v >> 12 & 63]);
		cpl_buf_addc(&b, tab[v >> 6 & 63]);
		cpl_buf_addc(&b, tab[v & 63]);
	}
	if (n - i == 1) {
		unsigned v = (unsigned)(unsigned char)in[i] << 16;

		cpl_buf_addc(&b, tab[v >> 18 & 63]);
		cpl_buf_addc(&b, tab[v >> 12 & 63]);
		cpl_buf_adds(&b, "==");
	} else if (n - i == 2) {
		unsigned v = (unsigned)(unsigned char)in[i] << 16 |
			     (unsigned)(unsigned char)in[i + 1] << 8;

		cpl_buf_addc(&b, tab[v >> 18 & 63]);
		cpl_buf_addc(&b, tab[v >> 12 & 63]);
		cpl_buf_addc(&b, tab[v >> 6 & 63]);
		cpl_buf_addc(&b, '=');
	}
	return cpl_buf_detach(&b);
}

int
cpl_kubeconfig_parse_timeout(long *ms, const char *text)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = {
		{ "ns", 1e-6 }, { "us", 1e-3 }, { "\xc2\xb5s", 1e-3 },
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};
	const char *p = text;
	double total = 0;
	long secs;

	if (text == NULL || *text == '\0')
		return -1;
	if (cpl_parse_long(&secs, text) == 0) {
		if (secs < 0 || secs > LONG_MAX / 1000)
			return -1;
		*ms = secs * 1000;
		return 0;
	}
	if (*p == '+')
		p++;
	if (*p == '\0')
		return -1;
	while (*p) {
		char *end;
		double v;
		size_t i, best = CPL_ARRAY_LEN(units);

		if (!((*p >= '0' && *p <= '9') || *p == '.'))
			return -1;
		errno = 0;
		v = strtod(p, &end);
		if (end == p || errno != 0)
			return -1;
		p = end;
		for (i = 0; i < CPL_ARRAY_LEN(units); i++)
			if (cpl_str_starts(p, units[i].unit) &&
			    (best == CPL_ARRAY_LEN(units) ||
			     strlen(units[i].unit) > strlen(units[best].unit)))
				best = i;
		if (best == CPL_ARRAY_LEN(units))
			return -1;
		p += strlen(units[best].unit);
		total += v * units[best].ms;
	}
	if (total > (double)LONG_MAX / 2)
		return -1;
	*ms = (long)total;
	if ((double)*ms < total)
		(*ms)++;	/* round up: 1ns is not "no timeout" */
	return 0;
}

/* ---- the model of what the files say ------------------------------------- */

struct named_env {
	char *name;
	char *value;
};

/* users[].user.exec */
struct exec_cfg {
	char *command;
	char *api_version;
	char **args;
	size_t nargs;
	struct named_env *env;
	size_t nenv;
	bool provide_cluster_info;
	char *interactive_mode;		/* NULL when not written */
	char *install_hint;
	struct pos pos;
};

/* clusters[] */
struct cluster {
	char *name;
	struct pos pos;
	char *server;
	char *ca_file;
	struct pos ca_file_pos;
	char *ca_data;			/* decoded */
	size_t ca_data_len;
	bool insecure;
	char *tls_server_name;
	char *proxy_url;
	struct pos proxy_pos;
	json_t *exec_config;		/* exec extension, for plugins */
};

/* users[] (kubectl calls them AuthInfos) */
struct user {
	char *name;
	struct pos pos;
	char *cert_file;
	struct pos cert_file_pos;
	char *cert_data;
	size_t cert_data_len;
	char *key_file;
	struct pos key_file_pos;
	char *key_data;			/* secret */
	size_t key_data_len;
	char *token;			/* secret */
	char *token_file;
	struct pos token_file_pos;
	char *username;
	char *password;			/* secret */
	struct exec_cfg *exec;
	char *auth_provider;
	char *id_token;			/* secret (oidc) */
	struct pos provider_pos;
};

/* contexts[] */
struct context {
	char *name;
	struct pos pos;
	char *cluster;
	char *user;
	char *namespace;
};

/* Named entries of one kind; each item's first member is its name. */
struct list {
	void **items;
	size_t n, cap;
};

/* What one file, or the merge of several, defines. */
struct model {
	struct list clusters;
	struct list users;
	struct list contexts;
	char *current;
	struct pos current_pos;
};

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
static void *
list_find(const struct list *l, const char *name)
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
	cpl_xgrow((void **)&l->items, &l->cap, l->n + 1, sizeof(void *));
	l->items[l->n++] = item;
}

/* Frees everything a model holds and zeroes it. */
static void
model_free(struct model *m)
{
	list_free(&m->clusters, cluster_del);
	list_free(&m->users, user_del);
	list_free(&m->contexts, context_del);
	free(m->current);
	memset(m, 0, sizeof(*m));
}

/* Nothing was defined: no file, or only empty ones. */
static bool
model_empty(const struct model *m)
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
static struct pos
pos_of(const struct reader *r, const struct cpl_ynode *n)
{
	struct pos p = { r->file, n ? n->line : 0, n ? n->column : 0 };

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
static int
read_file(struct model *m, bool *found, const char *file,
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

/* Moves src's entries into dst where dst has none of that name yet. */
static void
model_merge(struct model *dst, struct model *src)
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
	model_free(src);
}

/* ---- the handle ---------------------------------------------------------- */

struct cpl_kubeconfig {
	struct cpl_kubeconfig_info info;
	char **files;			/* read, in merge order */
	size_t nfiles, capfiles;
	char **env;			/* copy of opts->env, or NULL */
	struct model model;
	const struct context *ctx;	/* selected; NULL when none */
	const struct cluster *cl;	/* NULL for in-cluster */
	const struct user *user;	/* NULL when none */
	char *namespace;
	char *server;
	char *proxy_url;
	char *ca_origin;
	char *ca;			/* read from a file (else borrowed) */
	size_t ca_len;
	char *cert;			/* from a file or an exec plugin */
	size_t cert_len;
	char *key;			/* secret */
	size_t key_len;
	char *token;			/* from a token file or a plugin */
	char *token_file;		/* re-read on refresh */
	struct pos token_file_pos;
	bool exec_stderr;
	long exec_timeout_ms;
	unsigned exec_runs;
};

/* The environment in use: the copy from the options, or ours. */
static char *const *
kc_env(const struct cpl_kubeconfig *kc)
{
	return kc->env ? kc->env : environ;
}

/* A variable of that environment, or NULL. */
static const char *
kc_getenv(const struct cpl_kubeconfig *kc, const char *name)
{
	return env_get(kc_env(kc), name);
}

/* Reads a PEM file named by a kubeconfig field, naming both on error. */
static int
read_pem(char **out, size_t *len, const char *path, const struct pos *p,
	 const char *field, const char *owner, struct cpl_error *err)
{
	struct cpl_error e = { 0 };

	if (cpl_read_file(out, len, path, PEM_MAX, &e) == 0)
		return 0;
	cpl_error_set(err, p->file, p->line, p->column,
		      "unable to read %s %s for %s: %s", field, path, owner,
		      e.message);
	cpl_error_clear(&e);
	return -1;
}

/* Reads a token file: whitespace trimmed, empty is an error. */
static int
read_token(char **out, const char *path, const struct pos *p,
	   struct cpl_error *err)
{
	struct cpl_error e = { 0 };
	char *data = NULL, *s, *end;
	size_t len;

	*out = NULL;
	if (cpl_read_file(&data, &len, path, PEM_MAX, &e) < 0) {
		cpl_error_set(err, p->file, p->line, p->column,
			      "unable to read token file %s: %s", path,
			      e.message);
		cpl_error_clear(&e);
		return -1;
	}
	for (s = data; *s == ' ' || *s == '\n' || *s == '\r' || *s == '\t';)
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\n' ||
			   end[-1] == '\r' || end[-1] == '\t'))
		end--;
	if (end == s) {
		cpl_error_set(err, p->file, p->line, p->column,
			      "read empty token from file %s", path);
		secret_free(data, len);
		return -1;
	}
	*out = cpl_xstrndup(s, (size_t)(end - s));
	secret_free(data, len);
	return 0;
}

/* Records a file as read, for cpl_kubeconfig_files(). */
static void
add_file(struct cpl_kubeconfig *kc, const char *path)
{
	cpl_xgrow((void **)&kc->files, &kc->capfiles, kc->nfiles + 1,
		  sizeof(*kc->files));
	kc->files[kc->nfiles++] = cpl_xstrdup(path);
}

/*
 * Loads the files kubectl would: --kubeconfig, else KUBECONFIG, else
 * ~/.kube/config.  *source describes where it looked (for messages).
 */
static int
load_files(struct cpl_kubeconfig *kc, char **source,
	   const struct cpl_kubeconfig_opts *o, struct cpl_error *err)
{
	const char *list = kc_getenv(kc, "KUBECONFIG");
	const char *home = kc_getenv(kc, "HOME");
	char **paths = NULL;
	size_t npaths = 0, cap = 0, i, j;
	int rc = -1;

	*source = NULL;
	if (o->kubeconfig && *o->kubeconfig) {
		struct model m = { 0 };
		bool found;

		*source = cpl_xstrdup(o->kubeconfig);
		add_file(kc, o->kubeconfig);
		if (read_file(&m, &found, o->kubeconfig, err) < 0) {
			model_free(&m);
			return -1;
		}
		if (!found) {
			cpl_error_set(err, o->kubeconfig, 0, 0,
				      "cannot read --kubeconfig: %s",
				      strerror(ENOENT));
			return -1;
		}
		model_merge(&kc->model, &m);
		return 0;
	}
	if (list && *list) {
		const char *p = list;

		*source = cpl_xasprintf("KUBECONFIG=%s", list);
		while (*p) {
			size_t n = strcspn(p, ":");

			if (n > 0) {
				char *path = cpl_xstrndup(p, n);

				for (j = 0; j < npaths; j++)
					if (strcmp(paths[j], path) == 0)
						break;
				if (j < npaths) {
					free(path);
				} else {
					cpl_xgrow((void **)&paths, &cap,
						  npaths + 1, sizeof(*paths));
					paths[npaths++] = path;
				}
			}
			p += n;
			if (*p == ':')
				p++;
		}
	} else if (home && *home) {
		paths = cpl_xmalloc(sizeof(*paths));
		paths[npaths++] = cpl_xasprintf("%s/.kube/config", home);
		*source = cpl_xstrdup(paths[0]);
	} else {
		*source = cpl_xstrdup("~/.kube/config (HOME is not set)");
	}
	for (i = 0; i < npaths; i++) {
		struct model m = { 0 };
		bool found;

		if (read_file(&m, &found, paths[i], err) < 0) {
			model_free(&m);
			goto out;
		}
		if (found)
			add_file(kc, paths[i]);
		model_merge(&kc->model, &m);
	}
	rc = 0;
out:
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	return rc;
}

/* ---- in-cluster ---------------------------------------------------------- */

/* kubectl's test: the service env variables and a token file. */
static bool
in_cluster_possible(const struct cpl_kubeconfig *kc, const char *dir)
{
	const char *host = kc_getenv(kc, "KUBERNETES_SERVICE_HOST");
	const char *port = kc_getenv(kc, "KUBERNETES_SERVICE_PORT");
	char *token = cpl_xasprintf("%s/token", dir);
	struct stat st;
	bool ok = host && *host && port && *port && stat(token, &st) == 0;

	free(token);
	return ok;
}

/* The service account configuration, as kubectl builds it. */
static int
load_in_cluster(struct cpl_kubeconfig *kc, const char *dir,
		const struct cpl_kubeconfig_opts *o, struct cpl_error *err)
{
	const char *host = kc_getenv(kc, "KUBERNETES_SERVICE_HOST");
	const char *port = kc_getenv(kc, "KUBERNETES_SERVICE_PORT");
	const char *ns = kc_getenv(kc, "POD_NAMESPACE");
	char *ca_path = cpl_xasprintf("%s/ca.crt", dir);
	char *ns_path = cpl_xasprintf("%s/namespace", dir);
	struct pos none = { NULL, 0, 0 };
	struct cpl_error ignored = { 0 };
	char *nsfile = NULL;
	size_t len;
	int rc = -1;

	kc->info.in_cluster = true;
	kc->info.insecure = o->insecure_skip_tls_verify;
	kc->server = strchr(host, ':')
		? cpl_xasprintf("https://[%s]:%s", host, port)
		: cpl_xasprintf("https://%s:%s", host, port);
	kc->token_file = cpl_xasprintf("%s/token", dir);
	kc->token_file_pos = none;
	if (read_token(&kc->token, kc->token_file, &none, err) < 0)
		goto out;
	/* Like kubectl: a missing CA falls back to the system's CAs. */
	if (!o->insecure_skip_tls_verify &&
	    cpl_read_file(&kc->ca, &kc->ca_len, ca_path, PEM_MAX,
			  &ignored) == 0)
		kc->ca_origin = cpl_xstrdup(ca_path);
	cpl_error_clear(&ignored);
	if (o->namespace && *o->namespace) {
		kc->namespace = cpl_xstrdup(o->namespace);
	} else if (ns && *ns) {
		kc->namespace = cpl_xstrdup(ns);
	} else if (cpl_read_file(&nsfile, &len, ns_path, 4096,
				 &ignored) == 0) {
		char *s = nsfile, *end;

		while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
			s++;
		end = s + strlen(s);
		while (end > s && (end[-1] == ' ' || end[-1] == '\n' ||
				   end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if (end > s)
			kc->namespace = cpl_xstrndup(s, (size_t)(end - s));
	}
	cpl_error_clear(&ignored);
	if (kc->namespace == NULL)
		kc->namespace = cpl_xstrdup("default");
	rc = 0;
out:
	free(nsfile);
	free(ca_path);
	free(ns_path);
	return rc;
}

/* ---- resolving a context ------------------------------------------------- */

/* Fills err at position p (or none); returns -1. */
static int
set_err_at(struct cpl_error *err, const struct pos *p, const char *fmt, ...)
	CPL_PRINTF(3, 4);

static int
set_err_at(struct cpl_error *err, const struct pos *p, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	cpl_error_set(err, p ? p->file : NULL, p ? p->line : 0,
		      p ? p->column : 0, "%s", msg);
	free(msg);
	return -1;
}

/* The server URL: trailing '/' removed, a scheme added when missing. */
static int
resolve_server(struct cpl_kubeconfig *kc, bool tls, struct cpl_error *err)
{
	const struct cluster *cl = kc->cl;
	const char *s = cl->server;
	size_t n;

	if (s == NULL)
		return set_err_at(err, &cl->pos,
				  "no server found for cluster \"%s\"",
				  cl->name);
	if (strstr(s, "://") == NULL)
		kc->server = cpl_xasprintf("%s://%s", tls ? "https" : "http",
					   s);
	else
		kc->server = cpl_xstrdup(s);
	if (!cpl_str_starts(kc->server, "https://") &&
	    !cpl_str_starts(kc->server, "http://"))
		return set_err_at(err, &cl->pos,
				  "cluster \"%s\": server \"%s\" is not an "
				  "http:// or https:// URL", cl->name,
				  kc->server);
	n = strlen(kc->server);
	while (n > 0 && kc->server[n - 1] == '/')
		kc->server[--n] = '\0';
	return 0;
}

/* proxy-url: http, https or socks5 (resolved by the proxy, as Go does). */
static int
resolve_proxy(struct cpl_kubeconfig *kc, struct cpl_error *err)
{
	const struct cluster *cl = kc->cl;
	const char *u = cl->proxy_url;

	if (u == NULL)
		return 0;
	if (cpl_str_starts(u, "http://") || cpl_str_starts(u, "https://")) {
		kc->proxy_url = cpl_xstrdup(u);
		return 0;
	}
	if (cpl_str_starts(u, "socks5://")) {
		kc->proxy_url = cpl_xasprintf("socks5h://%s", u + 9);
		return 0;
	}
	/* The URL may hold a password: name only its scheme. */
	return set_err_at(err, &cl->proxy_pos,
			  "invalid proxy-url for cluster \"%s\": unsupported "
			  "scheme \"%.*s\", must be http, https, or socks5",
			  cl->name,
			  (int)(strstr(u, "://") ? strstr(u, "://") - u : 0),
			  u);
}

/* kubectl's validation of an exec block. */
static int
check_exec(const struct user *u, struct cpl_error *err)
{
	const struct exec_cfg *e = u->exec;
	const char *mode = e->interactive_mode;
	size_t i;

	if (e->command == NULL)
		return set_err_at(err, &e->pos, "command must be specified "
				  "for %s to use exec authentication plugin",
				  u->name);
	if (e->api_version == NULL)
		return set_err_at(err, &e->pos, "apiVersion must be "
				  "specified for %s to use exec "
				  "authentication plugin", u->name);
	if (!cpl_str_eq(e->api_version, EXEC_V1) &&
	    !cpl_str_eq(e->api_version, EXEC_V1BETA1))
		return set_err_at(err, &e->pos, "exec plugin for %s: "
				  "apiVersion \"%s\" is not supported (use %s "
				  "or %s)", u->name, e->api_version, EXEC_V1,
				  EXEC_V1BETA1);
	for (i = 0; i < e->nenv; i++)
		if (e->env[i].name == NULL)
			return set_err_at(err, &e->pos, "env variable name "
					  "must be specified for %s to use "
					  "exec authentication plugin",
					  u->name);
	if (mode == NULL && cpl_str_eq(e->api_version, EXEC_V1))
		return set_err_at(err, &e->pos, "interactiveMode must be "
				  "specified for %s to use exec "
				  "authentication plugin", u->name);
	if (mode && !cpl_str_eq(mode, "Never") &&
	    !cpl_str_eq(mode, "IfAvailable") && !cpl_str_eq(mode, "Always"))
		return set_err_at(err, &e->pos, "invalid interactiveMode for "
				  "%s: \"%s\"", u->name, mode);
	if (u->auth_provider)
		return set_err_at(err, &e->pos, "authProvider cannot be "
				  "provided in combination with an exec "
				  "plugin for %s", u->name);
	return 0;
}

/* The user's credentials: validation as kubectl does, files read. */
static int
resolve_user(struct cpl_kubeconfig *kc, struct cpl_error *err)
{
	const struct user *u = kc->user;
	bool basic = u->username || u->password;
	const char *owner;
	char *label = cpl_xasprintf("user \"%s\"", u->name);
	int rc = -1;

	owner = label;
	if (u->cert_file && u->cert_data) {
		set_err_at(err, &u->pos, "client-cert-data and client-cert "
			   "are both specified for %s. client-cert-data will "
			   "override.", u->name);
		goto out;
	}
	if (u->key_file && u->key_data) {
		set_err_at(err, &u->pos, "client-key-data and client-key are "
			   "both specified for %s. client-key-data will "
			   "override.", u->name);
		goto out;
	}
	if ((u->cert_file || u->cert_data) && !(u->key_file || u->key_data)) {
		set_err_at(err, &u->pos, "client-key-data or client-key must "
			   "be specified for %s to use the clientCert "
			   "authentication method.", u->name);
		goto out;
	}
	if ((u->key_file || u->key_data) && !(u->cert_file || u->cert_data)) {
		set_err_at(err, &u->pos, "client-cert-data or client-cert "
			   "must be specified for %s to use the clientCert "
			   "authentication method.", u->name);
		goto out;
	}
	if (u->token && basic) {
		set_err_at(err, &u->pos, "more than one authentication method "
			   "found for %s; found [token basicAuth], only one "
			   "is allowed", u->name);
		goto out;
	}
	if (u->exec && check_exec(u, err) < 0)
		goto out;
	if (u->exec && !u->token && (u->cert_file || u->cert_data)) {
		set_err_at(err, &u->pos, "user \"%s\" has both a client "
			   "certificate and an exec plugin; kubectl cannot "
			   "use both", u->name);
		goto out;
	}
	if (u->auth_provider && !u->exec && !u->token) {
		if (cpl_str_eq(u->auth_provider, "gcp") ||
		    cpl_str_eq(u->auth_provider, "azure")) {
			set_err_at(err, &u->provider_pos, "the %s auth plugin "
				   "has been removed from kubectl; use its "
				   "exec credential plugin (%s) instead",
				   u->auth_provider,
				   cpl_str_eq(u->auth_provider, "gcp")
				   ? "gke-gcloud-auth-plugin" : "kubelogin");
			goto out;
		}
		if (!cpl_str_eq(u->auth_provider, "oidc")) {
			set_err_at(err, &u->provider_pos, "no Auth Provider "
				   "found for name \"%s\"", u->auth_provider);
			goto out;
		}
		if (u->id_token == NULL) {
			set_err_at(err, &u->provider_pos, "user \"%s\": the "
				   "oidc auth-provider has no id-token; log in "
				   "again or use an exec plugin (kubelogin)",
				   u->name);
			goto out;
		}
	}
	if (u->cert_file &&
	    read_pem(&kc->cert, &kc->cert_len, u->cert_file,
		     &u->cert_file_pos, "client-cert", owner, err) < 0)
		goto out;
	if (u->key_file &&
	    read_pem(&kc->key, &kc->key_len, u->key_file, &u->key_file_pos,
		     "client-key", owner, err) < 0)
		goto out;
	if (!u->token && u->token_file) {
		kc->token_file = cpl_xstrdup(u->token_file);
		kc->token_file_pos = u->token_file_pos;
		if (read_token(&kc->token, kc->token_file,
			       &kc->token_file_pos, err) < 0)
			goto out;
	}
	rc = 0;
out:
	free(label);
	return rc;
}

/* Fills the info view from the resolved state. */
static void
publish(struct cpl_kubeconfig *kc)
{
	struct cpl_kubeconfig_info *i = &kc->info;
	const struct user *u = kc->user;
	const struct cluster *cl = kc->cl;

	i->context = kc->ctx ? kc->ctx->name : "";
	i->cluster = cl ? cl->name : "";
	i->user = u ? u->name : "";
	i->namespace = kc->namespace;
	i->server = kc->server;
	i->tls_server_name = cl ? cl->tls_server_name : NULL;
	i->proxy_url = kc->proxy_url;
	i->ca_origin = kc->ca_origin;
	if (kc->ca) {
		i->ca = kc->ca;
		i->ca_len = kc->ca_len;
	}
	i->cert = kc->cert;
	i->cert_len = kc->cert_len;
	i->key = kc->key;
	i->key_len = kc->key_len;
	if (u && !kc->cert && u->cert_data) {
		i->cert = u->cert_data;
		i->cert_len = u->cert_data_len;
	}
	if (u && !kc->key && u->key_data) {
		i->key = u->key_data;
		i->key_len = u->key_data_len;
	}
	i->token = kc->token;
	if (u && u->token)
		i->token = u->token;
	else if (u && !kc->token && u->id_token && !u->exec)
		i->token = u->id_token;
	i->username = u ? u->username : NULL;
	i->password = u ? u->password : NULL;
	i->exec = u && u->exec && !u->token;
	i->exec_command = i->exec ? u->exec->command : NULL;
}

/* Picks context, cluster and user, validates them, reads files. */
static int
resolve(struct cpl_kubeconfig *kc, const struct cpl_kubeconfig_opts *o,
	const char *source, struct cpl_error *err)
{
	const struct model *m = &kc->model;
	const char *ctxname = o->context && *o->context ? o->context
							 : m->current;
	const char *clname, *uname;
	const struct cluster *cl;
	bool has_ca, tls;

	if (ctxname) {
		kc->ctx = list_find(&m->contexts, ctxname);
		if (kc->ctx == NULL && o->context && *o->context)
			return set_err_at(err, NULL, "context \"%s\" does not "
					  "exist (in %s)", ctxname, source);
		if (kc->ctx == NULL)
			return set_err_at(err, &m->current_pos,
					  "current-context \"%s\" is not "
					  "defined in any kubeconfig file (%s)",
					  ctxname, source);
	}
	clname = o->cluster && *o->cluster ? o->cluster
		 : kc->ctx ? kc->ctx->cluster : NULL;
	if (clname == NULL && kc->ctx)
		return set_err_at(err, &kc->ctx->pos, "context \"%s\" names "
				  "no cluster", kc->ctx->name);
	if (clname == NULL)
		return set_err_at(err, NULL, "no context: current-context is "
				  "not set in %s and --context was not given",
				  source);
	cl = kc->cl = list_find(&m->clusters, clname);
	if (cl == NULL && o->cluster && *o->cluster)
		return set_err_at(err, NULL, "cluster \"%s\" does not exist "
				  "(in %s)", clname, source);
	if (cl == NULL)
		return set_err_at(err, &kc->ctx->pos, "context \"%s\": cluster "
				  "\"%s\" is not defined", kc->ctx->name,
				  clname);
	uname = o->user && *o->user ? o->user
		: kc->ctx ? kc->ctx->user : NULL;
	if (uname) {
		kc->user = list_find(&m->users, uname);
		/* kubectl: an unknown user is an error only when named by
		 * --user; a context's missing user means no credentials. */
		if (kc->user == NULL && o->user && *o->user)
			return set_err_at(err, NULL, "user \"%s\" does not "
					  "exist (in %s)", uname, source);
	}
	kc->namespace = cpl_xstrdup(
		o->namespace && *o->namespace ? o->namespace
		: kc->ctx && kc->ctx->namespace ? kc->ctx->namespace
		: "default");

	has_ca = cl->ca_file || cl->ca_data;
	if (cl->ca_file && cl->ca_data)
		return set_err_at(err, &cl->pos, "certificate-authority-data "
				  "and certificate-authority are both "
				  "specified for %s. certificate-authority-"
				  "data will override.", cl->name);
	if (cl->insecure && has_ca && !o->insecure_skip_tls_verify)
		return set_err_at(err, &cl->pos, "cluster \"%s\": specifying a "
				  "root certificates file with the insecure "
				  "flag is not allowed", cl->name);
	kc->info.insecure = cl->insecure || o->insecure_skip_tls_verify;
	if (o->insecure_skip_tls_verify) {
		has_ca = false;		/* the flag drops the CA */
	} else if (cl->ca_file) {
		char *owner = cpl_xasprintf("cluster \"%s\"", cl->name);
		int r = read_pem(&kc->ca, &kc->ca_len, cl->ca_file,
				 &cl->ca_file_pos, "certificate-authority",
				 owner, err);

		free(owner);
		if (r < 0)
			return -1;
		kc->ca_origin = cpl_xstrdup(cl->ca_file);
	} else if (cl->ca_data) {
		kc->info.ca = cl->ca_data;
		kc->info.ca_len = cl->ca_data_len;
		kc->ca_origin = cpl_xstrdup("certificate-authority-data");
	}
	if (kc->user && resolve_user(kc, err) < 0)
		return -1;
	tls = has_ca || kc->info.insecure || kc->cert ||
	      (kc->user && kc->user->cert_data);
	if (resolve_server(kc, tls, err) < 0 || resolve_proxy(kc, err) < 0)
		return -1;
	return 0;
}

/* ---- exec credential plugins --------------------------------------------- */

/* Whether the plugin gets our terminal (interactiveMode). */
static int
exec_interactive(bool *out, const struct user *u, struct cpl_error *err)
{
	const char *mode = u->exec->interactive_mode;
	bool tty = isatty(STDIN_FILENO) == 1;

	*out = false;
	if (cpl_str_eq(mode, "Never"))
		return 0;
	if (cpl_str_eq(mode, "Always") && !tty)
		return set_err_at(err, &u->exec->pos, "exec plugin for user "
				  "\"%s\" needs an interactive terminal "
				  "(interactiveMode: Always) and standard "
				  "input is not one", u->name);
	*out = tty;
	return 0;
}

/* Sets obj[key] = v, taking v; jansson fails only without memory. */
static void
jset(json_t *obj, const char *key, json_t *v)
{
	if (v == NULL || json_object_set_new(obj, key, v) < 0)
		abort();
}

/* The KUBERNETES_EXEC_INFO document (an ExecCredential with a spec). */
static char *
exec_info(const struct cpl_kubeconfig *kc, bool interactive)
{
	const struct exec_cfg *e = kc->user->exec;
	const struct cluster *cl = kc->cl;
	json_t *root = json_object(), *spec = json_object(), *c;
	char *text;

	if (root == NULL || spec == NULL)
		abort();
	jset(root, "kind", json_string("ExecCredential"));
	jset(root, "apiVersion", json_string(e->api_version));
	jset(spec, "interactive", json_boolean(interactive));
	if (e->provide_cluster_info) {
		c = json_object();
		if (c == NULL)
			abort();
		jset(c, "server", json_string(kc->server));
		if (cl->tls_server_name)
			jset(c, "tls-server-name",
			     json_string(cl->tls_server_name));
		if (cl->insecure)
			jset(c, "insecure-skip-tls-verify", json_true());
		if (kc->info.ca) {
			char *b = b64_encode(kc->info.ca, kc->info.ca_len);

			jset(c, "certificate-authority-data", json_string(b));
			free(b);
		}
		if (cl->proxy_url)
			jset(c, "proxy-url", json_string(cl->proxy_url));
		if (cl->exec_config)
			jset(c, "config", json_incref(cl->exec_config));
		jset(spec, "cluster", c);
	}
	jset(root, "spec", spec);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (text == NULL)
		abort();
	return text;
}

/* The plugin's environment: ours, then exec.env, then the exec info. */
static char **
exec_env(const struct cpl_kubeconfig *kc, const char *info)
{
	const struct exec_cfg *e = kc->user->exec;
	char *const *base = kc_env(kc);
	char **env;
	size_t n = 0, i, j, k = 0;

	while (base && base[n])
		n++;
	env = cpl_xcalloc(n + e->nenv + 2, sizeof(*env));
	for (i = 0; i < n; i++) {
		size_t len = strcspn(base[i], "=");
		bool replaced = len == strlen("KUBERNETES_EXEC_INFO") &&
			strncmp(base[i], "KUBERNETES_EXEC_INFO", len) == 0;

		for (j = 0; j < e->nenv && !replaced; j++)
			replaced = strlen(e->env[j].name) == len &&
				   strncmp(base[i], e->env[j].name, len) == 0;
		if (!replaced)
			env[k++] = cpl_xstrdup(base[i]);
	}
	for (j = 0; j < e->nenv; j++)
		env[k++] = cpl_xasprintf("%s=%s", e->env[j].name,
					 e->env[j].value ? e->env[j].value
							 : "");
	env[k++] = cpl_xasprintf("KUBERNETES_EXEC_INFO=%s", info);
	env[k] = NULL;
	return env;
}

/* Frees a NULL-terminated string array, wiping it. */
static void
strv_free_secret(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		secret_free_str(v[i]);
	free(v);
}

/*
 * text on one line, each run of white space made one space; NULL for
 * NULL or blank text.  (For the installHint: it comes from the
 * kubeconfig, not the plugin, so it may be shown.)
 */
static char *
one_line(const char *text)
{
	struct cpl_buf b;
	bool space = false;

	cpl_buf_init(&b, 4096);
	for (; text && *text; text++) {
		if (*text == ' ' || *text == '\t' || *text == '\n' ||
		    *text == '\r') {
			space = b.len > 0;
			continue;
		}
		if (space)
			cpl_buf_addc(&b, ' ');
		cpl_buf_addc(&b, *text);
		space = false;
	}
	if (b.len == 0) {
		cpl_buf_free(&b);
		return NULL;
	}
	return cpl_buf_detach(&b);
}

/*
 * The file to run for command: command itself when it names a path, else
 * the first executable match in our PATH, as Go's exec.LookPath finds it
 * for kubectl.  NULL with *e_no set when there is none.
 */
static char *
find_executable(const char *command, int *e_no)
{
	const char *path = getenv("PATH"), *p;
	struct stat st;

	*e_no = ENOENT;
	if (strchr(command, '/')) {
		if (access(command, X_OK) == 0)
			return cpl_xstrdup(command);
		*e_no = errno;
		return NULL;
	}
	for (p = path; p && *p;) {
		size_t n = strcspn(p, ":");
		char *cand = n ? cpl_xasprintf("%.*s/%s", (int)n, p, command)
			       : cpl_xasprintf("./%s", command);

		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return cand;
		free(cand);
		p += n;
		if (*p == ':')
			p++;
	}
	return NULL;
}

/* Milliseconds on the monotonic clock. */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Runs the plugin, collecting stdout into out (capped).  Returns 0 when it
 * exited 0; -1 with err (never quoting its output) otherwise.
 */
static int
exec_spawn(struct cpl_buf *out, const struct cpl_kubeconfig *kc,
	   bool interactive, struct cpl_error *err)
{
	const struct user *u = kc->user;
	const struct exec_cfg *e = u->exec;
	posix_spawn_file_actions_t fa;
	char **argv = cpl_xcalloc(e->nargs + 2, sizeof(*argv));
	char *info = exec_info(kc, interactive);
	char **env = exec_env(kc, info);
	long timeout = kc->exec_timeout_ms > 0 ? kc->exec_timeout_ms
					       : EXEC_TIMEOUT_MS;
	long long deadline = now_ms() + timeout;
	int fds[2] = { -1, -1 };
	char *file = NULL;
	bool fa_ready = false, timed_out = false, too_big = false;
	pid_t pid = -1;
	size_t i;
	int status = 0, rc = -1, e_no;

	argv[0] = e->command;
	for (i = 0; i < e->nargs; i++)
		argv[i + 1] = e->args[i];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		set_err_at(err, &e->pos, "exec plugin for user \"%s\": cannot "
			   "create a pipe: %s", u->name, strerror(errno));
		goto out;
	}
	if (posix_spawn_file_actions_init(&fa) != 0)
		abort();
	fa_ready = true;
	if (posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO) ||
	    (!interactive &&
	     posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
					      O_RDONLY, 0)) ||
	    (!kc->exec_stderr &&
	     posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null",
					      O_WRONLY, 0)))
		abort();
	file = find_executable(e->command, &e_no);
	if (file)
		e_no = posix_spawn(&pid, file, &fa, NULL, argv, env);
	close(fds[1]);
	fds[1] = -1;
	if (e_no != 0) {
		pid = -1;
		if (e_no == ENOENT) {
			char *hint = one_line(e->install_hint);

			set_err_at(err, &e->pos, "exec plugin \"%s\" for user "
				   "\"%s\" not found: %s", e->command, u->name,
				   hint ? hint
					: "is it installed and in PATH?");
			free(hint);
		} else {
			set_err_at(err, &e->pos, "exec plugin \"%s\" for user "
				   "\"%s\" cannot be run: %s", e->command,
				   u->name, strerror(e_no));
		}
		goto out;
	}
	for (;;) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		long long left = deadline - now_ms();
		char chunk[4096];
		ssize_t r;
		int pr;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		pr = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			break;
		if (pr == 0)
			continue;
		r = read(fds[0], chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		cpl_buf_add(out, chunk, (size_t)r);
		explicit_bzero(chunk, sizeof(chunk));
		if (out->overflow) {
			too_big = true;
			break;
		}
	}
	/* Output is done; the plugin still gets only the time left. */
	while (!timed_out && !too_big) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (now_ms() >= deadline) {
			timed_out = true;
			break;
		}
		if (w == 0)
			poll(NULL, 0, 10);
	}
	if (timed_out || too_big) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (timed_out) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "did not finish within %ld ms", e->command,
			   u->name, timeout);
		goto out;
	}
	if (too_big) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "printed more than %zu bytes", e->command, u->name,
			   EXEC_OUTPUT_MAX);
		goto out;
	}
	if (WIFSIGNALED(status)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "was killed by signal %d", e->command, u->name,
			   WTERMSIG(status));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "failed with exit code %d", e->command, u->name,
			   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		goto out;
	}
	rc = 0;
out:
	if (fa_ready)
		posix_spawn_file_actions_destroy(&fa);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(file);
	free(argv);
	strv_free_secret(env);
	secret_free_str(info);
	return rc;
}

/* A string member of status, or NULL; -1 when present but not a string. */
static int
status_str(const char **out, json_t *status, const char *key)
{
	json_t *v = json_object_get(status, key);

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	if (**out == '\0')
		*out = NULL;
	return 0;
}

/* Takes the token or certificate pair from a plugin's ExecCredential. */
static int
exec_parse(struct cpl_kubeconfig *kc, const struct cpl_buf *out,
	   struct cpl_error *err)
{
	const struct user *u = kc->user;
	const struct exec_cfg *e = u->exec;
	json_t *root, *status;
	const char *kind, *version, *token, *cert, *key;
	int rc = -1;

	root = json_loadb(cpl_buf_str(out), out->len, JSON_REJECT_DUPLICATES,
			  NULL);
	if (root == NULL || !json_is_object(root)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "did not print an ExecCredential JSON object",
			   e->command, u->name);
		goto out;
	}
	kind = json_string_value(json_object_get(root, "kind"));
	version = json_string_value(json_object_get(root, "apiVersion"));
	if (!cpl_str_eq(kind, "ExecCredential")) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "printed an object that is not an ExecCredential",
			   e->command, u->name);
		goto out;
	}
	if (!cpl_str_eq(version, e->api_version)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "is configured to use API version %s, plugin "
			   "returned version %s", e->command, u->name,
			   e->api_version, version ? version : "(none)");
		goto out;
	}
	status = json_object_get(root, "status");
	if (!json_is_object(status)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "didn't return a status field", e->command,
			   u->name);
		goto out;
	}
	if (status_str(&token, status, "token") < 0 ||
	    status_str(&cert, status, "clientCertificateData") < 0 ||
	    status_str(&key, status, "clientKeyData") < 0) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "returned a status with a field that is not a "
			   "string", e->command, u->name);
		goto out;
	}
	if (!token && !(cert && key)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "didn't return a token or cert/key pair",
			   e->command, u->name);
		goto out;
	}
	if ((cert != NULL) != (key != NULL)) {
		set_err_at(err, &e->pos, "exec plugin \"%s\" for user \"%s\" "
			   "returned %s without %s", e->command, u->name,
			   cert ? "clientCertificateData" : "clientKeyData",
			   cert ? "clientKeyData" : "clientCertificateData");
		goto out;
	}
	secret_free_str(kc->token);
	kc->token = token ? cpl_xstrdup(token) : NULL;
	free(kc->cert);
	secret_free(kc->key, kc->key_len);
	kc->cert = kc->key = NULL;
	kc->cert_len = kc->key_len = 0;
	if (cert) {
		kc->cert = cpl_xstrdup(cert);
		kc->cert_len = strlen(cert);
		kc->key = cpl_xstrdup(key);
		kc->key_len = strlen(key);
	}
	rc = 0;
out:
	if (root) {
		/* Wipe the credential strings jansson holds. */
		json_t *st = json_object_get(root, "status");
		const char *k;
		json_t *v;

		json_object_foreach(st, k, v)
			if (json_is_string(v))
				explicit_bzero((char *)json_string_value(v),
					       json_string_length(v));
		json_decref(root);
	}
	return rc;
}

/* Runs the plugin once and takes its credentials. */
static int
exec_run(struct cpl_kubeconfig *kc, struct cpl_error *err)
{
	struct cpl_buf out;
	bool interactive;
	int rc = -1;

	cpl_buf_init(&out, EXEC_OUTPUT_MAX);
	if (exec_interactive(&interactive, kc->user, err) < 0)
		goto out;
	kc->exec_runs++;
	if (exec_spawn(&out, kc, interactive, err) < 0 ||
	    exec_parse(kc, &out, err) < 0)
		goto out;
	rc = 0;
out:
	if (out.data)
		explicit_bzero(out.data, out.cap);
	cpl_buf_free(&out);
	publish(kc);
	return rc;
}

/* ---- public -------------------------------------------------------------- */

int
cpl_kubeconfig_load(struct cpl_kubeconfig **out,
		    const struct cpl_kubeconfig_opts *opts,
		    struct cpl_error *err)
{
	static const struct cpl_kubeconfig_opts none;
	const struct cpl_kubeconfig_opts *o = opts ? opts : &none;
	struct cpl_kubeconfig *kc = cpl_xcalloc(1, sizeof(*kc));
	const char *sadir = o->serviceaccount_dir ? o->serviceaccount_dir
						  : CPL_KUBE_SA_DIR;
	char *source = NULL;
	size_t i, n = 0;
	int rc = -1;

	*out = NULL;
	if (o->env) {
		while (o->env[n])
			n++;
		kc->env = cpl_xcalloc(n + 1, sizeof(*kc->env));
		for (i = 0; i < n; i++)
			kc->env[i] = cpl_xstrdup(o->env[i]);
	}
	kc->exec_stderr = o->exec_stderr;
	kc->exec_timeout_ms = o->exec_timeout_ms;
	if (o->request_timeout &&
	    cpl_kubeconfig_parse_timeout(&kc->info.timeout_ms,
					 o->request_timeout) < 0) {
		cpl_error_set(err, NULL, 0, 0, "invalid --request-timeout "
			      "\"%s\": must be a whole number of seconds or "
			      "a number with a unit (e.g. 1s | 2m | 3h)",
			      o->request_timeout);
		goto out;
	}
	if (load_files(kc, &source, o, err) < 0)
		goto out;
	if (model_empty(&kc->model) && !(o->kubeconfig && *o->kubeconfig) &&
	    !(o->context && *o->context) && !(o->cluster && *o->cluster)) {
		if (!in_cluster_possible(kc, sadir)) {
			cpl_error_set(err, NULL, 0, 0, "no configuration: "
				      "nothing found in %s, and not running "
				      "in a cluster (KUBERNETES_SERVICE_HOST "
				      "and a service account token are "
				      "needed); use --kubeconfig or set "
				      "KUBECONFIG", source);
			goto out;
		}
		if (load_in_cluster(kc, sadir, o, err) < 0)
			goto out;
	} else if (resolve(kc, o, source, err) < 0) {
		goto out;
	}
	publish(kc);
	*out = kc;
	kc = NULL;
	rc = 0;
out:
	free(source);
	cpl_kubeconfig_free(kc);
	return rc;
}

void
cpl_kubeconfig_free(struct cpl_kubeconfig *kc)
{
	size_t i;

	if (kc == NULL)
		return;
	for (i = 0; i < kc->nfiles; i++)
		free(kc->files[i]);
	free(kc->files);
	for (i = 0; kc->env && kc->env[i]; i++)
		secret_free_str(kc->env[i]);
	free(kc->env);
	model_free(&kc->model);
	free(kc->namespace);
	free(kc->server);
	secret_free_str(kc->proxy_url);
	free(kc->ca_origin);
	free(kc->ca);
	free(kc->cert);
	secret_free(kc->key, kc->key_len);
	secret_free_str(kc->token);
	free(kc->token_file);
	explicit_bzero(kc, sizeof(*kc));
	free(kc);
}

const struct cpl_kubeconfig_info *
cpl_kubeconfig_info(const struct cpl_kubeconfig *kc)
{
	return &kc->info;
}

int
cpl_kubeconfig_credentials(struct cpl_kubeconfig *kc, bool refresh,
			   struct cpl_error *err)
{
	if (kc->info.exec) {
		if (kc->exec_runs > 0 && !refresh)
			return 0;
		return exec_run(kc, err);
	}
	if (refresh && kc->token_file) {
		char *token = NULL;

		if (read_token(&token, kc->token_file, &kc->token_file_pos,
			       err) < 0)
			return -1;
		secret_free_str(kc->token);
		kc->token = token;
		publish(kc);
	}
	return 0;
}

unsigned
cpl_kubeconfig_exec_runs(const struct cpl_kubeconfig *kc)
{
	return kc->exec_runs;
}

const char *const *
cpl_kubeconfig_files(const struct cpl_kubeconfig *kc, size_t *n)
{
	*n = kc->nfiles;
	return (const char *const *)kc->files;
}
