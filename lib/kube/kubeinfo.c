/*
 * kubeinfo.c — the public view of a resolved kubeconfig (struct
 * cpl_kubeconfig_info) filled from its state: the one step that
 * kubeconfig.c, kubeauth.c and kubeexec.c all take after changing what a
 * user presents, so it sits below the three and calls none of them.
 * Owns nothing: the view borrows the state's strings.
 */
#include "kube/kubeconfig_int.h"

/* Fills the info view from the resolved state. */
void
cpl_kubeconfig_publish(struct cpl_kubeconfig *kc)
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
