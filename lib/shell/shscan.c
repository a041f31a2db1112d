/*
 * shscan.c — reads what a container's command line launches (shscan.h).
 *
 * A shell script (sh -c SCRIPT, or a single argv word holding blanks) is
 * split by a small recursive-descent parser: parse_list() reads simple
 * commands up to a separator, parse_word() one word (quotes, escapes,
 * $(...), backticks, $((...)), ${...}).  Each finished command goes to
 * top_command() at the top level, where it updates the shell variables,
 * the exports, the host-count reads and the launch; inside a substitution
 * it goes to host_command(), which only says whether it reads the host's
 * CPU count.  A plain argv is one simple command that is already split.
 *
 * Invariants: one pass over the text; a byte is copied at most once per
 * level of nesting and nesting past MAX_DEPTH is skipped flat; variables
 * are hashed, resolved values capped and positions come from a line index,
 * so time is linear in the input and the recursion is bounded.  Ownership:
 * struct scan owns all scratch state and frees it before cpl_shscan()
 * returns; everything stored in the caller's struct cpl_launch is an owned
 * copy (released with cpl_launch_clear()); argv, nodes and the stream are
 * borrowed.
 */
#include "shell/shscan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_DEPTH 32		/* substitutions nested deeper are skipped */
#define MAX_HOSTCOUNTS 256	/* host-count reads reported */
#define MAX_PENDING 1024	/* host-count reads held for one command */
#define MAX_EXPORTS 1024	/* distinct exported names */
#define MAX_VARS 65536		/* shell variables tracked */
#define MAX_VALUE 1024		/* a longer resolved value is unknown */
#define MAX_HEREDOCS 16		/* here-documents pending on one line */
#define NO_IDX SIZE_MAX

/* Text being parsed: the script word, or the unescaped body of a backtick
 * substitution inside it. */
struct src {
	const char *p;
	size_t len;
	size_t argi;		/* the argv word the text comes from */
	bool exact;		/* offsets map to lines through the index */
	size_t fixed;		/* NO_IDX, or the script offset that every
				 * position inside stands for */
};

/* One level of parsing: its depth, and whether a command in it read the
 * host's CPU count (meaningful inside a substitution). */
struct frame {
	int depth;
	bool host;
};

/* A simple $NAME or ${NAME} inside a word's text. */
struct ref {
	size_t at;		/* where "$" is in the text */
	size_t len;		/* length of the reference in the text */
	size_t name;		/* where the name starts in the text */
	size_t namelen;
};

/* A host-count read found while parsing the current top-level command. */
struct hc {
	char *expr;		/* as written; owned until emitted */
	struct cpl_pos pos;
	bool derived;		/* a use of a variable holding a host count */
};

/* One word of a simple command. */
struct sword {
	struct cpl_buf text;	/* quotes removed, expansions as written */
	size_t off;		/* source offset of its first byte */
	size_t plain;		/* leading text bytes copied verbatim */
	bool unknown;		/* holds an expansion with no static value */
	bool from_argv;		/* an argv word taken as it is */
	size_t argi;		/* ...and which */
	struct ref *refs;
	size_t nrefs;
	size_t caprefs;
	size_t hc0, hc1;	/* its entries in scan.hcs */
	size_t hs0, hs1;	/* scan.hostseen before and after it */
	/* Set by top_command(): */
	bool prefix;		/* an assignment in the command's env */
	const char *sizes;	/* what its host-count reads size; borrowed */
	size_t sizeslen;
	bool sink;		/* uses of host-sized variables count here */
};

/* A simple command: its words. */
struct cmd {
	struct sword *w;
	size_t n;
	size_t cap;
};

/* A shell variable assigned (or exported) by the script. */
struct var {
	char *name;
	size_t namelen;
	char *value;		/* NULL when unknown */
	bool set;		/* assigned in the script */
	bool host;		/* computed from the host's CPU count */
	bool exported;
	size_t export_idx;	/* in out->exports, or NO_IDX */
	struct cpl_pos pos;	/* its last assignment */
};

/* A here-document whose body starts after the current line. */
struct heredoc {
	char *delim;
	bool strip_tabs;	/* <<- */
};

/* How a command is joined to the next one. */
enum conn {
	CONN_SEQ,		/* ; & | newline */
	CONN_AND,		/* && */
	CONN_OR,		/* || */
};

/* Everything one cpl_shscan() call works with. */
struct scan {
	struct cpl_launch *out;
	const struct cpl_word *argv;
	size_t argc;
	const struct cpl_ynode *const *nodes;
	const struct cpl_ystream *ys;
	const struct src *top;	/* the script, when there is one */
	/* Line index of the script word (exact positions). */
	size_t *lines;
	size_t nlines;
	int line0;
	int col0;
	/* Host-count reads of the current top-level command. */
	struct hc *hcs;
	size_t nhcs;
	size_t caphcs;
	size_t hostseen;	/* host-count reads seen, capped or not */
	size_t caphc_out;
	size_t capexp_out;
	/* Shell variables: open addressing, power-of-two slots. */
	struct var **slots;
	size_t nslots;
	size_t nvars;
	struct heredoc heredocs[MAX_HEREDOCS];
	size_t nheredocs;
	/* Control flow seen so far at the top level. */
	int cond_depth;		/* inside if/while/until/for/case */
	bool next_cond;		/* the next command runs conditionally */
	bool chain_cond;	/* the current one did, or was a test */
	int launched;		/* 0 none, 1 tentative, 2 found */
	struct cpl_launch tent;	/* a setup command, kept as a fallback */
};

static void parse_list(struct scan *sc, const struct src *src, size_t *i,
		       struct frame *fr, bool to_paren);
static void parse_dollar(struct scan *sc, const struct src *src, size_t *i,
			 struct frame *fr, struct sword *w, bool dq);
static void parse_backtick(struct scan *sc, const struct src *src,
			   size_t *i, struct frame *fr, struct sword *w);
static void parse_dquote(struct scan *sc, const struct src *src, size_t *i,
			 struct frame *fr, struct sword *w);

/* ---- small helpers ---------------------------------------------------- */

/* True for [A-Za-z_]. */
static bool
name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* True for [A-Za-z0-9_]. */
static bool
name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* True for bytes that end an unquoted word. */
static bool
is_meta(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' ||
	       c == '&' || c == '|' || c == '<' || c == '>' || c == '(' ||
	       c == ')';
}

/* The last path component of s. */
static const char *
base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

/* True when s names one of the words in the NULL-terminated list. */
static bool
in_list(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* python, python3, python3.11 ...: "python" then digits and dots. */
static bool
is_python(const char *base)
{
	const char *p;

	if (strncmp(base, "python", 6) != 0)
		return false;
	for (p = base + 6; *p != '\0'; p++)
		if ((*p < '0' || *p > '9') && *p != '.')
			return false;
	return true;
}

/* True when the n bytes at name spell canon, '-' standing for '_'. */
static bool
opt_eq(const char *name, size_t n, const char *canon)
{
	size_t k;

	if (strlen(canon) != n)
		return false;
	for (k = 0; k < n; k++) {
		char a = name[k] == '-' ? '_' : name[k];

		if (a != canon[k])
			return false;
	}
	return true;
}

/* True when the n bytes at name spell one of the canonical names. */
static bool
opt_in(const char *name, size_t n, const char *const *list)
{
	for (; *list != NULL; list++)
		if (opt_eq(name, n, *list))
			return true;
	return false;
}

/* argv word i's text, "" when it has none. */
static const char *
argtext(const struct scan *sc, size_t i)
{
	return sc->argv[i].text ? sc->argv[i].text : "";
}

/* ---- positions -------------------------------------------------------- */

/*
 * Indexes the script's lines and checks, with cpl_ynode_offset_pos() at
 * both ends of the value, that offsets map linearly (a literal block or a
 * single-line scalar without escapes).  Then every position is computed
 * from the index in O(log n) with the same result cpl_ynode_offset_pos()
 * gives, instead of its O(n) walk per call.
 */
static bool
index_lines(struct scan *sc, const struct cpl_ynode *node, const char *t,
	    size_t len)
{
	size_t cap = 0, k;
	int le, ce;
	void *p = NULL;

	if (len == 0)
		return false;
	cpl_xgrow(&p, &cap, 1, sizeof(size_t));
	sc->lines = p;
	sc->lines[0] = 0;
	sc->nlines = 1;
	for (k = 0; k < len; k++) {
		if (t[k] != '\n')
			continue;
		p = sc->lines;
		cpl_xgrow(&p, &cap, sc->nlines + 1, sizeof(size_t));
		sc->lines = p;
		sc->lines[sc->nlines++] = k + 1;
	}
	cpl_ynode_offset_pos(sc->ys, node, 0, &sc->line0, &sc->col0);
	cpl_ynode_offset_pos(sc->ys, node, len, &le, &ce);
	return le == sc->line0 + (int)(sc->nlines - 1) &&
	       ce == sc->col0 + (int)(len - sc->lines[sc->nlines - 1]);
}

/* Position of byte offset off of src. */
static struct cpl_pos
pos_at(const struct scan *sc, const struct src *src, size_t off)
{
	struct cpl_pos p = sc->argv[src->argi].pos;
	size_t lo = 0, hi = sc->nlines;

	if (src->fixed != NO_IDX)
		off = src->fixed;
	if (!src->exact)
		return p;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (sc->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	p.line = sc->line0 + (int)lo;
	p.column = sc->col0 + (int)(off - sc->lines[lo]);
	return p;
}

/* ---- words and commands ----------------------------------------------- */

/* Resets w to an empty word. */
static void
sword_init(struct sword *w)
{
	memset(w, 0, sizeof(*w));
	cpl_buf_init(&w->text, 0);
	w->plain = NO_IDX;
}

/* Frees what w holds. */
static void
sword_free(struct sword *w)
{
	cpl_buf_free(&w->text);
	free(w->refs);
	w->refs = NULL;
	w->nrefs = w->caprefs = 0;
}

/* The word's text, "" when empty. */
static const char *
wtext(const struct sword *w)
{
	return cpl_buf_str(&w->text);
}

/* Ends the verbatim prefix of w: what follows is quoted or expanded. */
static void
mark_plain(struct sword *w)
{
	if (w->plain == NO_IDX)
		w->plain = w->text.len;
}

/* Appends a new empty word to c; borrowed until the next push. */
static struct sword *
cmd_push(struct cmd *c)
{
	void *p = c->w;

	cpl_xgrow(&p, &c->cap, c->n + 1, sizeof(*c->w));
	c->w = p;
	sword_init(&c->w[c->n]);
	return &c->w[c->n++];
}

/* Drops every word of c, keeping its array. */
static void
cmd_clear(struct cmd *c)
{
	size_t k;

	for (k = 0; k < c->n; k++)
		sword_free(&c->w[k]);
	c->n = 0;
}

/* Frees c. */
static void
cmd_free(struct cmd *c)
{
	cmd_clear(c);
	free(c->w);
	c->w = NULL;
	c->cap = 0;
}

/* Records a $NAME reference: at/len in w's text, name inside it. */
static void
add_ref(struct sword *w, size_t at, size_t len, size_t name, size_t namelen)
{
	void *p = w->refs;

	cpl_xgrow(&p, &w->caprefs, w->nrefs + 1, sizeof(*w->refs));
	w->refs = p;
	w->refs[w->nrefs].at = at;
	w->refs[w->nrefs].len = len;
	w->refs[w->nrefs].name = name;
	w->refs[w->nrefs].namelen = namelen;
	w->nrefs++;
}

/* Length of NAME when the text of w reads NAME=..., else 0; with strict,
 * NAME= must also be unquoted (as the shell requires of assignments, but
 * not of export's arguments). */
static size_t
assign_name(const struct sword *w, bool strict)
{
	const char *t = wtext(w);
	size_t k;

	if (!name_start(t[0]))
		return 0;
	for (k = 1; name_char(t[k]); k++)
		;
	if (t[k] != '=' || (strict && k >= w->plain))
		return 0;
	return k;
}

/* Length of NAME when w is an assignment NAME=..., else 0. */
static size_t
assign_len(const struct sword *w)
{
	return assign_name(w, true);
}

/* ---- variables -------------------------------------------------------- */

/* FNV-1a over n bytes. */
static size_t
hash_name(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	size_t k;

	for (k = 0; k < n; k++) {
		h ^= (unsigned char)s[k];
		h *= 1099511628211ULL;
	}
	return (size_t)h;
}

/* The slot where name lives or would be inserted. */
static size_t
var_slot(const struct scan *sc, const char *name, size_t n)
{
	size_t mask = sc->nslots - 1, h = hash_name(name, n) & mask;

	while (sc->slots[h] != NULL) {
		const struct var *v = sc->slots[h];

		if (v->namelen == n && memcmp(v->name, name, n) == 0)
			break;
		h = (h + 1) & mask;
	}
	return h;
}

/* Doubles the variable table. */
static void
var_grow(struct scan *sc)
{
	struct var **old = sc->slots;
	size_t nold = sc->nslots, k;

	sc->nslots = nold ? nold * 2 : 64;
	sc->slots = cpl_xcalloc(sc->nslots, sizeof(*sc->slots));
	for (k = 0; k < nold; k++)
		if (old[k] != NULL)
			sc->slots[var_slot(sc, old[k]->name,
					   old[k]->namelen)] = old[k];
	free(old);
}

/* The variable called by the n bytes at name; created when asked (NULL
 * when absent, or when the table is full). */
static struct var *
var_get(struct scan *sc, const char *name, size_t n, bool create)
{
	struct var *v;
	size_t h;

	if (sc->nslots == 0) {
		if (!create)
			return NULL;
		var_grow(sc);
	}
	h = var_slot(sc, name, n);
	if (sc->slots[h] != NULL)
		return sc->slots[h];
	if (!create || sc->nvars >= MAX_VARS)
		return NULL;
	if ((sc->nvars + 1) * 2 > sc->nslots) {
		var_grow(sc);
		h = var_slot(sc, name, n);
	}
	v = cpl_xcalloc(1, sizeof(*v));
	v->name = cpl_xstrndup(name, n);
	v->namelen = n;
	v->export_idx = NO_IDX;
	sc->slots[h] = v;
	sc->nvars++;
	return v;
}

/*
 * The text of w from byte from with its $NAME references replaced by the
 * values assigned earlier; NULL when some part is unknown (a substitution,
 * a variable not assigned or unknown, a result over MAX_VALUE).
 */
static char *
resolve(struct scan *sc, const struct sword *w, size_t from)
{
	const char *t = wtext(w);
	struct cpl_buf b;
	size_t at = from, k;

	if (w->unknown)
		return NULL;
	cpl_buf_init(&b, MAX_VALUE);
	for (k = 0; k < w->nrefs; k++) {
		const struct ref *r = &w->refs[k];
		const struct var *v;

		if (r->at < from)
			continue;
		v = var_get(sc, t + r->name, r->namelen, false);
		if (v == NULL || !v->set || v->value == NULL)
			goto unknown;
		cpl_buf_add(&b, t + at, r->at - at);
		cpl_buf_adds(&b, v->value);
		at = r->at + r->len;
	}
	cpl_buf_add(&b, t + at, w->text.len - at);
	if (b.overflow)
		goto unknown;
	return cpl_buf_detach(&b);
unknown:
	cpl_buf_free(&b);
	return NULL;
}

/* ---- host-count reads ------------------------------------------------- */

/* Records the host-count read src[start, end) for the current command. */
static void
add_hc(struct scan *sc, const struct src *src, size_t start, size_t end,
       bool derived)
{
	void *p = sc->hcs;
	struct hc *h;

	sc->hostseen++;
	if (sc->nhcs >= MAX_PENDING)
		return;
	cpl_xgrow(&p, &sc->caphcs, sc->nhcs + 1, sizeof(*sc->hcs));
	sc->hcs = p;
	h = &sc->hcs[sc->nhcs++];
	h->expr = cpl_xstrndup(src->p + start, end - start);
	h->pos = pos_at(sc, src, start);
	h->derived = derived;
}

/* Notes a use (src[start, end)) of variable name: when it holds a host
 * count, the use may size something too. */
static void
var_use(struct scan *sc, const struct src *src, size_t start, size_t end,
	const char *name, size_t n)
{
	const struct var *v = var_get(sc, name, n, false);

	if (v != NULL && v->host)
		add_hc(sc, src, start, end, true);
}

/* Forgets the host-count reads of the finished command. */
static void
drop_pending(struct scan *sc)
{
	size_t k;

	for (k = 0; k < sc->nhcs; k++)
		free(sc->hcs[k].expr);
	sc->nhcs = 0;
}

/* Moves w's host-count reads to the output, sized by w's role. */
static void
emit_word(struct scan *sc, const struct sword *w)
{
	struct cpl_launch *out = sc->out;
	size_t k;

	for (k = w->hc0; k < w->hc1 && k < sc->nhcs; k++) {
		struct hc *h = &sc->hcs[k];
		struct cpl_hostcount *o;
		void *p = out->hostcounts;

		if (h->expr == NULL || (h->derived && !(w->sink && w->sizes)))
			continue;
		if (out->nhostcounts >= MAX_HOSTCOUNTS)
			return;
		cpl_xgrow(&p, &sc->caphc_out, out->nhostcounts + 1,
			  sizeof(*out->hostcounts));
		out->hostcounts = p;
		o = &out->hostcounts[out->nhostcounts++];
		o->expr.text = h->expr;
		o->expr.pos = h->pos;
		o->sizes = w->sizes ? cpl_xstrndup(w->sizes, w->sizeslen)
				    : NULL;
		h->expr = NULL;
	}
}

/* ---- the parser ------------------------------------------------------- */

/*
 * Skips a construct nested deeper than MAX_DEPTH: counts brackets of one
 * kind, honouring quotes and backslashes, without recursing.
 */
static void
skip_nested(const struct src *src, size_t *i, char lb, char rb,
	    int depth)
{
	const char *p = src->p;
	size_t n = src->len;

	while (*i < n && depth > 0) {
		char c = p[*i];

		if (c == '\\') {
			*i += 2;
			continue;
		}
		if (c == '\'' || c == '"') {
			for ((*i)++; *i < n && p[*i] != c; (*i)++)
				if (c == '"' && p[*i] == '\\')
					(*i)++;
		} else if (c == lb) {
			depth++;
		} else if (c == rb) {
			depth--;
		}
		(*i)++;
	}
	if (*i > n)
		*i = n;
}

/* Reads $((...)) at *i, noting host counts and host-sized variables. */
static void
parse_arith(struct scan *sc, const struct src *src, size_t *i,
	    struct frame *fr)
{
	const char *p = src->p;
	size_t n = src->len;
	struct frame sub = { fr->depth + 1, false };
	struct sword scratch;
	int depth = 0;

	*i += 3;
	if (sub.depth > MAX_DEPTH) {
		skip_nested(src, i, '(', ')', 2);
		return;
	}
	sword_init(&scratch);
	while (*i < n) {
		char c = p[*i];

		if (c == '(') {
			depth++;
			(*i)++;
		} else if (c == ')') {
			(*i)++;
			if (depth-- > 0)
				continue;
			if (*i < n && p[*i] == ')')
				(*i)++;
			break;
		} else if (c == '$') {
			parse_dollar(sc, src, i, &sub, &scratch, true);
		} else if (c == '`') {
			parse_backtick(sc, src, i, &sub, &scratch);
		} else if (c == '"') {
			(*i)++;
			parse_dquote(sc, src, i, &sub, &scratch);
		} else if (c == '\'') {
			const char *e = memchr(p + *i + 1, '\'', n - *i - 1);

			*i = e ? (size_t)(e - p) + 1 : n;
		} else if (c == '\\') {
			*i += 2;
		} else if (name_start(c)) {
			size_t s = *i;

			while (*i < n && name_char(p[*i]))
				(*i)++;
			var_use(sc, src, s, *i, p + s, *i - s);
		} else if (c >= '0' && c <= '9') {
			while (*i < n && name_char(p[*i]))
				(*i)++;
		} else {
			(*i)++;
		}
	}
	if (*i > n)
		*i = n;
	sword_free(&scratch);
}

/* Reads the rest of a ${...} that is more than a name, from *i. */
static void
parse_braces(struct scan *sc, const struct src *src, size_t *i,
	     struct frame *fr)
{
	const char *p = src->p;
	size_t n = src->len;
	struct frame sub = { fr->depth + 1, false };
	struct sword scratch;
	int depth = 1;

	sword_init(&scratch);
	while (*i < n && depth > 0) {
		char c = p[*i];

		if (c == '\\') {
			*i += 2;
		} else if (c == '\'') {
			const char *e = memchr(p + *i + 1, '\'', n - *i - 1);

			*i = e ? (size_t)(e - p) + 1 : n;
		} else if (c == '"') {
			(*i)++;
			parse_dquote(sc, src, i, &sub, &scratch);
		} else if (c == '$') {
			parse_dollar(sc, src, i, &sub, &scratch, false);
		} else if (c == '`') {
			parse_backtick(sc, src, i, &sub, &scratch);
		} else {
			if (c == '{')
				depth++;
			else if (c == '}')
				depth--;
			(*i)++;
		}
	}
	if (*i > n)
		*i = n;
	sword_free(&scratch);
}

/* Reads $'...' (ANSI-C quoting) at *i into w. */
static void
parse_ansi(const struct src *src, size_t *i, struct sword *w)
{
	const char *p = src->p;
	size_t n = src->len;

	for (*i += 2; *i < n && p[*i] != '\''; (*i)++) {
		char c = p[*i];

		if (c == '\\' && *i + 1 < n) {
			c = p[++(*i)];
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
		}
		cpl_buf_addc(&w->text, c);
	}
	if (*i < n)
		(*i)++;
}

/*
 * Reads an expansion at *i ('$'): $((...)), $(...), ${...}, $NAME, $1,
 * $'...', $"...", or a lone '$'.  The text as written goes into w.
 */
static void
parse_dollar(struct scan *sc, const struct src *src, size_t *i,
	     struct frame *fr, struct sword *w, bool dq)
{
	const char *p = src->p;
	size_t n = src->len, start = *i, j;
	char d = *i + 1 < n ? p[*i + 1] : '\0';

	if (d == '(' && *i + 2 < n && p[*i + 2] == '(') {
		mark_plain(w);
		w->unknown = true;
		parse_arith(sc, src, i, fr);
	} else if (d == '(') {
		struct frame sub = { fr->depth + 1, false };

		mark_plain(w);
		w->unknown = true;
		*i += 2;
		if (sub.depth > MAX_DEPTH)
			skip_nested(src, i, '(', ')', 1);
		else
			parse_list(sc, src, i, &sub, true);
		if (sub.host)
			add_hc(sc, src, start, *i, false);
	} else if (d == '{') {
		mark_plain(w);
		for (j = *i + 2; j < n && name_char(p[j]); j++)
			;
		if (j < n && p[j] == '}' && j > *i + 2 &&
		    name_start(p[*i + 2])) {
			size_t at = w->text.len;

			add_ref(w, at, j + 1 - start, at + 2, j - start - 2);
			var_use(sc, src, start, j + 1, p + start + 2,
				j - start - 2);
			*i = j + 1;
		} else {
			w->unknown = true;
			*i += 2;
			if (fr->depth + 1 > MAX_DEPTH)
				skip_nested(src, i, '{', '}', 1);
			else
				parse_braces(sc, src, i, fr);
		}
	} else if (name_start(d)) {
		size_t at = w->text.len;

		mark_plain(w);
		for (j = *i + 1; j < n && name_char(p[j]); j++)
			;
		add_ref(w, at, j - start, at + 1, j - start - 1);
		var_use(sc, src, start, j, p + start + 1, j - start - 1);
		*i = j;
	} else if (d != '\0' && strchr("0123456789@*#?$!-", d) != NULL) {
		mark_plain(w);
		w->unknown = true;
		*i += 2;
	} else if (d == '\'' && !dq) {
		mark_plain(w);
		parse_ansi(src, i, w);
		return;
	} else if (d == '"' && !dq) {
		mark_plain(w);
		*i += 2;
		parse_dquote(sc, src, i, fr, w);
		return;
	} else {
		cpl_buf_addc(&w->text, '$');
		(*i)++;
		return;
	}
	if (*i > n)
		*i = n;
	cpl_buf_add(&w->text, p + start, *i - start);
}

/* Reads a `...` substitution at *i: its unescaped body is parsed as a
 * script of its own, whose positions all stand for the backtick. */
static void
parse_backtick(struct scan *sc, const struct src *src, size_t *i,
	       struct frame *fr, struct sword *w)
{
	const char *p = src->p;
	size_t n = src->len, start = *i;
	struct frame sub = { fr->depth + 1, false };
	struct cpl_buf body;

	mark_plain(w);
	w->unknown = true;
	cpl_buf_init(&body, 0);
	for ((*i)++; *i < n && p[*i] != '`'; (*i)++) {
		if (p[*i] == '\\' && *i + 1 < n &&
		    strchr("`\\$", p[*i + 1]) != NULL)
			(*i)++;
		cpl_buf_addc(&body, p[*i]);
	}
	if (*i < n)
		(*i)++;
	if (sub.depth <= MAX_DEPTH && body.len > 0) {
		struct src bs = {
			.p = body.data,
			.len = body.len,
			.argi = src->argi,
			.exact = src->exact,
			.fixed = src->fixed != NO_IDX ? src->fixed : start,
		};
		size_t j = 0;

		parse_list(sc, &bs, &j, &sub, false);
	}
	if (sub.host)
		add_hc(sc, src, start, *i, false);
	cpl_buf_add(&w->text, p + start, *i - start);
	cpl_buf_free(&body);
}

/* Reads the inside of "..." from *i (after the opening quote). */
static void
parse_dquote(struct scan *sc, const struct src *src, size_t *i,
	     struct frame *fr, struct sword *w)
{
	const char *p = src->p;
	size_t n = src->len;

	while (*i < n && p[*i] != '"') {
		char c = p[*i];

		if (c == '\\' && *i + 1 < n) {
			char d = p[*i + 1];

			if (d == '\n') {
				*i += 2;	/* line continuation */
			} else if (strchr("$`\"\\", d) != NULL) {
				cpl_buf_addc(&w->text, d);
				*i += 2;
			} else {
				cpl_buf_addc(&w->text, c);
				(*i)++;
			}
		} else if (c == '$') {
			parse_dollar(sc, src, i, fr, w, true);
		} else if (c == '`') {
			parse_backtick(sc, src, i, fr, w);
		} else {
			cpl_buf_addc(&w->text, c);
			(*i)++;
		}
	}
	if (*i < n)
		(*i)++;
}

/* Reads one word at *i into w. */
static void
parse_word(struct scan *sc, const struct src *src, size_t *i,
	   struct frame *fr, struct sword *w)
{
	const char *p = src->p;
	size_t n = src->len;

	w->off = *i;
	w->hc0 = sc->nhcs;
	w->hs0 = sc->hostseen;
	while (*i < n && !is_meta(p[*i])) {
		char c = p[*i];

		if (c == '\\') {
			mark_plain(w);
			if (*i + 1 < n && p[*i + 1] != '\n')
				cpl_buf_addc(&w->text, p[*i + 1]);
			*i += 2;
		} else if (c == '\'') {
			const char *e = memchr(p + *i + 1, '\'', n - *i - 1);
			size_t end = e ? (size_t)(e - p) : n;

			mark_plain(w);
			cpl_buf_add(&w->text, p + *i + 1, end - *i - 1);
			*i = e ? end + 1 : n;
		} else if (c == '"') {
			mark_plain(w);
			(*i)++;
			parse_dquote(sc, src, i, fr, w);
		} else if (c == '$') {
			parse_dollar(sc, src, i, fr, w, false);
		} else if (c == '`') {
			parse_backtick(sc, src, i, fr, w);
		} else {
			cpl_buf_addc(&w->text, c);
			(*i)++;
		}
	}
	if (*i > n)
		*i = n;
	mark_plain(w);
	w->hc1 = sc->nhcs;
	w->hs1 = sc->hostseen;
}

/* Skips the bodies of the here-documents opened on the line just ended. */
static void
skip_heredocs(struct scan *sc, const struct src *src, size_t *i)
{
	const char *p = src->p;
	size_t n = src->len, k;

	for (k = 0; k < sc->nheredocs; k++) {
		const struct heredoc *h = &sc->heredocs[k];
		size_t dl = strlen(h->delim);

		while (*i < n) {
			const char *nl = memchr(p + *i, '\n', n - *i);
			size_t s = *i, e = nl ? (size_t)(nl - p) : n;

			*i = nl ? e + 1 : n;
			while (h->strip_tabs && s < e && p[s] == '\t')
				s++;
			if (e - s == dl && memcmp(p + s, h->delim, dl) == 0)
				break;
		}
	}
	for (k = 0; k < sc->nheredocs; k++)
		free(sc->heredocs[k].delim);
	sc->nheredocs = 0;
}

/* Reads a redirection at *i and its target word; a here-document's
 * delimiter is remembered so that its body is skipped. */
static void
parse_redirect(struct scan *sc, const struct src *src, size_t *i,
	       struct frame *fr)
{
	const char *p = src->p;
	size_t n = src->len;
	bool heredoc = false, tabs = false;
	struct sword t;

	if (p[*i] == '&') {
		*i += 2;
		if (*i < n && p[*i] == '>')
			(*i)++;
	} else if (p[*i] == '<') {
		(*i)++;
		if (*i < n && p[*i] == '<') {
			(*i)++;
			if (*i < n && p[*i] == '<') {
				(*i)++;
			} else {
				heredoc = true;
				if (*i < n && p[*i] == '-') {
					tabs = true;
					(*i)++;
				}
			}
		} else if (*i < n && (p[*i] == '&' || p[*i] == '>')) {
			(*i)++;
		}
	} else {
		(*i)++;
		if (*i < n && strchr(">|&", p[*i]) != NULL && p[*i] != '\0')
			(*i)++;
	}
	while (*i < n && (p[*i] == ' ' || p[*i] == '\t'))
		(*i)++;
	if (*i >= n || is_meta(p[*i]))
		return;
	sword_init(&t);
	parse_word(sc, src, i, fr, &t);
	if (heredoc && sc->nheredocs < MAX_HEREDOCS) {
		sc->heredocs[sc->nheredocs].delim = cpl_xstrdup(wtext(&t));
		sc->heredocs[sc->nheredocs].strip_tabs = tabs;
		sc->nheredocs++;
	}
	sword_free(&t);
}

/* True when w is a file-descriptor number written before a redirection. */
static bool
fd_word(const struct sword *w)
{
	const char *t = wtext(w);
	size_t k;

	if (w->text.len == 0 || w->plain < w->text.len)
		return false;
	for (k = 0; t[k] != '\0'; k++)
		if (t[k] < '0' || t[k] > '9')
			return false;
	return true;
}

/* ---- commands inside substitutions ------------------------------------ */

/* True when the command reads the host's CPU count: nproc, getconf
 * _NPROCESSORS_*, /proc/cpuinfo, lscpu, python ... cpu_count(). */
static bool
host_command(const struct cmd *c)
{
	static const char *const getconf[] = {
		"_NPROCESSORS_ONLN", "_NPROCESSORS_CONF", "NPROCESSORS_ONLN",
		"NPROCESSORS_CONF", NULL,
	};
	const char *base;
	size_t k = 0, j;

	while (k < c->n && assign_len(&c->w[k]) > 0)
		k++;
	if (k >= c->n)
		return false;
	base = base_name(wtext(&c->w[k]));
	if (strcmp(base, "nproc") == 0 || strcmp(base, "lscpu") == 0)
		return true;
	for (j = k + 1; j < c->n; j++) {
		const char *t = wtext(&c->w[j]);

		if (strcmp(base, "getconf") == 0 && in_list(t, getconf))
			return true;
		if (cpl_str_ends(t, "/proc/cpuinfo"))
			return true;
		if (is_python(base) &&
		    (strstr(t, "cpu_count(") != NULL ||
		     strstr(t, "sched_getaffinity(") != NULL))
			return true;
	}
	return false;
}

/* ---- launchers -------------------------------------------------------- */

/* The options of one launcher's command line. */
struct lspec {
	const char *const *ranks;	/* the rank-count flag's names */
	const char *const *bools;	/* long options without a value */
	const char *short_values;	/* short options taking a value */
	bool short_module;		/* -m means --module */
};

static const char *const torch_ranks[] = { "nproc_per_node", NULL };
static const char *const torch_bools[] = {
	"standalone", "run_path", "use_env", "virtual_local_rank", "help",
	NULL,
};
static const struct lspec torch_spec = {
	torch_ranks, torch_bools, "rt", true,
};

static const char *const accel_ranks[] = { "num_processes", NULL };
static const char *const accel_bools[] = {
	"multi_gpu", "cpu", "use_cpu", "use_deepspeed", "use_fsdp",
	"use_megatron_lm", "use_xpu", "tpu", "ipex", "debug", "quiet", "help",
	"same_network", "downcast_bf16", "tpu_use_cluster", "tpu_use_sudo",
	"no_tpu_cluster", "enable_cpu_affinity", "dynamo_use_fullgraph",
	"dynamo_use_dynamic", "dynamo_use_regional_compilation",
	"use_parallelism_config", NULL,
};
static const struct lspec accel_spec = {
	accel_ranks, accel_bools, "t", true,
};

static const char *const ds_ranks[] = {
	"num_gpus", "num_accelerators", NULL,
};
static const char *const ds_bools[] = {
	"no_local_rank", "no_ssh", "no_ssh_check", "force_multi", "save_pid",
	"elastic_training", "bind_cores_to_rank", "help", NULL,
};
static const struct lspec ds_spec = {
	ds_ranks, ds_bools, "Hie", false,
};

/* python -m modules that set up rather than train. */
static const char *const setup_modules[] = {
	"pip", "ensurepip", "venv", "virtualenv", "site", "compileall",
	"py_compile", "json.tool", "http.server", "pydoc", "nltk.downloader",
	"spacy", NULL,
};

/* What a launching command was found to be, as indexes into its words. */
struct rec {
	enum cpl_launcher l;
	size_t lw, lfrom;	/* launcher word, where its name starts */
	bool has_nproc;
	size_t nw, nfrom;	/* rank-count value word, where it starts */
	bool has_script;
	bool module;
	bool setup;		/* python running no script, pip, setup.py */
	size_t sw, sfrom;	/* script word, where it starts */
	size_t a0;		/* first script argument */
};

static void python_args(const struct sword *w, size_t n, size_t j,
			struct rec *r);

/* Reads a launcher's options from word j: the rank count, then the
 * script (or module, or executable with --no-python) and its arguments. */
static void
launcher_opts(const struct sword *w, size_t n, size_t j,
	      const struct lspec *spec, struct rec *r)
{
	bool module = false, nopy = false;

	for (; j < n; j++) {
		const char *t = wtext(&w[j]);

		if (strcmp(t, "--") == 0) {
			j++;
			break;
		}
		if (t[0] != '-' || t[1] == '\0')
			break;
		if (t[1] == '-') {
			const char *name = t + 2, *eq = strchr(name, '=');
			size_t nl = eq ? (size_t)(eq - name) : strlen(name);

			if (opt_in(name, nl, spec->ranks)) {
				if (eq != NULL) {
					r->has_nproc = true;
					r->nw = j;
					r->nfrom = (size_t)(eq - t) + 1;
				} else if (j + 1 < n) {
					r->has_nproc = true;
					r->nw = ++j;
					r->nfrom = 0;
				}
			} else if (opt_eq(name, nl, "module")) {
				module = true;
			} else if (opt_eq(name, nl, "no_python")) {
				nopy = true;
			} else if (eq == NULL &&
				   !opt_in(name, nl, spec->bools)) {
				j++;	/* an option with a value */
			}
		} else if (t[1] == 'm' && t[2] == '\0' && spec->short_module) {
			module = true;
		} else if (t[2] == '\0' && strchr(spec->short_values, t[1])) {
			j++;
		}
	}
	r->a0 = n;
	if (j >= n)
		return;
	if (nopy) {
		struct rec sub;

		r->a0 = j + 1;
		if (!is_python(base_name(wtext(&w[j]))))
			return;
		memset(&sub, 0, sizeof(sub));
		sub.l = CPL_LAUNCH_PYTHON;
		python_args(w, n, j + 1, &sub);
		if (sub.l != CPL_LAUNCH_PYTHON)
			return;
		r->has_script = sub.has_script;
		r->module = sub.module;
		r->sw = sub.sw;
		r->sfrom = sub.sfrom;
		r->a0 = sub.a0;
		return;
	}
	r->has_script = true;
	r->module = module;
	r->sw = j;
	r->sfrom = 0;
	r->a0 = j + 1;
}

/* python -m MODULE (at word vw, from byte vfrom): a launcher module or
 * the script itself. */
static void
python_module(const struct sword *w, size_t n, size_t vw, size_t vfrom,
	      struct rec *r)
{
	const char *m = wtext(&w[vw]) + vfrom;
	const struct lspec *spec = NULL;

	if (strcmp(m, "torch.distributed.run") == 0) {
		r->l = CPL_LAUNCH_TORCHRUN;
		spec = &torch_spec;
	} else if (strcmp(m, "torch.distributed.launch") == 0) {
		r->l = CPL_LAUNCH_TORCH_LAUNCH;
		spec = &torch_spec;
	} else if (strcmp(m, "accelerate.commands.launch") == 0) {
		r->l = CPL_LAUNCH_ACCELERATE;
		spec = &accel_spec;
	} else if (strcmp(m, "deepspeed.launcher.runner") == 0) {
		r->l = CPL_LAUNCH_DEEPSPEED;
		spec = &ds_spec;
	}
	if (spec != NULL) {
		r->lw = vw;
		r->lfrom = vfrom;
		launcher_opts(w, n, vw + 1, spec, r);
		return;
	}
	r->has_script = true;
	r->module = true;
	r->sw = vw;
	r->sfrom = vfrom;
	r->a0 = vw + 1;
	r->setup = in_list(m, setup_modules) || cpl_str_starts(m, "pip.");
}

/* Reads python's interpreter options from word j, then the script. */
static void
python_args(const struct sword *w, size_t n, size_t j, struct rec *r)
{
	r->a0 = n;
	for (; j < n; j++) {
		const char *t = wtext(&w[j]);
		size_t k;

		if (strcmp(t, "--") == 0) {
			j++;
			break;
		}
		if (strcmp(t, "-") == 0) {
			r->setup = true;
			r->a0 = j + 1;
			return;
		}
		if (t[0] != '-')
			break;
		if (t[1] == '-') {
			if (strcmp(t, "--check-hash-based-pycs") == 0)
				j++;
			continue;
		}
		for (k = 1; t[k] != '\0'; k++) {
			size_t vw = j, vfrom = k + 1;

			if (strchr("cmWX", t[k]) == NULL)
				continue;
			if (t[k + 1] == '\0') {
				vw = j + 1;
				vfrom = 0;
			}
			if (vw >= n) {
				r->setup = true;
				return;
			}
			if (t[k] == 'c') {
				r->setup = true;
				r->a0 = vw + 1;
				return;
			}
			if (t[k] == 'm') {
				python_module(w, n, vw, vfrom, r);
				return;
			}
			j = vw;
			break;
		}
	}
	if (j >= n) {
		r->setup = true;
		return;
	}
	r->has_script = true;
	r->sw = j;
	r->sfrom = 0;
	r->a0 = j + 1;
	r->setup = strcmp(base_name(wtext(&w[j])), "setup.py") == 0;
}

/* Recognises the launcher starting at word ci; false when it is none. */
static bool
recognise(const struct sword *w, size_t n, size_t ci, struct rec *r)
{
	const char *base = base_name(wtext(&w[ci]));

	memset(r, 0, sizeof(*r));
	r->lw = ci;
	r->a0 = n;
	if (strcmp(base, "torchrun") == 0) {
		r->l = CPL_LAUNCH_TORCHRUN;
		launcher_opts(w, n, ci + 1, &torch_spec, r);
	} else if (strcmp(base, "deepspeed") == 0) {
		r->l = CPL_LAUNCH_DEEPSPEED;
		launcher_opts(w, n, ci + 1, &ds_spec, r);
	} else if (strcmp(base, "accelerate") == 0 && ci + 1 < n &&
		   strcmp(wtext(&w[ci + 1]), "launch") == 0) {
		r->l = CPL_LAUNCH_ACCELERATE;
		launcher_opts(w, n, ci + 2, &accel_spec, r);
	} else if (strcmp(base, "accelerate-launch") == 0) {
		r->l = CPL_LAUNCH_ACCELERATE;
		launcher_opts(w, n, ci + 1, &accel_spec, r);
	} else if (is_python(base)) {
		r->l = CPL_LAUNCH_PYTHON;
		python_args(w, n, ci + 1, r);
	} else {
		return false;
	}
	return true;
}

/* ---- top-level commands ----------------------------------------------- */

/* Position of byte from of word w. */
static struct cpl_pos
word_pos(const struct scan *sc, const struct sword *w, size_t from)
{
	if (w->from_argv || sc->top == NULL)
		return sc->argv[w->argi].pos;
	return pos_at(sc, sc->top, w->off + (from <= w->plain ? from : 0));
}

/* An owned output word: w's text from byte from, resolved when it can be,
 * else as written. */
static struct cpl_word
word_out(struct scan *sc, const struct sword *w, size_t from)
{
	struct cpl_word o;
	char *r = resolve(sc, w, from);

	o.text = r ? r : cpl_xstrdup(wtext(w) + from);
	o.pos = word_pos(sc, w, from);
	return o;
}

/* Sets (or replaces) an export of the name's n bytes; takes value. */
static void
add_export(struct scan *sc, const char *name, size_t n, char *value,
	   struct cpl_pos pos)
{
	struct cpl_launch *out = sc->out;
	struct var *v = var_get(sc, name, n, true);
	struct cpl_env *e;
	void *p = out->exports;

	if (v != NULL && v->export_idx != NO_IDX) {
		e = &out->exports[v->export_idx];
		free(e->value);
		e->value = value;
		e->pos = pos;
		return;
	}
	if (v == NULL || out->nexports >= MAX_EXPORTS) {
		free(value);
		return;
	}
	cpl_xgrow(&p, &sc->capexp_out, out->nexports + 1,
		  sizeof(*out->exports));
	out->exports = p;
	e = &out->exports[out->nexports];
	e->name = cpl_xstrndup(name, n);
	e->value = value;
	e->pos = pos;
	v->export_idx = out->nexports++;
}

/* Assigns the variable of assignment word w (NAME is len bytes); a
 * conditional assignment leaves the value unknown. */
static struct var *
set_var(struct scan *sc, struct sword *w, size_t len, bool cond)
{
	struct var *v = var_get(sc, wtext(w), len, true);
	bool host = w->hs1 > w->hs0;
	char *value;

	w->sizes = wtext(w);
	w->sizeslen = len;
	if (v == NULL)
		return NULL;
	value = cond ? NULL : resolve(sc, w, len + 1);
	free(v->value);
	v->value = value;
	v->host = cond ? (v->host || host) : host;
	v->set = true;
	v->pos = word_pos(sc, w, 0);
	return v;
}

/* export/declare/typeset/readonly/local at word ci. */
static void
decl_command(struct scan *sc, struct cmd *c, size_t ci, bool cond)
{
	bool exp = strcmp(wtext(&c->w[ci]), "export") == 0;
	size_t k;

	for (k = ci + 1; k < c->n; k++) {
		struct sword *w = &c->w[k];
		const char *t = wtext(w);
		size_t len = assign_name(w, false);
		struct var *v;

		if ((t[0] == '-' || t[0] == '+') && len == 0) {
			if (t[0] == '-' && strchr(t, 'x') != NULL)
				exp = true;
			continue;
		}
		if (len > 0) {
			v = set_var(sc, w, len, cond);
			w->sink = exp;
			if (v == NULL || !exp)
				continue;
			v->exported = true;
			if (sc->launched < 2)
				add_export(sc, t, len, cpl_xstrdup(v->value),
					   v->pos);
			continue;
		}
		if (!exp || !name_start(t[0]))
			continue;
		v = var_get(sc, t, w->text.len, true);
		if (v == NULL)
			continue;
		v->exported = true;
		if (v->set && sc->launched < 2)
			add_export(sc, t, w->text.len, cpl_xstrdup(v->value),
				   v->pos);
	}
}

/* Fills dst's launcher fields from r over words w[0, n). */
static void
fill_launch(struct scan *sc, struct cpl_launch *dst, const struct sword *w,
	    size_t n, const struct rec *r)
{
	size_t k;

	dst->launcher = r->l;
	dst->launcher_word = word_out(sc, &w[r->lw], r->lfrom);
	if (r->has_nproc) {
		dst->has_nproc = true;
		dst->nproc = word_out(sc, &w[r->nw], r->nfrom);
	}
	if (r->has_script) {
		dst->has_script = true;
		dst->script = word_out(sc, &w[r->sw], r->sfrom);
		dst->is_module = r->module;
	}
	if (r->a0 < n) {
		dst->args = cpl_xcalloc(n - r->a0, sizeof(*dst->args));
		for (k = r->a0; k < n; k++)
			dst->args[dst->nargs++] = word_out(sc, &w[k], 0);
	}
}

/* Appends an export to a tentative launch (no de-duplication needed: the
 * prefix of one command). */
static void
tent_export(struct cpl_launch *t, const char *name, size_t n, char *value,
	    struct cpl_pos pos)
{
	t->exports = cpl_xrealloc(t->exports,
				  (t->nexports + 1) * sizeof(*t->exports));
	t->exports[t->nexports].name = cpl_xstrndup(name, n);
	t->exports[t->nexports].value = value;
	t->exports[t->nexports].pos = pos;
	t->nexports++;
}

/*
 * The command at word ci, when it is a launcher, becomes the launch with
 * its prefix assignments as exports.  A setup command (python -c, pip,
 * setup.py) is only kept as a fallback in case nothing else launches.
 */
static void
launch_command(struct scan *sc, struct cmd *c, size_t ci)
{
	struct rec r;
	bool tentative;
	struct cpl_launch *dst;
	size_t k;

	if (!recognise(c->w, c->n, ci, &r))
		return;
	tentative = r.l == CPL_LAUNCH_PYTHON && r.setup;
	if (tentative && sc->launched == 1)
		return;
	cpl_launch_clear(&sc->tent);
	dst = tentative ? &sc->tent : sc->out;
	fill_launch(sc, dst, c->w, c->n, &r);
	for (k = 0; k < ci; k++) {
		struct sword *w = &c->w[k];
		size_t len = w->prefix ? assign_len(w) : 0;
		char *value;

		if (len == 0)
			continue;
		value = resolve(sc, w, len + 1);
		if (tentative)
			tent_export(dst, wtext(w), len, value,
				    word_pos(sc, w, 0));
		else
			add_export(sc, wtext(w), len, value,
				   word_pos(sc, w, 0));
	}
	sc->launched = tentative ? 1 : 2;
}

/* True for a word that reads like a command-line flag. */
static bool
is_flag(const char *t)
{
	return t[0] == '-' && t[1] != '\0' && strcmp(t, "--") != 0 &&
	       (t[1] < '0' || t[1] > '9');
}

/* What the host-count reads in word k (after command word ci) size: the
 * flag of --flag=V or -jV, or the flag word before it when that flag
 * carries no value of its own. */
static void
flag_sizes(struct sword *w, size_t k, size_t ci)
{
	const char *t = wtext(&w[k]), *e;

	if (is_flag(t)) {
		e = strchr(t, '=');
		if (e == NULL)
			e = strpbrk(t, "$`");
		if (e != NULL && e > t + 1) {
			w[k].sizes = t;
			w[k].sizeslen = (size_t)(e - t);
			w[k].sink = true;
		}
		return;
	}
	if (k > ci + 1) {
		const char *f = wtext(&w[k - 1]);

		if (is_flag(f) && strpbrk(f, "=$`") == NULL &&
		    !w[k - 1].unknown) {
			w[k].sizes = f;
			w[k].sizeslen = w[k - 1].text.len;
			w[k].sink = true;
		}
	}
}

/* Strips reserved words from the front of c and tracks the nesting of
 * conditionals; returns the first word after them, or c->n when the whole
 * command is a for/case/function header. */
static size_t
reserved_words(struct scan *sc, const struct cmd *c)
{
	static const char *const opening[] = {
		"if", "while", "until", NULL,
	};
	static const char *const closing[] = { "fi", "done", "esac", NULL };
	static const char *const header[] = {
		"for", "case", "select", NULL,
	};
	static const char *const other[] = {
		"then", "else", "elif", "do", "!", "{", "}", NULL,
	};
	size_t i;

	for (i = 0; i < c->n; i++) {
		const char *t = wtext(&c->w[i]);

		if (c->w[i].plain < c->w[i].text.len)
			break;
		if (in_list(t, header)) {
			sc->cond_depth++;
			return c->n;
		}
		if (strcmp(t, "function") == 0)
			return c->n;
		if (in_list(t, opening))
			sc->cond_depth++;
		else if (in_list(t, closing))
			sc->cond_depth -= sc->cond_depth > 0;
		else if (!in_list(t, other))
			break;
	}
	return i;
}

/* Skips the wrappers exec, nohup, time, command and env (with env's own
 * assignments) from word i; returns the wrapped command's word, c->n when
 * none, and sets *quiet for `command -v`. */
static size_t
wrappers(struct cmd *c, size_t i, bool *quiet)
{
	while (i < c->n) {
		const char *t = wtext(&c->w[i]);

		if (strcmp(t, "exec") == 0) {
			for (i++; i < c->n && wtext(&c->w[i])[0] == '-'; i++)
				i += strcmp(wtext(&c->w[i]), "-a") == 0;
		} else if (strcmp(t, "nohup") == 0 ||
			   strcmp(t, "time") == 0) {
			for (i++; i < c->n && wtext(&c->w[i])[0] == '-'; i++)
				;
		} else if (strcmp(t, "command") == 0) {
			for (i++; i < c->n && wtext(&c->w[i])[0] == '-'; i++)
				if (strcmp(wtext(&c->w[i]), "-p") != 0)
					*quiet = true;
		} else if (strcmp(t, "env") == 0) {
			for (i++; i < c->n; i++) {
				const char *a = wtext(&c->w[i]);

				if (strcmp(a, "--") == 0) {
					i++;
					break;
				}
				if (strcmp(a, "-u") == 0 ||
				    strcmp(a, "-C") == 0 ||
				    strcmp(a, "-S") == 0) {
					i++;
				} else if (assign_len(&c->w[i]) > 0) {
					c->w[i].prefix = true;
					c->w[i].sizes = a;
					c->w[i].sizeslen =
						assign_len(&c->w[i]);
					c->w[i].sink = true;
				} else if (a[0] != '-') {
					break;
				}
			}
		} else {
			break;
		}
	}
	return i;
}

/*
 * A finished top-level command: assignments and exports update the
 * variables, a launcher becomes the launch, and every host-count read in
 * it is reported with what it sizes.
 */
static void
top_command(struct scan *sc, struct cmd *c)
{
	static const char *const decl[] = {
		"export", "declare", "typeset", "readonly", "local", NULL,
	};
	static const char *const tests[] = { "[", "[[", "test", NULL };
	static const char *const prints[] = { "echo", "printf", NULL };
	size_t i, k, ci;
	bool cond, quiet = false;
	const char *t;

	i = reserved_words(sc, c);
	cond = sc->next_cond || sc->cond_depth > 0;
	sc->chain_cond = sc->next_cond;
	if (i >= c->n)
		goto emit;
	for (; i < c->n && assign_len(&c->w[i]) > 0; i++) {
		c->w[i].prefix = true;
		c->w[i].sizes = wtext(&c->w[i]);
		c->w[i].sizeslen = assign_len(&c->w[i]);
		c->w[i].sink = true;
	}
	if (i == c->n) {
		for (k = 0; k < c->n; k++) {
			struct sword *w = &c->w[k];
			size_t len = assign_len(w);
			struct var *v;

			if (!w->prefix)
				continue;
			w->prefix = false;
			v = set_var(sc, w, len, cond);
			w->sink = v != NULL && v->exported;
			if (w->sink && sc->launched < 2)
				add_export(sc, wtext(w), len,
					   cpl_xstrdup(v->value), v->pos);
		}
		goto emit;
	}
	ci = wrappers(c, i, &quiet);
	if (ci >= c->n)
		goto emit;
	t = wtext(&c->w[ci]);
	if (in_list(t, decl)) {
		decl_command(sc, c, ci, cond);
		goto emit;
	}
	if (in_list(t, tests)) {
		quiet = true;
		sc->chain_cond = true;
	}
	if (in_list(t, prints))
		quiet = true;
	if (!quiet && sc->launched < 2)
		launch_command(sc, c, ci);
	for (k = ci + 1; k < c->n && !quiet; k++)
		flag_sizes(c->w, k, ci);
emit:
	for (k = 0; k < c->n; k++)
		emit_word(sc, &c->w[k]);
}

/* Hands a finished command to its handler and clears it. */
static void
finish(struct scan *sc, struct frame *fr, struct cmd *c, enum conn conn)
{
	if (fr->depth > 0) {
		if (c->n > 0 && host_command(c))
			fr->host = true;
	} else {
		if (c->n > 0) {
			top_command(sc, c);
			sc->next_cond = conn == CONN_OR ||
					(conn == CONN_AND && sc->chain_cond);
		}
		drop_pending(sc);
	}
	cmd_clear(c);
}

/*
 * Reads simple commands from *i to the end of src, or (to_paren) to the ')'
 * that ends a $(...), handing each to finish().
 */
static void
parse_list(struct scan *sc, const struct src *src, size_t *i,
	   struct frame *fr, bool to_paren)
{
	const char *p = src->p;
	size_t n = src->len;
	struct cmd c = { 0 };

	while (*i < n) {
		char ch = p[*i], nx = *i + 1 < n ? p[*i + 1] : '\0';
		struct sword *w;

		if (ch == ' ' || ch == '\t' || ch == '\r') {
			(*i)++;
		} else if (ch == '\\' && nx == '\n') {
			*i += 2;
		} else if (ch == '#') {
			const char *nl = memchr(p + *i, '\n', n - *i);

			*i = nl ? (size_t)(nl - p) : n;
		} else if (ch == '\n') {
			finish(sc, fr, &c, CONN_SEQ);
			(*i)++;
			if (sc->nheredocs > 0)
				skip_heredocs(sc, src, i);
		} else if (ch == ';') {
			finish(sc, fr, &c, CONN_SEQ);
			*i += (nx == ';' || nx == '&') ? 2 : 1;
		} else if (ch == '&' && nx == '>') {
			parse_redirect(sc, src, i, fr);
		} else if (ch == '&') {
			finish(sc, fr, &c, nx == '&' ? CONN_AND : CONN_SEQ);
			*i += nx == '&' ? 2 : 1;
		} else if (ch == '|') {
			finish(sc, fr, &c, nx == '|' ? CONN_OR : CONN_SEQ);
			*i += (nx == '|' || nx == '&') ? 2 : 1;
		} else if (ch == ')') {
			finish(sc, fr, &c, CONN_SEQ);
			(*i)++;
			if (to_paren)
				goto out;
		} else if (ch == '(') {
			finish(sc, fr, &c, CONN_SEQ);
			(*i)++;
		} else if (ch == '<' || ch == '>') {
			parse_redirect(sc, src, i, fr);
		} else {
			w = cmd_push(&c);
			parse_word(sc, src, i, fr, w);
			if (*i < n && (p[*i] == '<' || p[*i] == '>') &&
			    fd_word(w)) {
				sword_free(w);
				c.n--;
			}
		}
	}
	finish(sc, fr, &c, CONN_SEQ);
out:
	cmd_free(&c);
}

/* ---- entry points ----------------------------------------------------- */

/*
 * True when argv runs a shell script: sh|bash|dash|ash|zsh with options
 * and -c, or a single word holding blanks.  *si is the script's word.
 */
static bool
shell_script(const struct scan *sc, size_t *si)
{
	static const char *const shells[] = {
		"sh", "bash", "dash", "ash", "zsh", NULL,
	};
	const char *t0 = argtext(sc, 0);
	bool cflag = false;
	size_t j;

	if (sc->argc == 1 && strpbrk(t0, " \t\n") != NULL) {
		*si = 0;
		return true;
	}
	if (!in_list(base_name(t0), shells))
		return false;
	for (j = 1; j < sc->argc; j++) {
		const char *t = argtext(sc, j);
		size_t k, skip = 0;

		if (strcmp(t, "--") == 0 || strcmp(t, "-") == 0) {
			j++;
			break;
		}
		if ((t[0] != '-' && t[0] != '+') || t[1] == '\0')
			break;
		if (t[0] == '-' && t[1] == '-') {
			if (strcmp(t, "--rcfile") == 0 ||
			    strcmp(t, "--init-file") == 0)
				j++;
			continue;
		}
		for (k = 1; t[k] != '\0'; k++) {
			if (t[k] == 'c' && t[0] == '-')
				cflag = true;
			else if (t[k] == 'o' || t[k] == 'O')
				skip++;
		}
		j += skip;
	}
	if (!cflag || j >= sc->argc)
		return false;
	*si = j;
	return true;
}

/* Parses the script in argv word si. */
static void
scan_script(struct scan *sc, size_t si)
{
	const char *t = argtext(sc, si);
	size_t len = strlen(t), i = 0;
	const struct cpl_ynode *node = sc->nodes ? sc->nodes[si] : NULL;
	struct src src = { t, len, si, false, NO_IDX };
	struct frame fr = { 0, false };

	if (node != NULL && sc->ys != NULL && node->kind == CPL_Y_SCALAR &&
	    node->value != NULL && node->len == len &&
	    memcmp(node->value, t, len) == 0)
		src.exact = index_lines(sc, node, t, len);
	sc->top = &src;
	parse_list(sc, &src, &i, &fr, false);
	if (sc->nheredocs > 0)
		skip_heredocs(sc, &src, &i);
	sc->top = NULL;
}

/* Notes the substitutions written inside argv word k (not a shell word:
 * only $(...) and backticks are looked for). */
static void
scan_argv_word(struct scan *sc, size_t k, struct sword *w)
{
	const char *t = argtext(sc, k);
	struct src src = { t, strlen(t), k, false, NO_IDX };
	struct frame fr = { 0, false };
	struct sword scratch;
	size_t i = 0;

	sword_init(&scratch);
	while (i < src.len) {
		if (t[i] == '$' && t[i + 1] == '(') {
			parse_dollar(sc, &src, &i, &fr, &scratch, false);
			w->unknown = true;
		} else if (t[i] == '`') {
			parse_backtick(sc, &src, &i, &fr, &scratch);
			w->unknown = true;
		} else {
			i++;
		}
	}
	sword_free(&scratch);
}

/* True for -c and option clusters ending in it (-uc). */
static bool
dash_c(const char *t)
{
	size_t k;

	if (t[0] != '-' || t[1] == '-' || t[1] == '\0')
		return false;
	for (k = 1; t[k + 1] != '\0'; k++)
		if (!name_start(t[k]))
			return false;
	return t[k] == 'c';
}

/* Treats argv as one simple command, already split. */
static void
scan_argv(struct scan *sc)
{
	struct cmd c = { 0 };
	size_t k, py = NO_IDX;

	for (k = 0; k < sc->argc; k++) {
		struct sword *w = cmd_push(&c);
		const char *t = argtext(sc, k);

		cpl_buf_adds(&w->text, t);
		w->plain = w->text.len;
		w->from_argv = true;
		w->argi = k;
		w->hc0 = sc->nhcs;
		w->hs0 = sc->hostseen;
		/* python -c CODE: the code is Python, not shell. */
		if (!(py != NO_IDX && k >= 2 && py < k - 1 &&
		      dash_c(argtext(sc, k - 1))))
			scan_argv_word(sc, k, w);
		w->hc1 = sc->nhcs;
		w->hs1 = sc->hostseen;
		if (py == NO_IDX && is_python(base_name(t)))
			py = k;
	}
	top_command(sc, &c);
	drop_pending(sc);
	cmd_free(&c);
}

/* Moves a fallback (setup) launch into out when nothing else launched. */
static void
settle(struct scan *sc)
{
	struct cpl_launch *out = sc->out, *t = &sc->tent;
	size_t k;

	if (sc->launched != 1)
		return;
	out->launcher = t->launcher;
	out->launcher_word = t->launcher_word;
	out->has_nproc = t->has_nproc;
	out->nproc = t->nproc;
	out->has_script = t->has_script;
	out->script = t->script;
	out->is_module = t->is_module;
	out->args = t->args;
	out->nargs = t->nargs;
	t->launcher_word.text = NULL;
	t->nproc.text = NULL;
	t->script.text = NULL;
	t->args = NULL;
	t->nargs = 0;
	for (k = 0; k < t->nexports; k++) {
		struct cpl_env *e = &t->exports[k];

		add_export(sc, e->name, strlen(e->name), e->value, e->pos);
		e->value = NULL;
	}
}

/* Frees the scan's scratch state. */
static void
scan_free(struct scan *sc)
{
	size_t k;

	drop_pending(sc);
	free(sc->hcs);
	for (k = 0; k < sc->nslots; k++) {
		if (sc->slots[k] == NULL)
			continue;
		free(sc->slots[k]->name);
		free(sc->slots[k]->value);
		free(sc->slots[k]);
	}
	free(sc->slots);
	for (k = 0; k < sc->nheredocs; k++)
		free(sc->heredocs[k].delim);
	free(sc->lines);
	cpl_launch_clear(&sc->tent);
}

void
cpl_shscan(struct cpl_launch *out, const struct cpl_word *argv, size_t argc,
	   const struct cpl_ynode *const *nodes, const struct cpl_ystream *s)
{
	struct scan sc;
	size_t si;

	memset(out, 0, sizeof(*out));
	if (argv == NULL || argc == 0)
		return;
	memset(&sc, 0, sizeof(sc));
	sc.out = out;
	sc.argv = argv;
	sc.argc = argc;
	sc.nodes = nodes;
	sc.ys = s;
	if (shell_script(&sc, &si)) {
		out->is_shell = true;
		scan_script(&sc, si);
	} else {
		scan_argv(&sc);
	}
	settle(&sc);
	scan_free(&sc);
}

const char *
cpl_launcher_name(enum cpl_launcher l)
{
	switch (l) {
	case CPL_LAUNCH_NONE:
		return "none";
	case CPL_LAUNCH_PYTHON:
		return "python";
	case CPL_LAUNCH_TORCHRUN:
		return "torchrun";
	case CPL_LAUNCH_TORCH_LAUNCH:
		return "torch.distributed.launch";
	case CPL_LAUNCH_ACCELERATE:
		return "accelerate launch";
	case CPL_LAUNCH_DEEPSPEED:
		return "deepspeed";
	}
	return "?";
}
