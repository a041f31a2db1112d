/*
 * httpd.c — libmicrohttpd behind one handler (see httpd.h).
 *
 * Invariant: the listening socket is made here and kept; each daemon
 * gets a descriptor of its own for it (dup), which libmicrohttpd may
 * close when the daemon fails to start (a pair that does not load), and
 * which quiescing gives back to be closed here; so a reload never closes
 * the socket and never leaves a moment when nothing listens (the new
 * daemon accepts before the old one stops).  A request's state (struct
 * req) lives from the first call of the access handler to
 * libmicrohttpd's completion callback, which frees it and counts it out
 * of active.  Every connection of every daemon is on h's list (struct
 * conn, from libmicrohttpd's "started" to its "closed" notice, which
 * comes before the library closes the socket) with the time by which it
 * must have done its part; a thread of ours shuts down the socket of one
 * past it, under the list's lock, so it never touches a descriptor that
 * was closed.  held counts the bytes reserved for request bodies (a
 * Content-Length, or a buffer's size).
 */
#include "http/httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "http/mhdso_int.h"

#define PEM_MAX ((size_t)1 << 20)

/* What identifies one version of a file. */
struct stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct cpl_httpd {
	const struct cpl_mhdso *mhd;
	struct cpl_httpd_opts o;
	char *cert_file, *key_file;	/* owned copies */
	int fd;				/* the listening socket */
	unsigned port;
	struct MHD_Daemon *daemon;	/* serving */
	char *cert, *key;		/* its PEM texts */
	struct MHD_Daemon *retired;	/* quiesced by a reload */
	char *rcert, *rkey;
	struct stamp scert, skey;	/* the files as last loaded */
	atomic_uint active;
	atomic_size_t held;		/* bytes reserved for bodies */
	pthread_mutex_t lock;		/* conns, each conn's deadline */
	pthread_cond_t wake;		/* the reaper's sleep; stopping */
	struct conn *conns;
	bool stopping;
	bool reaping;			/* the reaper thread runs */
	pthread_t reaper;
};

/* One open connection and when it must be done with its part. */
struct conn {
	struct conn *prev, *next;
	int fd;
	long long deadline_ms;		/* monotonic */
	bool shut;
};

/* One request's state. */
struct req {
	char *body;
	size_t len, cap;
	size_t charged;			/* bytes counted in held */
	bool too_large, busy;
	bool counted;
};

static long long
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Sets the deadline of conn's connection to seconds from now. */
static void
set_deadline(struct cpl_httpd *h, struct MHD_Connection *conn,
	     unsigned seconds)
{
	const union MHD_ConnectionInfo *ci = h->mhd->get_connection_info(
		conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *c = ci ? ci->socket_context : NULL;

	if (c == NULL)
		return;
	pthread_mutex_lock(&h->lock);
	c->deadline_ms = now_ms() + (long long)seconds * 1000;
	pthread_mutex_unlock(&h->lock);
}

/* libmicrohttpd's notice of a connection opened or closed. */
static void
on_connection(void *cls, struct MHD_Connection *conn, void **sctx,
	      enum MHD_ConnectionNotificationCode toe)
{
	struct cpl_httpd *h = cls;
	struct conn *c = *sctx;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = h->mhd->get_connection_info(
			conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		if (ci == NULL)
			return;
		c = cpl_xcalloc(1, sizeof(*c));
		c->fd = ci->connect_fd;
		pthread_mutex_lock(&h->lock);
		c->deadline_ms = now_ms() + (long long)h->o.header_s * 1000;
		c->next = h->conns;
		if (h->conns)
			h->conns->prev = c;
		h->conns = c;
		pthread_mutex_unlock(&h->lock);
		*sctx = c;
		return;
	}
	if (c == NULL)
		return;
	pthread_mutex_lock(&h->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&h->lock);
	free(c);
	*sctx = NULL;
}

/* Shuts down every connection past its deadline, four times a second,
 * until the server stops. */
static void *
reap(void *arg)
{
	struct cpl_httpd *h = arg;
	struct timespec until;
	struct conn *c;
	long long now;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		now = now_ms();
		for (c = h->conns; c; c = c->next) {
			if (!c->shut && now >= c->deadline_ms) {
				(void)shutdown(c->fd, SHUT_RDWR);
				c->shut = true;
			}
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		(void)pthread_cond_timedwait(&h->wake, &h->lock, &until);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* Counts n more bytes for rq in held; false (nothing counted) when
 * that would pass max_bodies. */
static bool
charge(struct cpl_httpd *h, struct req *rq, size_t n)
{
	if (atomic_fetch_add(&h->held, n) + n > h->o.max_bodies) {
		atomic_fetch_sub(&h->held, n);
		return false;
	}
	rq->charged += n;
	return true;
}

/* Drops rq's body and gives its bytes back. */
static void
drop_body(struct cpl_httpd *h, struct req *rq)
{
	atomic_fetch_sub(&h->held, rq->charged);
	free(rq->body);
	rq->body = NULL;
	rq->len = rq->cap = rq->charged = 0;
}

/*
 * Sets rq up for its body once the head is read: a Content-Length past
 * max_body is too_large at once, and one that would take the bodies
 * held past max_bodies busy at once (nothing of either is kept); else
 * that length is counted now, so a body sent as declared is held in
 * one buffer counted in full.
 */
static void
begin_body(struct cpl_httpd *h, struct req *rq, const char *cl)
{
	long n;

	if (cl == NULL || cpl_parse_long(&n, cl) < 0 || n <= 0)
		return;
	if ((unsigned long)n > h->o.max_body)
		rq->too_large = true;
	else if (!charge(h, rq, (size_t)n + 1))
		rq->busy = true;
}

/*
 * Appends n bytes to rq's body: too_large past max_body, busy when the
 * bytes its buffer would take pass max_bodies with all the others (the
 * body is dropped either way).  The buffer is what was counted (the
 * Content-Length), else doubles, each growth counted before it is made.
 */
static void
add_body(struct cpl_httpd *h, struct req *rq, const char *p, size_t n)
{
	size_t need, cap;

	if (rq->too_large || rq->busy)
		return;
	if (n > h->o.max_body || rq->len + n > h->o.max_body) {
		rq->too_large = true;
		drop_body(h, rq);
		return;
	}
	need = rq->len + n + 1;
	if (need > rq->cap) {
		cap = rq->cap ? rq->cap : rq->charged >= need ? rq->charged :
		      4096;
		while (cap < need)
			cap = cap > h->o.max_body / 2 ? h->o.max_body + 1 :
			      cap * 2;
		if (cap > rq->charged && !charge(h, rq, cap - rq->charged)) {
			rq->busy = true;
			drop_body(h, rq);
			return;
		}
		rq->body = cpl_xrealloc(rq->body, cap);
		rq->cap = cap;
	}
	memcpy(rq->body + rq->len, p, n);
	rq->len += n;
	rq->body[rq->len] = '\0';
}

static void
stamp_of(struct stamp *s, const char *path)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st) != 0)
		return;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->size = st.st_size;
	s->mtime = st.st_mtim;
}

static bool
stamp_same(const struct stamp *a, const struct stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

int
cpl_httpd_parse_listen(const char *text, void *sa, unsigned *salen,
		       struct cpl_error *err)
{
	const char *colon = strrchr(text, ':');
	char host[INET6_ADDRSTRLEN + 1];
	size_t hl;
	char *end;
	long port;

	if (colon == NULL)
		goto bad;
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno || port < 0 ||
	    port > 65535)
		goto bad;
	hl = (size_t)(colon - text);
	if (hl >= 2 && text[0] == '[' && text[hl - 1] == ']') {
		struct sockaddr_in6 *s6 = sa;

		if (hl - 2 >= sizeof(host))
			goto bad;
		memcpy(host, text + 1, hl - 2);
		host[hl - 2] = '\0';
		memset(s6, 0, sizeof(*s6));
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			goto bad;
		*salen = sizeof(*s6);
		return 0;
	}
	{
		struct sockaddr_in *s4 = sa;

		if (hl >= sizeof(host))
			goto bad;
		memcpy(host, text, hl);
		host[hl] = '\0';
		memset(s4, 0, sizeof(*s4));
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (hl == 0)
			s4->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			goto bad;
		*salen = sizeof(*s4);
		return 0;
	}
bad:
	cpl_error_set(err, NULL, 0, 0, "--listen takes ADDR:PORT "
		      "(0.0.0.0:8443, [::]:8443, :8443), not \"%s\"", text);
	return -1;
}

/* Answers with a copy of body. */
static enum MHD_Result
answer(const struct cpl_mhdso *mhd, struct MHD_Connection *conn,
       unsigned status, const char *ctype, const char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = mhd->create_response_from_buffer(len, (void *)body,
					     MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return MHD_NO;
	mhd->add_response_header(r, "Content-Type", ctype);
	mhd->add_response_header(r, "Cache-Control", "no-store");
	ret = mhd->queue_response(conn, status, r);
	mhd->destroy_response(r);
	return ret;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url,
	   const char *method, const char *version, const char *upload,
	   size_t *upload_len, void **con_cls)
{
	struct cpl_httpd *h = cls;
	struct req *rq = *con_cls;
	struct cpl_http_request in;
	struct cpl_http_answer out = { 0 };
	enum MHD_Result ret;

	(void)version;
	if (rq == NULL) {
		rq = cpl_xcalloc(1, sizeof(*rq));
		rq->counted = true;
		atomic_fetch_add(&h->active, 1);
		*con_cls = rq;
		begin_body(h, rq, h->mhd->lookup_connection_value(
			conn, MHD_HEADER_KIND, "Content-Length"));
		/* The head is read: now the body and the answer. */
		set_deadline(h, conn, h->o.request_s);
		return MHD_YES;
	}
	if (*upload_len > 0) {
		add_body(h, rq, upload, *upload_len);
		*upload_len = 0;
		return MHD_YES;
	}
	in.method = method;
	in.url = url;
	in.body = rq->body ? rq->body : "";
	in.len = rq->len;
	in.too_large = rq->too_large;
	in.busy = rq->busy;
	in.content_type = h->mhd->lookup_connection_value(
		conn, MHD_HEADER_KIND, "Content-Type");
	out.status = 500;
	out.content_type = "text/plain; charset=utf-8";
	h->o.handler(h->o.ctx, &in, &out);
	ret = answer(h->mhd, conn, out.status, out.content_type,
		     out.body ? out.body : "", out.body ? out.len : 0);
	free(out.body);
	return ret;
}

static void
on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
	     enum MHD_RequestTerminationCode why)
{
	struct cpl_httpd *h = cls;
	struct req *rq = *con_cls;

	(void)why;
	if (rq == NULL)
		return;
	/* Kept alive: the next request's head is due. */
	set_deadline(h, conn, h->o.header_s);
	if (rq->counted)
		atomic_fetch_sub(&h->active, 1);
	drop_body(h, rq);
	free(rq);
	*con_cls = NULL;
}

/* Reads the pair; -1 with err. */
static int
read_pair(char **cert, char **key, const struct cpl_httpd *h,
	  struct cpl_error *err)
{
	size_t len;

	*cert = *key = NULL;
	if (cpl_read_file(cert, &len, h->cert_file, PEM_MAX, err) < 0)
		return -1;
	if (cpl_read_file(key, &len, h->key_file, PEM_MAX, err) < 0) {
		free(*cert);
		*cert = NULL;
		return -1;
	}
	return 0;
}

/* A daemon on h's socket (a descriptor of its own) with the pair; NULL
 * when it will not start. */
static struct MHD_Daemon *
start_daemon(struct cpl_httpd *h, const char *cert, const char *key)
{
	unsigned flags = MHD_USE_TLS | MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_ITC | MHD_USE_AUTO;
	int fd = fcntl(h->fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return NULL;
	/* On failure the library may have closed fd or not: left alone
	 * (closing it could close a descriptor another thread just got). */
	return h->mhd->start_daemon(flags, 0, NULL, NULL, on_request, h,
		MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
		MHD_OPTION_HTTPS_MEM_CERT, cert,
		MHD_OPTION_HTTPS_MEM_KEY, key,
		MHD_OPTION_THREAD_POOL_SIZE, h->o.threads,
		MHD_OPTION_CONNECTION_LIMIT, h->o.max_conns,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, h->o.per_ip,
		MHD_OPTION_CONNECTION_TIMEOUT, h->o.timeout_s,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_END);
}

/* Stops d from accepting; its descriptor of the socket is closed. */
static void
quiesce(struct cpl_httpd *h, struct MHD_Daemon *d)
{
	MHD_socket fd;

	if (d == NULL)
		return;
	fd = h->mhd->quiesce_daemon(d);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
}

/* The socket, bound and listening; -1 with err. */
static int
listen_on(struct cpl_httpd *h, struct cpl_error *err)
{
	struct sockaddr_storage ss;
	unsigned salen = 0;
	socklen_t len = sizeof(ss);
	int one = 1;

	if (cpl_httpd_parse_listen(h->o.listen, &ss, &salen, err) < 0)
		return -1;
	h->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (h->fd < 0)
		goto fail;
	(void)setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->fd, (struct sockaddr *)&ss, salen) != 0 ||
	    listen(h->fd, 128) != 0 ||
	    getsockname(h->fd, (struct sockaddr *)&ss, &len) != 0)
		goto fail;
	h->port = ntohs(ss.ss_family == AF_INET6 ?
			((struct sockaddr_in6 *)&ss)->sin6_port :
			((struct sockaddr_in *)&ss)->sin_port);
	return 0;
fail:
	cpl_error_set(err, NULL, 0, 0, "cannot listen on %s: %s",
		      h->o.listen, strerror(errno));
	return -1;
}

int
cpl_httpd_start(struct cpl_httpd **out, const struct cpl_httpd_opts *o,
		struct cpl_error *err)
{
	struct cpl_httpd *h = cpl_xcalloc(1, sizeof(*h));

	*out = NULL;
	h->fd = -1;
	h->o = *o;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->wake, NULL);
	if (h->o.max_body == 0)
		h->o.max_body = (size_t)8 << 20;
	if (h->o.max_bodies == 0)
		h->o.max_bodies = (size_t)32 << 20;
	if (h->o.threads == 0)
		h->o.threads = 4;
	if (h->o.max_conns == 0)
		h->o.max_conns = 256;
	if (h->o.per_ip == 0)
		h->o.per_ip = 96;
	if (h->o.timeout_s == 0)
		h->o.timeout_s = 10;
	if (h->o.header_s == 0)
		h->o.header_s = 10;
	if (h->o.request_s == 0)
		h->o.request_s = 30;
	h->cert_file = cpl_xstrdup(o->cert_file);
	h->key_file = cpl_xstrdup(o->key_file);
	h->o.cert_file = h->cert_file;
	h->o.key_file = h->key_file;
	if (cpl_mhdso_load(&h->mhd, err) < 0)
		goto fail;
	stamp_of(&h->scert, h->cert_file);
	stamp_of(&h->skey, h->key_file);
	if (read_pair(&h->cert, &h->key, h, err) < 0)
		goto fail;
	if (listen_on(h, err) < 0)
		goto fail;
	if (pthread_create(&h->reaper, NULL, reap, h) != 0) {
		cpl_error_set(err, NULL, 0, 0, "cannot start a thread");
		goto fail;
	}
	h->reaping = true;
	h->daemon = start_daemon(h, h->cert, h->key);
	if (h->daemon == NULL) {
		cpl_error_set(err, NULL, 0, 0, "cannot serve HTTPS with %s "
			      "and %s: not a PEM certificate and its private "
			      "key", h->cert_file, h->key_file);
		goto fail;
	}
	*out = h;
	return 0;
fail:
	cpl_httpd_stop(h, 0);
	return -1;
}

unsigned
cpl_httpd_port(const struct cpl_httpd *h)
{
	return h->port;
}

unsigned
cpl_httpd_active(const struct cpl_httpd *h)
{
	return atomic_load(&h->active);
}

size_t
cpl_httpd_held(const struct cpl_httpd *h)
{
	return atomic_load(&h->held);
}

/* Stops the daemon an earlier reload retired. */
static void
stop_retired(struct cpl_httpd *h)
{
	if (h->retired)
		h->mhd->stop_daemon(h->retired);
	h->retired = NULL;
	free(h->rcert);
	free(h->rkey);
	h->rcert = h->rkey = NULL;
}

int
cpl_httpd_reload(struct cpl_httpd *h, struct cpl_error *err)
{
	struct stamp sc, sk;
	struct MHD_Daemon *d;
	char *cert = NULL, *key = NULL;

	stop_retired(h);
	stamp_of(&sc, h->cert_file);
	stamp_of(&sk, h->key_file);
	if (stamp_same(&sc, &h->scert) && stamp_same(&sk, &h->skey))
		return 0;
	/* Looked at once per change, whatever the outcome. */
	h->scert = sc;
	h->skey = sk;
	if (read_pair(&cert, &key, h, err) < 0)
		return -1;
	d = start_daemon(h, cert, key);
	if (d == NULL) {
		cpl_error_set(err, NULL, 0, 0, "new %s and %s refused (not a "
			      "PEM certificate and its private key); still "
			      "serving the previous pair", h->cert_file,
			      h->key_file);
		free(cert);
		free(key);
		return -1;
	}
	/* Both accept for a moment; then only the new one. */
	quiesce(h, h->daemon);
	h->retired = h->daemon;
	h->rcert = h->cert;
	h->rkey = h->key;
	h->daemon = d;
	h->cert = cert;
	h->key = key;
	return 1;
}

void
cpl_httpd_stop(struct cpl_httpd *h, long grace_ms)
{
	struct timespec tick = { 0, 20 * 1000000L };
	long waited = 0;

	if (h == NULL)
		return;
	quiesce(h, h->daemon);
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	while (h->daemon && atomic_load(&h->active) > 0 && waited < grace_ms) {
		nanosleep(&tick, NULL);
		waited += 20;
	}
	if (h->daemon)
		h->mhd->stop_daemon(h->daemon);
	stop_retired(h);
	if (h->reaping) {
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->reaper, NULL);
	}
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->wake);
	free(h->cert);
	free(h->key);
	free(h->cert_file);
	free(h->key_file);
	free(h);
}
