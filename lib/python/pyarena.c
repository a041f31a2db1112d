/*
 * pyarena.c — the memory and the maps behind the private index of a
 * scanned Python file (pyscan_int.h).
 *
 * The arena holds the strings and small arrays of the facts: requests are
 * cut from chunks that start at 2 KiB and double up to 32 KiB (a larger
 * request gets a chunk of its own), so a small file's facts do not hold
 * 32 KiB each for the whole run; strings are packed (no alignment) and
 * everything is freed at once with the file.  The maps go from (namespace,
 * name) to an int by open addressing with linear probing, keys borrowed
 * from the file's text or arena; a map grows past 70% load.  A map
 * keeps one bit of each key's hash it was given (64 bits): a lookup of
 * a name whose bit is clear (most names a call is looked up by are not
 * imports) answers without a probe.
 *
 * Owns the chunks of an arena and the slots of a map, not the keys.
 */
#include "python/pyscan_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------ */

/* A block of the arena. */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used;
	size_t size;
	max_align_t data[];
};

/* n bytes from the arena at a multiple of align (a power of two). */
static void *
take(struct arena_chunk **head, size_t n, size_t align)
{
	struct arena_chunk *c = *head;
	size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;

	if (c == NULL || at > c->size || c->size - at < n) {
		size_t size = c == NULL ? 512 :
			      c->size >= 16384 ? 32768 : c->size * 2;

		if (n > size)
			size = n;

		c = cpl_xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = *head;
		*head = c;
		at = 0;
	}
	c->used = at + n;
	return (char *)c->data + at;
}

/* n bytes from the arena, aligned for any type. */
void *
cpl_pyscan_arena_alloc(struct arena_chunk **head, size_t n)
{
	return take(head, n, sizeof(max_align_t));
}

/* s[0, n) copied into the arena, NUL-terminated. */
char *
cpl_pyscan_arena_strndup(struct arena_chunk **head, const char *s, size_t n)
{
	char *p = take(head, n + 1, 1);	/* strings: packed */

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Room for a string of n characters and its NUL in the arena, packed as
 * cpl_pyscan_arena_strndup()'s; the caller writes it. */
char *
cpl_pyscan_arena_str(struct arena_chunk **head, size_t n)
{
	return take(head, n + 1, 1);
}

/* a, b and c (any may be NULL) joined, in the arena. */
char *
cpl_pyscan_arena_cat(struct arena_chunk **head, const char *a, const char *b,
		     const char *c)
{
	size_t na = a ? strlen(a) : 0, nb = b ? strlen(b) : 0;
	size_t nc = c ? strlen(c) : 0;
	char *p = take(head, na + nb + nc + 1, 1);

	if (na)
		memcpy(p, a, na);
	if (nb)
		memcpy(p + na, b, nb);
	if (nc)
		memcpy(p + na + nb, c, nc);
	p[na + nb + nc] = '\0';
	return p;
}

/* Frees every chunk of an arena. */
void
cpl_pyscan_arena_free(struct arena_chunk *c)
{
	while (c) {
		struct arena_chunk *next = c->next;

		free(c);
		c = next;
	}
}

/* ---- maps: (namespace, name) → int ------------------------------------ */

/* FNV-1a over the key: the part of a key's hash that a lookup of one
 * name in several namespaces makes once (cpl_pyscan_nmap_key()). */
static uint64_t
nhash_key(const char *k, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)k[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* The key's hash with the namespace mixed in, then a 64-bit finaliser
 * so that linear probing sees well-spread slots. */
static uint64_t
nhash_ns(uint64_t h, int ns)
{
	h ^= (uint64_t)(uint32_t)ns * 0x9E3779B97F4A7C15ULL;
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDULL;
	h ^= h >> 33;
	h *= 0xC4CEB9FE1A85EC53ULL;
	return h ^ (h >> 33);
}

/* The bit of a map's seen set that key hash h (nhash_key()'s) stands
 * for: six bits of it multiplied by the golden ratio (FNV-1a's own top
 * bits hardly change with a name's last letters). */
static uint64_t
seen_bit(uint64_t h)
{
	return (uint64_t)1 << ((h * 0x9E3779B97F4A7C15ULL) >> 58);
}

/* The slot holding (ns, k) or the empty slot where it would go; h is
 * nhash_ns()'s low 32 bits, the slot's tag (a table has fewer than 2^32
 * slots, so they are all the bits its index takes from the hash). */
static struct nslot *
nmap_slot(const struct nmap *m, int ns, const char *k, size_t len,
	  uint32_t h)
{
	size_t i = (size_t)h & (m->cap - 1);

	for (;;) {
		struct nslot *s = &m->slots[i];

		if (s->key == NULL || (s->tag == h && s->ns == ns &&
				       s->len == len &&
				       memcmp(s->key, k, len) == 0))
			return s;
		i = (i + 1) & (m->cap - 1);
	}
}

/* The value of (ns, k), -1 when absent. */
int
cpl_pyscan_nmap_get(const struct nmap *m, int ns, const char *k, size_t len)
{
	const struct nslot *s;

	uint64_t kh;

	if (m->cap == 0)
		return -1;
	kh = nhash_key(k, len);
	if (!(m->seen & seen_bit(kh)))
		return -1;
	s = nmap_slot(m, ns, k, len, (uint32_t)nhash_ns(kh, ns));
	return s->key ? s->val : -1;
}

/* k[0, len) with its hash's namespace-free part, for lookups of it in
 * one map or several under several namespaces. */
struct nmap_key
cpl_pyscan_nmap_key(const char *k, size_t len)
{
	struct nmap_key key = { k, len, nhash_key(k, len) };

	return key;
}

/* The value of key in namespace ns, -1 when absent (as
 * cpl_pyscan_nmap_get(), with the key hashed once for all). */
int
cpl_pyscan_nmap_get_key(const struct nmap *m, int ns,
			const struct nmap_key *key)
{
	const struct nslot *s;

	if (m->cap == 0 || !(m->seen & seen_bit(key->h)))
		return -1;
	s = nmap_slot(m, ns, key->s, key->len,
		      (uint32_t)nhash_ns(key->h, ns));
	return s->key ? s->val : -1;
}

/* Moves m's entries into a table of cap slots (a power of two with room
 * for them all); where a key lands never changes what it maps to.  The
 * keys are all different, so each goes to the first empty slot from its
 * tag's index, with neither its hash computed again nor a key compared. */
static void
nmap_rehash(struct nmap *m, size_t cap)
{
	struct nmap to = { NULL, cap, m->n, m->seen };
	size_t i, j;

	to.slots = cpl_xcalloc(to.cap, sizeof(*to.slots));
	for (i = 0; m->n && i < m->cap; i++) {
		const struct nslot *o = &m->slots[i];

		if (o->key == NULL)
			continue;
		for (j = (size_t)o->tag & (cap - 1); to.slots[j].key;
		     j = (j + 1) & (cap - 1))
			;
		to.slots[j] = *o;
	}
	free(m->slots);
	*m = to;
}

/* Grows m to a power of two of at least cap slots. */
void
cpl_pyscan_nmap_reserve(struct nmap *m, size_t cap)
{
	size_t big = m->cap ? m->cap : 64;

	while (big < cap)
		big *= 2;
	if (big > m->cap)
		nmap_rehash(m, big);
}

/* Cuts m to the fewest slots that hold its entries under the load put()
 * keeps (7/10; at least 8), or to none when it is empty. */
void
cpl_pyscan_nmap_fit(struct nmap *m)
{
	size_t cap = 8;

	if (m->n == 0) {
		cpl_pyscan_nmap_free(m);
		return;
	}
	while (m->n * 10 > cap * 7)
		cap *= 2;
	if (cap < m->cap)
		nmap_rehash(m, cap);
}

/* Sets (ns, k) to val; k must outlive the map.  The value it had, -1 when
 * it had none: a get and a put with one hash and one probe. */
int
cpl_pyscan_nmap_set(struct nmap *m, int ns, const char *k, size_t len,
		    int val)
{
	struct nslot *s;
	uint64_t kh = nhash_key(k, len);
	uint32_t h = (uint32_t)nhash_ns(kh, ns);
	int old = -1;

	if ((m->n + 1) * 10 > m->cap * 7)
		cpl_pyscan_nmap_reserve(m, m->cap ? m->cap * 2 : 64);
	m->seen |= seen_bit(kh);
	s = nmap_slot(m, ns, k, len, h);
	if (s->key == NULL)
		m->n++;
	else
		old = s->val;
	s->key = k;
	s->len = (uint32_t)len;
	s->tag = h;
	s->ns = ns;
	s->val = val;
	return old;
}

/* Sets (ns, k) to val; k must outlive the map. */
void
cpl_pyscan_nmap_put(struct nmap *m, int ns, const char *k, size_t len, int val)
{
	(void)cpl_pyscan_nmap_set(m, ns, k, len, val);
}

/* Frees the slots (not the borrowed keys). */
void
cpl_pyscan_nmap_free(struct nmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
