/*
 * kubeconfig_int.h — what the kubeconfig parts share and nothing else
 * may see: the model of what the files say, the handle, and the few
 * functions one part calls in another.  The public interface is
 * kubeconfig.h; only lib/kube/kubeconfig.c, kubemodel.c, kubetls.c,
 * kubeauth.c and kubeexec.c include this file.
 *
 * The parts:
 *   kubeconfig.c  finding and merging the files, selecting the context,
 *                 cluster and user, the in-cluster fallback, the handle's
 *                 life and the info view;
 *   kubemodel.c   reading one file into the model, merging two models;
 *   kubetls.c     the server URL, its TLS material and the proxy;
 *   kubeauth.c    the user's credentials: tokens, token files, client
 *                 certificates, basic auth and their validation;
 *   kubeexec.c    exec credential plugins: checking, running, reading.
 *
 * Invariant: as kubeconfig.h says, no secret reaches an error message, and
 * every secret is wiped before it is freed (secret_free).  The helpers
 * below are static inline so each part keeps its own copy.
 */
#ifndef CPL_KUBE_KUBECONFIG_INT_H
#define CPL_KUBE_KUBECONFIG_INT_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/kubeconfig.h"
#include "text/pos.h"

#define PEM_MAX ((size_t)4 << 20)		/* a CA bundle, cert or key */
/* Why a bearer token with a control character is refused (the token is
 * never shown). */
#define CTL_TOKEN "holds a control character (a line break or another " \
	"byte below 0x20, or DEL), which would end its request header " \
	"and add others; it is not sent"

/* ---- small helpers ------------------------------------------------------- */

/* Wipes and frees a secret of n bytes (NULL-safe). */
static inline void
secret_free(char *p, size_t n)
{
	if (p == NULL)
		return;
	explicit_bzero(p, n);
	free(p);
}

/* Wipes and frees a NUL-terminated secret (NULL-safe). */
static inline void
secret_free_str(char *p)
{
	if (p)
		secret_free(p, strlen(p));
}

/* ---- the model of what the files say (kubemodel.c) ----------------------- */

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
	struct cpl_pos pos;
};

/* clusters[] */
struct cluster {
	char *name;
	struct cpl_pos pos;
	char *server;
	char *ca_file;
	struct cpl_pos ca_file_pos;
	char *ca_data;			/* decoded */
	size_t ca_data_len;
	bool insecure;
	char *tls_server_name;
	char *proxy_url;
	struct cpl_pos proxy_pos;
	json_t *exec_config;		/* exec extension, for plugins */
};

/* users[] (kubectl calls them AuthInfos) */
struct user {
	char *name;
	struct cpl_pos pos;
	char *cert_file;
	struct cpl_pos cert_file_pos;
	char *cert_data;
	size_t cert_data_len;
	char *key_file;
	struct cpl_pos key_file_pos;
	char *key_data;			/* secret */
	size_t key_data_len;
	char *token;			/* secret */
	char *token_file;
	struct cpl_pos token_file_pos;
	char *username;
	char *password;			/* secret */
	struct exec_cfg *exec;
	char *auth_provider;
	char *id_token;			/* secret (oidc) */
	struct cpl_pos provider_pos;
};

/* contexts[] */
struct context {
	char *name;
	struct cpl_pos pos;
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
	struct cpl_pos current_pos;
};

/* ---- the handle ---------------------------------------------------------- */

struct cpl_kubeconfig {
	struct cpl_kubeconfig_info info;
	char **files;			/* read, in merge order */
	size_t nfiles, capfiles;
	char **names;			/* every path read, found or not:
					 * the model's positions borrow them */
	size_t nnames, capnames;
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
	struct cpl_pos token_file_pos;
	bool exec_stderr;
	long exec_timeout_ms;
	long long deadline;		/* the run's: CLOCK_MONOTONIC ms; 0 */
	long deadline_ms;		/* the limit it came from */
	unsigned exec_runs;
};

/* The environment in use: the copy from the options, or ours. */
static inline char *const *
kc_env(const struct cpl_kubeconfig *kc)
{
	return kc->env ? kc->env : environ;
}

/* ---- errors -------------------------------------------------------------- */

/* Fills err at position p (or none); returns -1. */
static inline int
set_err_at(struct cpl_error *err, const struct cpl_pos *p, const char *fmt, ...)
	CPL_PRINTF(3, 4);

static inline int
set_err_at(struct cpl_error *err, const struct cpl_pos *p, const char *fmt, ...)
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

/* ---- functions one part gives the others --------------------------------- */

/* kubemodel.c: the model. */

/*
 * Reads one kubeconfig file into m.  *found is false (and 0 returned) when
 * the file does not exist; an empty file is an empty configuration.
 */
int cpl_kubeconfig_model_read(struct model *m, bool *found, const char *file,
			      struct cpl_error *err);
/* Moves src's entries into dst where dst has none of that name yet. */
void cpl_kubeconfig_model_merge(struct model *dst, struct model *src);
/* Frees everything a model holds and zeroes it. */
void cpl_kubeconfig_model_free(struct model *m);
/* Nothing was defined: no file, or only empty ones. */
bool cpl_kubeconfig_model_empty(const struct model *m);
/* The item named name, or NULL (an item's first member is its name). */
void *cpl_kubeconfig_list_find(const struct list *l, const char *name);

/* kubeconfig.c: the handle. */

/* Fills the info view from the resolved state. */
void cpl_kubeconfig_publish(struct cpl_kubeconfig *kc);

/* kubetls.c: the server, its TLS material, the proxy. */

/* Reads a PEM file named by a kubeconfig field, naming both on error; a
 * path with a control character is refused (not read, not shown). */
int cpl_kubeconfig_read_pem(char **out, size_t *len, const char *path,
			    const struct cpl_pos *p, const char *field,
			    const char *owner, struct cpl_error *err);
/*
 * The selected cluster's CA and insecure-skip-tls-verify, checked as
 * kubectl checks them, the CA file read; the --insecure-skip-tls-verify
 * flag drops the CA.  *has_ca: a CA is in use.
 */
int cpl_kubeconfig_resolve_ca(bool *has_ca, struct cpl_kubeconfig *kc,
			      const struct cpl_kubeconfig_opts *o,
			      struct cpl_error *err);
/* The server URL: trailing '/' removed, a scheme added when missing. */
int cpl_kubeconfig_resolve_server(struct cpl_kubeconfig *kc, bool tls,
				  struct cpl_error *err);
/* proxy-url: http, https or socks5 (resolved by the proxy, as Go does). */
int cpl_kubeconfig_resolve_proxy(struct cpl_kubeconfig *kc,
				 struct cpl_error *err);

/* kubeauth.c: the user's credentials. */

/* Reads a token file: whitespace trimmed; empty, or a control character
 * inside, is an error (naming the file, never the token). */
int cpl_kubeconfig_read_token(char **out, const char *path,
			      const struct cpl_pos *p, struct cpl_error *err);
/* The user's credentials: validation as kubectl does, files read. */
int cpl_kubeconfig_resolve_user(struct cpl_kubeconfig *kc,
				struct cpl_error *err);

/* kubeexec.c: exec credential plugins. */

/* kubectl's validation of an exec block. */
int cpl_kubeconfig_exec_check(const struct user *u, struct cpl_error *err);
/* Runs the plugin once and takes its credentials. */
int cpl_kubeconfig_exec_run(struct cpl_kubeconfig *kc,
			    struct cpl_error *err);

#endif
