/*
 * pytokcache.c — the tokens of a scanned Python file after its scan
 * (cpl_pyfile_toks, pyscan.h) and the cache that bounds them
 * (pytokcache.h).
 *
 * The scan frees its token array when the facts are read (pyscan.c).  On
 * first use afterwards the text is tokenized again: the tokenizer is a
 * function of the text, so the array is the one the scan indexed, token
 * for token, a tokenizer error included (the scan keeps the tokens read
 * past an error and so does this); the count is checked all the same.
 *
 * This is the only state of a scanned file that changes through a const
 * file: struct cpl_pyindex's toks, captoks, the cache's links (the index
 * is the file's private, non-const part).  The facts never change.
 *
 * The cache keeps the arrays its files hold in a list, newest use first;
 * a trim frees from the old end.  Every file attached is in an array
 * too (its slot in ix->tokslot), so that freeing the cache can let go of
 * files that hold nothing at the time.  Nothing here locks: a scan on a
 * worker only reads its own file's tokens, which it holds, and files are
 * attached, remade and trimmed on the engine's thread.
 *
 * Owns the remade arrays (with their files) and the cache's own arrays.
 */
#include "python/pytokcache.h"

#include <stdlib.h>
#include <string.h>

#include "python/pyscan_int.h"

struct cpl_pytokcache {
	size_t budget;			/* bytes kept past a trim */
	size_t bytes;			/* bytes held now */
	size_t made;			/* arrays made again */
	struct cpl_pyindex *head;	/* the array used last */
	struct cpl_pyindex *tail;	/* the array used longest ago */
	struct cpl_pyindex **files;	/* every file attached */
	size_t nfiles, capfiles;
};

/* Bytes of ix's array. */
static size_t
held(const struct cpl_pyindex *ix)
{
	return ix->captoks * sizeof(*ix->toks);
}

/* Takes ix off c's list of held arrays. */
static void
lru_unlink(struct cpl_pytokcache *c, struct cpl_pyindex *ix)
{
	if (ix->lru_prev)
		ix->lru_prev->lru_next = ix->lru_next;
	else
		c->head = ix->lru_next;
	if (ix->lru_next)
		ix->lru_next->lru_prev = ix->lru_prev;
	else
		c->tail = ix->lru_prev;
	ix->lru_prev = ix->lru_next = NULL;
}

/* Puts ix at the newest end of c's list. */
static void
lru_push(struct cpl_pytokcache *c, struct cpl_pyindex *ix)
{
	ix->lru_prev = NULL;
	ix->lru_next = c->head;
	if (c->head)
		c->head->lru_prev = ix;
	else
		c->tail = ix;
	c->head = ix;
}

void
cpl_pyscan_toks_drop(struct cpl_pyindex *ix, bool detach)
{
	struct cpl_pytokcache *c = ix->tokcache;

	if (c != NULL && ix->toks != NULL) {
		lru_unlink(c, ix);
		c->bytes -= held(ix);
	}
	free(ix->toks);
	ix->toks = NULL;
	ix->captoks = 0;
	if (detach && c != NULL) {
		struct cpl_pyindex *last = c->files[--c->nfiles];

		c->files[ix->tokslot] = last;
		last->tokslot = ix->tokslot;
		ix->tokcache = NULL;
	}
}

/* Tokenizes f's text again into an array of exactly f->ntoks slots. */
static void
remake(const struct cpl_pyfile *f, struct cpl_pyindex *ix)
{
	struct cpl_pytokens tk;
	struct cpl_error err = { 0 };

	memset(&tk, 0, sizeof(tk));
	tk.cap = f->ntoks;
	tk.toks = cpl_xmalloc(tk.cap * sizeof(*tk.toks));
	tk.first_line = f->first_line;
	(void)cpl_pytoken_scan(&tk, f->text, f->len, f->path, &err);
	cpl_error_clear(&err);	/* the scan reported it */
	/* Facts index these tokens: any other array would be read wrong. */
	if (tk.count != f->ntoks)
		abort();
	ix->toks = tk.toks;
	ix->captoks = tk.cap;
}

const struct cpl_pytoken *
cpl_pyfile_toks(const struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix = f->index;
	struct cpl_pytokcache *c = ix->tokcache;

	if (ix->toks != NULL) {
		if (c != NULL && c->head != ix) {
			lru_unlink(c, ix);
			lru_push(c, ix);
		}
		return ix->toks;
	}
	remake(f, ix);
	if (c != NULL) {
		lru_push(c, ix);
		c->bytes += held(ix);
		c->made++;
	}
	return ix->toks;
}

struct cpl_pytokcache *
cpl_pytokcache_new(size_t budget)
{
	struct cpl_pytokcache *c = cpl_xcalloc(1, sizeof(*c));

	c->budget = budget;
	return c;
}

void
cpl_pytokcache_free(struct cpl_pytokcache *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nfiles; i++) {
		c->files[i]->tokcache = NULL;
		c->files[i]->lru_prev = c->files[i]->lru_next = NULL;
	}
	free(c->files);
	free(c);
}

void
cpl_pytokcache_attach(struct cpl_pytokcache *c, const struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix;

	if (c == NULL || f == NULL || f->index->tokcache != NULL)
		return;
	ix = f->index;
	CPL_GROW(c->files, c->capfiles, c->nfiles + 1);
	ix->tokslot = c->nfiles;
	c->files[c->nfiles++] = ix;
	ix->tokcache = c;
	if (ix->toks != NULL) {
		lru_push(c, ix);
		c->bytes += held(ix);
	}
}

void
cpl_pytokcache_trim(struct cpl_pytokcache *c)
{
	while (c != NULL && c->bytes > c->budget && c->tail != NULL)
		cpl_pyscan_toks_drop(c->tail, false);
}

size_t
cpl_pytokcache_bytes(const struct cpl_pytokcache *c)
{
	return c ? c->bytes : 0;
}

size_t
cpl_pytokcache_made(const struct cpl_pytokcache *c)
{
	return c ? c->made : 0;
}
