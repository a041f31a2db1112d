/*
 * wbuf.c — the buffered writer of the reporters (see wbuf.h).
 *
 * Invariant: over a FILE, data never holds CPL_WBUF_SIZE bytes or more
 * between calls (a fuller buffer is written at once, and a piece at least
 * that large goes straight to the FILE after what was buffered); after a
 * failure nothing more is written and len stays 0.  Nothing here prints.
 * Ownership: the writer owns its buffer (freed by cpl_wbuf_finish or
 * cpl_wbuf_take, which hands it over); the FILE is borrowed.
 */
#include "report/wbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
cpl_wbuf_init(struct cpl_wbuf *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->fd = out ? fileno(out) : -1;
}

/* Remembers the first failure. */
static void
fail(struct cpl_wbuf *w)
{
	w->failed = true;
	w->error = errno ? errno : EIO;
}

/* Writes n bytes out unless a write failed before. */
static void
put(struct cpl_wbuf *w, const void *p, size_t n)
{
	const char *c = p;

	if (w->failed || n == 0)
		return;
	errno = 0;
	if (w->fd < 0) {
		if (fwrite(p, 1, n, w->out) != n)
			fail(w);
		return;
	}
	/* What the FILE buffered before goes first. */
	if (fflush(w->out) != 0) {
		fail(w);
		return;
	}
	while (n > 0) {
		ssize_t k = write(w->fd, c, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			fail(w);
			return;
		}
		c += k;
		n -= (size_t)k;
	}
}

/* Writes out what is buffered. */
static void
drain(struct cpl_wbuf *w)
{
	put(w, w->data, w->len);
	w->len = 0;
}

void
cpl_wbuf_add(struct cpl_wbuf *w, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (w->out == NULL) {
		w->data = cpl_xgrow_to(w->data, &w->cap, w->len + n + 1, 1);
		memcpy(w->data + w->len, p, n);
		w->len += n;
		w->data[w->len] = '\0';
		return;
	}
	if (w->failed)
		return;
	if (w->data == NULL) {
		w->data = cpl_xmalloc(CPL_WBUF_SIZE);
		w->cap = CPL_WBUF_SIZE;
	}
	if (w->len + n > w->cap)
		drain(w);
	if (n >= w->cap) {
		put(w, p, n);
		return;
	}
	memcpy(w->data + w->len, p, n);
	w->len += n;
	if (w->len == w->cap)
		drain(w);
}

char *
cpl_wbuf_reserve(struct cpl_wbuf *w, size_t n)
{
	if (w->out == NULL) {
		w->data = cpl_xgrow_to(w->data, &w->cap, w->len + n + 1, 1);
		return w->data + w->len;
	}
	if (w->failed || n >= CPL_WBUF_SIZE)
		return NULL;
	if (w->data == NULL) {
		w->data = cpl_xmalloc(CPL_WBUF_SIZE);
		w->cap = CPL_WBUF_SIZE;
	}
	if (w->len + n > w->cap)
		drain(w);
	return w->failed ? NULL : w->data + w->len;
}

void
cpl_wbuf_wrote(struct cpl_wbuf *w, size_t n)
{
	w->len += n;
	if (w->out == NULL)
		w->data[w->len] = '\0';
	else if (w->len == w->cap)
		drain(w);
}

void
cpl_wbuf_adds(struct cpl_wbuf *w, const char *s)
{
	cpl_wbuf_add(w, s, strlen(s));
}

void
cpl_wbuf_addc(struct cpl_wbuf *w, char c)
{
	if (w->out && w->data && w->len + 1 < w->cap) {
		w->data[w->len++] = c;	/* the common case, kept short */
		return;
	}
	cpl_wbuf_add(w, &c, 1);
}

void
cpl_wbuf_addf(struct cpl_wbuf *w, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		cpl_wbuf_add(w, small, (size_t)n);
	} else {
		char *big;

		va_start(ap, fmt);
		big = cpl_xvasprintf(fmt, ap);
		va_end(ap);
		cpl_wbuf_add(w, big, (size_t)n);
		free(big);
	}
}

void
cpl_wbuf_pad(struct cpl_wbuf *w, size_t n)
{
	static const char spaces[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		cpl_wbuf_add(w, spaces, k);
		n -= k;
	}
}

char *
cpl_wbuf_take(struct cpl_wbuf *w, size_t *len)
{
	char *s = cpl_xmalloc(w->len + 1);

	if (w->len)
		memcpy(s, w->data, w->len);
	s[w->len] = '\0';
	*len = w->len;
	w->len = 0;
	return s;
}

int
cpl_wbuf_finish(struct cpl_wbuf *w)
{
	int rc;

	if (w->out) {
		drain(w);
		errno = 0;
		if (!w->failed && (fflush(w->out) != 0 || ferror(w->out)))
			fail(w);
	}
	rc = w->failed ? -1 : 0;
	if (w->failed)
		errno = w->error;
	cpl_wbuf_free(w);
	return rc;
}

void
cpl_wbuf_free(struct cpl_wbuf *w)
{
	if (w == NULL)
		return;
	free(w->data);
	w->data = NULL;
	w->len = 0;
	w->cap = 0;
}
