/*
 * kubeclient.c — GET and paged LIST against the Kubernetes API with one
 * reused libcurl easy handle; Status bodies and transport failures turned
 * into one line each.
 *
 * Invariant: credentials reach libcurl only through its auth options
 * (CURLOPT_XOAUTH2_BEARER, CURLOPT_USERNAME/PASSWORD, the SSL blobs),
 * never through a header list, a message or the log hook; a bearer token
 * with a control character never reaches it; libcurl's verbose mode is
 * never turned on.
 *
 * libcurl is reached only through the table kube/curlso.h loads at run
 * time (c->cu), never linked: the program lints files where libcurl is
 * not installed.  Paths are escaped here, so building one needs no
 * libcurl.
 *
 * Ownership: the client owns the easy handle, its URL base and its
 * connect-to list; it borrows the kubeconfig.  Results belong to the
 * caller.
 */
#include "kube/kubeclient.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/curlso.h"
#include "kube/kubeclient_int.h"

#ifndef CPL_VERSION
#define CPL_VERSION "0.0.0"
#endif

#define BODY_MAX ((size_t)256 << 20)	/* one response */
#define CONNECT_TIMEOUT_MS 30000L	/* kubectl's dial timeout */
#define MAX_RETRIES 3			/* 429 / Retry-After answers */
#define DEFAULT_DEADLINE_MS 300000L	/* the whole run: 5 minutes */
#define LOW_SPEED_BYTES 1024L		/* slower than this ... */
#define LOW_SPEED_SECONDS 30L		/* ... this long: a stalled server */
#define MAX_EMPTY_PAGES 3		/* continue tokens with no items */
#define MAX_RETRY_WAIT 10		/* seconds, per retry */
#define DEFAULT_LIMIT 500		/* kubectl's --chunk-size */
#define PAGE_BYTES ((size_t)2 << 20)	/* the page body aimed at */
#define MIN_LIMIT 10
#define MAX_PAGES 100000

/* ---- helpers ----------------------------------------------------------- */

/* Sleeps s seconds, through signals, a second at a time while c's
 * cancel hook says go on. */
static void
sleep_seconds(const struct cpl_kubeclient *c, long s)
{
	for (; s > 0; s--) {
		struct timespec ts = { 1, 0 };

		if (c->cancel && c->cancel(c->cancel_ctx))
			return;
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
}

/* libcurl's progress callback while a GET runs: non-zero aborts it. */
static int
on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow,
	    curl_off_t ultotal, curl_off_t ulnow)
{
	const struct cpl_kubeclient *c = ctx;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return c->cancel && c->cancel(c->cancel_ctx);
}

/* Milliseconds on the monotonic clock. */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A duration in ms as kubectl users write it: "500ms", "2s", "1.5s". */
static char *
fmt_ms(long ms)
{
	if (ms < 1000)
		return cpl_xasprintf("%ldms", ms);
	if (ms % 1000 == 0)
		return cpl_xasprintf("%lds", ms / 1000);
	return cpl_xasprintf("%.3gs", (double)ms / 1000);
}

/* libcurl write callback: appends to a capped buffer. */
static size_t
on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct cpl_buf *b = ctx;

	cpl_buf_add(b, p, size * n);
	return b->overflow ? 0 : size * n;
}

/* Appends a path segment, escaped. */
static void
add_segment(struct cpl_buf *b, const char *s)
{
	cpl_buf_addc(b, '/');
	cpl_buf_add_pct(b, s, NULL);
}

/* Appends "&key=value" (or "?key=value" first), value escaped. */
static void
add_param(struct cpl_buf *b, const char *key, const char *value)
{
	cpl_buf_addf(b, "%c%s=", strchr(cpl_buf_str(b), '?') ? '&' : '?',
		     key);
	cpl_buf_add_pct(b, value, NULL);
}

char *
cpl_kubeclient_path(const struct cpl_kube_ref *ref)
{
	struct cpl_buf b;
	const char *gv = ref->api_version ? ref->api_version : "v1";

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, strchr(gv, '/') ? "/apis/" : "/api/");
	cpl_buf_adds(&b, gv);
	if (ref->resource) {
		if (ref->namespace) {
			cpl_buf_adds(&b, "/namespaces");
			add_segment(&b, ref->namespace);
		}
		add_segment(&b, ref->resource);
		if (ref->name)
			add_segment(&b, ref->name);
		if (ref->name && ref->subresource) {
			cpl_buf_addc(&b, '/');
			cpl_buf_adds(&b, ref->subresource);
		}
	}
	return cpl_buf_detach(&b);
}

/* The host of a URL ("[::1]" for IPv6); caller frees. */
static char *
url_host(const char *url)
{
	const char *p = strstr(url, "://");
	size_t n;

	p = p ? p + 3 : url;
	if (*p == '[')
		n = strcspn(p, "]") + 1;
	else
		n = strcspn(p, ":/");
	return cpl_xstrndup(p, n);
}

/* A loopback host name or address, which Go never proxies. */
static bool
is_loopback(const char *host)
{
	return cpl_str_eq(host, "localhost") || cpl_str_eq(host, "[::1]") ||
	       cpl_str_starts(host, "127.");
}

/* ---- error lines -------------------------------------------------------- */

/* "; context "C", server S, request GET /path" */
static void
add_where(struct cpl_buf *b, const struct cpl_kubeclient *c,
	  const struct cpl_kc_what *w)
{
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);

	if (i->in_cluster)
		cpl_buf_addf(b, "; in-cluster config, server %s", i->server);
	else
		cpl_buf_addf(b, "; context \"%s\", server %s", i->context,
			     i->server);
	cpl_buf_addf(b, ", request %s %s", w->method, w->pathq);
}

/*
 * text as it may be shown: the credentials in use (token, password,
 * client key) and any URL's "user:password@" replaced by "[redacted]",
 * since a server may echo a header back or a kubeconfig may put a password
 * in the server URL.  Caller frees.
 */
static char *
redacted(const struct cpl_kubeclient *c, const char *text)
{
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);
	const char *secrets[4];
	size_t n = 0;

	if (i->token)
		secrets[n++] = i->token;
	if (i->password)
		secrets[n++] = i->password;
	if (i->key)
		secrets[n++] = i->key;
	secrets[n] = NULL;
	return cpl_redact(text, secrets);
}

static int
fail(struct cpl_error *err, int code, const struct cpl_kubeclient *c,
     const struct cpl_kc_what *w, const char *fmt, ...) CPL_PRINTF(5, 6);

/* Sets err to "<what happened>; <where>" and returns code. */
static int
fail(struct cpl_error *err, int code, const struct cpl_kubeclient *c,
     const struct cpl_kc_what *w, const char *fmt, ...)
{
	struct cpl_buf b;
	va_list ap;
	char *msg;

	cpl_buf_init(&b, 0);
	va_start(ap, fmt);
	cpl_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	add_where(&b, c, w);
	msg = redacted(c, cpl_buf_str(&b));
	cpl_error_set(err, NULL, 0, 0, "%s", msg);
	free(msg);
	cpl_buf_free(&b);
	return code;
}

/* "pods "train-0" in namespace "ml"", "nodes/proxy "n1"", "pods" */
static void
add_object(struct cpl_buf *b, const struct cpl_kc_what *w)
{
	const struct cpl_kube_ref *r = w->ref;
	const char *gv = r->api_version ? r->api_version : "v1";
	const char *slash = strchr(gv, '/');

	cpl_buf_adds(b, r->resource ? r->resource : gv);
	if (r->resource && slash)
		cpl_buf_addf(b, ".%.*s", (int)(slash - gv), gv);
	if (r->name && r->subresource)
		cpl_buf_addf(b, "/%.*s", (int)strcspn(r->subresource, "/"),
			     r->subresource);
	if (r->name)
		cpl_buf_addf(b, " \"%s\"", r->name);
	if (r->namespace)
		cpl_buf_addf(b, " in namespace \"%s\"", r->namespace);
}

/* The failure for an HTTP status that is not 2xx. */
static int
http_failure(struct cpl_kubeclient *c, const struct cpl_kc_what *w, long code,
	     const struct cpl_buf *body, bool refreshed, int retries,
	     struct cpl_error *err)
{
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);
	json_t *st = json_loadb(cpl_buf_str(body), body->len, 0, NULL);
	const char *msg = NULL, *reason = NULL, *dname = NULL;
	struct cpl_buf b;
	int rc = CPL_KUBE_FAILED;

	if (st && cpl_str_eq(json_string_value(json_object_get(st, "kind")),
			     "Status")) {
		msg = json_string_value(json_object_get(st, "message"));
		reason = json_string_value(json_object_get(st, "reason"));
		dname = json_string_value(json_object_get(
			json_object_get(st, "details"), "name"));
	} else {
		json_decref(st);
		st = NULL;
	}
	cpl_buf_init(&b, 0);
	if (code == 401) {
		if (*i->user)
			cpl_buf_addf(&b, "unauthorized: the server rejected "
				     "the credentials of user \"%s\"",
				     i->user);
		else if (i->in_cluster)
			cpl_buf_adds(&b, "unauthorized: the server rejected "
				     "the service account token");
		else
			cpl_buf_addf(&b, "unauthorized: the server needs "
				     "credentials and context \"%s\" has no "
				     "user", i->context);
		if (refreshed && i->exec)
			cpl_buf_adds(&b, " (the exec plugin was run again "
				     "and its new credentials were rejected "
				     "too)");
	} else if (code == 403) {
		const char *rbac = msg ? strstr(msg, "is forbidden: ") : NULL;

		cpl_buf_addf(&b, "forbidden: cannot %s ", w->verb);
		add_object(&b, w);
		if (msg)
			cpl_buf_addf(&b, " (RBAC: %s)",
				     rbac ? rbac + strlen("is forbidden: ")
					  : msg);
		rc = CPL_KUBE_FORBIDDEN;
	} else if (code == 404) {
		/* A missing object comes with details.name; without it the
		 * server does not know the resource type at all. */
		if (dname) {
			cpl_buf_adds(&b, "not found: ");
			add_object(&b, w);
		} else if (w->ref->resource == NULL) {
			cpl_buf_addf(&b, "not found: the server does not serve "
				     "%s", w->ref->api_version
				     ? w->ref->api_version : "v1");
		} else {
			cpl_buf_addf(&b, "not found: the server does not serve "
				     "%s in %s (is its CRD installed?)",
				     w->ref->resource,
				     w->ref->api_version
				     ? w->ref->api_version : "v1");
		}
		rc = CPL_KUBE_NOT_FOUND;
	} else if (code == 409) {
		cpl_buf_addf(&b, "conflict: cannot %s ", w->verb);
		add_object(&b, w);
		if (msg && *msg)
			cpl_buf_addf(&b, " (%s)", msg);
		rc = CPL_KUBE_CONFLICT;
	} else if (code == 429) {
		cpl_buf_addf(&b, "too many requests: the server still "
			     "answered 429 after %d retries", retries);
	} else {
		cpl_buf_addf(&b, "HTTP %ld", code);
		if (reason && *reason)
			cpl_buf_addf(&b, " %s", reason);
		if (msg && *msg)
			cpl_buf_addf(&b, ": %s", msg);
		else if (st == NULL)
			cpl_buf_adds(&b, " (the body is not a Kubernetes "
				     "Status)");
	}
	fail(err, rc, c, w, "%s", cpl_buf_str(&b));
	cpl_buf_free(&b);
	json_decref(st);
	return rc;
}

/* What bounded a try: --request-timeout or the run's time limit. */
struct bound {
	long ms;		/* the try's CURLOPT_TIMEOUT_MS; 0: none */
	bool run;		/* it was what was left of the run's limit */
};

/* "within 2s (--request-timeout)", "before the run's time limit of 3s
 * (--live-timeout) ran out" or "within 30s", for a bound of ms that b
 * set (bounded) or not; caller frees. */
static char *
bound_text(const struct cpl_kubeclient *c, long ms, const struct bound *b,
	   bool bounded)
{
	char *t = fmt_ms(bounded && b->run ? c->deadline_ms : ms), *out;

	if (!bounded)
		out = cpl_xasprintf("within %s", t);
	else if (b->run)
		out = cpl_xasprintf("before the run's time limit of %s "
				    "(--live-timeout) ran out", t);
	else
		out = cpl_xasprintf("within %s (--request-timeout)", t);
	free(t);
	return out;
}

/*
 * A timeout as libcurl tells it: not connected within the connect
 * timeout (or the try's bound, when shorter); connected, but the TLS
 * handshake or the answer did not come within the try's bound; or a
 * server that sent under LOW_SPEED_BYTES a second for LOW_SPEED_SECONDS
 * (libcurl's low-speed limit, which ends a try before its bound).
 */
static int
timeout_failure(struct cpl_kubeclient *c, const struct cpl_kc_what *w,
		const struct bound *b, struct cpl_error *err)
{
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);
	curl_off_t ready = 0, first = 0, total = 0;
	long made = 0;
	bool https = cpl_str_starts(c->base, "https://"), connected;
	char *t;
	int r;

	/* What libcurl 7.88 reports: a TCP connection it made counts in
	 * NUM_CONNECTS (its CONNECT_TIME stays 0 until the TLS handshake
	 * is done); a reused one has no connect of its own, but was ready
	 * to send (PRETRANSFER), as any connected one is. */
	if (c->cu->easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS,
				&made) != CURLE_OK ||
	    c->cu->easy_getinfo(c->curl, CURLINFO_PRETRANSFER_TIME_T,
				&ready) != CURLE_OK ||
	    c->cu->easy_getinfo(c->curl, CURLINFO_STARTTRANSFER_TIME_T,
				&first) != CURLE_OK ||
	    c->cu->easy_getinfo(c->curl, CURLINFO_TOTAL_TIME_T,
				&total) != CURLE_OK)
		made = ready = first = total = 0;
	connected = made > 0 || ready > 0;
	if (!connected) {
		bool bounded = b->ms > 0 && b->ms < c->connect_ms;

		t = bound_text(c, bounded ? b->ms : c->connect_ms, b,
			       bounded || (i->timeout_ms > 0 &&
					   i->timeout_ms <= c->connect_ms));
		r = fail(err, CPL_KUBE_FAILED, c, w, "timeout: cannot connect%s "
			 "%s", i->proxy_url ? " through the proxy" : "", t);
	} else if (b->ms <= 0 || total / 1000 + 1000 < b->ms) {
		/* Before the try's bound: the low-speed limit. */
		r = fail(err, CPL_KUBE_FAILED, c, w, "timeout: connected, but "
			 "the server sent under %ld bytes a second for %ld s",
			 LOW_SPEED_BYTES, LOW_SPEED_SECONDS);
		t = NULL;
	} else {
		t = bound_text(c, b->ms, b, b->ms > 0);
		r = fail(err, CPL_KUBE_FAILED, c, w, "timeout: connected, but "
			 "%s %s", https && ready == 0 ?
			 "the TLS handshake did not finish" : first > 0 ?
			 "the answer did not finish" : "no answer", t);
	}
	free(t);
	return r;
}

/* The failure for a libcurl error (no HTTP status). */
static int
transport_failure(struct cpl_kubeclient *c, const struct cpl_kc_what *w,
		  CURLcode rc, const struct bound *b, struct cpl_error *err)
{
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);
	const char *detail = c->errbuf[0] ? c->errbuf
					  : c->cu->easy_strerror(rc);
	long verify = 0, oserr = 0;
	int r;

	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return timeout_failure(c, w, b, err);
	case CURLE_COULDNT_CONNECT:
		if (c->cu->easy_getinfo(c->curl, CURLINFO_OS_ERRNO,
					&oserr) != CURLE_OK)
			oserr = 0;
		return fail(err, CPL_KUBE_FAILED, c, w, "cannot connect%s: %s",
			    i->proxy_url ? " through the proxy" : "",
			    oserr ? strerror((int)oserr) : detail);
	case CURLE_COULDNT_RESOLVE_HOST:
		return fail(err, CPL_KUBE_FAILED, c, w, "cannot connect: the "
			    "server's host name does not resolve");
	case CURLE_COULDNT_RESOLVE_PROXY:
		return fail(err, CPL_KUBE_FAILED, c, w, "cannot connect: the "
			    "proxy's host name does not resolve");
	case CURLE_PEER_FAILED_VERIFICATION:
		if (c->cu->easy_getinfo(c->curl, CURLINFO_SSL_VERIFYRESULT,
					&verify) != CURLE_OK)
			verify = -1;
		/* libcurl checks the host name itself after the
		 * handshake and reports 0 or 1 (unspecified) for a
		 * mismatch; OpenSSL's own check reports 62. */
		if (verify == 0 || verify == 1 || verify == 62) {
			char *host = i->tls_server_name
				? cpl_xstrdup(i->tls_server_name)
				: url_host(i->server);

			r = fail(err, CPL_KUBE_FAILED, c, w, "TLS: the server "
				 "certificate is not valid for \"%s\"%s", host,
				 i->tls_server_name ? "" :
				 " (tls-server-name sets another name to "
				 "verify)");
			free(host);
			return r;
		}
		if (verify == 2 || (verify >= 18 && verify <= 21))
			return fail(err, CPL_KUBE_FAILED, c, w, "TLS: "
				    "certificate signed by unknown authority "
				    "(trusted CA: %s of cluster \"%s\")",
				    i->ca_origin ? i->ca_origin
						 : "the system's CAs",
				    *i->cluster ? i->cluster : "in-cluster");
		if (verify == 9 || verify == 10)
			return fail(err, CPL_KUBE_FAILED, c, w, "TLS: the "
				    "server certificate is expired or not yet "
				    "valid");
		return fail(err, CPL_KUBE_FAILED, c, w, "TLS: the server "
			    "certificate was rejected (X.509 error %ld)",
			    verify);
	case CURLE_SSL_CERTPROBLEM:
		return fail(err, CPL_KUBE_FAILED, c, w, "TLS: the client "
			    "certificate or key of user \"%s\" cannot be "
			    "used", i->user);
	case CURLE_SSL_CACERT_BADFILE:
		return fail(err, CPL_KUBE_FAILED, c, w, "TLS: the CA (%s) "
			    "cannot be loaded", i->ca_origin ? i->ca_origin
							     : "system");
	case CURLE_SSL_CONNECT_ERROR:
		return fail(err, CPL_KUBE_FAILED, c, w, "TLS handshake "
			    "failed: %s", detail);
	case CURLE_WRITE_ERROR:
		return fail(err, CPL_KUBE_FAILED, c, w, "the response is "
			    "larger than %zu MiB", BODY_MAX >> 20);
	default:
		return fail(err, CPL_KUBE_FAILED, c, w, "request failed: %s",
			    detail);
	}
}

/* ---- the client ------------------------------------------------------- */

/* Fills err for a failed curl_easy_setopt. */
static int
setopt_failed(const struct cpl_kubeclient *c, struct cpl_error *err,
	      const char *what, CURLcode rc)
{
	cpl_error_set(err, NULL, 0, 0, "libcurl cannot set %s: %s", what,
		      c->cu->easy_strerror(rc));
	return -1;
}

/*
 * Sets one option or returns the failure.  Called through a pointer,
 * curl_easy_setopt gets no type check from curl's macros: every value
 * below has the type its option documents (long, char *, a blob, a list).
 */
#define SETOPT(c, opt, val)						\
	do {								\
		CURLcode r_ = (c)->cu->easy_setopt((c)->curl, opt, val);\
		if (r_ != CURLE_OK)					\
			return setopt_failed((c), err, #opt, r_);	\
	} while (0)

/* Gives libcurl the current credentials (after an exec plugin ran). */
static int
apply_credentials(struct cpl_kubeclient *c, struct cpl_error *err)
{
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);
	struct curl_blob cert = { (void *)i->cert, i->cert_len,
				  CURL_BLOB_COPY };
	struct curl_blob key = { (void *)i->key, i->key_len,
				 CURL_BLOB_COPY };

	/* Every source refuses one already (kubeconfig, token files, exec
	 * plugins); a header line must never be ended from a credential. */
	if (i->token && cpl_has_control(i->token, strlen(i->token))) {
		cpl_error_set(err, NULL, 0, 0, "the bearer token of %s%s%s "
			      "holds a control character; it is not sent",
			      *i->user ? "user \"" : "the service account",
			      i->user, *i->user ? "\"" : "");
		return -1;
	}
	if (i->token) {
		SETOPT(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
		SETOPT(c, CURLOPT_XOAUTH2_BEARER, i->token);
	} else if (i->username || i->password) {
		SETOPT(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		SETOPT(c, CURLOPT_USERNAME, i->username ? i->username : "");
		SETOPT(c, CURLOPT_PASSWORD, i->password ? i->password : "");
	} else {
		SETOPT(c, CURLOPT_XOAUTH2_BEARER, (char *)NULL);
		SETOPT(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_NONE);
	}
	if (i->cert && i->key) {
		SETOPT(c, CURLOPT_SSLCERTTYPE, "PEM");
		SETOPT(c, CURLOPT_SSLCERT_BLOB, &cert);
		SETOPT(c, CURLOPT_SSLKEYTYPE, "PEM");
		SETOPT(c, CURLOPT_SSLKEY_BLOB, &key);
	}
	return 0;
}

/*
 * A NO_PROXY list that, like Go, never proxies loopback addresses.  With
 * a tls-server-name the URL carries that name, so it is added when the
 * real host is a loopback address.
 */
static char *
noproxy_list(const struct cpl_kubeconfig_info *i)
{
	const char *env = getenv("NO_PROXY");
	char *host = url_host(i->server), *out;

	if (env == NULL || *env == '\0')
		env = getenv("no_proxy");
	if (env && strcmp(env, "*") == 0)
		out = cpl_xstrdup("*");
	else
		out = cpl_xasprintf("%s%slocalhost,127.0.0.1,::1%s%s",
				    env ? env : "", env && *env ? "," : "",
				    i->tls_server_name && is_loopback(host)
				    ? "," : "",
				    i->tls_server_name && is_loopback(host)
				    ? i->tls_server_name : "");
	free(host);
	return out;
}

/*
 * With a tls-server-name: the URL names that host (so libcurl sends it as
 * SNI and verifies the certificate against it) and CURLOPT_CONNECT_TO
 * sends the connection to the real host; the Host header keeps the real
 * authority, as client-go does.
 */
static int
setup_base(struct cpl_kubeclient *c, struct cpl_error *err)
{
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);
	CURLU *u = NULL;
	char *host = NULL, *port = NULL, *explicit_port = NULL, *url = NULL;
	char *line = NULL;
	size_t n;
	int rc = -1;

	if (i->tls_server_name == NULL) {
		c->base = cpl_xstrdup(i->server);
		return 0;
	}
	u = c->cu->url();
	if (u == NULL)
		abort();
	if (c->cu->url_set(u, CURLUPART_URL, i->server, 0) != CURLUE_OK ||
	    c->cu->url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    c->cu->url_get(u, CURLUPART_PORT, &port,
			   CURLU_DEFAULT_PORT) != CURLUE_OK) {
		cpl_error_set(err, NULL, 0, 0, "context \"%s\": server %s is "
			      "not a valid URL", i->context, i->server);
		goto out;
	}
	if (c->cu->url_get(u, CURLUPART_PORT, &explicit_port,
			   0) != CURLUE_OK)
		explicit_port = NULL;
	if (c->cu->url_set(u, CURLUPART_HOST, i->tls_server_name,
			   0) != CURLUE_OK ||
	    c->cu->url_set(u, CURLUPART_PORT, port, 0) != CURLUE_OK ||
	    c->cu->url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK) {
		cpl_error_set(err, NULL, 0, 0, "context \"%s\": "
			      "tls-server-name \"%s\" is not a valid host "
			      "name", i->context, i->tls_server_name);
		goto out;
	}
	c->base = cpl_xstrdup(url);
	n = strlen(c->base);
	while (n > 0 && c->base[n - 1] == '/')
		c->base[--n] = '\0';
	line = cpl_xasprintf("%s:%s:%s:%s", i->tls_server_name, port, host,
			     port);
	c->connect_to = c->cu->slist_append(NULL, line);
	if (c->connect_to == NULL)
		abort();
	c->host_header = explicit_port
		? cpl_xasprintf("Host: %s:%s", host, explicit_port)
		: cpl_xasprintf("Host: %s", host);
	rc = 0;
out:
	free(line);
	c->cu->free(host);
	c->cu->free(port);
	c->cu->free(explicit_port);
	c->cu->free(url);
	c->cu->url_cleanup(u);
	return rc;
}

/* The options every request shares: URL base, timeouts, TLS, proxy. */
static int
setup(struct cpl_kubeclient *c, struct cpl_error *err)
{
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);
	long connect_ms = CONNECT_TIMEOUT_MS;

	if (setup_base(c, err) < 0)
		return -1;
	if (i->timeout_ms > 0 && i->timeout_ms < connect_ms)
		connect_ms = i->timeout_ms;
	c->connect_ms = connect_ms;
	SETOPT(c, CURLOPT_ERRORBUFFER, c->errbuf);
	SETOPT(c, CURLOPT_NOSIGNAL, 1L);
	SETOPT(c, CURLOPT_USERAGENT, "kubectl-cpulint/" CPL_VERSION);
	SETOPT(c, CURLOPT_PROTOCOLS_STR, "http,https");
	SETOPT(c, CURLOPT_FOLLOWLOCATION, 0L);
	SETOPT(c, CURLOPT_ACCEPT_ENCODING, "");
	SETOPT(c, CURLOPT_TCP_KEEPALIVE, 1L);
	SETOPT(c, CURLOPT_TIMEOUT_MS, i->timeout_ms);
	SETOPT(c, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	/* A server that trickles bytes must not hold the run. */
	SETOPT(c, CURLOPT_LOW_SPEED_LIMIT, LOW_SPEED_BYTES);
	SETOPT(c, CURLOPT_LOW_SPEED_TIME, LOW_SPEED_SECONDS);
	SETOPT(c, CURLOPT_WRITEFUNCTION, on_body);
	if (c->connect_to)
		SETOPT(c, CURLOPT_CONNECT_TO, c->connect_to);
	if (i->insecure) {
		SETOPT(c, CURLOPT_SSL_VERIFYPEER, 0L);
		SETOPT(c, CURLOPT_SSL_VERIFYHOST, 0L);
	} else {
		SETOPT(c, CURLOPT_SSL_VERIFYPEER, 1L);
		SETOPT(c, CURLOPT_SSL_VERIFYHOST, 2L);
	}
	if (i->ca && !i->insecure) {
		/* Only the configured CA is trusted, as in client-go. */
		struct curl_blob ca = { (void *)i->ca, i->ca_len,
					CURL_BLOB_COPY };

		SETOPT(c, CURLOPT_CAINFO, (char *)NULL);
		SETOPT(c, CURLOPT_CAPATH, (char *)NULL);
		SETOPT(c, CURLOPT_CAINFO_BLOB, &ca);
	}
	if (i->proxy_url) {
		SETOPT(c, CURLOPT_PROXY, i->proxy_url);
		SETOPT(c, CURLOPT_NOPROXY, "");
	} else {
		char *np = noproxy_list(i);
		CURLcode r = c->cu->easy_setopt(c->curl, CURLOPT_NOPROXY, np);

		free(np);
		if (r != CURLE_OK)
			return setopt_failed(c, err, "CURLOPT_NOPROXY", r);
	}
	return 0;
}

int
cpl_kubeclient_new(struct cpl_kubeclient **out, struct cpl_kubeconfig *kc,
		   struct cpl_error *err)
{
	const struct cpl_curlso *cu;
	struct cpl_kubeclient *c;

	*out = NULL;
	if (cpl_curlso_load(&cu, err) < 0)
		return -1;
	if (cu->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		cpl_error_set(err, NULL, 0, 0, "libcurl cannot be "
			      "initialised");
		return -1;
	}
	c = cpl_xcalloc(1, sizeof(*c));
	c->kc = kc;
	cpl_kubeclient_set_deadline(c, DEFAULT_DEADLINE_MS);
	c->cu = cu;
	c->curl = cu->easy_init();
	if (c->curl == NULL) {
		cpl_error_set(err, NULL, 0, 0, "libcurl cannot create a "
			      "handle");
		cpl_kubeclient_free(c);
		return -1;
	}
	if (setup(c, err) < 0) {
		cpl_kubeclient_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void
cpl_kubeclient_free(struct cpl_kubeclient *c)
{
	if (c == NULL)
		return;
	if (c->curl)
		c->cu->easy_cleanup(c->curl);
	c->cu->slist_free_all(c->connect_to);
	free(c->base);
	free(c->host_header);
	c->cu->global_cleanup();
	free(c);
}

void
cpl_kubeclient_set_deadline(struct cpl_kubeclient *c, long total_ms)
{
	c->deadline_ms = total_ms;
	c->deadline = total_ms > 0 ? now_ms() + total_ms : 0;
	/* Exec plugins run within the same limit. */
	cpl_kubeconfig_set_deadline(c->kc, c->deadline, total_ms);
}

long
cpl_kubeclient_time_left(const struct cpl_kubeclient *c)
{
	long long left;

	if (c->deadline == 0)
		return -1;
	left = c->deadline - now_ms();
	return left > 0 ? (long)left : 0;
}

void
cpl_kubeclient_set_cancel(struct cpl_kubeclient *c, bool (*fn)(void *ctx),
			  void *ctx)
{
	c->cancel = fn;
	c->cancel_ctx = ctx;
}

void
cpl_kubeclient_set_log(struct cpl_kubeclient *c, cpl_kube_log_fn fn,
		       void *ctx)
{
	c->log = fn;
	c->log_ctx = ctx;
}

/* Seconds the server asked us to wait; -1 when it did not say. */
static long
retry_after(struct cpl_kubeclient *c)
{
	struct curl_header *h;
	long s;

	if (c->cu->easy_header(c->curl, "Retry-After", 0, CURLH_HEADER, -1,
			       &h) != CURLHE_OK)
		return -1;
	if (cpl_parse_long(&s, h->value) < 0 || s < 0)
		return 1;	/* an HTTP date or junk: client-go waits 1 s */
	return s > MAX_RETRY_WAIT ? MAX_RETRY_WAIT : s;
}

/* Gives the log hook one line: method, URL, status, time. */
static void
log_exchange(struct cpl_kubeclient *c, const char *url, CURLcode rc,
	     long code, long long ms)
{
	char *line, *shown;

	if (c->log == NULL)
		return;
	if (rc == CURLE_OK)
		line = cpl_xasprintf("GET %s %ld in %lld ms", url, code, ms);
	else
		line = cpl_xasprintf("GET %s failed (%s) in %lld ms", url,
				     c->cu->easy_strerror(rc), ms);
	shown = redacted(c, line);
	c->log(c->log_ctx, shown);
	free(shown);
	free(line);
}

/*
 * One GET with retries: the body of a 2xx answer in body, else a
 * CPL_KUBE_* failure with err set.
 */
static int
do_get(struct cpl_buf *body, struct cpl_kubeclient *c, const struct cpl_kc_what *w,
       const char *accept, struct cpl_error *err)
{
	struct curl_slist *hdrs = NULL;
	char *url = cpl_xasprintf("%s%s", c->base, w->pathq);
	char *accept_line = cpl_xasprintf("Accept: %s", accept);
	bool refreshed = false;
	int retries = 0, rc = CPL_KUBE_FAILED;
	long code = 0;
	long long start = 0;

	if (!c->creds_ready) {
		if (cpl_kubeconfig_credentials(c->kc, false, err) < 0 ||
		    apply_credentials(c, err) < 0)
			goto out;
		c->creds_ready = true;
	}
	hdrs = c->cu->slist_append(hdrs, accept_line);
	if (hdrs && c->host_header)
		hdrs = c->cu->slist_append(hdrs, c->host_header);
	if (hdrs == NULL)
		abort();
	if (c->cu->easy_setopt(c->curl, CURLOPT_URL, url) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_HTTPHEADER,
			       hdrs) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_WRITEDATA,
			       body) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_HTTPGET, 1L) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION,
			       on_progress) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_XFERINFODATA, c) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_NOPROGRESS,
			       c->cancel ? 0L : 1L) != CURLE_OK) {
		cpl_error_set(err, NULL, 0, 0, "libcurl cannot set up the "
			      "request");
		goto out;
	}
	for (;;) {
		const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);
		long long t0 = now_ms(), left = c->deadline ? c->deadline - t0
							    : 0;
		long limit = i->timeout_ms;
		CURLcode cr;
		long wait;

		if (start == 0)
			start = t0;
		if (c->cancel && c->cancel(c->cancel_ctx)) {
			rc = fail(err, CPL_KUBE_STOPPED, c, w, "stopped");
			goto out;
		}
		if (c->deadline && left <= 0) {
			char *t = fmt_ms(c->deadline_ms);

			rc = fail(err, CPL_KUBE_FAILED, c, w, "timeout: the "
				  "run's time limit of %s (--live-timeout) "
				  "ran out", t);
			free(t);
			goto out;
		}
		/* Each try gets what is left of the run's time limit. */
		if (c->deadline && (limit <= 0 || left < limit))
			limit = (long)left;
		if (c->cu->easy_setopt(c->curl, CURLOPT_TIMEOUT_MS,
				       limit) != CURLE_OK) {
			cpl_error_set(err, NULL, 0, 0, "libcurl cannot set up "
				      "the request");
			goto out;
		}
		cpl_buf_reset(body);
		c->errbuf[0] = '\0';
		cr = c->cu->easy_perform(c->curl);
		code = 0;
		if (cr == CURLE_OK &&
		    c->cu->easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE,
					&code) != CURLE_OK)
			cr = CURLE_BAD_FUNCTION_ARGUMENT;	/* no status */
		log_exchange(c, url, cr, code, now_ms() - t0);
		if (cr == CURLE_ABORTED_BY_CALLBACK) {
			rc = fail(err, CPL_KUBE_STOPPED, c, w, "stopped");
			goto out;
		}
		if (cr != CURLE_OK) {
			struct bound b = { limit, limit > 0 && limit !=
					   i->timeout_ms };

			rc = transport_failure(c, w, cr, &b, err);
			goto out;
		}
		i = cpl_kubeconfig_info(c->kc);
		if (code == 401 && !refreshed) {
			refreshed = true;
			if (i->exec) {
				if (cpl_kubeconfig_credentials(c->kc, true,
							       err) < 0 ||
				    apply_credentials(c, err) < 0)
					goto out;
				continue;
			}
		}
		wait = code == 429 || code >= 500 ? retry_after(c) : -1;
		if (code == 429 && wait < 0)
			wait = 1;
		/* Retries stay within --request-timeout (for the request as
		 * a whole, retries included) and the run's time limit. */
		if (wait >= 0 && i->timeout_ms > 0 &&
		    now_ms() - start + wait * 1000LL > i->timeout_ms)
			wait = -1;
		if (wait >= 0 && c->deadline &&
		    now_ms() + wait * 1000LL >= c->deadline)
			wait = -1;
		if (wait >= 0 && retries < MAX_RETRIES) {
			retries++;
			sleep_seconds(c, wait);
			continue;
		}
		break;
	}
	if (code >= 200 && code < 300)
		rc = 0;
	else
		rc = http_failure(c, w, code, body, refreshed, retries, err);
out:
	/* Never fails for a NULL list; the old list must not dangle. */
	(void)c->cu->easy_setopt(c->curl, CURLOPT_HTTPHEADER,
				 (struct curl_slist *)NULL);
	c->cu->slist_free_all(hdrs);
	free(accept_line);
	free(url);
	return rc;
}

/* Parses a JSON object body. */
static int
parse_object(json_t **out, const struct cpl_buf *body,
	     const struct cpl_kubeclient *c, const struct cpl_kc_what *w,
	     struct cpl_error *err)
{
	json_error_t je;

	*out = json_loadb(cpl_buf_str(body), body->len, 0, &je);
	if (*out == NULL)
		return fail(err, CPL_KUBE_FAILED, c, w, "invalid JSON from "
			    "the server at line %d: %s", je.line, je.text);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return fail(err, CPL_KUBE_FAILED, c, w, "the server answered "
			    "with JSON that is not an object");
	}
	return 0;
}

int
cpl_kubeclient_get(json_t **obj, char **raw, struct cpl_kubeclient *c,
		   const struct cpl_kube_ref *ref, struct cpl_error *err)
{
	struct cpl_buf body;
	char *path = cpl_kubeclient_path(ref);
	struct cpl_kc_what w = { "GET", "get", ref, path };
	int rc;

	*obj = NULL;
	if (raw)
		*raw = NULL;
	cpl_buf_init(&body, BODY_MAX);
	rc = do_get(&body, c, &w, "application/json", err);
	if (rc == 0)
		rc = parse_object(obj, &body, c, &w, err);
	if (rc == 0 && raw)
		*raw = cpl_buf_detach(&body);
	cpl_buf_free(&body);
	free(path);
	return rc;
}

/* The kind of a list's items ("PodList" → "Pod"), or NULL; caller
 * frees. */
static char *
item_kind_of(const json_t *list)
{
	const char *kind = json_string_value(json_object_get(list, "kind"));

	if (kind && cpl_str_ends(kind, "List"))
		return cpl_xstrndup(kind, strlen(kind) - 4);
	return NULL;
}

/* Gives an item its list's apiVersion gv and kind when it lacks them. */
static void
fix_item(json_t *item, const char *gv, const char *kind)
{
	if (!json_is_object(item))
		return;
	if (gv && !json_object_get(item, "apiVersion") &&
	    json_object_set_new(item, "apiVersion", json_string(gv)) < 0)
		abort();
	if (kind && !json_object_get(item, "kind") &&
	    json_object_set_new(item, "kind", json_string(kind)) < 0)
		abort();
}

/* Skips JSON white space at *pos. */
static void
skip_ws(const char *t, size_t n, size_t *pos)
{
	while (*pos < n && (t[*pos] == ' ' || t[*pos] == '\n' ||
			    t[*pos] == '\r' || t[*pos] == '\t'))
		(*pos)++;
}

/* The JSON value (of any type) at *pos, *pos moved past it; NULL when
 * there is none. */
static json_t *
value_at(const char *t, size_t n, size_t *pos)
{
	json_error_t je;
	json_t *v;

	skip_ws(t, n, pos);
	if (*pos >= n)
		return NULL;
	v = json_loadb(t + *pos, n - *pos, JSON_DECODE_ANY |
		       JSON_DISABLE_EOF_CHECK, &je);
	if (v)
		*pos += (size_t)je.position;
	return v;
}

/* Whether the next character at *pos (after white space) is ch; moves
 * past it when it is. */
static bool
take(const char *t, size_t n, size_t *pos, char ch)
{
	skip_ws(t, n, pos);
	if (*pos < n && t[*pos] == ch) {
		(*pos)++;
		return true;
	}
	return false;
}

/*
 * Reads a list body as it goes: its members except "items" into *head,
 * and each item to fn as soon as it is read, so that one item at a time
 * is held as JSON, not the page.  Kubernetes writes kind, apiVersion and
 * metadata before items, which gives each item its kind.  A body of
 * another shape, or that is not JSON, is 1 with nothing passed (the
 * caller reads it whole); -1 when it breaks off after items were passed.
 */
static int
stream_list(json_t **head, size_t *nitems, const struct cpl_buf *body,
	    cpl_kube_item_fn fn, void *ctx)
{
	const char *t = cpl_buf_str(body);
	size_t n = body->len, pos = 0;
	json_t *key = NULL, *v;
	char *kind = NULL;
	int rc = 1;

	*head = json_object();
	*nitems = 0;
	if (*head == NULL)
		abort();
	if (!take(t, n, &pos, '{'))
		goto out;
	while (!take(t, n, &pos, '}')) {
		if (json_object_size(*head) > 0 || *nitems > 0 || key)
			if (!take(t, n, &pos, ','))
				goto out;
		json_decref(key);
		key = value_at(t, n, &pos);
		if (!json_is_string(key) || !take(t, n, &pos, ':'))
			goto out;
		if (strcmp(json_string_value(key), "items") != 0) {
			v = value_at(t, n, &pos);
			if (v == NULL)
				goto out;
			json_object_set_new(*head, json_string_value(key), v);
			continue;
		}
		if (!json_object_get(*head, "kind") &&
		    !json_object_get(*head, "apiVersion"))
			goto out;	/* items first: read it whole */
		skip_ws(t, n, &pos);
		if (pos + 4 <= n && memcmp(t + pos, "null", 4) == 0) {
			pos += 4;
			continue;
		}
		if (!take(t, n, &pos, '['))
			goto out;
		kind = item_kind_of(*head);
		while (!take(t, n, &pos, ']')) {
			json_t *item;

			if (*nitems > 0 && !take(t, n, &pos, ','))
				goto broken;
			item = value_at(t, n, &pos);
			if (item == NULL)
				goto broken;
			fix_item(item, json_string_value(json_object_get(*head,
				 "apiVersion")), kind);
			(*nitems)++;
			fn(ctx, item);
			json_decref(item);
		}
	}
	skip_ws(t, n, &pos);
	rc = pos == n ? 0 : *nitems > 0 ? -1 : 1;
	goto out;
broken:
	rc = *nitems > 0 ? -1 : 1;
out:
	free(kind);
	json_decref(key);
	if (rc != 0) {
		json_decref(*head);
		*head = NULL;
	}
	return rc;
}

/* Reads a list body whole (a shape stream_list does not follow): each
 * item to fn, the list in *page. */
static int
whole_list(json_t **page, size_t *nitems, const struct cpl_buf *body,
	   const struct cpl_kubeclient *c, const struct cpl_kc_what *w,
	   cpl_kube_item_fn fn, void *ctx, struct cpl_error *err)
{
	json_t *items, *item;
	char *kind;
	size_t i;
	int rc = parse_object(page, body, c, w, err);

	*nitems = 0;
	if (rc < 0)
		return rc;
	items = json_object_get(*page, "items");
	if (items == NULL || json_is_null(items))
		return 0;
	if (!json_is_array(items))
		return fail(err, CPL_KUBE_FAILED, c, w, "the server's list "
			    "has no items array");
	kind = item_kind_of(*page);
	json_array_foreach(items, i, item) {
		fix_item(item, json_string_value(json_object_get(*page,
			 "apiVersion")), kind);
		fn(ctx, item);
	}
	free(kind);
	*nitems = json_array_size(items);
	/* Only the list's metadata is read after this. */
	json_object_del(*page, "items");
	return 0;
}

int
cpl_kubeclient_list_each(struct cpl_kubeclient *c,
			 const struct cpl_kube_ref *ref,
			 const struct cpl_kube_list_opts *o,
			 cpl_kube_item_fn fn, void *ctx,
			 struct cpl_error *err)
{
	struct cpl_buf body, pathq;
	char *path = cpl_kubeclient_path(ref);
	char *cont = NULL;
	json_t *page = NULL;
	long limit = o && o->limit > 0 ? o->limit : DEFAULT_LIMIT;
	int pages, empty = 0, rc = CPL_KUBE_FAILED;

	cpl_buf_init(&body, BODY_MAX);
	cpl_buf_init(&pathq, 0);
	for (pages = 0; pages < MAX_PAGES; pages++) {
		struct cpl_kc_what w = { "GET", "list", ref, NULL };
		const char *next;
		size_t nitems = 0;
		int sr;

		cpl_buf_reset(&pathq);
		cpl_buf_adds(&pathq, path);
		if (o && o->label_selector && *o->label_selector)
			add_param(&pathq, "labelSelector", o->label_selector);
		if (o && o->field_selector && *o->field_selector)
			add_param(&pathq, "fieldSelector", o->field_selector);
		cpl_buf_addf(&pathq, "%climit=%ld",
			     strchr(cpl_buf_str(&pathq), '?') ? '&' : '?',
			     limit);
		if (cont)
			add_param(&pathq, "continue", cont);
		w.pathq = cpl_buf_str(&pathq);
		rc = do_get(&body, c, &w, "application/json", err);
		if (rc < 0)
			goto out;
		sr = stream_list(&page, &nitems, &body, fn, ctx);
		if (sr < 0) {
			rc = fail(err, CPL_KUBE_FAILED, c, &w, "invalid JSON "
				  "from the server after %zu items of the "
				  "list", nitems);
			goto out;
		}
		if (sr > 0) {
			rc = whole_list(&page, &nitems, &body, c, &w, fn, ctx,
					err);
			if (rc < 0)
				goto out;
		}
		/* Objects so large (Pods of 100 containers) that a page
		 * passes PAGE_BYTES: smaller pages from now on, so that
		 * the body stays bounded whatever the objects (with the
		 * default limit only). */
		if ((o == NULL || o->limit <= 0) && body.len > PAGE_BYTES &&
		    limit > MIN_LIMIT) {
			limit = (long)((double)limit * (double)PAGE_BYTES /
				       (double)body.len);
			if (limit < MIN_LIMIT)
				limit = MIN_LIMIT;
		}
		if (pages == 0 && o && o->resource_version) {
			const char *rv = json_string_value(json_object_get(
				json_object_get(page, "metadata"),
				"resourceVersion"));

			free(*o->resource_version);
			*o->resource_version = rv && *rv ? cpl_xstrdup(rv)
							 : NULL;
		}
		next = json_string_value(json_object_get(
			json_object_get(page, "metadata"), "continue"));
		if (next == NULL || *next == '\0')
			break;
		/* Pages that bring nothing but another token: stop. */
		empty = nitems == 0 ? empty + 1 : 0;
		if (empty >= MAX_EMPTY_PAGES) {
			rc = fail(err, CPL_KUBE_FAILED, c, &w, "the server "
				  "sent %d pages in a row with no items, each "
				  "with a new continue token", empty);
			goto out;
		}
		if (cont && strcmp(cont, next) == 0) {
			rc = fail(err, CPL_KUBE_FAILED, c, &w, "the server "
				  "sent the same continue token twice");
			goto out;
		}
		free(cont);
		cont = cpl_xstrdup(next);
		json_decref(page);
		page = NULL;
	}
	rc = 0;
out:
	json_decref(page);
	free(cont);
	free(path);
	cpl_buf_free(&pathq);
	cpl_buf_free(&body);
	return rc;
}

/* Appends an item to the array ctx. */
static void
gather_item(void *ctx, json_t *item)
{
	if (json_array_append(ctx, item) < 0)
		abort();
}

int
cpl_kubeclient_list(json_t **items, struct cpl_kubeclient *c,
		    const struct cpl_kube_ref *ref,
		    const struct cpl_kube_list_opts *o, struct cpl_error *err)
{
	json_t *all = json_array();
	int rc;

	*items = NULL;
	if (all == NULL)
		abort();
	rc = cpl_kubeclient_list_each(c, ref, o, gather_item, all, err);
	if (rc < 0) {
		json_decref(all);
		return rc;
	}
	*items = all;
	return 0;
}

int
cpl_kubeclient_get_raw(char **body, size_t *len, struct cpl_kubeclient *c,
		       const struct cpl_kube_ref *ref, struct cpl_error *err)
{
	struct cpl_buf b;
	char *path = cpl_kubeclient_path(ref);
	struct cpl_kc_what w = { "GET", "get", ref, path };
	int rc;

	*body = NULL;
	*len = 0;
	cpl_buf_init(&b, BODY_MAX);
	rc = do_get(&b, c, &w, "text/plain, */*", err);
	if (rc == 0) {
		*len = b.len;
		*body = cpl_buf_detach(&b);
	}
	cpl_buf_free(&b);
	free(path);
	return rc;
}

/* ---- for kubewatch.c (kubeclient_int.h) -------------------------------- */

int
cpl_kc_ready(struct cpl_kubeclient *c, struct cpl_error *err)
{
	if (!c->creds_ready) {
		if (cpl_kubeconfig_credentials(c->kc, false, err) < 0 ||
		    apply_credentials(c, err) < 0)
			return -1;
		c->creds_ready = true;
	}
	return 0;
}

int
cpl_kc_http_failure(struct cpl_kubeclient *c, const struct cpl_kc_what *w,
		    long code, const struct cpl_buf *body,
		    struct cpl_error *err)
{
	return http_failure(c, w, code, body, false, 0, err);
}

int
cpl_kc_transport_failure(struct cpl_kubeclient *c,
			 const struct cpl_kc_what *w, int curl_code,
			 long bound_ms, struct cpl_error *err)
{
	struct bound b = { bound_ms, bound_ms > 0 };

	return transport_failure(c, w, (CURLcode)curl_code, &b, err);
}

char *
cpl_kc_redacted(const struct cpl_kubeclient *c, const char *text)
{
	return redacted(c, text);
}

int
cpl_kc_restore(struct cpl_kubeclient *c, struct cpl_error *err)
{
	SETOPT(c, CURLOPT_LOW_SPEED_LIMIT, LOW_SPEED_BYTES);
	SETOPT(c, CURLOPT_LOW_SPEED_TIME, LOW_SPEED_SECONDS);
	SETOPT(c, CURLOPT_WRITEFUNCTION, on_body);
	SETOPT(c, CURLOPT_NOPROGRESS, 1L);
	SETOPT(c, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
	return 0;
}

void
cpl_kc_add_param(struct cpl_buf *b, const char *key, const char *value)
{
	add_param(b, key, value);
}

int
cpl_kc_fail(const struct cpl_kubeclient *c, const struct cpl_kc_what *w,
	    const char *msg, struct cpl_error *err)
{
	return fail(err, CPL_KUBE_FAILED, c, w, "%s", msg);
}
