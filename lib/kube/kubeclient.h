/*
 * kubeclient.h — Kubernetes API client: GET one object, LIST with
 * paging, GET a non-JSON body (the kubelet's cAdvisor metrics), and the
 * one kind of write serve's leader election needs (create and update of
 * one object with optimistic concurrency, kubewrite.c).
 *
 * One client per run: it keeps one libcurl easy handle, so connections
 * to the API server are reused.  TLS is verified with the configured CA
 * (only that CA) unless the kubeconfig or a flag says insecure; a
 * tls-server-name is verified instead of the URL's host; client
 * certificates and keys are given to libcurl from memory.  429 (and 5xx
 * with Retry-After) are retried after the Retry-After delay, at most 3
 * times; a 401 re-runs the exec plugin once and retries.
 *
 * Errors are one line that names what failed, the context, the server
 * and the request, e.g.
 *   forbidden: cannot list pods in namespace "ml" (RBAC: User "x" cannot
 *   list resource "pods" in API group "" in the namespace "ml");
 *   context "prod", server https://10.0.0.1:6443,
 *   request GET /api/v1/namespaces/ml/pods?limit=500
 * Invariant: no error, and no line given to the log hook, ever holds a
 * token, a password, key data or a request header.
 *
 * Ownership: the client borrows its kubeconfig, which must outlive it.
 * JSON results are new references the caller owns (json_decref); strings
 * are the caller's to free().
 */
#ifndef CPL_KUBECLIENT_H
#define CPL_KUBECLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/kubeconfig.h"
#include "util.h"

/* Failure kinds a caller may handle (all are negative; err is set). */
enum {
	CPL_KUBE_FAILED = -1,		/* transport, TLS, 401, 5xx... */
	CPL_KUBE_NOT_FOUND = -2,	/* 404 */
	CPL_KUBE_FORBIDDEN = -3,	/* 403: RBAC denied */
	CPL_KUBE_GONE = -4,		/* 410: a watch's resourceVersion is
					 * too old; list again */
	CPL_KUBE_STOPPED = -5,		/* a watch stopped by its caller */
	CPL_KUBE_CONFLICT = -6,		/* 409: an update's resourceVersion
					 * is stale, or a create's object
					 * exists; read it again */
};

/*
 * What to read.  The path is /api/v1 for api_version "v1", else
 * /apis/GROUP/VERSION; then namespaces/NS when namespace is set, then the
 * resource, the name and the subresource.  resource NULL: the group
 * version's discovery document.
 */
struct cpl_kube_ref {
	const char *api_version;	/* "v1", "apps/v1", "kubeflow.org/v1" */
	const char *resource;		/* plural, lower case: "pods" */
	const char *namespace;		/* NULL: cluster scope, or every
					 * namespace for a list */
	const char *name;		/* NULL for a list */
	const char *subresource;	/* e.g. "proxy/metrics/cadvisor" */
};

/* Options of a LIST. */
struct cpl_kube_list_opts {
	const char *label_selector;	/* -l; NULL: none */
	const char *field_selector;	/* NULL: none */
	long limit;			/* page size; 0: 500, like kubectl,
					 * fewer once a page passes 2 MiB */
	char **resource_version;	/* not NULL: set to the list's
					 * metadata.resourceVersion (its first
					 * page's, as client-go's reflector
					 * takes it; NULL when the server gave
					 * none); caller frees */
};

/* Receives one line per HTTP exchange: method, URL, status, time. */
typedef void (*cpl_kube_log_fn)(void *ctx, const char *line);

struct cpl_kubeclient;

/*
 * A client for kc's server.  -1 with err when libcurl cannot be set up
 * (or lacks a feature the configuration needs).
 */
int cpl_kubeclient_new(struct cpl_kubeclient **out, struct cpl_kubeconfig *kc,
		       struct cpl_error *err);
void cpl_kubeclient_free(struct cpl_kubeclient *c);	/* NULL-safe */

/*
 * Limits every request from now on to total_ms in all (0: no limit; a new
 * client has 5 minutes): requests, retries and pages stop there with a
 * timeout error, and so do the exec plugins of the client's kubeconfig
 * (cpl_kubeconfig_set_deadline).  Independent of --request-timeout,
 * which bounds each request (its retries included).
 */
void cpl_kubeclient_set_deadline(struct cpl_kubeclient *c, long total_ms);

/* Milliseconds left of the run's time limit: 0 when it ran out, -1 when
 * there is none (for other requests of the run, such as Prometheus's). */
long cpl_kubeclient_time_left(const struct cpl_kubeclient *c);

/*
 * Sets (or with NULL clears) a question asked before every try of a GET
 * or LIST and about once a second while one waits for the server: true
 * ends the request at once with CPL_KUBE_STOPPED (err says "stopped"), a
 * page of a list and a 429's wait included.  For a process that stops:
 * fn is called on the thread that makes the request.
 */
void cpl_kubeclient_set_cancel(struct cpl_kubeclient *c,
			       bool (*fn)(void *ctx), void *ctx);

/* Sets (or with NULL clears) the verbose hook. */
void cpl_kubeclient_set_log(struct cpl_kubeclient *c, cpl_kube_log_fn fn,
			    void *ctx);

/*
 * GETs one object (ref->name set) as JSON into *obj and, when raw is not
 * NULL, the body text into *raw.  0, or a CPL_KUBE_* failure with err set.
 */
int cpl_kubeclient_get(json_t **obj, char **raw, struct cpl_kubeclient *c,
		       const struct cpl_kube_ref *ref, struct cpl_error *err);

/*
 * LISTs a collection (ref->name NULL), following continue tokens until the
 * end, into *items: a JSON array of every item.  Items that the server
 * sent without apiVersion/kind (built-in types do) get the list's.
 * o may be NULL.  0, or a CPL_KUBE_* failure with err set.
 */
int cpl_kubeclient_list(json_t **items, struct cpl_kubeclient *c,
			const struct cpl_kube_ref *ref,
			const struct cpl_kube_list_opts *o,
			struct cpl_error *err);

/* Receives one item of a LIST, borrowed until the callback returns (it
 * may change it, or keep it with json_incref). */
typedef void (*cpl_kube_item_fn)(void *ctx, json_t *item);

/*
 * LISTs a collection like cpl_kubeclient_list, but gives each item to fn
 * as soon as it is read, then lets it go: a page's body is read item by
 * item, so memory holds one page's text and one item, never the
 * collection or a page's JSON tree (objects so large that a page passes
 * 2 MiB make the next pages smaller, with the default limit).  0, or a
 * CPL_KUBE_* failure with err set (the items before it were passed).
 */
int cpl_kubeclient_list_each(struct cpl_kubeclient *c,
			     const struct cpl_kube_ref *ref,
			     const struct cpl_kube_list_opts *o,
			     cpl_kube_item_fn fn, void *ctx,
			     struct cpl_error *err);

/*
 * GETs a body that is not JSON (Accept: text/plain), e.g. ref {"v1",
 * "nodes", NULL, NODE, "proxy/metrics/cadvisor"}.  *body is
 * NUL-terminated.  0, or a CPL_KUBE_* failure with err set.
 */
int cpl_kubeclient_get_raw(char **body, size_t *len, struct cpl_kubeclient *c,
			   const struct cpl_kube_ref *ref,
			   struct cpl_error *err);

/*
 * One event of a watch: type is "ADDED", "MODIFIED", "DELETED" or
 * "BOOKMARK" and obj the object (borrowed until the callback returns; a
 * built-in item gets its apiVersion and kind as in a list).  After the
 * events of each piece of the stream that brought some, fn is called once
 * more with type and obj NULL: the time to act on a batch.
 */
typedef void (*cpl_kube_event_fn)(void *ctx, const char *type, json_t *obj);

struct cpl_kube_watch_opts {
	const char *label_selector;	/* NULL: none */
	const char *resource_version;	/* the list's; NULL: from now */
	long timeout_s;			/* timeoutSeconds: the server ends
					 * the watch then; 0: 300 */
	size_t max_event;		/* bytes of one event line; 0: 4 MiB */
	/* Asked about once a second (and between events); true stops the
	 * watch with CPL_KUBE_STOPPED.  NULL: never. */
	bool (*stop)(void *ctx);
	void *stop_ctx;
	char **last_rv;			/* not NULL: kept set to the last
					 * event's resourceVersion (caller
					 * frees), to watch again from */
};

/*
 * WATCHes a collection (GET ...?watch=1&allowWatchBookmarks=true):
 * newline-delimited JSON events read as they come, one line at a time in
 * a buffer of at most max_event bytes.  Returns 0 when the server ended
 * the watch (its timeoutSeconds: watch again from *last_rv),
 * CPL_KUBE_GONE when the resourceVersion is too old (an HTTP 410, or an
 * ERROR event with code 410: list again), CPL_KUBE_STOPPED when stop said
 * so, and another CPL_KUBE_* failure with err set when the connection
 * broke, the server refused, an event was not JSON or longer than
 * max_event (the watch ends there; the caller lists again, so memory
 * stays bounded).  The events before it were passed.  Not bounded by the
 * client's deadline: a watch runs as long as the server keeps it.
 */
int cpl_kubeclient_watch(struct cpl_kubeclient *c,
			 const struct cpl_kube_ref *ref,
			 const struct cpl_kube_watch_opts *o,
			 cpl_kube_event_fn fn, void *ctx,
			 struct cpl_error *err);

/*
 * Writes one object (kubewrite.c): POST creates obj in ref's collection
 * (ref->name NULL), PUT replaces the object ref names (ref->name set;
 * obj carries the metadata.resourceVersion it was read at, so a stale
 * write fails with CPL_KUBE_CONFLICT, as the API server's optimistic
 * concurrency wants).  *out: the object the server stored; caller
 * json_decrefs.  Each try bounded by --request-timeout, else 10 s; no
 * retry.  0, or a CPL_KUBE_* failure with err set.
 */
int cpl_kubeclient_create(json_t **out, struct cpl_kubeclient *c,
			  const struct cpl_kube_ref *ref, const json_t *obj,
			  struct cpl_error *err);
int cpl_kubeclient_update(json_t **out, struct cpl_kubeclient *c,
			  const struct cpl_kube_ref *ref, const json_t *obj,
			  struct cpl_error *err);

/* The request path for ref (escaped), without a query; caller frees. */
char *cpl_kubeclient_path(const struct cpl_kube_ref *ref);

#endif
