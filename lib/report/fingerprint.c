/*
 * fingerprint.c — line hashes (GitHub's) and findings' fingerprints; see
 * fingerprint.h for what each is and why it is stable.  The paths of
 * fingerprints are made relative to the source root lexically, never
 * through the file system, so they depend only on the arguments.
 */
#include "report/fingerprint.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/render_int.h"

#define HASH_BLOCK	100	/* characters each line hash covers */
#define HASH_BASE	37
#define HASH_EOF	0xffff	/* the end-of-text marker code unit */

#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

/* The line hashes of one file: hash[i] and count[i] are for line i+1. */
struct linehash {
	char *file;			/* which file; NULL: none yet */
	bool ok;			/* the text was available */
	uint64_t *hash;
	unsigned *count;
	size_t nlines;
	uint64_t *own;			/* the line's own text (own_hashes) */
	unsigned *own_count;
	size_t nown;
};

struct cpl_report_prints {
	const struct cpl_report_meta *meta;	/* borrowed */
	char *cwd;			/* absolute, normalised; NULL */
	char *root;			/* srcroot, absolute, normalised */
	struct linehash lines;		/* cache: findings come by file */
	char *at_file;			/* the place of keys[] */
	int at_line;
	uint64_t *keys;			/* keys met at that place */
	size_t nkeys;
	size_t cap;
};

/*
 * Normalises an absolute path lexically: no "." or ".." segments, no
 * doubled or trailing slashes ("/" stays "/").  Caller frees.
 */
static char *
path_normalise(const char *path)
{
	struct cpl_buf b;
	const char *p = path, *seg;
	size_t n;

	cpl_buf_init(&b, 0);
	while (*p) {
		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (b.len > 0 && b.data[b.len - 1] != '/')
				b.len--;
			if (b.len > 0)
				b.len--;	/* the slash before it */
			if (b.data)
				b.data[b.len] = '\0';
			continue;
		}
		cpl_buf_addc(&b, '/');
		cpl_buf_add(&b, seg, n);
	}
	if (b.len == 0)
		cpl_buf_addc(&b, '/');
	return cpl_buf_detach(&b);
}

char *
cpl_report_path_absolute(const char *base, const char *path)
{
	char *joined, *norm;

	if (path[0] == '/' || base == NULL)
		return path_normalise(path);
	joined = cpl_xasprintf("%s/%s", base, path);
	norm = path_normalise(joined);
	free(joined);
	return norm;
}

/* The rolling hash over a window of code units (fingerprints.ts). */
struct roller {
	uint16_t window[HASH_BLOCK];
	int start[HASH_BLOCK];	/* line starting at this slot; 0: none */
	uint64_t hash;
	uint64_t first_mod;		/* HASH_BASE ^ HASH_BLOCK */
	size_t index;
	int line;
	bool line_start;
	bool prev_cr;
	struct linehash *lh;
	size_t cap;
};

/* Records the current hash as the hash of the line that starts here. */
static void
roll_output(struct roller *r)
{
	struct linehash *lh = r->lh;

	CPL_GROW(lh->hash, r->cap, lh->nlines + 1);
	lh->hash[lh->nlines++] = r->hash;
	r->start[r->index] = 0;
}

/* Shifts c into the window. */
static void
roll_update(struct roller *r, uint16_t c)
{
	uint16_t old = r->window[r->index];

	r->window[r->index] = c;
	r->hash = HASH_BASE * r->hash + c - r->first_mod * old;
	r->index = (r->index + 1) % HASH_BLOCK;
}

/* Feeds one UTF-16 code unit of the text. */
static void
roll_char(struct roller *r, uint16_t c)
{
	if (c == ' ' || c == '\t' || (r->prev_cr && c == '\n')) {
		r->prev_cr = false;
		return;
	}
	r->prev_cr = c == '\r';
	if (c == '\r')
		c = '\n';
	if (r->start[r->index])
		roll_output(r);
	if (r->line_start) {
		r->line_start = false;
		r->start[r->index] = ++r->line;
	}
	if (c == '\n')
		r->line_start = true;
	roll_update(r, c);
}

/* Orders (hash, line index) pairs by hash, then by line. */
static int
cmp_hash_line(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The n-th of n hashes equal to h[i] (in order) gets n; caller frees. */
static unsigned *
occurrences(const uint64_t *h, size_t n)
{
	unsigned *count = cpl_xcalloc(n ? n : 1, sizeof(*count));
	uint64_t (*pairs)[2] = cpl_xcalloc(n ? n : 1, sizeof(*pairs));
	unsigned run = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		pairs[i][0] = h[i];
		pairs[i][1] = i;
	}
	qsort(pairs, n, sizeof(*pairs), cmp_hash_line);
	for (i = 0; i < n; i++) {
		run = i > 0 && pairs[i][0] == pairs[i - 1][0] ? run + 1 : 1;
		count[pairs[i][1]] = run;
	}
	free(pairs);
	return count;
}

/*
 * The findings' own line hashes: FNV-1a over the line's bytes but
 * spaces, tabs and CR (so re-indenting keeps it), and the occurrence of
 * each among the file's lines.  Unlike GitHub's, which reads 100
 * characters on past the line's end, an edit to the next line leaves it.
 */
static void
own_hashes(struct linehash *lh, const char *text, size_t len)
{
	size_t i, cap = 0;
	uint64_t h = FNV_OFFSET;

	for (i = 0; i <= len; i++) {
		unsigned char c = i < len ? (unsigned char)text[i] : '\n';

		if (c == '\n') {
			if (i == len && (len == 0 || text[len - 1] == '\n'))
				break;	/* no line after the last LF */
			CPL_GROW(lh->own, cap, lh->nown + 1);
			lh->own[lh->nown++] = h;
			h = FNV_OFFSET;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			h = (h ^ c) * FNV_PRIME;
		}
	}
	lh->own_count = occurrences(lh->own, lh->nown);
}

/* Fills lh with the hash and occurrence count of every line of text. */
static void
line_hashes(struct linehash *lh, const char *text, size_t len)
{
	struct roller *r = cpl_xcalloc(1, sizeof(*r));
	size_t i = 0, adv;

	r->lh = lh;
	r->line_start = true;
	r->first_mod = 1;
	for (i = 0; i < HASH_BLOCK; i++)
		r->first_mod *= HASH_BASE;
	for (i = 0; i < len; i += adv) {
		uint32_t cp = cpl_report_utf8_next(&adv, text + i, len - i);

		if (cp >= 0x10000) {
			cp -= 0x10000;
			roll_char(r, (uint16_t)(0xd800 + (cp >> 10)));
			roll_char(r, (uint16_t)(0xdc00 + (cp & 0x3ff)));
		} else {
			roll_char(r, (uint16_t)cp);
		}
	}
	roll_char(r, HASH_EOF);
	for (i = 0; i < HASH_BLOCK; i++) {
		if (r->start[r->index])
			roll_output(r);
		roll_update(r, 0);
	}
	free(r);
	lh->count = occurrences(lh->hash, lh->nlines);
	own_hashes(lh, text, len);
}

/* Forgets the cached line hashes. */
static void
linehash_clear(struct linehash *lh)
{
	free(lh->file);
	free(lh->hash);
	free(lh->count);
	free(lh->own);
	free(lh->own_count);
	memset(lh, 0, sizeof(*lh));
}

/* The cached hashes of file: false when its text is unknown. */
static bool
load(struct cpl_report_prints *p, const char *file)
{
	struct linehash *lh = &p->lines;

	if (p->meta == NULL || p->meta->source_text == NULL || file == NULL)
		return false;
	if (!cpl_str_eq(lh->file, file)) {
		const char *text;
		size_t len = 0;

		linehash_clear(lh);
		lh->file = cpl_xstrdup(file);
		text = p->meta->source_text(p->meta->source_ctx, file,
					     &len);
		if (text) {
			lh->ok = true;
			line_hashes(lh, text, len);
		}
	}
	return lh->ok;
}

char *
cpl_report_prints_line(struct cpl_report_prints *p, const char *file,
		       int line)
{
	struct linehash *lh = &p->lines;

	if (line <= 0 || !load(p, file) || (size_t)line > lh->nlines)
		return NULL;
	return cpl_xasprintf("%" PRIx64 ":%u", lh->hash[line - 1],
			     lh->count[line - 1]);
}

/* "hex:n" of the line's own text, or NULL.  Caller frees. */
static char *
own_line(struct cpl_report_prints *p, const char *file, int line)
{
	struct linehash *lh = &p->lines;

	if (line <= 0 || !load(p, file) || (size_t)line > lh->nown)
		return NULL;
	return cpl_xasprintf("%" PRIx64 ":%u", lh->own[line - 1],
			     lh->own_count[line - 1]);
}

/* Feeds s and its terminating NUL into the FNV-1a hash h. */
static uint64_t
fnv_str(uint64_t h, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	do {
		h ^= *p;
		h *= FNV_PRIME;
	} while (*p++);
	return h;
}

struct cpl_report_prints *
cpl_report_prints_new(const struct cpl_report_meta *meta)
{
	struct cpl_report_prints *p = cpl_xcalloc(1, sizeof(*p));
	char *cwd = getcwd(NULL, 0);

	p->meta = meta;
	if (cwd) {
		p->cwd = path_normalise(cwd);
		free(cwd);
	}
	if (meta && meta->srcroot)
		p->root = cpl_report_path_absolute(p->cwd, meta->srcroot);
	else
		p->root = cpl_xstrdup(p->cwd ? p->cwd : "/");
	return p;
}

void
cpl_report_prints_free(struct cpl_report_prints *p)
{
	if (p == NULL)
		return;
	linehash_clear(&p->lines);
	free(p->cwd);
	free(p->root);
	free(p->at_file);
	free(p->keys);
	free(p);
}

char *
cpl_report_relpath(const char *cwd, const char *root, const char *file)
{
	char *abs_root = cpl_report_path_absolute(cwd, root);
	char *abs = cpl_report_path_absolute(cwd ? cwd : abs_root, file);
	size_t n = strlen(abs_root);
	char *rel = NULL;

	if (strcmp(abs_root, "/") == 0 && abs[1] != '\0')
		rel = cpl_xstrdup(abs + 1);
	else if (strncmp(abs, abs_root, n) == 0 && abs[n] == '/' &&
		 abs[n + 1] != '\0')
		rel = cpl_xstrdup(abs + n + 1);
	free(abs);
	free(abs_root);
	return rel;
}

char *
cpl_report_prints_finding(struct cpl_report_prints *p,
			  const struct cpl_finding *f)
{
	uint64_t h = FNV_OFFSET;
	char *where = NULL, *lh = NULL;
	unsigned k = 1;
	size_t i;

	if (f->file && strcmp(f->file, CPL_REPORT_STDIN) != 0) {
		char *rel = cpl_report_relpath(p->cwd, p->root, f->file);

		where = rel ? rel :
			cpl_report_path_absolute(p->cwd ? p->cwd : p->root,
						 f->file);
		lh = own_line(p, f->file, f->line);
	} else if (f->file) {
		where = cpl_xstrdup(f->file);
	}
	if (lh == NULL && f->file)
		lh = cpl_xasprintf("line %d", f->line);
	h = fnv_str(h, f->rule ? f->rule->id : "");
	h = fnv_str(h, where);
	h = fnv_str(h, lh);
	h = fnv_str(h, f->object);
	h = fnv_str(h, f->container);
	/* k: the same key met before at this same place. */
	if (!cpl_str_eq(p->at_file, f->file) || p->at_line != f->line) {
		free(p->at_file);
		p->at_file = f->file ? cpl_xstrdup(f->file) : NULL;
		p->at_line = f->line;
		p->nkeys = 0;
	}
	for (i = 0; i < p->nkeys; i++)
		k += p->keys[i] == h;
	CPL_GROW(p->keys, p->cap, p->nkeys + 1);
	p->keys[p->nkeys++] = h;
	free(where);
	free(lh);
	return cpl_xasprintf("%016" PRIx64 ":%u", h, k);
}

const char *
cpl_report_prints_root(const struct cpl_report_prints *p)
{
	return p->root;
}
