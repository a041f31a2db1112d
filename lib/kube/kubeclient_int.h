/*
 * kubeclient_int.h — the client's insides, shared by kubeclient.c (GET,
 * LIST) and kubewatch.c (WATCH) only; nothing else includes it.
 *
 * Ownership: as kubeclient.h says; the helpers below return new strings
 * the caller frees and set err as the client's own requests do (one line,
 * never a credential).
 */
#ifndef CPL_KUBECLIENT_INT_H
#define CPL_KUBECLIENT_INT_H

#include <curl/curl.h>

#include "kube/kubeclient.h"

struct cpl_curlso;

struct cpl_kubeclient {
	struct cpl_kubeconfig *kc;
	const struct cpl_curlso *cu;	/* libcurl's functions */
	CURL *curl;
	char *base;			/* URL base (tls name as host) */
	struct curl_slist *connect_to;	/* real host, with a tls name */
	char *host_header;		/* "Host: ..." with a tls name */
	bool creds_ready;
	long long deadline;		/* monotonic ms; 0: none (shared with
					 * the kubeconfig's exec plugins) */
	long deadline_ms;		/* the limit it came from */
	long connect_ms;		/* CURLOPT_CONNECTTIMEOUT_MS */
	cpl_kube_log_fn log;
	void *log_ctx;
	bool (*cancel)(void *ctx);	/* cpl_kubeclient_set_cancel */
	void *cancel_ctx;
	char errbuf[CURL_ERROR_SIZE];
};

/* What a request is about, for its error line. */
struct cpl_kc_what {
	const char *method;		/* "GET" */
	const char *verb;		/* RBAC verb: "get", "list", "watch" */
	const struct cpl_kube_ref *ref;
	const char *pathq;		/* path and query */
};

/* Credentials loaded and given to libcurl (once).  0, or -1 with err. */
int cpl_kc_ready(struct cpl_kubeclient *c, struct cpl_error *err);
/* The failure for an HTTP status that is not 2xx (body: its Status). */
int cpl_kc_http_failure(struct cpl_kubeclient *c, const struct cpl_kc_what *w,
			long code, const struct cpl_buf *body,
			struct cpl_error *err);
/* The failure for a libcurl error (a CURLcode); bound_ms the try's
 * timeout. */
int cpl_kc_transport_failure(struct cpl_kubeclient *c,
			     const struct cpl_kc_what *w, int curl_code,
			     long bound_ms, struct cpl_error *err);
/* CPL_KUBE_FAILED with err set to msg and where (context, server,
 * request). */
int cpl_kc_fail(const struct cpl_kubeclient *c, const struct cpl_kc_what *w,
		const char *msg, struct cpl_error *err);
/* Appends "?key=value" (or "&..."), value percent-encoded. */
void cpl_kc_add_param(struct cpl_buf *b, const char *key, const char *value);
/* text with the credentials in use redacted; caller frees. */
char *cpl_kc_redacted(const struct cpl_kubeclient *c, const char *text);
/* The handle's options as GET and LIST want them again, after a watch
 * changed them.  0, or -1 with err. */
int cpl_kc_restore(struct cpl_kubeclient *c, struct cpl_error *err);

#endif
