/*
 * kubewatch.c — WATCH of a collection (see cpl_kubeclient_watch in
 * kubeclient.h): one long GET whose body is newline-delimited JSON
 * events, read as libcurl hands the bytes over.
 *
 * Invariant: memory is one event line (at most max_event bytes) and, for
 * an answer that is not 200, its first 64 KiB; a longer line ends the
 * watch with an error instead of growing.  The easy handle's options
 * that a watch changes (write function, low-speed limit, progress
 * callback) are put back before it returns, so the client's GETs and
 * LISTs go on as before.  Errors are made by kubeclient.c's helpers:
 * never a credential.
 *
 * Ownership: the watch borrows the client and the options; events are
 * lent to the callback.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/curlso.h"
#include "kube/kubeclient.h"
#include "kube/kubeclient_int.h"

#define DEFAULT_TIMEOUT_S 300L
#define DEFAULT_MAX_EVENT ((size_t)4 << 20)
#define ERROR_BODY_MAX ((size_t)64 << 10)
#define GRACE_MS 60000L		/* past timeoutSeconds: a dead server */

struct watch {
	struct cpl_kubeclient *c;
	const struct cpl_kube_watch_opts *o;
	cpl_kube_event_fn fn;
	void *ctx;
	struct cpl_buf line;	/* the event being read */
	struct cpl_buf body;	/* a non-200 answer */
	long code;		/* HTTP status; 0 before the first bytes */
	int result;		/* 0, or why the watch ended early */
	char *why;		/* CPL_KUBE_FAILED: what was wrong */
	size_t limit;		/* max_event */
};

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Ends the watch early with result (and for FAILED, a message). */
static void
end(struct watch *w, int result, char *why)
{
	if (w->result == 0) {
		w->result = result;
		w->why = why;
	} else {
		free(why);
	}
}

/* Keeps the resourceVersion of obj as where to watch again from. */
static void
keep_rv(struct watch *w, const json_t *obj)
{
	const char *rv = json_string_value(json_object_get(
		json_object_get(obj, "metadata"), "resourceVersion"));

	if (w->o->last_rv == NULL || rv == NULL || *rv == '\0')
		return;
	free(*w->o->last_rv);
	*w->o->last_rv = cpl_xstrdup(rv);
}

/* One complete line of the stream: 1 when an event went to fn. */
static int
event(struct watch *w, const char *text, size_t len)
{
	json_error_t je;
	json_t *ev, *obj;
	const char *type;
	int delivered = 0;

	while (len > 0 && (text[len - 1] == '\r' || text[len - 1] == ' '))
		len--;
	if (len == 0)
		return 0;
	ev = json_loadb(text, len, 0, &je);
	type = json_string_value(json_object_get(ev, "type"));
	obj = json_object_get(ev, "object");
	if (ev == NULL || type == NULL || !json_is_object(obj)) {
		end(w, CPL_KUBE_FAILED, cpl_xasprintf(
		    "the watch sent an event that is not a watch event "
		    "(%s)", ev ? "no type or object" : je.text));
	} else if (strcmp(type, "ERROR") == 0) {
		json_int_t code = json_integer_value(json_object_get(obj,
								     "code"));
		const char *msg = json_string_value(json_object_get(obj,
								    "message"));

		if (code == 410)
			end(w, CPL_KUBE_GONE, NULL);
		else
			end(w, CPL_KUBE_FAILED, cpl_xasprintf(
			    "the watch ended with an error event (%lld%s%s)",
			    (long long)code, msg ? ": " : "", msg ? msg : ""));
	} else {
		keep_rv(w, obj);
		w->fn(w->ctx, type, obj);
		delivered = 1;
	}
	json_decref(ev);
	return delivered;
}

static bool
stopped(struct watch *w)
{
	return w->o->stop && w->o->stop(w->o->stop_ctx);
}

/* libcurl write callback: splits the stream into lines. */
static size_t
on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct watch *w = ctx;
	size_t len = size * n, at = 0;
	int delivered = 0;

	if (w->code == 0 &&
	    w->c->cu->easy_getinfo(w->c->curl, CURLINFO_RESPONSE_CODE,
				   &w->code) != CURLE_OK)
		w->code = -1;
	if (w->code != 200) {
		cpl_buf_add(&w->body, p, len);
		return len;	/* a capped buffer drops the rest */
	}
	while (at < len && w->result == 0) {
		const char *nl = memchr(p + at, '\n', len - at);
		size_t seg = nl ? (size_t)(nl - (p + at)) : len - at;

		cpl_buf_add(&w->line, p + at, seg);
		if (w->line.overflow) {
			end(w, CPL_KUBE_FAILED, cpl_xasprintf(
			    "the watch sent an event of more than %zu bytes",
			    w->limit));
			break;
		}
		at += seg;
		if (nl == NULL)
			break;
		at++;
		delivered |= event(w, cpl_buf_str(&w->line), w->line.len);
		cpl_buf_reset(&w->line);
	}
	if (delivered)
		w->fn(w->ctx, NULL, NULL);
	if (w->result == 0 && stopped(w))
		end(w, CPL_KUBE_STOPPED, NULL);
	return w->result ? 0 : len;
}

/* libcurl progress callback: about once a second while idle. */
static int
on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut,
	    curl_off_t un)
{
	struct watch *w = ctx;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	if (stopped(w)) {
		end(w, CPL_KUBE_STOPPED, NULL);
		return 1;
	}
	return 0;
}

/* Gives the log hook one line for the watch. */
static void
log_watch(struct cpl_kubeclient *c, const char *url, long code, int rc,
	  long long ms)
{
	char *line, *shown;

	if (c->log == NULL)
		return;
	line = cpl_xasprintf("WATCH %s %ld, ended (%s) after %lld ms", url,
			     code, rc == 0 ? "by the server" :
			     rc == CPL_KUBE_GONE ? "410 Gone" :
			     rc == CPL_KUBE_STOPPED ? "stopped" : "failed",
			     ms);
	shown = cpl_kc_redacted(c, line);
	c->log(c->log_ctx, shown);
	free(shown);
	free(line);
}

int
cpl_kubeclient_watch(struct cpl_kubeclient *c,
		     const struct cpl_kube_ref *ref,
		     const struct cpl_kube_watch_opts *o,
		     cpl_kube_event_fn fn, void *ctx, struct cpl_error *err)
{
	struct watch w = { .c = c, .o = o, .fn = fn, .ctx = ctx };
	struct cpl_kc_what what = { "GET", "watch", ref, NULL };
	struct curl_slist *hdrs = NULL;
	struct cpl_buf pathq;
	struct cpl_error rerr = { 0 };
	char *path = cpl_kubeclient_path(ref), *url = NULL;
	long timeout = o->timeout_s > 0 ? o->timeout_s : DEFAULT_TIMEOUT_S;
	long bound = timeout * 1000 + GRACE_MS;
	long long t0;
	CURLcode cr;
	int rc = CPL_KUBE_FAILED;

	w.limit = o->max_event ? o->max_event : DEFAULT_MAX_EVENT;
	cpl_buf_init(&w.line, w.limit);
	cpl_buf_init(&w.body, ERROR_BODY_MAX);
	cpl_buf_init(&pathq, 0);
	cpl_buf_adds(&pathq, path);
	if (o->label_selector && *o->label_selector)
		cpl_kc_add_param(&pathq, "labelSelector", o->label_selector);
	cpl_kc_add_param(&pathq, "watch", "1");
	if (o->resource_version && *o->resource_version)
		cpl_kc_add_param(&pathq, "resourceVersion",
				 o->resource_version);
	cpl_kc_add_param(&pathq, "allowWatchBookmarks", "true");
	cpl_buf_addf(&pathq, "&timeoutSeconds=%ld", timeout);
	what.pathq = cpl_buf_str(&pathq);
	url = cpl_xasprintf("%s%s", c->base, what.pathq);
	if (cpl_kc_ready(c, err) < 0)
		goto out;
	hdrs = c->cu->slist_append(hdrs, "Accept: application/json");
	if (hdrs && c->host_header)
		hdrs = c->cu->slist_append(hdrs, c->host_header);
	if (hdrs == NULL)
		abort();
	if (c->cu->easy_setopt(c->curl, CURLOPT_URL, url) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_HTTPHEADER, hdrs) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_HTTPGET, 1L) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_WRITEDATA, &w) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION,
			       on_progress) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_XFERINFODATA, &w) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_NOPROGRESS, 0L) != CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_LOW_SPEED_LIMIT, 0L) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, bound) !=
	    CURLE_OK) {
		cpl_error_set(err, NULL, 0, 0, "libcurl cannot set up the "
			      "watch");
		goto out;
	}
	c->errbuf[0] = '\0';
	t0 = now_ms();
	cr = c->cu->easy_perform(c->curl);
	if (w.code == 0 &&
	    c->cu->easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE,
				&w.code) != CURLE_OK)
		w.code = 0;
	if (w.result != 0) {
		rc = w.result;
		if (rc == CPL_KUBE_FAILED)
			rc = cpl_kc_fail(c, &what, w.why, err);
	} else if (cr != CURLE_OK) {
		rc = cpl_kc_transport_failure(c, &what, cr, bound, err);
	} else if (w.code == 410) {
		rc = CPL_KUBE_GONE;
	} else if (w.code != 200) {
		rc = cpl_kc_http_failure(c, &what, w.code, &w.body, err);
	} else {
		/* A last line without its newline. */
		if (w.line.len > 0 &&
		    event(&w, cpl_buf_str(&w.line), w.line.len))
			fn(ctx, NULL, NULL);
		rc = w.result;
		if (rc == CPL_KUBE_FAILED)
			rc = cpl_kc_fail(c, &what, w.why, err);
	}
	log_watch(c, url, w.code, rc, now_ms() - t0);
out:
	if (cpl_kc_restore(c, &rerr) < 0) {
		cpl_error_clear(&rerr);
		if (rc == 0 || rc == CPL_KUBE_GONE || rc == CPL_KUBE_STOPPED)
			cpl_error_set(err, NULL, 0, 0, "libcurl cannot set "
				      "up the client again after a watch");
		rc = CPL_KUBE_FAILED;
	}
	c->cu->slist_free_all(hdrs);
	free(w.why);
	cpl_buf_free(&w.line);
	cpl_buf_free(&w.body);
	cpl_buf_free(&pathq);
	free(path);
	free(url);
	return rc;
}
