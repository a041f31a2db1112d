/*
 * kubewrite.c — create (POST) and update (PUT) of one object (see
 * cpl_kubeclient_create in kubeclient.h): what serve's leader election
 * writes, its Lease, and nothing else in the tool writes to a cluster.
 *
 * Invariant: an update sends the object as it was read, resourceVersion
 * included, and a 409 comes back as CPL_KUBE_CONFLICT, never retried
 * here: the caller reads again and decides (client-go's leaderelection
 * does the same).  The easy handle's options a write changes (method,
 * request body, headers) are put back before it returns, so the
 * client's GETs, LISTs and watches go on as before.  Errors are made by
 * kubeclient.c's helpers: never a credential, never the body.
 *
 * Ownership: borrows the client, ref and obj; *out is the caller's.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/curlso.h"
#include "kube/kubeclient.h"
#include "kube/kubeclient_int.h"

#define WRITE_TIMEOUT_MS 10000L	/* without --request-timeout */
#define ANSWER_MAX ((size_t)4 << 20)	/* an object written back */

/* Gives the log hook one line: method, URL, status, time. */
static void
log_write(struct cpl_kubeclient *c, const char *method, const char *url,
	  int cr, long code, long long ms)
{
	char *line, *shown;

	if (c->log == NULL)
		return;
	if (cr == CURLE_OK)
		line = cpl_xasprintf("%s %s %ld in %lld ms", method, url, code,
				     ms);
	else
		line = cpl_xasprintf("%s %s failed (%s) in %lld ms", method,
				     url, c->cu->easy_strerror((CURLcode)cr),
				     ms);
	shown = cpl_kc_redacted(c, line);
	c->log(c->log_ctx, shown);
	free(shown);
	free(line);
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One POST or PUT of obj to ref; the stored object in *out. */
static int
write_one(json_t **out, struct cpl_kubeclient *c, const char *method,
	  const char *verb, const struct cpl_kube_ref *ref, const json_t *obj,
	  struct cpl_error *err)
{
	char *path = cpl_kubeclient_path(ref);
	struct cpl_kc_what w = { method, verb, ref, path };
	const struct cpl_kubeconfig_info *i = cpl_kubeconfig_info(c->kc);
	long bound = i->timeout_ms > 0 ? i->timeout_ms : WRITE_TIMEOUT_MS;
	struct curl_slist *hdrs = NULL;
	struct cpl_error rerr = { 0 };
	struct cpl_buf body;
	char *url = NULL, *data = NULL;
	long code = 0;
	long long t0;
	json_error_t je;
	CURLcode cr;
	int rc = CPL_KUBE_FAILED;

	*out = NULL;
	cpl_buf_init(&body, ANSWER_MAX);
	if (cpl_kc_ready(c, err) < 0)
		goto out;
	data = json_dumps(obj, JSON_COMPACT);
	if (data == NULL)
		abort();
	url = cpl_xasprintf("%s%s", c->base, path);
	hdrs = c->cu->slist_append(hdrs, "Content-Type: application/json");
	if (hdrs)
		hdrs = c->cu->slist_append(hdrs, "Accept: application/json");
	if (hdrs && c->host_header)
		hdrs = c->cu->slist_append(hdrs, c->host_header);
	if (hdrs == NULL)
		abort();
	if (c->cu->easy_setopt(c->curl, CURLOPT_URL, url) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_HTTPHEADER, hdrs) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_WRITEDATA, &body) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_POSTFIELDS, data) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE,
			       (long)strlen(data)) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_NOPROGRESS, 1L) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, bound) !=
	    CURLE_OK) {
		rc = cpl_kc_fail(c, &w, "libcurl cannot set up the request",
				 err);
		goto out;
	}
	t0 = now_ms();
	c->errbuf[0] = '\0';
	cr = c->cu->easy_perform(c->curl);
	if (cr == CURLE_OK &&
	    c->cu->easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code) !=
	    CURLE_OK)
		cr = CURLE_BAD_FUNCTION_ARGUMENT;
	log_write(c, method, url, cr, code, now_ms() - t0);
	if (cr != CURLE_OK) {
		rc = cpl_kc_transport_failure(c, &w, cr, bound, err);
		goto out;
	}
	if (code < 200 || code >= 300) {
		rc = cpl_kc_http_failure(c, &w, code, &body, err);
		goto out;
	}
	*out = json_loadb(cpl_buf_str(&body), body.len, 0, &je);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		rc = cpl_kc_fail(c, &w, "the server answered the write with "
				 "something that is not a JSON object", err);
		goto out;
	}
	rc = 0;
out:
	/* Back to GET: no method, no body.  Never fails for NULL. */
	(void)c->cu->easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST,
				 (char *)NULL);
	(void)c->cu->easy_setopt(c->curl, CURLOPT_POSTFIELDS, (char *)NULL);
	(void)c->cu->easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	if (cpl_kc_restore(c, &rerr) < 0) {
		if (rc == 0) {
			json_decref(*out);
			*out = NULL;
			*err = rerr;
			rc = CPL_KUBE_FAILED;
		} else {
			cpl_error_clear(&rerr);
		}
	}
	c->cu->slist_free_all(hdrs);
	cpl_buf_free(&body);
	free(data);
	free(url);
	free(path);
	return rc;
}

int
cpl_kubeclient_create(json_t **out, struct cpl_kubeclient *c,
		      const struct cpl_kube_ref *ref, const json_t *obj,
		      struct cpl_error *err)
{
	return write_one(out, c, "POST", "create", ref, obj, err);
}

int
cpl_kubeclient_update(json_t **out, struct cpl_kubeclient *c,
		      const struct cpl_kube_ref *ref, const json_t *obj,
		      struct cpl_error *err)
{
	return write_one(out, c, "PUT", "update", ref, obj, err);
}
