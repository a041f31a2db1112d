/*
 * kubeconfig.h — which API server, user and namespace to talk to, resolved
 * by kubectl's rules, and the credentials to do it with.
 *
 * Where the configuration comes from, in kubectl's order:
 *   1. --kubeconfig FILE: that file only; a missing file is an error;
 *   2. else KUBECONFIG: files separated by ':', merged in order; the first
 *      file to define a named cluster, user or context (or current-context)
 *      wins; missing files are skipped;
 *   3. else ~/.kube/config;
 *   4. else, when nothing was found, the in-cluster service account
 *      (KUBERNETES_SERVICE_HOST/PORT, token and ca.crt).
 * Relative paths (certificate-authority, client-certificate, client-key,
 * tokenFile, an exec command containing '/') are resolved against the
 * directory of the file that defined them.  --context, --cluster, --user
 * and -n override the context's choices; the namespace is -n, else the
 * context's, else "default".
 *
 * Invariant: no error message and no log line ever holds a token, a
 * password, key data or anything an exec plugin printed.  Secrets are
 * wiped from memory when the handle is freed.
 *
 * Ownership: struct cpl_kubeconfig is an opaque handle owned by the caller
 * (cpl_kubeconfig_free).  The info view and every string in it are
 * borrowed from the handle; the credential fields change only inside
 * cpl_kubeconfig_credentials().
 */
#ifndef CPL_KUBECONFIG_H
#define CPL_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* The in-cluster service account directory kubectl reads. */
#define CPL_KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* kubectl's flags and the environment; zero-initialise, set what is given. */
struct cpl_kubeconfig_opts {
	const char *kubeconfig;		/* --kubeconfig: that file only */
	const char *context;		/* --context */
	const char *cluster;		/* --cluster */
	const char *user;		/* --user */
	const char *namespace;		/* -n / --namespace */
	const char *request_timeout;	/* --request-timeout: "0", "5",
					 * "30s", "1m30s"; NULL: none */
	bool insecure_skip_tls_verify;	/* --insecure-skip-tls-verify: also
					 * drops the configured CA */
	const char *serviceaccount_dir;	/* NULL: CPL_KUBE_SA_DIR */
	char *const *env;		/* environment read (KUBECONFIG, HOME,
					 * KUBERNETES_SERVICE_*, POD_NAMESPACE)
					 * and given to exec plugins; NULL:
					 * the process's own; copied */
	bool exec_stderr;		/* exec plugins may write to our stderr
					 * (kubectl's way); false: /dev/null */
	long exec_timeout_ms;		/* exec plugin run limit; 0: 60 s
					 * (--request-timeout when given),
					 * never past the run's time limit
					 * (cpl_kubeconfig_set_deadline) */
};

/*
 * The resolved connection.  Strings are borrowed from the handle; byte
 * fields (PEM) are not NUL-terminated in general, use the lengths.
 */
struct cpl_kubeconfig_info {
	const char *context;		/* context name; "" for in-cluster */
	const char *cluster;		/* cluster name; "" for in-cluster */
	const char *user;		/* user name; "" when there is none */
	const char *namespace;		/* never NULL */
	bool in_cluster;		/* service account configuration */
	const char *server;		/* base URL, no trailing '/' */
	const char *tls_server_name;	/* NULL: the server's host name */
	const char *proxy_url;		/* NULL: none configured */
	bool insecure;			/* skip TLS verification */
	const char *ca;			/* CA bundle PEM; NULL: system CAs */
	size_t ca_len;
	const char *ca_origin;		/* where the CA came from, for
					 * messages: a path or
					 * "certificate-authority-data" */
	const char *cert;		/* client certificate PEM or NULL */
	size_t cert_len;
	const char *key;		/* client key PEM or NULL (secret) */
	size_t key_len;
	const char *token;		/* bearer token or NULL (secret) */
	const char *username;		/* basic auth or NULL */
	const char *password;		/* (secret) */
	bool exec;			/* an exec plugin gives credentials */
	const char *exec_command;	/* its command, for messages */
	long timeout_ms;		/* per request; 0: no limit */
};

struct cpl_kubeconfig;

/*
 * Finds, merges and resolves the configuration.  -1 with err on a missing
 * --kubeconfig file, YAML errors (file, line, column), an unknown context,
 * cluster or user, a bad field (base64, unreadable file, conflicting auth
 * methods, bad proxy URL or timeout), or when there is no configuration
 * at all.  Exec plugins do not run here (see cpl_kubeconfig_credentials).
 */
int cpl_kubeconfig_load(struct cpl_kubeconfig **out,
			const struct cpl_kubeconfig_opts *opts,
			struct cpl_error *err);
void cpl_kubeconfig_free(struct cpl_kubeconfig *kc);	/* NULL-safe */

/* The resolved connection; borrowed until cpl_kubeconfig_free(). */
const struct cpl_kubeconfig_info *
cpl_kubeconfig_info(const struct cpl_kubeconfig *kc);

/*
 * Makes the credentials ready.  With an exec plugin: runs it the first
 * time, and again when refresh is set (after a 401); its token or client
 * certificate then appear in the info.  With a token file: re-reads it
 * when refresh is set.  Otherwise does nothing.  -1 with err when the
 * plugin cannot be run, fails, or answers badly (its output is never
 * quoted).
 */
int cpl_kubeconfig_credentials(struct cpl_kubeconfig *kc, bool refresh,
			       struct cpl_error *err);

/*
 * The run's time limit, which exec plugins share with requests: a plugin
 * gets at most what is left of it (it is killed, with its process group,
 * when that runs out).  at_ms is a time on CLOCK_MONOTONIC in
 * milliseconds (0: no limit); total_ms the limit it came from, for
 * messages.  The kube client sets it (cpl_kubeclient_set_deadline).
 */
void cpl_kubeconfig_set_deadline(struct cpl_kubeconfig *kc, long long at_ms,
				 long total_ms);

/* How many times the exec plugin has run (for tests and -v). */
unsigned cpl_kubeconfig_exec_runs(const struct cpl_kubeconfig *kc);

/* The kubeconfig files that were read, in merge order; borrowed. */
const char *const *cpl_kubeconfig_files(const struct cpl_kubeconfig *kc,
					size_t *n);

/*
 * Parses a --request-timeout value: a whole number of seconds ("5"), or a
 * Go duration ("30s", "1m30s", "1.5s", "500ms", "2h"); "0" means none.
 * -1 on anything else or a negative value.
 */
int cpl_kubeconfig_parse_timeout(long *ms, const char *text);

#endif
