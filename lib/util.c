/*
 * util.c — allocation that aborts on exhaustion, the capped string buffer,
 * error records, whole-file reading.  Nothing here prints except the abort
 * message for out-of-memory.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

static void
oom(size_t size)
{
	fprintf(stderr, "kubectl-cpulint: out of memory (%zu bytes)\n", size);
	abort();
}

void *
cpl_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		oom(size);
	return p;
}

void *
cpl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		oom(n * size);
	return p;
}

void *
cpl_xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (q == NULL)
		oom(size);
	return q;
}

void *
cpl_xgrow_to(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return p;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			oom(SIZE_MAX);
		n *= 2;
	}
	p = cpl_xrealloc(p, n * elem);
	*cap = n;
	return p;
}

char *
cpl_xstrdup(const char *s)
{
	return s ? cpl_xstrndup(s, strlen(s)) : NULL;
}

char *
cpl_xstrndup(const char *s, size_t n)
{
	char *p = cpl_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* The conversion at fmt (after its '%'): its length in fmt, or 0 when
 * cpl_vformat() leaves it to vsnprintf(). */
static size_t
conversion(const char *fmt)
{
	switch (fmt[0]) {
	case 's': case 'c': case 'd': case 'u': case '%':
		return 1;
	case 'l':
		if (fmt[1] == 'd' || fmt[1] == 'u')
			return 2;
		return fmt[1] == 'l' && fmt[2] == 'd' ? 3 : 0;
	case 'z':
		return fmt[1] == 'u' ? 2 : 0;
	case '.':
		return fmt[1] == '*' && fmt[2] == 's' ? 3 : 0;
	default:
		return 0;
	}
}

/* Appends s[0, n) to out (size bytes), counted in *len whether it fits
 * or not, as vsnprintf() counts. */
static void
put(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len < size) {
		size_t room = size - *len;

		memcpy(out + *len, s, n < room ? n : room);
	}
	*len += n;
}

/* The decimal digits of v (and its sign), written backwards from end. */
static char *
decimal(char *end, unsigned long long v, bool minus)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (minus)
		*--end = '-';
	return end;
}

int
cpl_vformat(char *out, size_t size, const char *fmt, va_list ap)
{
	const char *f;
	size_t len = 0, k;
	char num[24];

	for (f = fmt; (f = strchr(f, '%')) != NULL; f += 1 + k)
		if ((k = conversion(f + 1)) == 0)
			return vsnprintf(out, size, fmt, ap);
	for (f = fmt; *f; ) {
		const char *pct = strchr(f, '%'), *s;
		long long v;
		unsigned long long u;
		int prec;

		if (pct == NULL) {
			put(out, size, &len, f, strlen(f));
			break;
		}
		put(out, size, &len, f, (size_t)(pct - f));
		f = pct + 1 + conversion(pct + 1);
		switch (pct[1]) {
		case '%':
			put(out, size, &len, "%", 1);
			continue;
		case 's':
			s = va_arg(ap, const char *);
			if (s == NULL)
				s = "(null)";
			put(out, size, &len, s, strlen(s));
			continue;
		case '.':
			prec = va_arg(ap, int);
			s = va_arg(ap, const char *);
			if (s == NULL)
				s = "(null)";
			put(out, size, &len, s, prec < 0 ? strlen(s) :
			    strnlen(s, (size_t)prec));
			continue;
		case 'c':
			num[0] = (char)va_arg(ap, int);
			put(out, size, &len, num, 1);
			continue;
		case 'd':
			v = va_arg(ap, int);
			break;
		case 'u':
			u = va_arg(ap, unsigned int);
			s = decimal(num + sizeof(num), u, false);
			put(out, size, &len, s,
			    (size_t)(num + sizeof(num) - s));
			continue;
		case 'z':
			u = va_arg(ap, size_t);
			s = decimal(num + sizeof(num), u, false);
			put(out, size, &len, s,
			    (size_t)(num + sizeof(num) - s));
			continue;
		default:	/* 'l': ld, lu, lld */
			if (pct[2] == 'u') {
				u = va_arg(ap, unsigned long);
				s = decimal(num + sizeof(num), u, false);
				put(out, size, &len, s,
				    (size_t)(num + sizeof(num) - s));
				continue;
			}
			v = pct[2] == 'l' ? va_arg(ap, long long) :
					    va_arg(ap, long);
			break;
		}
		/* A signed value: its magnitude as unsigned (LLONG_MIN
		 * too). */
		u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
		s = decimal(num + sizeof(num), u, v < 0);
		put(out, size, &len, s, (size_t)(num + sizeof(num) - s));
	}
	if (size > 0)
		out[len < size ? len : size - 1] = '\0';
	return len > INT_MAX ? -1 : (int)len;
}

int
cpl_format(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = cpl_vformat(out, size, fmt, ap);
	va_end(ap);
	return n;
}

char *
cpl_xvasprintf(const char *fmt, va_list ap)
{
	char small[256], *s;
	va_list aq;
	int n;

	/* Most strings are short: one formatting into the stack, then a
	 * copy of the right size; a longer one is formatted again. */
	va_copy(aq, ap);
	n = cpl_vformat(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0)
		return cpl_xstrdup("");
	s = cpl_xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof(small))
		memcpy(s, small, (size_t)n + 1);
	else
		cpl_vformat(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *
cpl_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

#define BUF_DEFAULT_MAX ((size_t)64 << 20)

void
cpl_buf_init(struct cpl_buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

static bool
buf_reserve(struct cpl_buf *b, size_t n)
{
	size_t max = b->max ? b->max : BUF_DEFAULT_MAX;

	if (b->len + n + 1 > max || b->len + n < b->len) {
		b->overflow = true;
		return false;
	}
	b->data = cpl_xgrow_to(b->data, &b->cap, b->len + n + 1, 1);
	return true;
}

void
cpl_buf_add_pct(struct cpl_buf *b, const char *s, const char *keep)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~' ||
		    (keep != NULL && strchr(keep, *p) != NULL)) {
			cpl_buf_addc(b, (char)*p);
		} else {
			cpl_buf_addc(b, '%');
			cpl_buf_addc(b, hex[*p >> 4]);
			cpl_buf_addc(b, hex[*p & 15]);
		}
	}
}

void
cpl_buf_add(struct cpl_buf *b, const void *p, size_t n)
{
	/* Nothing to add may come as (NULL, 0): an empty buffer's data. */
	if (n == 0)
		return;
	if (!buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
cpl_buf_adds(struct cpl_buf *b, const char *s)
{
	cpl_buf_add(b, s, strlen(s));
}

void
cpl_buf_addc(struct cpl_buf *b, char c)
{
	cpl_buf_add(b, &c, 1);
}

void
cpl_buf_vaddf(struct cpl_buf *b, const char *fmt, va_list ap)
{
	char *at = NULL;
	size_t room = 0;
	va_list aq;
	int n;

	if (b->data != NULL && b->cap > b->len) {	/* always, with data */
		at = b->data + b->len;
		room = b->cap - b->len;
	}
	/* Formats into the room already there; only a string that does not
	 * fit is measured and formatted again after growing. */
	va_copy(aq, ap);
	n = vsnprintf(at, room, fmt, aq);
	va_end(aq);
	if (n < 0) {
		if (at != NULL)
			*at = '\0';
		return;
	}
	if ((size_t)n < room) {
		size_t max = b->max ? b->max : BUF_DEFAULT_MAX;

		if (b->len + (size_t)n + 1 <= max) {
			b->len += (size_t)n;
			return;
		}
		*at = '\0';	/* past the cap: dropped */
		b->overflow = true;
		return;
	}
	if (at != NULL)
		*at = '\0';
	if (!buf_reserve(b, (size_t)n))
		return;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
cpl_buf_addf(struct cpl_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cpl_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void
cpl_buf_reset(struct cpl_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
	b->overflow = false;
}

char *
cpl_buf_detach(struct cpl_buf *b)
{
	char *s = b->data ? b->data : cpl_xstrdup("");
	size_t max = b->max;

	cpl_buf_init(b, max);
	return s;
}

void
cpl_buf_free(struct cpl_buf *b)
{
	if (b == NULL)
		return;
	free(b->data);
	cpl_buf_init(b, b->max);
}

const char *
cpl_buf_str(const struct cpl_buf *b)
{
	return b->data ? b->data : "";
}

void
cpl_error_set(struct cpl_error *err, const char *path, int line, int column,
	      const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	cpl_error_clear(err);
	err->path = cpl_xstrdup(path);
	err->line = line;
	err->column = column;
	va_start(ap, fmt);
	err->message = cpl_xvasprintf(fmt, ap);
	va_end(ap);
}

void
cpl_error_clear(struct cpl_error *err)
{
	if (err == NULL)
		return;
	free(err->path);
	free(err->message);
	memset(err, 0, sizeof(*err));
}

char *
cpl_error_format(const struct cpl_error *err)
{
	struct cpl_buf b;

	cpl_buf_init(&b, 0);
	if (err->path) {
		cpl_buf_adds(&b, err->path);
		if (err->line > 0) {
			cpl_buf_addf(&b, ":%d", err->line);
			if (err->column > 0)
				cpl_buf_addf(&b, ":%d", err->column);
		}
		cpl_buf_adds(&b, ": ");
	}
	cpl_buf_adds(&b, err->message ? err->message : "unknown error");
	return cpl_buf_detach(&b);
}

int
cpl_read_open(const char *path, size_t max, size_t *size,
	      struct cpl_error *err)
{
	struct stat st;
	int fd;

	*size = 0;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		cpl_error_set(err, path, 0, 0, "cannot read: %s",
			      strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		cpl_error_set(err, path, 0, 0, "cannot read: %s",
			      strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		cpl_error_set(err, path, 0, 0, "is a directory");
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		cpl_error_set(err, path, 0, 0, "not a regular file (%s)",
			      S_ISFIFO(st.st_mode) ? "a FIFO" :
			      S_ISSOCK(st.st_mode) ? "a socket" :
			      S_ISCHR(st.st_mode) ? "a character device" :
			      S_ISBLK(st.st_mode) ? "a block device" :
			      "not a file");
		goto fail;
	}
	if ((uintmax_t)st.st_size > max) {
		cpl_error_set(err, path, 0, 0,
			      "file is too large (%jd bytes; the limit is %zu)",
			      (intmax_t)st.st_size, max);
		goto fail;
	}
	*size = (size_t)st.st_size;
	return fd;
fail:
	close(fd);
	return -1;
}

int
cpl_read_fd(char **out, size_t *len, int fd, size_t size, const char *path,
	    size_t max, struct cpl_error *err)
{
	char *data = NULL;
	size_t n = 0, cap = 0;
	int rc = -1;

	*out = NULL;
	*len = 0;
	/* Regular files: one allocation of the right size (+1 to see EOF). */
	if (size > 0) {
		cap = size + 2;
		data = cpl_xmalloc(cap);
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap)
			data = cpl_xgrow_to(data, &cap, n + 65536 + 1, 1);
		r = read(fd, data + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cpl_error_set(err, path, 0, 0, "cannot read: %s",
				      strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			cpl_error_set(err, path, 0, 0,
				      "file is too large (over %zu bytes)", max);
			goto out;
		}
		/* The size fstat() gave, in a read asked for one byte
		 * more: the end, without a read to see it (a syscall per
		 * file saved; a file still growing is read as it was). */
		if (n == size && n + 1 < cap)
			break;
	}
	if (data == NULL)
		data = cpl_xmalloc(1);
	data[n] = '\0';
	if (memchr(data, '\0', n < 8192 ? n : 8192) != NULL) {
		cpl_error_set(err, path, 0, 0,
			      "binary file (NUL byte in the first 8 KiB)");
		goto out;
	}
	*out = data;
	*len = n;
	data = NULL;
	rc = 0;
out:
	free(data);
	close(fd);
	return rc;
}

int
cpl_read_file(char **out, size_t *len, const char *path, size_t max,
	      struct cpl_error *err)
{
	size_t size;
	int fd;

	*out = NULL;
	*len = 0;
	fd = cpl_read_open(path, max, &size, err);
	if (fd < 0)
		return -1;
	return cpl_read_fd(out, len, fd, size, path, max, err);
}

int
cpl_parse_long(long *out, const char *s)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s)
		return -1;
	*out = v;
	return 0;
}

bool
cpl_str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

bool
cpl_str_starts(const char *s, const char *prefix)
{
	if (s == NULL)
		return false;
	/* A loop, not strlen + strncmp: most calls differ at the first
	 * byte (the scanner asks a name against lists of prefixes). */
	while (*prefix != '\0')
		if (*s++ != *prefix++)
			return false;
	return true;
}

bool
cpl_str_ends(const char *s, const char *suffix)
{
	size_t n, m;

	if (s == NULL)
		return false;
	n = strlen(s);
	m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

void
cpl_format_duration(char *out, size_t size, double seconds)
{
	double s = seconds > 0 ? seconds : 0;

	if (s < 120)
		cpl_format(out, size, "%ld s", (long)s);
	else if (s < 7200)
		cpl_format(out, size, "%ld min", (long)(s / 60));
	else if (s < 172800)
		cpl_format(out, size, "%ld h", (long)(s / 3600));
	else
		cpl_format(out, size, "%ld days", (long)(s / 86400));
}

bool
cpl_has_control(const char *s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
			return true;
	return false;
}

/* Eight bytes at p as one word (any alignment). */
static inline uint64_t
word_at(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/* Spreads every bit of h over the low bits, which index the tables. */
static inline uint64_t
mix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xD6E8FEB86659FD93ULL;
	h ^= h >> 32;
	return h;
}

uint64_t
cpl_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, w;

	for (; n >= 8; n -= 8, s += 8)
		h = (h ^ word_at(s)) * 0xFF51AFD7ED558CCDULL;
	if (n > 0) {
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
	}
	return mix(h);
}

uint64_t
cpl_hash_str(const char *s)
{
	return cpl_hash(s, strlen(s));
}

/* The slot of key (hash h) in m: where it is, or the empty slot where
 * it would go. */
static struct cpl_strmap_slot *
strmap_slot(const struct cpl_strmap *m, const char *key, uint64_t h)
{
	size_t i;

	for (i = h & (m->cap - 1); m->slots[i].key;
	     i = (i + 1) & (m->cap - 1))
		if (m->slots[i].hash == h && strcmp(m->slots[i].key, key) == 0)
			break;
	return &m->slots[i];
}

const char *
cpl_strmap_put(struct cpl_strmap *m, const char *key, void *value)
{
	uint64_t h = cpl_hash_str(key);
	struct cpl_strmap_slot *slot;
	size_t i;

	if ((m->count + 1) * 2 > m->cap) {
		struct cpl_strmap n = { .own_keys = m->own_keys };

		n.cap = m->cap ? m->cap * 2 : 8;	/* most maps are small */
		n.slots = cpl_xcalloc(n.cap, sizeof(*n.slots));
		n.count = m->count;
		/* Keys are distinct and hashes kept: placed, not compared. */
		for (i = 0; i < m->cap; i++) {
			size_t j;

			if (m->slots[i].key == NULL)
				continue;
			for (j = m->slots[i].hash & (n.cap - 1);
			     n.slots[j].key; j = (j + 1) & (n.cap - 1))
				;
			n.slots[j] = m->slots[i];
		}
		free(m->slots);
		*m = n;
	}
	slot = strmap_slot(m, key, h);
	if (slot->key == NULL) {
		slot->key = m->own_keys ? cpl_xstrdup(key) : key;
		slot->hash = h;
		m->count++;
	}
	slot->value = value;
	return slot->key;
}

void *
cpl_strmap_get(const struct cpl_strmap *m, const char *key)
{
	if (m->cap == 0 || key == NULL)
		return NULL;
	return strmap_slot(m, key, cpl_hash_str(key))->value;
}

void
cpl_strmap_free(struct cpl_strmap *m)
{
	bool own;
	size_t i;

	if (m == NULL)
		return;
	own = m->own_keys;
	for (i = 0; own && i < m->cap; i++)
		free((char *)m->slots[i].key);
	free(m->slots);
	memset(m, 0, sizeof(*m));
	m->own_keys = own;
}

/* ---- redaction -------------------------------------------------------- */

/* The end of a URL's userinfo ('@') when p starts "scheme://user@", else
 * NULL; *host receives where the host begins. */
static const char *
userinfo_at(const char *p, const char **host)
{
	const char *q = p, *at;
	size_t n;

	while (isalnum((unsigned char)*q) || *q == '+' || *q == '-' ||
	       *q == '.')
		q++;
	if (q == p || strncmp(q, "://", 3) != 0)
		return NULL;
	q += 3;
	n = strcspn(q, "/?#@ \t\r\n\"'<>");
	at = q + n;
	if (*at != '@')
		return NULL;
	*host = q;
	return at;
}

char *
cpl_url_without_userinfo(const char *url)
{
	const char *host, *at = url ? userinfo_at(url, &host) : NULL;

	if (url == NULL)
		return NULL;
	if (at == NULL)
		return cpl_xstrdup(url);
	return cpl_xasprintf("%.*s%s", (int)(host - url), url, at + 1);
}

char *
cpl_redact(const char *text, const char *const *secrets)
{
	struct cpl_buf b;
	const char *p = text;

	if (text == NULL)
		return NULL;
	cpl_buf_init(&b, 0);
	while (*p) {
		const char *host, *at = NULL;
		size_t i, hit = 0;

		/* A URL's userinfo, where a scheme starts. */
		if (isalpha((unsigned char)*p) &&
		    (p == text || !isalnum((unsigned char)p[-1])))
			at = userinfo_at(p, &host);
		if (at) {
			cpl_buf_add(&b, p, (size_t)(host - p));
			cpl_buf_adds(&b, "[redacted]@");
			p = at + 1;
			continue;
		}
		for (i = 0; secrets && secrets[i]; i++) {
			size_t n = strlen(secrets[i]);

			if (n >= 4 && strncmp(p, secrets[i], n) == 0 &&
			    n > hit)
				hit = n;
		}
		if (hit) {
			cpl_buf_adds(&b, "[redacted]");
			p += hit;
			continue;
		}
		cpl_buf_addc(&b, *p++);
	}
	return cpl_buf_detach(&b);
}
