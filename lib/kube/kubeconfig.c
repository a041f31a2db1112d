/*
 * kubeconfig.c — kubectl's configuration rules: find the files, merge
 * them, pick the context, cluster and user, or fall back to the in-cluster
 * service account; the handle's life and the info view it publishes.
 * The model and the reading of one file are in kubemodel.c, the server
 * and its TLS material in kubetls.c, credentials in kubeauth.c and exec
 * plugins in kubeexec.c (see kubeconfig_int.h).
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
#include "kube/kubeconfig_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- options ------------------------------------------------------------- */

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

/* ---- the environment ----------------------------------------------------- */

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

/* A variable of that environment, or NULL. */
static const char *
kc_getenv(const struct cpl_kubeconfig *kc, const char *name)
{
	return env_get(kc_env(kc), name);
}

/* ---- finding and merging the files --------------------------------------- */

/* Records a file as read, for cpl_kubeconfig_files(). */
static void
add_file(struct cpl_kubeconfig *kc, const char *path)
{
	CPL_GROW(kc->files, kc->capfiles, kc->nfiles + 1);
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
		/* Positions in the model borrow the path: the handle keeps a
		 * copy (the caller's string may not outlive the load). */
		CPL_GROW(kc->names, kc->capnames, kc->nnames + 1);
		kc->names[kc->nnames++] = cpl_xstrdup(o->kubeconfig);
		if (cpl_kubeconfig_model_read(&m, &found,
					      kc->names[kc->nnames - 1],
					      err) < 0) {
			cpl_kubeconfig_model_free(&m);
			return -1;
		}
		if (!found) {
			cpl_error_set(err, o->kubeconfig, 0, 0,
				      "cannot read --kubeconfig: %s",
				      strerror(ENOENT));
			return -1;
		}
		cpl_kubeconfig_model_merge(&kc->model, &m);
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
					CPL_GROW(paths, cap, npaths + 1);
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

		/* Positions in the model borrow the path: the handle keeps it
		 * (paths[] is freed below). */
		CPL_GROW(kc->names, kc->capnames, kc->nnames + 1);
		kc->names[kc->nnames++] = paths[i];
		paths[i] = NULL;
		if (cpl_kubeconfig_model_read(&m, &found,
					      kc->names[kc->nnames - 1],
					      err) < 0) {
			cpl_kubeconfig_model_free(&m);
			goto out;
		}
		if (found)
			add_file(kc, kc->names[kc->nnames - 1]);
		cpl_kubeconfig_model_merge(&kc->model, &m);
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
	struct cpl_pos none = { NULL, 0, 0 };
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
	if (cpl_kubeconfig_read_token(&kc->token, kc->token_file, &none,
				      err) < 0)
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
		kc->ctx = cpl_kubeconfig_list_find(&m->contexts, ctxname);
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
	cl = kc->cl = cpl_kubeconfig_list_find(&m->clusters, clname);
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
		kc->user = cpl_kubeconfig_list_find(&m->users, uname);
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

	if (cpl_kubeconfig_resolve_ca(&has_ca, kc, o, err) < 0)
		return -1;
	if (kc->user && cpl_kubeconfig_resolve_user(kc, err) < 0)
		return -1;
	tls = has_ca || kc->info.insecure || kc->cert ||
	      (kc->user && kc->user->cert_data);
	if (cpl_kubeconfig_resolve_server(kc, tls, err) < 0 ||
	    cpl_kubeconfig_resolve_proxy(kc, err) < 0)
		return -1;
	return 0;
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
	if (cpl_kubeconfig_model_empty(&kc->model) &&
	    !(o->kubeconfig && *o->kubeconfig) &&
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
	cpl_kubeconfig_publish(kc);
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
	for (i = 0; i < kc->nnames; i++)
		free(kc->names[i]);
	free(kc->names);
	for (i = 0; kc->env && kc->env[i]; i++)
		secret_free_str(kc->env[i]);
	free(kc->env);
	cpl_kubeconfig_model_free(&kc->model);
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

const char *const *
cpl_kubeconfig_files(const struct cpl_kubeconfig *kc, size_t *n)
{
	*n = kc->nfiles;
	return (const char *const *)kc->files;
}
