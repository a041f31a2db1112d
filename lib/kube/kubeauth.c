/*
 * kubeauth.c — the selected user's credentials, as kubectl takes them:
 * a token, a token file (re-read on refresh), a client certificate and
 * key (file or -data), basic auth, an oidc id-token, or an exec plugin
 * (run by kubeexec.c); kubectl's checks that they do not conflict; and
 * cpl_kubeconfig_credentials(), which makes them ready before a request.
 *
 * Invariant: no token, password or key data reaches an error message;
 * token file contents are wiped once the token is copied out.  No bearer
 * token holds a control character (CR LF in it would add request
 * headers), and no path the kubeconfig names for a credential does:
 * either is one error that names where it came from, not its text.
 *
 * Ownership: fills the handle's cert, key, token and token_file (the
 * handle frees and wipes them); -data fields and inline tokens stay
 * borrowed from the model.
 */
#include "kube/kubeconfig_int.h"

#include <stdlib.h>
#include <string.h>

/* Reads a token file: whitespace trimmed, empty is an error, and so is a
 * control character (a NUL byte too) inside the token. */
int
cpl_kubeconfig_read_token(char **out, const char *path,
			  const struct cpl_pos *p, struct cpl_error *err)
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
	end = data + len;
	while (end > s && (end[-1] == ' ' || end[-1] == '\n' ||
			   end[-1] == '\r' || end[-1] == '\t'))
		end--;
	if (end == s) {
		cpl_error_set(err, p->file, p->line, p->column,
			      "read empty token from file %s", path);
		secret_free(data, len);
		return -1;
	}
	if (cpl_has_control(s, (size_t)(end - s))) {
		cpl_error_set(err, p->file, p->line, p->column,
			      "token file %s: %s", path, CTL_TOKEN);
		secret_free(data, len);
		return -1;
	}
	*out = cpl_xstrndup(s, (size_t)(end - s));
	secret_free(data, len);
	return 0;
}

/* A path the kubeconfig names for field (tokenFile, an exec command) of
 * owner: -1 with err, the path not shown, when it holds a control
 * character (PEM paths: cpl_kubeconfig_read_pem()). */
static int
check_path(const char *path, const struct cpl_pos *p, const char *field,
	   const char *owner, struct cpl_error *err)
{
	if (path == NULL || !cpl_has_control(path, strlen(path)))
		return 0;
	return set_err_at(err, p, "%s: the %s path holds a control "
			  "character (a line break or another byte below "
			  "0x20, or DEL); it is not read", owner, field);
}

/* The user's credentials: validation as kubectl does, files read. */
int
cpl_kubeconfig_resolve_user(struct cpl_kubeconfig *kc, struct cpl_error *err)
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
	if (u->exec && cpl_kubeconfig_exec_check(u, err) < 0)
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
	if (check_path(u->token_file, &u->token_file_pos, "tokenFile", owner,
		       err) < 0 ||
	    (u->exec && check_path(u->exec->command, &u->exec->pos,
				   "exec command", owner, err) < 0))
		goto out;
	/* Sent as a bearer token, as they are written. */
	if (u->token && cpl_has_control(u->token, strlen(u->token))) {
		set_err_at(err, &u->pos, "%s: its token %s", owner,
			   CTL_TOKEN);
		goto out;
	}
	if (u->id_token && cpl_has_control(u->id_token, strlen(u->id_token))) {
		set_err_at(err, &u->provider_pos, "%s: the id-token of its "
			   "oidc auth-provider %s", owner, CTL_TOKEN);
		goto out;
	}
	if (u->cert_file &&
	    cpl_kubeconfig_read_pem(&kc->cert, &kc->cert_len, u->cert_file,
				    &u->cert_file_pos, "client-cert", owner,
				    err) < 0)
		goto out;
	if (u->key_file &&
	    cpl_kubeconfig_read_pem(&kc->key, &kc->key_len, u->key_file,
				    &u->key_file_pos, "client-key", owner,
				    err) < 0)
		goto out;
	if (!u->token && u->token_file) {
		kc->token_file = cpl_xstrdup(u->token_file);
		kc->token_file_pos = u->token_file_pos;
		if (cpl_kubeconfig_read_token(&kc->token, kc->token_file,
					      &kc->token_file_pos, err) < 0)
			goto out;
	}
	rc = 0;
out:
	free(label);
	return rc;
}

/* ---- public -------------------------------------------------------------- */

int
cpl_kubeconfig_credentials(struct cpl_kubeconfig *kc, bool refresh,
			   struct cpl_error *err)
{
	if (kc->info.exec) {
		if (kc->exec_runs > 0 && !refresh)
			return 0;
		return cpl_kubeconfig_exec_run(kc, err);
	}
	if (refresh && kc->token_file) {
		char *token = NULL;

		if (cpl_kubeconfig_read_token(&token, kc->token_file,
					      &kc->token_file_pos, err) < 0)
			return -1;
		secret_free_str(kc->token);
		kc->token = token;
		cpl_kubeconfig_publish(kc);
	}
	return 0;
}
