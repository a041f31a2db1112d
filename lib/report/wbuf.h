/*
 * wbuf.h — the buffered writer every reporter writes through.
 *
 * Bytes collect in a 64 KiB buffer and go to the FILE in whole blocks, so
 * a report costs one write per 64 KiB, not one per finding or line.  When
 * the FILE has a descriptor the blocks go straight to it with write(2)
 * (after flushing anything the FILE still held), as stdio would split
 * each block in two; otherwise (a memory stream) through fwrite.  The
 * first failed write is remembered (later bytes are dropped) and reported
 * by cpl_wbuf_finish, which also flushes the FILE: a full disk still ends
 * in an error.  With no FILE the writer keeps every byte in memory (a
 * growable buffer) for the caller to take: SARIF serialises results that
 * way before it knows which it keeps.
 *
 * The struct is plain data so reporters can embed it; only the functions
 * here touch its fields.  The FILE is borrowed, the buffer owned.
 */
#ifndef CPL_REPORT_WBUF_H
#define CPL_REPORT_WBUF_H

#include <stdbool.h>
#include <stdio.h>

#include "util.h"

/* Bytes buffered before a write. */
#define CPL_WBUF_SIZE	(64 * 1024)

/* A buffered writer over out, or an in-memory buffer when out is NULL. */
struct cpl_wbuf {
	FILE *out;		/* borrowed; NULL: memory only */
	int fd;			/* out's descriptor, or -1: use fwrite */
	char *data;		/* owned */
	size_t len;		/* bytes in data not yet written */
	size_t cap;
	int error;		/* errno of the first failure, or 0 */
	bool failed;		/* a write failed: the rest is dropped */
};

/* Starts a writer over out (NULL: memory); nothing is allocated yet. */
void cpl_wbuf_init(struct cpl_wbuf *w, FILE *out);
void cpl_wbuf_add(struct cpl_wbuf *w, const void *p, size_t n);
void cpl_wbuf_adds(struct cpl_wbuf *w, const char *s);
void cpl_wbuf_addc(struct cpl_wbuf *w, char c);
void cpl_wbuf_addf(struct cpl_wbuf *w, const char *fmt, ...) CPL_PRINTF(2, 3);
/* n spaces. */
void cpl_wbuf_pad(struct cpl_wbuf *w, size_t n);
/* Room for n more bytes (n < CPL_WBUF_SIZE) after what is buffered, to
 * be written in place and then counted with cpl_wbuf_wrote(w, n) (the
 * writers' short pieces, without a call per piece).  NULL once a write
 * failed: the bytes are dropped, as cpl_wbuf_add() drops them. */
char *cpl_wbuf_reserve(struct cpl_wbuf *w, size_t n);
void cpl_wbuf_wrote(struct cpl_wbuf *w, size_t n);
/*
 * Memory mode: a copy of the bytes collected (NUL-terminated, *len set),
 * and the writer emptied for the next piece.  Caller frees.
 */
char *cpl_wbuf_take(struct cpl_wbuf *w, size_t *len);
/*
 * Writes what is buffered and flushes out; frees the buffer.  Returns 0,
 * or -1 when any write or the flush failed (errno is set from the first
 * failure).  The writer may be used again after cpl_wbuf_init.
 */
int cpl_wbuf_finish(struct cpl_wbuf *w);
/* Frees the buffer without writing it; NULL is fine. */
void cpl_wbuf_free(struct cpl_wbuf *w);

#endif
