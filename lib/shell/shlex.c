/*
 * shlex.c — the shell wing's lexer (shlex_int.h): splits POSIX shell text into
 * words and simple commands.
 *
 * A small recursive-descent parser: cpl_shlex_list() reads simple commands
 * up to a separator (';' '&&' '||' '|' '&', newlines, parentheses),
 * parse_word() one word (quotes, escapes, $(...), backticks, $((...)),
 * ${...}), parse_redirect() a redirection and its target, here-documents
 * included.  Each finished command goes to the scanner
 * (cpl_shscan_finish(), shscan.c, which calls back into the lexer for
 * the next); a substitution that read the host's CPU count and each use
 * of a variable are reported to it (cpl_shscan_hostread(), _varuse()).
 * Positions of words inside a YAML scalar come from a line index of the
 * script (cpl_shlex_index_lines(), cpl_shlex_pos()).
 *
 * Invariants: one pass over the text; a byte is copied at most once per
 * level of nesting and nesting past MAX_DEPTH is skipped flat; positions
 * come from the line index in O(log n), so time is linear in the input
 * and the recursion is bounded.
 *
 * Owns: the words and commands it builds (freed by their owners with
 * cpl_shlex_word_free() and cpl_shlex_free()), the scan's line index and
 * pending here-documents.  May include shell/shlex_int.h, shell/shstate_int.h,
 * text/ and util.h; knows nothing of launchers (shlaunch.c) or of what a
 * command means (shscan.c).
 */
#include "shell/shlex_int.h"

#include <stdlib.h>
#include <string.h>

#include "shell/shstate_int.h"
#include "util.h"

#define MAX_DEPTH 32		/* substitutions nested deeper are skipped */

static void parse_dquote(struct sh_scan *sc, const struct src *src, size_t *i,
			 struct sh_frame *fr, struct sword *w);

/* ---- characters and names --------------------------------------------- */

/* True for bytes that end an unquoted word. */
static bool
is_meta(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' ||
	       c == '&' || c == '|' || c == '<' || c == '>' || c == '(' ||
	       c == ')';
}

/* The last path component of s. */
const char *
cpl_shlex_base(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

/* True when s names one of the words in the NULL-terminated list. */
bool
cpl_shlex_oneof(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* ---- positions -------------------------------------------------------- */

/*
 * Indexes the script's lines and checks, with cpl_ynode_offset_pos() at
 * both ends of the value, that offsets map linearly (a literal block or a
 * single-line scalar without escapes).  Then every position is computed
 * from the index in O(log n) with the same result cpl_ynode_offset_pos()
 * gives, instead of its O(n) walk per call.
 */
bool
cpl_shlex_index_lines(struct sh_scan *sc, const struct cpl_ynode *node,
		      const char *t, size_t len)
{
	size_t cap = 0, k;
	int le, ce;
	void *p = NULL;

	if (len == 0)
		return false;
	p = cpl_xgrow_to(p, &cap, 1, sizeof(size_t));
	sc->lines = p;
	sc->lines[0] = 0;
	sc->nlines = 1;
	for (k = 0; k < len; k++) {
		if (t[k] != '\n')
			continue;
		p = sc->lines;
		p = cpl_xgrow_to(p, &cap, sc->nlines + 1, sizeof(size_t));
		sc->lines = p;
		sc->lines[sc->nlines++] = k + 1;
	}
	if (node == NULL) {	/* a whole file (sc->file) */
		sc->line0 = 1;
		sc->col0 = 1;
		return true;
	}
	cpl_ynode_offset_pos(sc->ys, node, 0, &sc->line0, &sc->col0);
	cpl_ynode_offset_pos(sc->ys, node, len, &le, &ce);
	return le == sc->line0 + (int)(sc->nlines - 1) &&
	       ce == sc->col0 + (int)(len - sc->lines[sc->nlines - 1]);
}

/* Position of byte offset off of src. */
struct cpl_pos
cpl_shlex_pos(const struct sh_scan *sc, const struct src *src, size_t off)
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
void
cpl_shlex_word_init(struct sword *w)
{
	memset(w, 0, sizeof(*w));
	cpl_buf_init(&w->text, 0);
	w->plain = NO_IDX;
}

/* Frees what w holds. */
void
cpl_shlex_word_free(struct sword *w)
{
	cpl_buf_free(&w->text);
	free(w->refs);
	w->refs = NULL;
	w->nrefs = w->caprefs = 0;
}

/* Ends the verbatim prefix of w: what follows is quoted or expanded. */
static void
mark_plain(struct sword *w)
{
	if (w->plain == NO_IDX)
		w->plain = w->text.len;
}

/* Appends a new empty word to c; borrowed until the next push. */
struct sword *
cpl_shlex_push(struct sh_cmd *c)
{
	void *p = c->w;

	p = cpl_xgrow_to(p, &c->cap, c->n + 1, sizeof(*c->w));
	c->w = p;
	cpl_shlex_word_init(&c->w[c->n]);
	return &c->w[c->n++];
}

/* Drops every word of c, keeping its array. */
void
cpl_shlex_clear(struct sh_cmd *c)
{
	size_t k;

	for (k = 0; k < c->n; k++)
		cpl_shlex_word_free(&c->w[k]);
	c->n = 0;
}

/* Frees c. */
void
cpl_shlex_free(struct sh_cmd *c)
{
	cpl_shlex_clear(c);
	free(c->w);
	c->w = NULL;
	c->cap = 0;
}

/* Records a $NAME reference: at/len in w's text, name inside it. */
static void
add_ref(struct sword *w, size_t at, size_t len, size_t name, size_t namelen)
{
	void *p = w->refs;

	p = cpl_xgrow_to(p, &w->caprefs, w->nrefs + 1, sizeof(*w->refs));
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
size_t
cpl_shlex_assign_name(const struct sword *w, bool strict)
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
size_t
cpl_shlex_assign_len(const struct sword *w)
{
	return cpl_shlex_assign_name(w, true);
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
parse_arith(struct sh_scan *sc, const struct src *src, size_t *i,
	    struct sh_frame *fr)
{
	const char *p = src->p;
	size_t n = src->len;
	struct sh_frame sub = { fr->depth + 1, false };
	struct sword scratch;
	int depth = 0;

	*i += 3;
	if (sub.depth > MAX_DEPTH) {
		skip_nested(src, i, '(', ')', 2);
		return;
	}
	cpl_shlex_word_init(&scratch);
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
			cpl_shlex_dollar(sc, src, i, &sub, &scratch, true);
		} else if (c == '`') {
			cpl_shlex_backtick(sc, src, i, &sub, &scratch);
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
			cpl_shscan_varuse(sc, src, s, *i, p + s, *i - s);
		} else if (c >= '0' && c <= '9') {
			while (*i < n && name_char(p[*i]))
				(*i)++;
		} else {
			(*i)++;
		}
	}
	if (*i > n)
		*i = n;
	cpl_shlex_word_free(&scratch);
}

/* Reads the rest of a ${...} that is more than a name, from *i. */
static void
parse_braces(struct sh_scan *sc, const struct src *src, size_t *i,
	     struct sh_frame *fr)
{
	const char *p = src->p;
	size_t n = src->len;
	struct sh_frame sub = { fr->depth + 1, false };
	struct sword scratch;
	int depth = 1;

	cpl_shlex_word_init(&scratch);
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
			cpl_shlex_dollar(sc, src, i, &sub, &scratch, false);
		} else if (c == '`') {
			cpl_shlex_backtick(sc, src, i, &sub, &scratch);
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
	cpl_shlex_word_free(&scratch);
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
void
cpl_shlex_dollar(struct sh_scan *sc, const struct src *src, size_t *i,
		 struct sh_frame *fr, struct sword *w, bool dq)
{
	const char *p = src->p;
	size_t n = src->len, start = *i, j;
	char d = *i + 1 < n ? p[*i + 1] : '\0';

	if (d == '(' && *i + 2 < n && p[*i + 2] == '(') {
		mark_plain(w);
		w->unknown = true;
		parse_arith(sc, src, i, fr);
	} else if (d == '(') {
		struct sh_frame sub = { fr->depth + 1, false };

		mark_plain(w);
		w->unknown = true;
		*i += 2;
		if (sub.depth > MAX_DEPTH)
			skip_nested(src, i, '(', ')', 1);
		else
			cpl_shlex_list(sc, src, i, &sub, true);
		if (sub.host)
			cpl_shscan_hostread(sc, src, start, *i, false);
	} else if (d == '{') {
		mark_plain(w);
		for (j = *i + 2; j < n && name_char(p[j]); j++)
			;
		if (j < n && p[j] == '}' && j > *i + 2 &&
		    name_start(p[*i + 2])) {
			size_t at = w->text.len;

			add_ref(w, at, j + 1 - start, at + 2, j - start - 2);
			cpl_shscan_varuse(sc, src, start, j + 1,
					  p + start + 2, j - start - 2);
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
		cpl_shscan_varuse(sc, src, start, j, p + start + 1,
				  j - start - 1);
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
void
cpl_shlex_backtick(struct sh_scan *sc, const struct src *src, size_t *i,
		   struct sh_frame *fr, struct sword *w)
{
	const char *p = src->p;
	size_t n = src->len, start = *i;
	struct sh_frame sub = { fr->depth + 1, false };
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

		cpl_shlex_list(sc, &bs, &j, &sub, false);
	}
	if (sub.host)
		cpl_shscan_hostread(sc, src, start, *i, false);
	cpl_buf_add(&w->text, p + start, *i - start);
	cpl_buf_free(&body);
}

/* Reads the inside of "..." from *i (after the opening quote). */
static void
parse_dquote(struct sh_scan *sc, const struct src *src, size_t *i,
	     struct sh_frame *fr, struct sword *w)
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
			cpl_shlex_dollar(sc, src, i, fr, w, true);
		} else if (c == '`') {
			cpl_shlex_backtick(sc, src, i, fr, w);
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
parse_word(struct sh_scan *sc, const struct src *src, size_t *i,
	   struct sh_frame *fr, struct sword *w)
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
			cpl_shlex_dollar(sc, src, i, fr, w, false);
		} else if (c == '`') {
			cpl_shlex_backtick(sc, src, i, fr, w);
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
void
cpl_shlex_skip_heredocs(struct sh_scan *sc, const struct src *src, size_t *i)
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
parse_redirect(struct sh_scan *sc, const struct src *src, size_t *i,
	       struct sh_frame *fr)
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
	cpl_shlex_word_init(&t);
	parse_word(sc, src, i, fr, &t);
	if (heredoc && sc->nheredocs < MAX_HEREDOCS) {
		sc->heredocs[sc->nheredocs].delim = cpl_xstrdup(wtext(&t));
		sc->heredocs[sc->nheredocs].strip_tabs = tabs;
		sc->nheredocs++;
	}
	cpl_shlex_word_free(&t);
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

/*
 * Reads simple commands from *i to the end of src, or (to_paren) to the ')'
 * that ends a $(...), handing each to cpl_shscan_finish() (shscan.c).
 */
void
cpl_shlex_list(struct sh_scan *sc, const struct src *src, size_t *i,
	       struct sh_frame *fr, bool to_paren)
{
	const char *p = src->p;
	size_t n = src->len;
	struct sh_cmd c = { 0 };

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
			cpl_shscan_finish(sc, fr, &c, CONN_SEQ);
			(*i)++;
			if (sc->nheredocs > 0)
				cpl_shlex_skip_heredocs(sc, src, i);
		} else if (ch == ';') {
			cpl_shscan_finish(sc, fr, &c, CONN_SEQ);
			*i += (nx == ';' || nx == '&') ? 2 : 1;
		} else if (ch == '&' && nx == '>') {
			parse_redirect(sc, src, i, fr);
		} else if (ch == '&') {
			cpl_shscan_finish(sc, fr, &c,
					  nx == '&' ? CONN_AND : CONN_SEQ);
			*i += nx == '&' ? 2 : 1;
		} else if (ch == '|') {
			cpl_shscan_finish(sc, fr, &c,
					  nx == '|' ? CONN_OR : CONN_SEQ);
			*i += (nx == '|' || nx == '&') ? 2 : 1;
		} else if (ch == ')') {
			cpl_shscan_finish(sc, fr, &c, CONN_SEQ);
			(*i)++;
			if (to_paren)
				goto out;
		} else if (ch == '(') {
			cpl_shscan_finish(sc, fr, &c, CONN_SEQ);
			(*i)++;
		} else if (ch == '<' || ch == '>') {
			parse_redirect(sc, src, i, fr);
		} else {
			w = cpl_shlex_push(&c);
			parse_word(sc, src, i, fr, w);
			if (*i < n && (p[*i] == '<' || p[*i] == '>') &&
			    fd_word(w)) {
				cpl_shlex_word_free(w);
				c.n--;
			}
		}
	}
	cpl_shscan_finish(sc, fr, &c, CONN_SEQ);
out:
	cpl_shlex_free(&c);
}
