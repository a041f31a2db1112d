/*
 * util.h — allocation, growable buffers and errors shared by every module.
 *
 * One out-of-memory policy: the cpl_x* allocators abort with a message, so
 * callers never check for NULL.  One string builder, struct cpl_buf, with a
 * size cap.  One error record, struct cpl_error, filled by the callee and
 * owned by the caller (free its strings with cpl_error_clear()).
 */
#ifndef CPL_UTIL_H
#define CPL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define CPL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CPL_PRINTF(f, a)
#endif

void *cpl_xmalloc(size_t size);
void *cpl_xcalloc(size_t n, size_t size);
void *cpl_xrealloc(void *p, size_t size);
/* p (holding *cap elements of size elem) grown to hold at least need,
 * doubling; returns it (moved or not) and updates *cap.  Aborts on
 * overflow or exhaustion. */
void *cpl_xgrow_to(void *p, size_t *cap, size_t need, size_t elem);
/* Grows the typed array a (cap elements) to hold need, as git's
 * ALLOC_GROW: CPL_GROW(v->items, v->cap, v->n + 1). */
#define CPL_GROW(a, cap, need) \
	((a) = cpl_xgrow_to((a), &(cap), (need), sizeof(*(a))))
char *cpl_xstrdup(const char *s);		/* NULL in, NULL out */
char *cpl_xstrndup(const char *s, size_t n);
char *cpl_xasprintf(const char *fmt, ...) CPL_PRINTF(1, 2);
char *cpl_xvasprintf(const char *fmt, va_list ap) CPL_PRINTF(1, 0);
/*
 * vsnprintf() and snprintf(), the same bytes out and the same count
 * back, without stdio's machinery for the conversions messages use:
 * %s (NULL as "(null)"), %.*s, %c, %d, %ld, %lld, %u, %lu, %zu and %%,
 * with no flags or widths.  Any other format goes to vsnprintf().
 */
int cpl_vformat(char *out, size_t size, const char *fmt, va_list ap)
	CPL_PRINTF(3, 0);
int cpl_format(char *out, size_t size, const char *fmt, ...)
	CPL_PRINTF(3, 4);

/*
 * A growable NUL-terminated byte buffer.  Zero-initialise or use
 * cpl_buf_init(); data is NULL until the first append.  Appends past max
 * (0 = 64 MiB) are dropped and set the overflow flag.  The caller owns data:
 * free with cpl_buf_free() or take it with cpl_buf_detach().
 */
struct cpl_buf {
	char *data;
	size_t len;
	size_t cap;
	size_t max;
	bool overflow;
};

void cpl_buf_init(struct cpl_buf *b, size_t max);
void cpl_buf_add(struct cpl_buf *b, const void *p, size_t n);
void cpl_buf_adds(struct cpl_buf *b, const char *s);
void cpl_buf_addc(struct cpl_buf *b, char c);
/* Appends s percent-encoded as curl_easy_escape() does (every byte but
 * letters, digits, "-", ".", "_" and "~" becomes %XX), but keeps the
 * bytes of keep (NULL: none) as they are ("/" for a URL's path). */
void cpl_buf_add_pct(struct cpl_buf *b, const char *s, const char *keep);
void cpl_buf_addf(struct cpl_buf *b, const char *fmt, ...) CPL_PRINTF(2, 3);
void cpl_buf_vaddf(struct cpl_buf *b, const char *fmt, va_list ap)
	CPL_PRINTF(2, 0);
void cpl_buf_reset(struct cpl_buf *b);
/* Returns the string (never NULL: "" when empty); the buffer is reset. */
char *cpl_buf_detach(struct cpl_buf *b);
void cpl_buf_free(struct cpl_buf *b);
/* The contents as a string, "" when empty; borrowed. */
const char *cpl_buf_str(const struct cpl_buf *b);

/*
 * An error: where (path, 1-based line and column, 0 when unknown) and what.
 * Filled by cpl_error_set(); strings owned by the record.
 */
struct cpl_error {
	char *path;
	int line;
	int column;
	char *message;
};

void cpl_error_set(struct cpl_error *err, const char *path, int line,
		   int column, const char *fmt, ...) CPL_PRINTF(5, 6);
void cpl_error_clear(struct cpl_error *err);	/* NULL-safe */
/* "path:line:col: message" (parts that are unknown are left out); caller frees. */
char *cpl_error_format(const struct cpl_error *err);

/*
 * Reads a whole file.  Fails (with err set, no position) when it cannot be
 * opened, is a directory or anything else but a regular file (a FIFO is
 * refused at once, never waited on), is larger than max bytes, or holds a
 * NUL byte in its first 8 KiB (binary).  *out is NUL-terminated; caller frees.
 */
int cpl_read_file(char **out, size_t *len, const char *path, size_t max,
		  struct cpl_error *err);
/*
 * cpl_read_file() in two steps, for a caller that needs the size before
 * the bytes (pipeline.c's parsing budget) without a stat() of the path
 * besides: cpl_read_open() opens path and returns the descriptor, with
 * *size the regular file's size, or fails as cpl_read_file() would (-1,
 * err set, nothing left open); cpl_read_fd() reads that descriptor,
 * closes it, and fails as cpl_read_file() would.
 */
int cpl_read_open(const char *path, size_t max, size_t *size,
		  struct cpl_error *err);
int cpl_read_fd(char **out, size_t *len, int fd, size_t size,
		const char *path, size_t max, struct cpl_error *err);

/*
 * Saturating arithmetic for counts (ranks, threads, workers, millicores):
 * a result past INT64_MAX is INT64_MAX, never a wrapped negative, so a
 * huge count in the input is reported as huge instead of lost.  Operands
 * are expected to be >= 0.
 */
static inline int64_t
cpl_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

static inline int64_t
cpl_sat_mul(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* A hash of n bytes, eight at a time, and of a NUL-terminated string:
 * the one hash every table in the project uses (its low bits are mixed
 * from all of it: tables index with a mask). */
uint64_t cpl_hash(const void *p, size_t n);
uint64_t cpl_hash_str(const char *s);

/* Strict decimal parse of a whole string into *out; -1 on junk or range. */
int cpl_parse_long(long *out, const char *s);

/*
 * A string-keyed hash map (open addressing).  Zero-initialised, keys are
 * borrowed and must outlive the map; initialised with .own_keys = true
 * (git's STRING_LIST_INIT_DUP), the map copies each key on its first put
 * and frees the copies in cpl_strmap_free(), so the caller may pass a
 * key it frees or reuses at once.  Values are opaque and never freed.
 * cpl_strmap_free() frees the table (and owned keys) and leaves an empty
 * map that may be used again, owning its keys as before.
 */
struct cpl_strmap {
	struct cpl_strmap_slot {
		const char *key;
		void *value;
		uint64_t hash;	/* of key: compared before it, kept for
				 * growing */
	} *slots;
	size_t cap;
	size_t count;
	bool own_keys;	/* keys copied on put, freed with the map */
};

/* Sets key to value, replacing an earlier value; returns the key as the
 * map keeps it (its copy when it owns keys), valid until the map is
 * freed. */
const char *cpl_strmap_put(struct cpl_strmap *m, const char *key,
			   void *value);
void *cpl_strmap_get(const struct cpl_strmap *m, const char *key);
void cpl_strmap_free(struct cpl_strmap *m);

bool cpl_str_eq(const char *a, const char *b);	/* NULL-safe */
/*
 * Never printing a credential.  cpl_redact() returns a copy of text with
 * every occurrence of each secret (NULL-terminated list; NULL, empty and
 * very short entries are skipped, since they would mask ordinary text) and
 * of the userinfo of every URL ("https://user:pass@host" → "https://host")
 * replaced by "[redacted]"; caller frees.  cpl_url_without_userinfo()
 * returns a copy of url without its "user:pass@" part; caller frees.
 */
char *cpl_redact(const char *text, const char *const *secrets);
char *cpl_url_without_userinfo(const char *url);
/*
 * Whether s (n bytes; NULL: none) holds a control character: a byte below
 * 0x20 (CR, LF and tab included) or DEL.  A credential that holds one is
 * refused wherever it is read: sent in a header, a CR LF in it would end
 * the header and add others.
 */
bool cpl_has_control(const char *s, size_t n);

/* A duration for people, rounded down: "45 s", "10 min", "5 h", "3 days"
 * (seconds under 2 min, minutes under 2 h, hours under 2 days). */
void cpl_format_duration(char *out, size_t size, double seconds);

bool cpl_str_starts(const char *s, const char *prefix);
bool cpl_str_ends(const char *s, const char *suffix);

#endif
