/*
 * prometheus.c — instant queries of a Prometheus server for the threads,
 * CPU use and CFS throttling of containers (see prometheus.h).  Owns the
 * curl handle of a run and the series it returns; includes util.h,
 * kube/curlso.h, jansson and system headers.
 */
#include "kube/prometheus.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/curlso.h"

#define MAX_BODY ((size_t)64 << 20)
#define TIMEOUT_MS 30000L		/* a query, unless the options say */
#define CONNECT_TIMEOUT_MS 10000L

struct entry {
	char *key;			/* "ns/pod/container", owned */
	struct cpl_prometheus_series s;	/* strings owned */
};

struct cpl_prometheus {
	struct entry *items;
	size_t n;
	size_t cap;
	struct cpl_strmap by_key;	/* key → index + 1 */
};

/* One run's connection. */
struct prom_conn {
	const struct cpl_curlso *cu;
	CURL *curl;
	const struct cpl_prometheus_opts *o;
	char *where;			/* the URL without userinfo */
	long long deadline;		/* the run's: monotonic ms; 0: none */
	char errbuf[CURL_ERROR_SIZE];
};

/* Milliseconds on the monotonic clock. */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The URL without "user:password@", for messages. */
static char *
public_url(const char *url)
{
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	const char *at = strchr(host, '@');
	const char *slash = strchr(host, '/');

	if (at && (slash == NULL || at < slash))
		return cpl_xasprintf("%.*s%s", (int)(host - url), url, at + 1);
	return cpl_xstrdup(url);
}

/* Appends s percent-encoded (all but unreserved characters). */
static void
add_escaped(struct cpl_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~') {
			cpl_buf_addc(b, (char)c);
		} else {
			cpl_buf_addc(b, '%');
			cpl_buf_addc(b, hex[c >> 4]);
			cpl_buf_addc(b, hex[c & 15]);
		}
	}
}

/* s inside a PromQL double-quoted string; regex: also a regex literal. */
static void
add_quoted(struct cpl_buf *b, const char *s, bool regex)
{
	for (; *s; s++) {
		if (regex && strchr(".+*?()[]{}|^$\\", *s))
			cpl_buf_adds(b, "\\\\");
		else if (*s == '"' || *s == '\\')
			cpl_buf_addc(b, '\\');
		cpl_buf_addc(b, *s);
	}
}

/* One term of a query: Pods (all their containers, or only the named
 * ones) over one window. */
struct term {
	const char *const *pods;
	size_t npods;
	const char *const *containers;	/* NULL: every container */
	size_t ncontainers;
	long window;			/* seconds */
};

/* a|b|c, each a regex literal inside a PromQL string */
static void
add_alternatives(struct cpl_buf *b, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			cpl_buf_addc(b, '|');
		add_quoted(b, v[i], true);
	}
}

/* {namespace="ns",pod=~"a|b",container!="",container!="POD"
 * [,container=~"x|y"]EXTRA} */
static void
add_matcher(struct cpl_buf *b, const char *ns, const struct term *t,
	    const char *extra)
{
	cpl_buf_adds(b, "{namespace=\"");
	add_quoted(b, ns, false);
	cpl_buf_adds(b, "\",pod=~\"");
	add_alternatives(b, t->pods, t->npods);
	cpl_buf_adds(b, "\",container!=\"\",container!=\"POD\"");
	if (t->containers) {
		cpl_buf_adds(b, ",container=~\"");
		add_alternatives(b, t->containers, t->ncontainers);
		cpl_buf_addc(b, '"');
	}
	cpl_buf_adds(b, extra);
	cpl_buf_addc(b, '}');
}

/* The PromQL of one metric for one term. */
static void
add_term(struct cpl_buf *b, const char *metric, const char *ns,
	 const struct term *t)
{
	static const char by[] = " by (namespace, pod, container) ";

	if (strcmp(metric, "throttled") == 0) {
		cpl_buf_addf(b, "sum%s(rate(container_cpu_cfs_throttled_"
			     "periods_total", by);
		add_matcher(b, ns, t, "");
		cpl_buf_addf(b, "[%lds])) / sum%s(rate(container_cpu_cfs_"
			     "periods_total", t->window, by);
		add_matcher(b, ns, t, "");
		cpl_buf_addf(b, "[%lds]))", t->window);
	} else if (strcmp(metric, "cpu") == 0) {
		cpl_buf_addf(b, "sum%s(rate(container_cpu_usage_seconds_"
			     "total", by);
		add_matcher(b, ns, t, ",cpu=~\"total|\"");
		cpl_buf_addf(b, "[%lds]))", t->window);
	} else {
		cpl_buf_addf(b, "max%s(max_over_time(container_threads", by);
		add_matcher(b, ns, t, "");
		cpl_buf_addf(b, "[%lds]))", t->window);
	}
}

/* Whole seconds of a window, at least 1. */
static long
window_of(double window_s)
{
	return window_s >= 1 ? (long)(window_s + 0.5) : 1;
}

char *
cpl_prometheus_promql(const char *metric, const char *namespace,
		      const char *const *pods, size_t n, double window_s)
{
	struct cpl_buf b;
	struct term t = { pods, n, NULL, 0, window_of(window_s) };

	cpl_buf_init(&b, 0);
	add_term(&b, metric, namespace, &t);
	return cpl_buf_detach(&b);
}

char *
cpl_prometheus_expr(const char *metric, double window_s)
{
	long w = window_of(window_s);

	if (strcmp(metric, "throttled") == 0)
		return cpl_xasprintf("rate(container_cpu_cfs_throttled_"
				     "periods_total[%lds]) / rate(container_"
				     "cpu_cfs_periods_total[%lds])", w, w);
	if (strcmp(metric, "cpu") == 0)
		return cpl_xasprintf("rate(container_cpu_usage_seconds_total"
				     "[%lds])", w);
	return cpl_xasprintf("max_over_time(container_threads[%lds])", w);
}

static size_t
on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct cpl_buf *b = ctx;

	cpl_buf_add(b, p, size * n);
	return b->overflow ? 0 : size * n;
}

#define SETOPT(c, opt, val)						\
	do {								\
		if ((c)->cu->easy_setopt((c)->curl, opt, val) !=	\
		    CURLE_OK) {						\
			cpl_error_set(err, NULL, 0, 0, "prometheus %s: "\
				      "libcurl cannot set " #opt,	\
				      (c)->where);			\
			return -1;					\
		}							\
	} while (0)

/* The handle, TLS and the bearer token. */
static int
conn_setup(struct prom_conn *c, struct cpl_error *err)
{
	const struct cpl_prometheus_opts *o = c->o;
	char *token = NULL;
	size_t len;

	c->curl = c->cu->easy_init();
	if (c->curl == NULL) {
		cpl_error_set(err, NULL, 0, 0, "prometheus %s: libcurl "
			      "cannot start", c->where);
		return -1;
	}
	SETOPT(c, CURLOPT_ERRORBUFFER, c->errbuf);
	SETOPT(c, CURLOPT_NOSIGNAL, 1L);
	SETOPT(c, CURLOPT_USERAGENT, "kubectl-cpulint/" CPL_VERSION);
	SETOPT(c, CURLOPT_PROTOCOLS_STR, "http,https");
	SETOPT(c, CURLOPT_FOLLOWLOCATION, 0L);
	SETOPT(c, CURLOPT_ACCEPT_ENCODING, "");
	SETOPT(c, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	SETOPT(c, CURLOPT_WRITEFUNCTION, on_body);
	SETOPT(c, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
	SETOPT(c, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
	if (o->ca_file)
		SETOPT(c, CURLOPT_CAINFO, o->ca_file);
	if (o->token_file) {
		char *t;

		if (cpl_read_file(&token, &len, o->token_file, 1 << 16,
				  err) < 0) {
			char *m = cpl_xasprintf("--prometheus-token-file: %s",
						err->message);

			cpl_error_set(err, NULL, 0, 0, "%s", m);
			free(m);
			return -1;
		}
		/* White space around it trimmed, as kubectl trims token
		 * files; a control character inside it (a NUL byte too) is
		 * refused: CR LF would end the Authorization header and
		 * add others. */
		while (len > 0 && (token[len - 1] == '\n' ||
				   token[len - 1] == '\r' ||
				   token[len - 1] == ' ' ||
				   token[len - 1] == '\t'))
			token[--len] = '\0';
		for (t = token; *t == ' ' || *t == '\t' || *t == '\r' ||
				*t == '\n'; t++)
			;
		if (t == token + len ||
		    cpl_has_control(t, len - (size_t)(t - token))) {
			cpl_error_set(err, NULL, 0, 0, "--prometheus-token-file "
				      "%s: %s", o->token_file, t == token + len ?
				      "the file holds no token" :
				      "the token holds a control character (a "
				      "line break or another byte below 0x20, "
				      "or DEL), which would end its request "
				      "header and add others; it is not sent");
			explicit_bzero(token, len);
			free(token);
			return -1;
		}
		if (c->cu->easy_setopt(c->curl, CURLOPT_HTTPAUTH,
				       (long)CURLAUTH_BEARER) != CURLE_OK ||
		    c->cu->easy_setopt(c->curl, CURLOPT_XOAUTH2_BEARER,
				       t) != CURLE_OK) {
			explicit_bzero(token, len);
			free(token);
			cpl_error_set(err, NULL, 0, 0, "prometheus %s: "
				      "libcurl cannot set the token",
				      c->where);
			return -1;
		}
		/* curl copied it. */
		explicit_bzero(token, len);
		free(token);
	}
	return 0;
}

/* The answer's "error" (or the HTTP status) as one line. */
static void
answer_error(struct cpl_error *err, const struct prom_conn *c, long code,
	     const struct cpl_buf *body)
{
	json_t *j = json_loadb(cpl_buf_str(body), body->len, 0, NULL);
	const char *e = json_string_value(json_object_get(j, "error"));
	char line[200];
	size_t i;

	snprintf(line, sizeof(line), "%s", e ? e : "");
	for (i = 0; line[i]; i++)
		if ((unsigned char)line[i] < 0x20)
			line[i] = ' ';
	if (*line)
		cpl_error_set(err, NULL, 0, 0, "prometheus %s: HTTP %ld: %s",
			      c->where, code, line);
	else
		cpl_error_set(err, NULL, 0, 0, "prometheus %s: HTTP %ld "
			      "(not a Prometheus query API answer)",
			      c->where, code);
	json_decref(j);
}

/*
 * A query that timed out, as libcurl tells it (as kubeclient.c does): no
 * TCP connection made within the connect timeout (or the query's limit,
 * when shorter), or connected but no answer within the query's limit of
 * limit ms (run: what was left of the run's time limit).
 */
static void
timed_out(struct cpl_error *err, const struct prom_conn *c, long limit, bool run)
{
	long made = 0;
	curl_off_t ready = 0;
	bool connected;
	long ms;

	if (c->cu->easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS, &made) !=
	    CURLE_OK ||
	    c->cu->easy_getinfo(c->curl, CURLINFO_PRETRANSFER_TIME_T,
				&ready) != CURLE_OK)
		made = ready = 0;
	connected = made > 0 || ready > 0;
	ms = !connected && limit > CONNECT_TIMEOUT_MS ? CONNECT_TIMEOUT_MS :
	     limit;
	if (run && ms == limit)
		cpl_error_set(err, NULL, 0, 0, "prometheus %s: timeout: %s "
			      "before the run's time limit (--live-timeout) "
			      "ran out", c->where, connected ? "connected, "
			      "but no answer" : "cannot connect");
	else
		cpl_error_set(err, NULL, 0, 0, "prometheus %s: timeout: %s "
			      "within %g s", c->where, connected ? "connected, "
			      "but no answer" : "cannot connect",
			      (double)ms / 1000);
}

/* GET /api/v1/query?query=q (at: &time=, epoch seconds; 0: now); the
 * result in *result. */
static int
instant(json_t **result, struct prom_conn *c, const char *q, double at,
	struct cpl_error *err)
{
	struct cpl_buf url, body;
	const char *base = c->o->url;
	size_t blen = strlen(base);
	long code = 0, limit;
	bool run = false;
	CURLcode rc;
	json_t *j = NULL, *data;
	int ret = -1;

	*result = NULL;
	cpl_buf_init(&url, 0);
	cpl_buf_init(&body, MAX_BODY);
	cpl_buf_add(&url, base, blen > 0 && base[blen - 1] == '/' ?
		    blen - 1 : blen);
	cpl_buf_adds(&url, "/api/v1/query?query=");
	add_escaped(&url, q);
	if (at > 0)
		cpl_buf_addf(&url, "&time=%.3f", at);
	c->errbuf[0] = '\0';
	/* Each query: its own limit, within what is left of the run's. */
	limit = c->o->timeout_ms > 0 ? c->o->timeout_ms : TIMEOUT_MS;
	if (c->deadline > 0 && c->deadline - now_ms() < limit) {
		run = true;
		limit = (long)(c->deadline - now_ms());
		if (limit <= 0) {
			cpl_error_set(err, NULL, 0, 0, "prometheus %s: timeout: "
				      "the run's time limit (--live-timeout) "
				      "ran out", c->where);
			goto out;
		}
	}
	if (c->cu->easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, limit) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_URL, cpl_buf_str(&url)) !=
	    CURLE_OK ||
	    c->cu->easy_setopt(c->curl, CURLOPT_WRITEDATA, &body) !=
	    CURLE_OK) {
		cpl_error_set(err, NULL, 0, 0, "prometheus %s: libcurl "
			      "cannot set up the request", c->where);
		goto out;
	}
	rc = c->cu->easy_perform(c->curl);
	if (rc == CURLE_OPERATION_TIMEDOUT) {
		timed_out(err, c, limit, run);
		goto out;
	}
	if (rc != CURLE_OK) {
		cpl_error_set(err, NULL, 0, 0, "prometheus %s: %s", c->where,
			      c->errbuf[0] ? c->errbuf :
			      c->cu->easy_strerror(rc));
		goto out;
	}
	c->cu->easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
	j = json_loadb(cpl_buf_str(&body), body.len, 0, NULL);
	data = json_object_get(j, "data");
	if (code != 200 || j == NULL ||
	    strcmp(json_string_value(json_object_get(j, "status")) ?
		   json_string_value(json_object_get(j, "status")) : "",
		   "success") != 0 ||
	    !json_is_array(json_object_get(data, "result"))) {
		answer_error(err, c, code, &body);
		goto out;
	}
	*result = json_incref(json_object_get(data, "result"));
	ret = 0;
out:
	json_decref(j);
	cpl_buf_free(&url);
	cpl_buf_free(&body);
	return ret;
}

static struct entry *
entry_of(struct cpl_prometheus *p, const char *ns, const char *pod,
	 const char *container)
{
	char *key = cpl_xasprintf("%s/%s/%s", ns, pod, container);
	uintptr_t at = (uintptr_t)cpl_strmap_get(&p->by_key, key);
	struct entry *e;

	if (at) {
		free(key);
		return &p->items[at - 1];
	}
	CPL_GROW(p->items, p->cap, p->n + 1);
	e = &p->items[p->n++];
	memset(e, 0, sizeof(*e));
	e->key = key;
	e->s.namespace = cpl_xstrdup(ns);
	e->s.pod = cpl_xstrdup(pod);
	e->s.container = cpl_xstrdup(container);
	cpl_strmap_put(&p->by_key, e->key, (void *)(uintptr_t)p->n);
	return e;
}

/*
 * Stores each sample of a vector result as metric m of its container, as
 * Prometheus answered it (+Inf, a negative or a huge figure included: the
 * caller judges the range).  A throttled share of NaN is 0/0, no CFS
 * periods in the window: not a share at all.
 */
static void
take(struct cpl_prometheus *p, json_t *result, int m)
{
	size_t i;
	json_t *r;

	json_array_foreach(result, i, r) {
		json_t *lab = json_object_get(r, "metric");
		const char *ns = json_string_value(json_object_get(lab,
							"namespace"));
		const char *pod = json_string_value(json_object_get(lab,
							"pod"));
		const char *ct = json_string_value(json_object_get(lab,
							"container"));
		const char *v = json_string_value(json_array_get(
			json_object_get(r, "value"), 1));
		struct entry *e;
		char *end;
		double d;

		if (ns == NULL || pod == NULL || ct == NULL || v == NULL)
			continue;
		d = strtod(v, &end);
		if (end == v || *end != '\0' || (m == 0 && d != d))
			continue;	/* junk; NaN (0/0 periods) */
		e = entry_of(p, ns, pod, ct);
		if (m == 0) {
			e->s.throttled_ratio = d;
			e->s.has_throttled = true;
		} else if (m == 1) {
			e->s.cpu = d;
			e->s.has_cpu = true;
		} else {
			e->s.threads = d;
			e->s.has_threads = true;
		}
	}
}

/* The entries of one namespace, gathered into the terms of its queries. */
struct nsq {
	struct term *terms;
	size_t nterms, terms_cap;
	const char **names;		/* every term's pods, then containers */
	size_t nnames, names_cap;
};

/* A term over names[from, from + npods) and, when ncontainers, the
 * containers after them (offsets until nsq_fix()). */
static void
nsq_term(struct nsq *q, size_t from, size_t npods, size_t ncontainers,
	 long window)
{
	struct term *t;

	CPL_GROW(q->terms, q->terms_cap, q->nterms + 1);
	t = &q->terms[q->nterms++];
	t->pods = (const char *const *)(uintptr_t)from;
	t->npods = npods;
	t->containers = ncontainers ? (const char *const *)(uintptr_t)
				      (from + npods) : NULL;
	t->ncontainers = ncontainers;
	t->window = window;
}

/* Turns the terms' offsets into pointers, once names stops growing. */
static void
nsq_fix(struct nsq *q)
{
	size_t i;

	for (i = 0; i < q->nterms; i++) {
		struct term *t = &q->terms[i];

		t->pods = q->names + (uintptr_t)t->pods;
		if (t->containers)
			t->containers = q->names + (uintptr_t)t->containers;
	}
}

static void
nsq_name(struct nsq *q, const char *name)
{
	CPL_GROW(q->names, q->names_cap, q->nnames + 1);
	q->names[q->nnames++] = name;
}

/*
 * The terms for the entries at idx (n of them, one namespace): per window
 * (in order of first appearance), one term for the whole Pods and one per
 * Pod measured container by container.  Terms never share a container,
 * so their union ("or") is each container once, over its own window.
 */
static void
nsq_build(struct nsq *q, const struct cpl_prometheus_pod *pods,
	  const size_t *idx, size_t n, double window_s, bool *used)
{
	size_t a, b, k;

	memset(used, 0, n * sizeof(*used));
	for (a = 0; a < n; a++) {
		const struct cpl_prometheus_pod *pa = &pods[idx[a]];
		long w = window_of(pa->window_s > 0 ? pa->window_s : window_s);
		size_t from = q->nnames;

		if (used[a])
			continue;
		/* The whole Pods over window w. */
		for (b = a; b < n; b++) {
			const struct cpl_prometheus_pod *pb = &pods[idx[b]];

			if (used[b] || pb->container ||
			    window_of(pb->window_s > 0 ? pb->window_s :
				      window_s) != w)
				continue;
			used[b] = true;
			nsq_name(q, pb->name);
		}
		if (q->nnames > from)
			nsq_term(q, from, q->nnames - from, 0, w);
		/* Pods measured container by container, over window w. */
		for (b = a; b < n; b++) {
			const struct cpl_prometheus_pod *pb = &pods[idx[b]];

			if (used[b] || !pb->container ||
			    window_of(pb->window_s > 0 ? pb->window_s :
				      window_s) != w)
				continue;
			from = q->nnames;
			nsq_name(q, pb->name);
			for (k = b; k < n; k++) {
				const struct cpl_prometheus_pod *pk =
					&pods[idx[k]];

				if (used[k] || !pk->container ||
				    strcmp(pk->name, pb->name) != 0 ||
				    window_of(pk->window_s > 0 ? pk->window_s :
					      window_s) != w)
					continue;
				used[k] = true;
				nsq_name(q, pk->container);
			}
			nsq_term(q, from, 1, q->nnames - from - 1, w);
		}
	}
	nsq_fix(q);
}

/* The three queries for one namespace's terms (each the union of its
 * terms), their answers stored in p. */
static int
query_ns(struct cpl_prometheus *p, struct prom_conn *c, const char *ns,
	 const struct nsq *q, struct cpl_error *err)
{
	static const char *const metrics[] = { "throttled", "cpu",
					       "threads" };
	int m;

	for (m = 0; m < 3; m++) {
		struct cpl_buf b;
		json_t *result;
		size_t i;
		int rc;

		cpl_buf_init(&b, 0);
		for (i = 0; i < q->nterms; i++) {
			if (i)
				cpl_buf_adds(&b, " or ");
			if (q->nterms > 1)
				cpl_buf_addc(&b, '(');
			add_term(&b, metrics[m], ns, &q->terms[i]);
			if (q->nterms > 1)
				cpl_buf_addc(&b, ')');
		}
		rc = instant(&result, c, cpl_buf_str(&b), 0, err);
		cpl_buf_free(&b);
		if (rc < 0)
			return -1;
		take(p, result, m);
		json_decref(result);
	}
	return 0;
}

int
cpl_prometheus_query(struct cpl_prometheus **out,
		     const struct cpl_prometheus_opts *o,
		     const struct cpl_prometheus_pod *pods, size_t n,
		     double window_s, struct cpl_error *err)
{
	struct cpl_prometheus *p = cpl_xcalloc(1, sizeof(*p));
	struct prom_conn c = { 0 };
	size_t *idx = cpl_xcalloc(n + 1, sizeof(*idx));
	bool *done = cpl_xcalloc(n + 1, sizeof(*done));
	bool *used = cpl_xcalloc(n + 1, sizeof(*used));
	size_t i, j, k;
	int rc = 0;

	*out = NULL;
	c.o = o;
	c.where = public_url(o->url);
	c.deadline = o->run_left_ms > 0 ? now_ms() + o->run_left_ms : 0;
	if (cpl_curlso_load(&c.cu, err) < 0 || conn_setup(&c, err) < 0) {
		rc = -1;
		goto out;
	}
	/* One round of queries per namespace, for all its entries. */
	for (i = 0; i < n && rc == 0; i++) {
		struct nsq q = { 0 };

		if (done[i])
			continue;
		for (j = i, k = 0; j < n; j++)
			if (!done[j] && strcmp(pods[j].namespace,
					       pods[i].namespace) == 0) {
				idx[k++] = j;
				done[j] = true;
			}
		nsq_build(&q, pods, idx, k, window_s, used);
		rc = query_ns(p, &c, pods[i].namespace, &q, err);
		free(q.terms);
		free(q.names);
	}
out:
	if (c.curl)
		c.cu->easy_cleanup(c.curl);
	free(c.where);
	free(idx);
	free(done);
	free(used);
	if (rc < 0) {
		cpl_prometheus_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

void
cpl_prometheus_free(struct cpl_prometheus *p)
{
	size_t i;

	if (p == NULL)
		return;
	cpl_strmap_free(&p->by_key);
	for (i = 0; i < p->n; i++) {
		free(p->items[i].key);
		free((char *)p->items[i].s.namespace);
		free((char *)p->items[i].s.pod);
		free((char *)p->items[i].s.container);
	}
	free(p->items);
	free(p);
}

const struct cpl_prometheus_series *
cpl_prometheus_find(const struct cpl_prometheus *p, const char *namespace,
		    const char *pod, const char *container)
{
	char *key;
	uintptr_t at;

	if (p == NULL || namespace == NULL || pod == NULL ||
	    container == NULL)
		return NULL;
	key = cpl_xasprintf("%s/%s/%s", namespace, pod, container);
	at = (uintptr_t)cpl_strmap_get(&p->by_key, key);
	free(key);
	return at ? &p->items[at - 1].s : NULL;
}

/*
 * One sample's value: 0 with *d, 1 for Prometheus's "NaN" (no figure,
 * such as a share of 0/0), -1 when it is not a number at all ("abc").
 */
static int
sample(double *d, const char *v)
{
	char *end;

	if (v == NULL)
		return -1;
	if (strcmp(v, "NaN") == 0)
		return 1;
	*d = strtod(v, &end);
	return end == v || *end != '\0' || *d != *d ? -1 : 0;
}

int
cpl_prometheus_value(double *out, bool *has,
		     const struct cpl_prometheus_opts *o, const char *q,
		     double at, struct cpl_error *err)
{
	struct prom_conn c = { 0 };
	json_t *result = NULL, *x;
	bool junk = false;
	double d;
	size_t i;
	int rc = -1, k;

	*out = 0;
	*has = false;
	c.o = o;
	c.where = public_url(o->url);
	c.deadline = o->run_left_ms > 0 ? now_ms() + o->run_left_ms : 0;
	if (cpl_curlso_load(&c.cu, err) < 0 || conn_setup(&c, err) < 0 ||
	    instant(&result, &c, q, at, err) < 0)
		goto out;
	if (json_array_size(result) == 2 &&
	    json_is_number(json_array_get(result, 0))) {
		/* a scalar: [time, "value"] */
		k = sample(&d, json_string_value(json_array_get(result, 1)));
		junk = k < 0;
		if (k == 0) {
			*out = d;
			*has = true;
		}
	} else {
		json_array_foreach(result, i, x) {
			k = sample(&d, json_string_value(json_array_get(
				json_object_get(x, "value"), 1)));
			junk = junk || k < 0;
			if (k == 0) {
				*out += d;
				*has = true;
			}
		}
	}
	if (junk) {
		*out = NAN;
		*has = true;
	}
	rc = 0;
out:
	json_decref(result);
	if (c.curl)
		c.cu->easy_cleanup(c.curl);
	free(c.where);
	return rc;
}

int
cpl_prometheus_counter(double *used, double *covered, bool *has,
		       const struct cpl_prometheus_opts *o, const char *q,
		       double at, struct cpl_error *err)
{
	struct prom_conn c = { 0 };
	json_t *result = NULL, *x, *pt;
	double first = 0, last = 0, d, prev = 0, t;
	bool junk = false, any = false;
	size_t i, j;
	int rc = -1;

	*used = *covered = 0;
	*has = false;
	c.o = o;
	c.where = public_url(o->url);
	c.deadline = o->run_left_ms > 0 ? now_ms() + o->run_left_ms : 0;
	if (cpl_curlso_load(&c.cu, err) < 0 || conn_setup(&c, err) < 0 ||
	    instant(&result, &c, q, at, err) < 0)
		goto out;
	json_array_foreach(result, i, x) {
		json_array_foreach(json_object_get(x, "values"), j, pt) {
			t = json_number_value(json_array_get(pt, 0));
			if (!json_is_number(json_array_get(pt, 0)) ||
			    !isfinite(t) || sample(&d, json_string_value(
				    json_array_get(pt, 1))) != 0) {
				junk = true;
				continue;
			}
			if (!any || t < first)
				first = t;
			if (!any || t > last)
				last = t;
			any = true;
			/* a counter: a fall is a reset, from 0 */
			if (j > 0)
				*used += d >= prev ? d - prev : d;
			prev = d;
		}
	}
	if (junk) {
		*used = NAN;
		*has = true;
	} else if (any && last > first) {
		*covered = last - first;
		*has = true;
	}
	rc = 0;
out:
	json_decref(result);
	if (c.curl)
		c.cu->easy_cleanup(c.curl);
	free(c.where);
	return rc;
}
