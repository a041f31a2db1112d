/*
 * httpd.h — the HTTPS server of `serve`: libmicrohttpd (loaded at run
 * time, mhdso_int.h) on one listening socket, requests read whole (up to a
 * cap) and handed to one handler, certificate and key reloaded when
 * their files change, a graceful stop.
 *
 * Bounds, whatever the clients do: at most max_conns connections at
 * once (more wait in the kernel's backlog), at most per_ip of them from
 * one address (more are closed at once, so one client cannot take them
 * all); a connection idle for timeout_s seconds is closed, and so is
 * one that has not sent a whole request head header_s seconds after it
 * was opened (or after its last answer), or whose request is not read
 * and answered request_s seconds after its head (a slow client, one
 * header line or body byte at a time, cannot hold a connection); a
 * request body past max_body is read and dropped (the handler sees
 * too_large and answers 413), and the bodies held by all connections
 * together never pass max_bodies (a request that would take them past
 * it is read and dropped: the handler sees busy and answers 503);
 * headers past libmicrohttpd's 32 KiB per-connection memory get
 * 431/413 from the library itself.  Requests run on a pool of threads;
 * the handler must be thread-safe.
 *
 * Reload: the listening socket is ours, so a new daemon with the new
 * pair takes it over (the old one stops accepting, and is stopped after
 * its requests are done, at the next reload check or the stop); a pair
 * that does not load is refused and the old one keeps serving.
 *
 * Ownership: the server owns its daemons, socket and PEM texts; each
 * answer's body is taken by the server once the handler returns.
 * May include: util.h, http/.
 */
#ifndef CPL_HTTPD_H
#define CPL_HTTPD_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* One request, read whole; borrowed for the handler's call. */
struct cpl_http_request {
	const char *method;		/* "GET", "POST" ... */
	const char *url;		/* the path, without the query */
	const char *body;		/* NUL-terminated; "" when none */
	size_t len;
	bool too_large;			/* the body passed max_body: dropped */
	bool busy;			/* all bodies held passed max_bodies:
					 * this one was dropped */
	const char *content_type;	/* NULL when not sent */
};

/* The handler's answer. */
struct cpl_http_answer {
	unsigned status;		/* 200, 400 ... */
	const char *content_type;	/* static text */
	char *body;			/* malloc'ed; the server frees it */
	size_t len;
};

typedef void (*cpl_http_handler_fn)(void *ctx,
				    const struct cpl_http_request *rq,
				    struct cpl_http_answer *ans);

struct cpl_httpd_opts {
	const char *listen;		/* "ADDR:PORT", "[::]:8443", ":8443" */
	const char *cert_file;		/* PEM certificate (chain) */
	const char *key_file;		/* PEM private key */
	size_t max_body;		/* 0: 8 MiB */
	size_t max_bodies;		/* all bodies held at once; 0: 32 MiB */
	unsigned threads;		/* 0: 4 */
	unsigned max_conns;		/* 0: 256 */
	unsigned per_ip;		/* connections from one address; 0: 96 */
	unsigned timeout_s;		/* idle; 0: 10 */
	unsigned header_s;		/* to read a request head; 0: 10 */
	unsigned request_s;		/* head to answer sent; 0: 30 */
	cpl_http_handler_fn handler;
	void *ctx;
};

struct cpl_httpd;

/*
 * Binds opts->listen, loads the pair and starts serving.  -1 with err
 * (bad address, port in use, unreadable or invalid pair, no
 * libmicrohttpd).
 */
int cpl_httpd_start(struct cpl_httpd **out, const struct cpl_httpd_opts *o,
		    struct cpl_error *err);

/* The port the server listens on (useful with port 0). */
unsigned cpl_httpd_port(const struct cpl_httpd *h);

/*
 * Stops the daemons that an earlier reload retired, then looks at the
 * certificate and key files: when either changed (inode, size or time,
 * as a Secret volume's swap changes them), serves the new pair.
 * Returns 1 when the new pair serves, 0 when nothing changed, -1 with
 * err when the new pair was refused (the old one still serves).
 */
int cpl_httpd_reload(struct cpl_httpd *h, struct cpl_error *err);

/* Requests being answered now. */
unsigned cpl_httpd_active(const struct cpl_httpd *h);

/* Bytes of request bodies held now (all connections). */
size_t cpl_httpd_held(const struct cpl_httpd *h);

/*
 * Stops accepting, waits up to grace_ms for the requests being answered,
 * then stops and frees everything.  NULL-safe.
 */
void cpl_httpd_stop(struct cpl_httpd *h, long grace_ms);

/* Parses "ADDR:PORT" into a socket address (for messages and tests);
 * -1 with err. */
int cpl_httpd_parse_listen(const char *text, void *sa, unsigned *salen,
			   struct cpl_error *err);

#endif
