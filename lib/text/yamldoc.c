/*
 * yamldoc.c — libyaml events → an arena-allocated node tree.
 *
 * Invariant: every node reachable from a document root lives in the
 * stream's arena; aliases point at the anchored node (shared, not copied),
 * so an alias bomb costs one pointer per alias.  An alias of a container
 * that is still open (one that would contain itself) is an error, as it
 * is for Kubernetes' YAML reader: the tree is a DAG, so a walk down it
 * always ends.  Containers are built on a
 * stack of frames whose growing item lists live on the heap until the
 * container ends, then move into the arena.
 */
#include "text/yamldoc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "text/yamlfast_int.h"

/* ---- arena ------------------------------------------------------------ */

/* Chunks start at 4 KiB and double up to 64 KiB (a larger request gets a
 * chunk of its own): most streams are a small file's, parsed, loaded and
 * freed, and a 64 KiB chunk each was a large allocation of the heap's,
 * dearer to make and free than its small ones. */

struct chunk {
	struct chunk *next;
	size_t used;
	size_t size;
	max_align_t data[];
};

struct arena {
	struct chunk *head;
};

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* A new chunk at the head of a with room for n bytes (arena_alloc_at()'s
 * slow path, out of line so that its fast path inlines). */
static NOINLINE struct chunk *
arena_chunk_new(struct arena *a, size_t n)
{
	struct chunk *c = a->head;
	size_t size = c == NULL ? 4096 : c->size >= 32768 ? 65536 : c->size * 2;

	if (n > size)
		size = n;
	c = cpl_xmalloc(sizeof(*c) + size);
	c->size = size;
	c->used = 0;
	c->next = a->head;
	a->head = c;
	return c;
}

/* n bytes of a, aligned to align (a power of two up to max_align_t's). */
static inline void *
arena_alloc_at(struct arena *a, size_t n, size_t align)
{
	struct chunk *c = a->head;
	size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;

	if (c == NULL || c->size < at || c->size - at < n) {
		c = arena_chunk_new(a, n);
		at = 0;
	}
	c->used = at + n;
	return (char *)c->data + at;
}

/* n bytes of a, aligned for any object. */
static void *
arena_alloc(struct arena *a, size_t n)
{
	return arena_alloc_at(a, n, sizeof(max_align_t));
}

/* A NUL-terminated copy of s[0, n) in a, unaligned: the strings of a
 * stream go in an arena of their own, packed (a one-character scalar
 * takes two bytes, not a max_align_t). */
static char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc_at(a, n + 1, 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static void
arena_free(struct arena *a)
{
	struct chunk *c, *next;

	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}

/* ---- anchors (open addressing, name → node) --------------------------- */

struct anchor {
	const char *name;
	struct cpl_ynode *node;
};

struct anchors {
	struct anchor *slots;
	size_t cap;
	size_t count;
};


static void anchors_put(struct anchors *t, const char *name,
			struct cpl_ynode *node);

static void
anchors_grow(struct anchors *t)
{
	struct anchors n = { 0 };
	size_t i;

	n.cap = t->cap ? t->cap * 2 : 64;
	n.slots = cpl_xcalloc(n.cap, sizeof(*n.slots));
	for (i = 0; i < t->cap; i++)
		if (t->slots[i].name)
			anchors_put(&n, t->slots[i].name, t->slots[i].node);
	free(t->slots);
	*t = n;
}

/* Later anchors with the same name replace earlier ones, as YAML says. */
static void
anchors_put(struct anchors *t, const char *name, struct cpl_ynode *node)
{
	size_t i;

	if ((t->count + 1) * 2 > t->cap)
		anchors_grow(t);
	for (i = cpl_hash_str(name) & (t->cap - 1); t->slots[i].name;
	     i = (i + 1) & (t->cap - 1)) {
		if (strcmp(t->slots[i].name, name) == 0) {
			t->slots[i].node = node;
			return;
		}
	}
	t->slots[i].name = name;
	t->slots[i].node = node;
	t->count++;
}

static struct cpl_ynode *
anchors_get(const struct anchors *t, const char *name)
{
	size_t i;

	if (t->cap == 0)
		return NULL;
	for (i = cpl_hash_str(name) & (t->cap - 1); t->slots[i].name;
	     i = (i + 1) & (t->cap - 1))
		if (strcmp(t->slots[i].name, name) == 0)
			return t->slots[i].node;
	return NULL;
}

/* ---- stream ----------------------------------------------------------- */

struct cpl_ystream {
	struct arena arena;		/* nodes, items, pairs */
	struct arena text;		/* strings: values, tags, anchors */
	struct cpl_ynode **docs;
	size_t ndocs;
	size_t docs_cap;
	char *source;
	size_t source_len;
	struct cpl_error *warnings;	/* duplicate keys, in order */
	size_t nwarnings;
	size_t warnings_cap;
	size_t warnings_dropped;	/* past CPL_YAML_MAX_WARNINGS */
	/* cpl_yaml_parse_at(): lines and columns added to the text's own,
	 * or every node pinned at (dline, dcol). */
	int dline, dcol;
	bool pinned;
};

/* A container under construction: its kids (seq items, or key, value,
 * key, value) are the builder's kids from base up, until it ends. */
struct frame {
	struct cpl_ynode *node;
	size_t base;
	const char *anchor;
};

struct builder {
	struct cpl_ystream *s;
	struct anchors anchors;
	struct frame *stack;
	size_t depth;
	size_t stack_cap;
	size_t open_anchored;	/* frames with an anchor */
	struct cpl_ynode **kids;	/* the open containers' kids, one
					 * stack for all (no heap array
					 * per container) */
	size_t nkids, kids_cap;
	size_t nodes;
	size_t merge_work;	/* merge-key pairs examined, whole stream */
	int fast_r;		/* build_fast()'s, over the batches so far */
	struct cpl_ynode *root;
	const char *path;
	struct cpl_error *err;
	const struct cpl_yplace *at;	/* cpl_yaml_parse_at(), or NULL */
};

static struct cpl_ynode *
new_node(struct builder *b, enum cpl_ykind kind, const yaml_mark_t *m,
	 const yaml_char_t *tag)
{
	struct cpl_ynode *n;

	if (++b->nodes > CPL_YAML_MAX_NODES) {
		cpl_error_set(b->err, b->path, (int)m->line + 1,
			      (int)m->column + 1,
			      "too many YAML nodes (limit %d)",
			      CPL_YAML_MAX_NODES);
		return NULL;
	}
	n = arena_alloc(&b->s->arena, sizeof(*n));
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = (int)m->line + 1;
	n->column = (int)m->column + 1;
	if (b->at != NULL && b->at->pinned) {
		n->line = b->at->line;
		n->column = b->at->column;
	} else if (b->at != NULL) {
		n->line += b->at->line - 1;
		n->column += b->at->column - 1;
	}
	n->offset = (uint32_t)m->index;	/* the text is below 4 GiB */
	if (tag)
		n->tag = arena_strndup(&b->s->text, (const char *)tag,
				       strlen((const char *)tag));
	return n;
}

/* Attaches a finished node to the open container, or makes it the root. */
static void
attach(struct builder *b, struct cpl_ynode *n)
{
	if (b->depth == 0) {
		b->root = n;
		return;
	}
	if (b->nkids == b->kids_cap)
		CPL_GROW(b->kids, b->kids_cap, b->nkids + 1);
	b->kids[b->nkids++] = n;
}

static int
push(struct builder *b, struct cpl_ynode *n, const yaml_char_t *anchor,
     const yaml_mark_t *m)
{
	struct frame *f;

	if (b->depth >= CPL_YAML_MAX_DEPTH) {
		cpl_error_set(b->err, b->path, (int)m->line + 1,
			      (int)m->column + 1,
			      "YAML nested too deeply (limit %d)",
			      CPL_YAML_MAX_DEPTH);
		return -1;
	}
	if (b->depth == b->stack_cap)
		CPL_GROW(b->stack, b->stack_cap, b->depth + 1);
	f = &b->stack[b->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	f->base = b->nkids;
	if (anchor)
		f->anchor = arena_strndup(&b->s->text, (const char *)anchor,
					  strlen((const char *)anchor));
	/* Registered now, so that an alias inside names this container
	 * and is refused (an alias of an open container, below), not taken
	 * for an earlier anchor of the same name. */
	if (f->anchor) {
		anchors_put(&b->anchors, f->anchor, n);
		b->open_anchored++;
	}
	return 0;
}

/* ---- mappings: duplicate keys and merge keys (<<) ----------------------- */

/* Slots of a key set kept on the stack (mappings of up to 32 keys). */
#define KEYSET_STACK 64
/* Keys of a mapping whose pairs are searched instead of hashed. */
#define SMALL_MAP 8

/* A set of scalar keys → index into the pairs being built. */
struct keyset {
	const struct cpl_ynode **keys;
	size_t *index;
	size_t cap;
};

/* The slot of key k (its index, or the empty slot where it would go). */
static size_t
keyset_slot(const struct keyset *ks, const struct cpl_ynode *k)
{
	size_t i = cpl_hash_str(k->value) & (ks->cap - 1);

	while (ks->keys[i] && strcmp(ks->keys[i]->value, k->value) != 0)
		i = (i + 1) & (ks->cap - 1);
	return i;
}

static void
add_warning(struct builder *b, const struct cpl_ynode *at, const char *fmt,
	    const char *arg)
{
	struct cpl_ystream *s = b->s;

	if (s->nwarnings >= CPL_YAML_MAX_WARNINGS) {
		s->warnings_dropped++;
		return;
	}
	CPL_GROW(s->warnings, s->warnings_cap, s->nwarnings + 1);
	memset(&s->warnings[s->nwarnings], 0, sizeof(*s->warnings));
	cpl_error_set(&s->warnings[s->nwarnings], b->path, at->line,
		      at->column, fmt, arg);
	s->nwarnings++;
}

/* A merge key: a plain "<<" (a quoted "<<" is an ordinary key). */
static bool
is_merge_key(const struct cpl_ynode *k)
{
	return k->kind == CPL_Y_SCALAR && k->style == CPL_YS_PLAIN &&
	       strcmp(k->value, "<<") == 0;
}

/*
 * Appends pair p to out unless its scalar key is already there.  own:
 * p is written in this mapping, so a repeated key replaces the earlier
 * value (the last one wins, as PyYAML and Polyaxon read it) with a
 * warning; a merged key never replaces (own keys and earlier merges win).
 */
static void
put_pair(struct builder *b, struct keyset *ks, struct cpl_ypair *out,
	 size_t *n, const struct cpl_ypair *p, bool own)
{
	size_t slot, i;

	if (p->key->kind != CPL_Y_SCALAR) {
		out[(*n)++] = *p;
		return;
	}
	if (ks->cap == 0) {	/* a small mapping: its pairs, one by one */
		for (i = 0; i < *n; i++)
			if (out[i].key->kind == CPL_Y_SCALAR &&
			    strcmp(out[i].key->value, p->key->value) == 0)
				break;
		if (i == *n) {
			out[(*n)++] = *p;
		} else if (own) {
			add_warning(b, p->key, "duplicate key \"%s\" (the "
				    "last value is used)", p->key->value);
			out[i] = *p;
		}
		return;
	}
	slot = keyset_slot(ks, p->key);
	if (ks->keys[slot]) {
		if (own) {
			add_warning(b, p->key, "duplicate key \"%s\" (the "
				    "last value is used)", p->key->value);
			out[ks->index[slot]] = *p;
		}
		return;
	}
	ks->keys[slot] = p->key;
	ks->index[slot] = *n;
	out[(*n)++] = *p;
}

/* How many mappings a merge value may name: one map, or a sequence. */
static size_t
merge_count(const struct cpl_ynode *v)
{
	return v->kind == CPL_Y_MAP ? 1 : v->kind == CPL_Y_SEQ ? v->count : 0;
}

/* The j-th mapping merge value v names; NULL for a non-mapping item or for
 * the mapping being built itself (a self-alias merges nothing). */
static const struct cpl_ynode *
merge_source(const struct cpl_ynode *v, size_t j, const struct cpl_ynode *self)
{
	const struct cpl_ynode *m = v->kind == CPL_Y_MAP ? v : v->items[j];

	return m->kind == CPL_Y_MAP && m != self ? m : NULL;
}

/*
 * Builds a finished mapping's pairs: its own keys (a repeated key keeps
 * its last value, with a warning), then the keys of its merge sources in
 * order, each source already flattened when it ended.  So every merge is
 * expanded once, whatever the nesting, and lookups never follow "<<".
 * The merged pairs examined count against CPL_YAML_MAX_MERGE_WORK per
 * stream and against the node limit: a merge bomb fails cleanly.
 */
static int
finish_map(struct builder *b, struct frame *f)
{
	struct cpl_ynode *n = f->node;
	struct cpl_ynode **kids = b->kids + f->base;
	size_t npairs = (b->nkids - f->base) / 2, own = 0, merged = 0, i, j, m,
	       out = 0;
	struct keyset ks = { 0 };
	const struct cpl_ynode *stack_keys[KEYSET_STACK];
	size_t stack_index[KEYSET_STACK];
	struct cpl_ypair *pairs;
	const struct cpl_ynode *src;

	for (i = 0; i < npairs; i++) {
		const struct cpl_ynode *v = kids[2 * i + 1];

		if (!is_merge_key(kids[2 * i])) {
			own++;
			continue;
		}
		for (j = 0; j < merge_count(v); j++)
			if ((src = merge_source(v, j, n)) != NULL)
				merged += src->count;
	}
	b->merge_work += merged;
	b->nodes += merged;
	if (b->merge_work > CPL_YAML_MAX_MERGE_WORK ||
	    b->nodes > CPL_YAML_MAX_NODES) {
		cpl_error_set(b->err, b->path, n->line, n->column,
			      "merge keys (<<) expand too far (limit %d "
			      "entries per file)", CPL_YAML_MAX_MERGE_WORK);
		return -1;
	}
	for (ks.cap = 16; ks.cap < (own + merged) * 2; ks.cap *= 2)
		;
	/* Most mappings are small: up to SMALL_MAP keys are compared one
	 * by one, and up to KEYSET_STACK / 2 their set lives on the stack. */
	if (own + merged <= SMALL_MAP) {
		ks.cap = 0;
	} else if (ks.cap <= KEYSET_STACK) {
		memset(stack_keys, 0, ks.cap * sizeof(*stack_keys));
		ks.keys = stack_keys;
		ks.index = stack_index;
	} else {
		ks.keys = cpl_xcalloc(ks.cap, sizeof(*ks.keys));
		ks.index = cpl_xcalloc(ks.cap, sizeof(*ks.index));
	}
	pairs = arena_alloc(&b->s->arena,
			    (own + merged) * sizeof(*pairs) + 1);
	for (i = 0; i < npairs; i++) {
		struct cpl_ypair p = { kids[2 * i], kids[2 * i + 1] };

		if (!is_merge_key(p.key))
			put_pair(b, &ks, pairs, &out, &p, true);
	}
	for (i = 0; i < npairs; i++) {
		const struct cpl_ynode *v = kids[2 * i + 1];

		if (!is_merge_key(kids[2 * i]))
			continue;
		for (j = 0; j < merge_count(v); j++) {
			if ((src = merge_source(v, j, n)) == NULL)
				continue;
			for (m = 0; m < src->count; m++)
				put_pair(b, &ks, pairs, &out, &src->pairs[m],
					 false);
		}
	}
	n->pairs = pairs;
	n->count = out;
	if (ks.keys != NULL && ks.keys != stack_keys) {
		free(ks.keys);
		free(ks.index);
	}
	return 0;
}

static int
pop(struct builder *b)
{
	struct frame *f = &b->stack[b->depth - 1];
	struct cpl_ynode *n = f->node;

	if (n->kind == CPL_Y_SEQ) {
		n->count = b->nkids - f->base;
		n->items = arena_alloc(&b->s->arena,
				       n->count * sizeof(*n->items) + 1);
		if (n->count)
			memcpy(n->items, b->kids + f->base,
			       n->count * sizeof(*n->items));
	} else if (finish_map(b, f) < 0) {
		return -1;
	}
	b->nkids = f->base;
	if (f->anchor)
		b->open_anchored--;
	b->depth--;
	attach(b, n);
	return 0;
}

/* Whether n is a container still being built (an alias of it would make
 * it contain itself).  Only anchored frames can be named by an alias. */
static bool
is_open(const struct builder *b, const struct cpl_ynode *n)
{
	size_t i;

	if (b->open_anchored == 0 || n->kind == CPL_Y_SCALAR)
		return false;
	for (i = b->depth; i-- > 0;)
		if (b->stack[i].node == n)
			return true;
	return false;
}

static void
add_doc(struct cpl_ystream *s, struct cpl_ynode *root)
{
	CPL_GROW(s->docs, s->docs_cap, s->ndocs + 1);
	s->docs[s->ndocs++] = root;
}

static void
parser_error(struct builder *b, const yaml_parser_t *p)
{
	const yaml_mark_t *m = &p->problem_mark;
	const char *what = p->problem ? p->problem : "invalid YAML";

	if (p->error == YAML_READER_ERROR) {
		cpl_error_set(b->err, b->path, 0, 0,
			      "cannot decode: %s (at byte %zu)", what,
			      p->problem_offset);
		return;
	}
	if (p->context)
		cpl_error_set(b->err, b->path, (int)m->line + 1,
			      (int)m->column + 1, "%s %s (line %zu, column %zu)",
			      what, p->context,
			      (size_t)p->context_mark.line + 1,
			      (size_t)p->context_mark.column + 1);
	else
		cpl_error_set(b->err, b->path, (int)m->line + 1,
			      (int)m->column + 1, "%s", what);
}

static enum cpl_ystyle
scalar_style(yaml_scalar_style_t st)
{
	switch (st) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
		return CPL_YS_SINGLE;
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		return CPL_YS_DOUBLE;
	case YAML_LITERAL_SCALAR_STYLE:
		return CPL_YS_LITERAL;
	case YAML_FOLDED_SCALAR_STYLE:
		return CPL_YS_FOLDED;
	default:
		return CPL_YS_PLAIN;
	}
}

/* One parse event, from libyaml or from the fast reader (yamlfast_int.h):
 * type is an enum cpl_yfev_type, or EV_ALIAS. */
#define EV_ALIAS 100
struct yev {
	int type;
	yaml_mark_t mark;
	const yaml_char_t *tag;
	const yaml_char_t *anchor;	/* an alias's anchor for EV_ALIAS */
	const char *value;		/* scalars */
	size_t len;
	enum cpl_ystyle style;
};

/* Handles one event; returns 1 at stream end, -1 on error, 0 otherwise. */
static int
on_event(struct builder *b, const struct yev *ev)
{
	struct cpl_ynode *n;
	const yaml_mark_t *m = &ev->mark;

	switch (ev->type) {
	case CPL_YFE_STREAM_END:
		return 1;
	case CPL_YFE_DOC_START:
		b->root = NULL;
		return 0;
	case CPL_YFE_DOC_END:
		add_doc(b->s, b->root);
		/* Anchors are local to a document. */
		free(b->anchors.slots);
		memset(&b->anchors, 0, sizeof(b->anchors));
		return 0;
	case CPL_YFE_SCALAR:
		n = new_node(b, CPL_Y_SCALAR, m, ev->tag);
		if (n == NULL)
			return -1;
		n->style = ev->style;
		n->value = arena_strndup(&b->s->text, ev->value, ev->len);
		n->len = ev->len;
		if (ev->anchor)
			anchors_put(&b->anchors,
				    arena_strndup(&b->s->text,
					(const char *)ev->anchor,
					strlen((const char *)ev->anchor)),
				    n);
		attach(b, n);
		return 0;
	case EV_ALIAS:
		n = anchors_get(&b->anchors, (const char *)ev->anchor);
		if (n == NULL) {
			cpl_error_set(b->err, b->path, (int)m->line + 1,
				      (int)m->column + 1,
				      "alias *%s names no anchor",
				      (const char *)ev->anchor);
			return -1;
		}
		if (is_open(b, n)) {
			cpl_error_set(b->err, b->path, (int)m->line + 1,
				      (int)m->column + 1,
				      "alias *%s is inside the node it names "
				      "(a recursive structure, which "
				      "Kubernetes does not read)",
				      (const char *)ev->anchor);
			return -1;
		}
		if (++b->nodes > CPL_YAML_MAX_NODES) {
			cpl_error_set(b->err, b->path, (int)m->line + 1,
				      (int)m->column + 1,
				      "too many YAML nodes (limit %d)",
				      CPL_YAML_MAX_NODES);
			return -1;
		}
		attach(b, n);
		return 0;
	case CPL_YFE_SEQ_START:
	case CPL_YFE_MAP_START:
		n = new_node(b, ev->type == CPL_YFE_SEQ_START ? CPL_Y_SEQ :
			     CPL_Y_MAP, m, ev->tag);
		if (n == NULL)
			return -1;
		return push(b, n, ev->anchor, m);
	case CPL_YFE_SEQ_END:
	case CPL_YFE_MAP_END:
		return pop(b);
	default:
		return 0;
	}
}

/* A libyaml event as the builder takes it; type -1 for the events it
 * skips (stream start). */
static void
from_libyaml(const yaml_event_t *e, struct yev *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->mark = e->start_mark;
	switch (e->type) {
	case YAML_STREAM_END_EVENT:
		ev->type = CPL_YFE_STREAM_END;
		break;
	case YAML_DOCUMENT_START_EVENT:
		ev->type = CPL_YFE_DOC_START;
		break;
	case YAML_DOCUMENT_END_EVENT:
		ev->type = CPL_YFE_DOC_END;
		break;
	case YAML_SCALAR_EVENT:
		ev->type = CPL_YFE_SCALAR;
		ev->tag = e->data.scalar.tag;
		ev->anchor = e->data.scalar.anchor;
		ev->value = (const char *)e->data.scalar.value;
		ev->len = e->data.scalar.length;
		ev->style = scalar_style(e->data.scalar.style);
		break;
	case YAML_ALIAS_EVENT:
		ev->type = EV_ALIAS;
		ev->anchor = e->data.alias.anchor;
		break;
	case YAML_SEQUENCE_START_EVENT:
		ev->type = CPL_YFE_SEQ_START;
		ev->tag = e->data.sequence_start.tag;
		ev->anchor = e->data.sequence_start.anchor;
		break;
	case YAML_MAPPING_START_EVENT:
		ev->type = CPL_YFE_MAP_START;
		ev->tag = e->data.mapping_start.tag;
		ev->anchor = e->data.mapping_start.anchor;
		break;
	case YAML_SEQUENCE_END_EVENT:
		ev->type = CPL_YFE_SEQ_END;
		break;
	case YAML_MAPPING_END_EVENT:
		ev->type = CPL_YFE_MAP_END;
		break;
	default:
		ev->type = -1;
		break;
	}
}

/* Builds b's stream from the fast reader's events; 1 at the end, -1 on a
 * builder error (the caller lets libyaml read the text again, so its
 * message is the one libyaml's events give). */
static int
build_fast(struct builder *b, const struct cpl_yfast *f)
{
	const char *text = b->s->source;
	int r = 0;
	size_t i;

	for (i = 0; i < f->n && r == 0; i++) {
		const struct cpl_yfev *e = &f->ev[i];
		struct yev ev;

		memset(&ev, 0, sizeof(ev));
		ev.type = e->type;
		ev.mark.line = (size_t)e->line;
		ev.mark.column = (size_t)e->column;
		ev.mark.index = e->index;
		if (e->type == CPL_YFE_SCALAR) {
			ev.value = cpl_yfast_value(f, e, text);
			ev.len = e->len;
			ev.style = (enum cpl_ystyle)e->style;
		}
		r = on_event(b, &ev);
	}
	return r;
}

/* The fast reader's sink: builds each batch of events as it is read
 * (yamlfast_int.h), until the stream ends or the builder stops. */
static void
fast_sink(void *ctx, const struct cpl_yfast *f)
{
	struct builder *b = ctx;

	if (b->fast_r == 0)
		b->fast_r = build_fast(b, f);
}

/* Frees what b holds besides its stream. */
static void
builder_clear(struct builder *b)
{
	free(b->kids);
	free(b->stack);
	free(b->anchors.slots);
	b->kids = NULL;
	b->nkids = b->kids_cap = 0;
	b->stack = NULL;
	b->stack_cap = 0;
	b->depth = 0;
	b->open_anchored = 0;
	memset(&b->anchors, 0, sizeof(b->anchors));
}

/* Starts b over on a fresh stream of the text (len bytes). */
static void
builder_start(struct builder *b, char *source, size_t len)
{
	b->s = cpl_xcalloc(1, sizeof(*b->s));
	b->s->source = source;
	b->s->source_len = len;
	if (b->at != NULL) {
		b->s->pinned = b->at->pinned;
		b->s->dline = b->at->pinned ? b->at->line : b->at->line - 1;
		b->s->dcol = b->at->pinned ? b->at->column :
			     b->at->column - 1;
	}
	b->nodes = 0;
	b->merge_work = 0;
	b->root = NULL;
}

/* cpl_yaml_parse(), with the nodes placed by at (NULL: as they are). */
static int
parse(struct cpl_ystream **out, const char *path, const char *buf,
      size_t len, const struct cpl_yplace *at, struct cpl_error *err)
{
	yaml_parser_t parser;
	struct builder b;
	struct cpl_yfast fast = { 0 };
	char *source;
	int rc = -1, r = 0;

	*out = NULL;
	if (len > UINT32_MAX) {		/* offsets are 32-bit */
		cpl_error_set(err, path, 0, 0, "too large for the YAML reader "
			      "(%zu bytes)", len);
		return -1;
	}
	memset(&b, 0, sizeof(b));
	b.path = path;
	b.err = err;
	b.at = at;
	builder_start(&b, cpl_xstrndup(buf, len), len);
	/* The fast reader first, built as it reads (one batch of events
	 * held at a time); libyaml reads what it refuses, and reads again
	 * from the start a text whose fast events the builder stopped at
	 * (its limits), for libyaml's events are the reference for every
	 * message. */
	fast.sink = fast_sink;
	fast.sink_ctx = &b;
	if (cpl_yfast_read(&fast, b.s->source, len) == 0)
		r = b.fast_r;
	cpl_yfast_free(&fast);
	builder_clear(&b);
	if (r == 1) {
		*out = b.s;
		return 0;
	}
	if (b.fast_r < 0)	/* the message the builder left */
		cpl_error_clear(err);
	r = 0;
	source = b.s->source;
	b.s->source = NULL;
	cpl_ystream_free(b.s);
	builder_start(&b, source, len);
	if (!yaml_parser_initialize(&parser)) {
		cpl_error_set(err, path, 0, 0, "cannot initialise libyaml");
		goto out;
	}
	yaml_parser_set_input_string(&parser,
				     (const unsigned char *)b.s->source, len);
	while (r == 0) {
		yaml_event_t e;
		struct yev ev;

		if (!yaml_parser_parse(&parser, &e)) {
			parser_error(&b, &parser);
			r = -1;
			break;
		}
		from_libyaml(&e, &ev);
		if (ev.type >= 0)
			r = on_event(&b, &ev);
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&parser);
	if (r < 0)
		goto out;
	*out = b.s;
	b.s = NULL;
	rc = 0;
out:
	builder_clear(&b);
	cpl_ystream_free(b.s);
	return rc;
}

int
cpl_yaml_parse(struct cpl_ystream **out, const char *path, const char *buf,
	       size_t len, struct cpl_error *err)
{
	return parse(out, path, buf, len, NULL, err);
}

int
cpl_yaml_parse_at(struct cpl_ystream **out, const char *path,
		  const char *buf, size_t len, const struct cpl_yplace *at,
		  struct cpl_error *err)
{
	return parse(out, path, buf, len, at, err);
}

void
cpl_ystream_free(struct cpl_ystream *s)
{
	size_t i;

	if (s == NULL)
		return;
	arena_free(&s->arena);
	arena_free(&s->text);
	for (i = 0; i < s->nwarnings; i++)
		cpl_error_clear(&s->warnings[i]);
	free(s->warnings);
	free(s->docs);
	free(s->source);
	free(s);
}

size_t
cpl_ystream_count(const struct cpl_ystream *s)
{
	return s ? s->ndocs : 0;
}

const struct cpl_ynode *
cpl_ystream_doc(const struct cpl_ystream *s, size_t i)
{
	return s && i < s->ndocs ? s->docs[i] : NULL;
}

const struct cpl_error *
cpl_ystream_warnings(const struct cpl_ystream *s, size_t *n, size_t *dropped)
{
	*n = s ? s->nwarnings : 0;
	if (dropped)
		*dropped = s ? s->warnings_dropped : 0;
	return s ? s->warnings : NULL;
}

const char *
cpl_ystream_source(const struct cpl_ystream *s, size_t *len)
{
	if (len)
		*len = s->source_len;
	return s->source;
}

/* ---- queries ---------------------------------------------------------- */

/* Merge keys were expanded when the mapping ended (finish_map). */
static const struct cpl_ypair *
find_pair(const struct cpl_ynode *map, const char *key)
{
	size_t i;

	if (map == NULL || map->kind != CPL_Y_MAP)
		return NULL;
	for (i = 0; i < map->count; i++) {
		const struct cpl_ynode *k = map->pairs[i].key;

		if (k->kind == CPL_Y_SCALAR && strcmp(k->value, key) == 0)
			return &map->pairs[i];
	}
	return NULL;
}

const struct cpl_ynode *
cpl_ynode_get(const struct cpl_ynode *map, const char *key)
{
	const struct cpl_ypair *p = find_pair(map, key);

	return p ? p->value : NULL;
}

const struct cpl_ynode *
cpl_ynode_key(const struct cpl_ynode *map, const char *key)
{
	const struct cpl_ypair *p = find_pair(map, key);

	return p ? p->key : NULL;
}

const struct cpl_ynode *
cpl_ynode_path(const struct cpl_ynode *n, ...)
{
	va_list ap;
	const char *k;

	va_start(ap, n);
	while (n && (k = va_arg(ap, const char *)) != NULL)
		n = cpl_ynode_get(n, k);
	va_end(ap);
	return n;
}

bool
cpl_ynode_is_null(const struct cpl_ynode *n)
{
	if (n == NULL || n->kind != CPL_Y_SCALAR || n->style != CPL_YS_PLAIN)
		return false;
	if (n->tag && strcmp(n->tag, "tag:yaml.org,2002:null") != 0)
		return false;
	if (n->len == 0)
		return true;
	/* The first character rules out nearly every scalar: this runs
	 * for every key a loader looks up. */
	switch (n->value[0]) {
	case '~':
		return strcmp(n->value, "~") == 0;
	case 'n':
		return strcmp(n->value, "null") == 0;
	case 'N':
		return strcmp(n->value, "Null") == 0 ||
		       strcmp(n->value, "NULL") == 0;
	default:
		return false;
	}
}

const char *
cpl_ynode_str(const struct cpl_ynode *n)
{
	if (n == NULL || n->kind != CPL_Y_SCALAR || cpl_ynode_is_null(n))
		return NULL;
	return n->value;
}

const char *
cpl_ynode_gets(const struct cpl_ynode *map, const char *key)
{
	return cpl_ynode_str(cpl_ynode_get(map, key));
}

bool
cpl_ynode_is_map(const struct cpl_ynode *n)
{
	return n && n->kind == CPL_Y_MAP;
}

bool
cpl_ynode_is_seq(const struct cpl_ynode *n)
{
	return n && n->kind == CPL_Y_SEQ;
}

bool
cpl_ynode_is_scalar(const struct cpl_ynode *n)
{
	return n && n->kind == CPL_Y_SCALAR;
}

int
cpl_ynode_bool(const struct cpl_ynode *n)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes",
					   "Yes", "YES", "on", "On", "ON" };
	static const char *const no[] = { "false", "False", "FALSE", "no",
					  "No", "NO", "off", "Off", "OFF" };
	size_t i;

	if (n == NULL || n->kind != CPL_Y_SCALAR || n->style != CPL_YS_PLAIN)
		return -1;
	for (i = 0; i < CPL_ARRAY_LEN(yes); i++) {
		if (strcmp(n->value, yes[i]) == 0)
			return 1;
		if (strcmp(n->value, no[i]) == 0)
			return 0;
	}
	return -1;
}

int
cpl_ynode_long(const struct cpl_ynode *n, long *out)
{
	const char *s = cpl_ynode_str(n);

	if (s && *s == '+')
		s++;
	return s ? cpl_parse_long(out, s) : -1;
}

/* ---- positions inside scalars ----------------------------------------- */

/* Byte offset in src where 1-based line begins; len when past the end. */
static size_t
line_start(const char *src, size_t len, int line)
{
	size_t i = 0;
	int l = 1;

	while (l < line && i < len) {
		if (src[i++] == '\n')
			l++;
	}
	return i;
}

void
cpl_ynode_offset_pos(const struct cpl_ystream *s, const struct cpl_ynode *n,
		     size_t off, int *line, int *column)
{
	size_t i, ls, k;
	int l, indent;

	*line = n->line;
	*column = n->column;
	if (n->kind != CPL_Y_SCALAR || off > n->len || s->pinned)
		return;
	switch (n->style) {
	case CPL_YS_PLAIN:
	case CPL_YS_SINGLE:
	case CPL_YS_DOUBLE:
		if (memchr(n->value, '\n', n->len) != NULL)
			return;
		if (n->style == CPL_YS_DOUBLE &&
		    memchr(n->value, '\\', n->len) != NULL)
			return;
		if (n->style == CPL_YS_SINGLE &&
		    memchr(n->value, '\'', n->len) != NULL)
			return;
		*column = n->column + (int)off + (n->style != CPL_YS_PLAIN);
		return;
	case CPL_YS_LITERAL:
		/* Content starts on the line after the indicator; its
		 * indentation is that of the first non-empty line. */
		l = n->line + 1;
		for (i = 0; i < off; i++)
			if (n->value[i] == '\n')
				l++;
		ls = line_start(s->source, s->source_len,
				n->line - s->dline + 1);
		indent = 0;
		for (k = ls; k < s->source_len && s->source[k] == ' '; k++)
			indent++;
		k = off;
		while (k > 0 && n->value[k - 1] != '\n')
			k--;
		*line = l;
		*column = s->dcol + indent + (int)(off - k) + 1;
		return;
	default:
		return;
	}
}
