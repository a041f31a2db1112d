/*
 * kubetls.c — how to reach the selected cluster's API server and trust
 * it: the server URL, the CA (certificate-authority file or -data),
 * tls-server-name (published as written), insecure-skip-tls-verify and
 * the proxy-url; and the reading of PEM files named by a kubeconfig.
 *
 * Invariant: kubectl's checks and messages: a CA given twice, or a CA with
 * insecure-skip-tls-verify, is an error; the --insecure-skip-tls-verify
 * flag drops the CA; a proxy URL is never quoted, it may hold a password;
 * a PEM path with a control character is refused, not read or shown.
 *
 * Ownership: fills the handle's server, proxy_url, ca and ca_origin (the
 * handle frees them); certificate-authority-data stays borrowed from the
 * model.
 */
#include "kube/kubeconfig_int.h"

#include <stdlib.h>
#include <string.h>

/* Reads a PEM file named by a kubeconfig field, naming both on error; a
 * path with a control character is not read (nor shown). */
int
cpl_kubeconfig_read_pem(char **out, size_t *len, const char *path,
			const struct cpl_pos *p, const char *field,
			const char *owner, struct cpl_error *err)
{
	struct cpl_error e = { 0 };

	if (cpl_has_control(path, strlen(path)))
		return set_err_at(err, p, "%s: the %s path holds a control "
				  "character (a line break or another byte "
				  "below 0x20, or DEL); it is not read",
				  owner, field);
	if (cpl_read_file(out, len, path, PEM_MAX, &e) == 0)
		return 0;
	cpl_error_set(err, p->file, p->line, p->column,
		      "unable to read %s %s for %s: %s", field, path, owner,
		      e.message);
	cpl_error_clear(&e);
	return -1;
}

/*
 * The selected cluster's CA and insecure-skip-tls-verify, checked as
 * kubectl checks them, the CA file read; the --insecure-skip-tls-verify
 * flag drops the CA.  *has_ca: a CA is in use.
 */
int
cpl_kubeconfig_resolve_ca(bool *has_ca, struct cpl_kubeconfig *kc,
			  const struct cpl_kubeconfig_opts *o,
			  struct cpl_error *err)
{
	const struct cluster *cl = kc->cl;

	*has_ca = cl->ca_file || cl->ca_data;
	if (cl->ca_file && cl->ca_data)
		return set_err_at(err, &cl->pos, "certificate-authority-data "
				  "and certificate-authority are both "
				  "specified for %s. certificate-authority-"
				  "data will override.", cl->name);
	if (cl->insecure && *has_ca && !o->insecure_skip_tls_verify)
		return set_err_at(err, &cl->pos, "cluster \"%s\": specifying a "
				  "root certificates file with the insecure "
				  "flag is not allowed", cl->name);
	kc->info.insecure = cl->insecure || o->insecure_skip_tls_verify;
	if (o->insecure_skip_tls_verify) {
		*has_ca = false;	/* the flag drops the CA */
	} else if (cl->ca_file) {
		char *owner = cpl_xasprintf("cluster \"%s\"", cl->name);
		int r = cpl_kubeconfig_read_pem(&kc->ca, &kc->ca_len,
						cl->ca_file, &cl->ca_file_pos,
						"certificate-authority",
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
	return 0;
}

/* The server URL: trailing '/' removed, a scheme added when missing. */
int
cpl_kubeconfig_resolve_server(struct cpl_kubeconfig *kc, bool tls,
			      struct cpl_error *err)
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
int
cpl_kubeconfig_resolve_proxy(struct cpl_kubeconfig *kc, struct cpl_error *err)
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
