/*
 * gotmpl.c — the parser of the Go template subset (see gotmpl.h): text
 * and actions, whitespace trimming, control structures and defines, into
 * the nodes gotmpl_eval.c runs; and the pool every allocation of a
 * cpl_gotmpl lives in.
 *
 * One pass over the text: each action is lexed once, each text piece
 * kept as a borrowed range of the template's copy (owned by the pool).
 * A syntax error is one error at its file, line and column; a keyword
 * or token outside the subset (`block`, `break`, a comparison of a
 * method call, a char constant) is "outside the subset", never guessed.
 */
#include "text/gotmpl_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void *
cpl_gotmpl_alloc(struct cpl_gotmpl *g, size_t n)
{
	void *p = cpl_xcalloc(1, n ? n : 1);

	CPL_GROW(g->pool, g->pool_cap, g->npool + 1);
	g->pool[g->npool++] = p;
	return p;
}

struct gval *
cpl_gotmpl_val_new(struct cpl_gotmpl *g, enum gv_kind k)
{
	struct gval *v = cpl_gotmpl_alloc(g, sizeof(*v));

	v->kind = k;
	return v;
}

struct gval *
cpl_gotmpl_val_str(struct cpl_gotmpl *g, const char *s, size_t len)
{
	struct gval *v = cpl_gotmpl_val_new(g, GV_STR);

	v->s = cpl_gotmpl_strndup(g, s, len);
	v->len = len;
	return v;
}

struct gval *
cpl_gotmpl_val_bool(struct cpl_gotmpl *g, bool b)
{
	struct gval *v = cpl_gotmpl_val_new(g, GV_BOOL);

	v->b = b;
	return v;
}

const char *
cpl_gotmpl_strndup(struct cpl_gotmpl *g, const char *s, size_t n)
{
	char *p = cpl_gotmpl_alloc(g, n + 1);

	memcpy(p, s, n);
	return p;
}

/* As cpl_xgrow, in the pool: the old block stays there until the end
 * (doubling keeps the total linear). */
void
cpl_gotmpl_grow(struct cpl_gotmpl *g, void **p, size_t *cap, size_t need,
		size_t elem)
{
	size_t ncap;
	void *q;

	if (need <= *cap)
		return;
	ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	q = cpl_gotmpl_alloc(g, ncap * elem);
	if (*p)
		memcpy(q, *p, *cap * elem);
	*p = q;
	*cap = ncap;
}

/* ---- the parser's state ------------------------------------------------ */

struct parser {
	struct cpl_gotmpl *g;
	const char *path;
	const char *text;
	size_t len;
	size_t pos;		/* next byte of text */
	int line, column;	/* of pos */
	struct cpl_error *err;
	int rc;
	/* the action being lexed */
	const char *a;
	size_t alen, ai;
	int aline, acol;	/* of a[0] */
	bool trim_left;		/* the last action began with {{- */
	/* variables declared so far, as Go's parser scopes them (a block
	 * ends its own; a define sees only its own) */
	const char **vars;
	size_t nvars, vars_cap, vfloor;
};

static bool
declared(const struct parser *p, const char *name)
{
	size_t i;

	if (*name == '\0')
		return true;	/* $ */
	for (i = p->nvars; i-- > p->vfloor;)
		if (strcmp(p->vars[i], name) == 0)
			return true;
	return false;
}

static void
declare(struct parser *p, const char *name)
{
	cpl_gotmpl_grow(p->g, (void **)&p->vars, &p->vars_cap, p->nvars + 1,
			sizeof(*p->vars));
	p->vars[p->nvars++] = name;
}

static void
fail(struct parser *p, int rc, int line, int col, const char *fmt,
     const char *what)
{
	if (p->rc != 0)
		return;
	p->rc = rc;
	cpl_error_set(p->err, p->path, line, col, fmt, what);
}

/* Moves pos to to, counting lines. */
static void
advance(struct parser *p, size_t to)
{
	for (; p->pos < to; p->pos++) {
		if (p->text[p->pos] == '\n') {
			p->line++;
			p->column = 1;
		} else {
			p->column++;
		}
	}
}

/* The line and column of action byte i. */
static void
apos(const struct parser *p, size_t i, int *line, int *col)
{
	size_t k;

	*line = p->aline;
	*col = p->acol;
	for (k = 0; k < i; k++) {
		if (p->a[k] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* ---- lexing one action -------------------------------------------------- */

enum tok {
	T_EOF,
	T_WORD,		/* identifiers, fields, variables, numbers */
	T_STR,
	T_LPAREN,
	T_RPAREN,
	T_PIPE,
	T_DECL,		/* := */
	T_ASSIGN,	/* = */
	T_COMMA,
	T_BAD,
};

struct token {
	enum tok t;
	const char *s;	/* T_WORD: the word; T_STR: the unquoted value */
	size_t len;
	size_t at;	/* offset in the action */
};

static bool
word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$' ||
	       c == '-' || c == '+';
}

static struct token
next_token(struct parser *p)
{
	struct token t = { T_EOF, NULL, 0, 0 };
	char c;

	while (p->ai < p->alen && is_space(p->a[p->ai]))
		p->ai++;
	t.at = p->ai;
	if (p->ai >= p->alen)
		return t;
	c = p->a[p->ai];
	if (c == '(' || c == ')' || c == '|' || c == ',') {
		p->ai++;
		t.t = c == '(' ? T_LPAREN : c == ')' ? T_RPAREN :
		      c == '|' ? T_PIPE : T_COMMA;
		return t;
	}
	if (c == ':' && p->ai + 1 < p->alen && p->a[p->ai + 1] == '=') {
		p->ai += 2;
		t.t = T_DECL;
		return t;
	}
	if (c == '=') {
		p->ai++;
		t.t = T_ASSIGN;
		return t;
	}
	if (c == '"' || c == '`') {
		struct cpl_buf b = { 0 };
		size_t i = p->ai + 1;

		for (; i < p->alen && p->a[i] != c; i++) {
			char d = p->a[i];

			if (c == '"' && d == '\n')
				break;
			if (c == '"' && d == '\\') {
				if (i + 1 >= p->alen)
					break;
				d = p->a[++i];
				if (d == 'n')
					d = '\n';
				else if (d == 't')
					d = '\t';
				else if (d != '"' && d != '\\') {
					cpl_buf_free(&b);
					t.t = T_BAD;
					return t;
				}
			}
			cpl_buf_addc(&b, d);
		}
		if (i >= p->alen || p->a[i] != c) {
			cpl_buf_free(&b);
			t.t = T_BAD;
			return t;
		}
		t.t = T_STR;
		t.len = b.len;
		t.s = cpl_gotmpl_strndup(p->g, cpl_buf_str(&b), b.len);
		cpl_buf_free(&b);
		p->ai = i + 1;
		return t;
	}
	if (word_char(c)) {
		size_t i = p->ai;

		while (i < p->alen && word_char(p->a[i]))
			i++;
		t.t = T_WORD;
		t.s = p->a + p->ai;
		t.len = i - p->ai;
		p->ai = i;
		return t;
	}
	t.t = T_BAD;
	return t;
}

static struct token
peek_token(struct parser *p)
{
	size_t save = p->ai;
	struct token t = next_token(p);

	p->ai = save;
	return t;
}

/* ---- pipelines ---------------------------------------------------------- */

static struct pipe *parse_pipe(struct parser *p, bool in_paren);

/* Splits ".a.b" (or "$x.a.b" from after the variable) into fields. */
static bool
split_fields(struct parser *p, struct arg *a, const char *s, size_t len)
{
	size_t i = 0, cap = 0;

	while (i < len) {
		size_t j;

		if (s[i] != '.')
			return false;
		i++;
		j = i;
		while (j < len && s[j] != '.')
			j++;
		if (j == i)
			return false;
		cpl_gotmpl_grow(p->g, (void **)&a->fields, &cap,
				a->nfields + 1, sizeof(*a->fields));
		a->fields[a->nfields++] = cpl_gotmpl_strndup(p->g, s + i,
							     j - i);
		i = j;
	}
	return true;
}

static bool
is_number(const char *s, size_t len)
{
	size_t i = 0;
	bool digits = false;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	for (; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		digits = true;
	}
	return digits;
}

/* One operand of a command from token t. */
static bool
parse_arg(struct parser *p, struct token t, struct arg *a)
{
	apos(p, t.at, &a->line, &a->column);
	if (t.t == T_STR) {
		a->kind = A_STR;
		a->name = t.s;
		return true;
	}
	if (t.t == T_LPAREN) {
		struct token r;

		a->kind = A_PIPE;
		a->sub = parse_pipe(p, true);
		if (a->sub == NULL)
			return false;
		r = next_token(p);
		if (r.t != T_RPAREN) {
			fail(p, -1, a->line, a->column, "%s",
			     "unclosed left paren");
			return false;
		}
		if (p->ai < p->alen && p->a[p->ai] == '.') {
			fail(p, 1, a->line, a->column, "%s",
			     "a field of a parenthesised pipeline is outside "
			     "the template subset the tool evaluates");
			return false;
		}
		return true;
	}
	if (t.t != T_WORD) {
		fail(p, -1, a->line, a->column, "%s",
		     "unexpected character in an action");
		return false;
	}
	if (t.len == 1 && t.s[0] == '.') {
		a->kind = A_DOT;
		return true;
	}
	if (t.s[0] == '.') {
		a->kind = A_FIELD;
		if (!split_fields(p, a, t.s, t.len))
			goto bad;
		return true;
	}
	if (t.s[0] == '$') {
		size_t i = 1;

		while (i < t.len && t.s[i] != '.')
			i++;
		a->kind = A_VAR;
		a->name = cpl_gotmpl_strndup(p->g, t.s + 1, i - 1);
		if (!declared(p, a->name)) {
			fail(p, -1, a->line, a->column,
			     "undefined variable \"$%s\"", a->name);
			return false;
		}
		if (!split_fields(p, a, t.s + i, t.len - i))
			goto bad;
		return true;
	}
	if (is_number(t.s, t.len)) {
		a->kind = A_NUM;
		a->name = cpl_gotmpl_strndup(p->g, t.s, t.len);
		return true;
	}
	if ((t.len == 4 && memcmp(t.s, "true", 4) == 0) ||
	    (t.len == 5 && memcmp(t.s, "false", 5) == 0)) {
		a->kind = A_BOOL;
		a->name = cpl_gotmpl_strndup(p->g, t.s, t.len);
		return true;
	}
	if (t.len == 3 && memcmp(t.s, "nil", 3) == 0) {
		a->kind = A_NIL;
		return true;
	}
	if (isalpha((unsigned char)t.s[0]) || t.s[0] == '_') {
		size_t i;

		for (i = 0; i < t.len; i++)
			if (!isalnum((unsigned char)t.s[i]) && t.s[i] != '_')
				goto odd;
		a->kind = A_IDENT;
		a->name = cpl_gotmpl_strndup(p->g, t.s, t.len);
		return true;
	}
odd:
	fail(p, 1, a->line, a->column, "\"%s\" is outside the template "
	     "subset the tool evaluates",
	     cpl_gotmpl_strndup(p->g, t.s, t.len));
	return false;
bad:
	fail(p, -1, a->line, a->column, "bad field or variable \"%s\"",
	     cpl_gotmpl_strndup(p->g, t.s, t.len));
	return false;
}

/* A pipeline: [$a[, $b] (:=|=)] cmd (| cmd)*, up to ')' or the end. */
static struct pipe *
parse_pipe(struct parser *p, bool in_paren)
{
	struct pipe *pp = cpl_gotmpl_alloc(p->g, sizeof(*pp));
	size_t cmd_cap = 0, save = p->ai;
	struct token t;

	apos(p, peek_token(p).at, &pp->line, &pp->column);
	/* declarations */
	t = next_token(p);
	if (t.t == T_WORD && t.s[0] == '$' && !in_paren) {
		struct token u = next_token(p);
		size_t i;

		if (u.t == T_COMMA) {
			struct token v = next_token(p);

			u = next_token(p);
			if (v.t == T_WORD && v.s[0] == '$' &&
			    (u.t == T_DECL || u.t == T_ASSIGN)) {
				pp->vars[0] = cpl_gotmpl_strndup(p->g, t.s + 1,
								 t.len - 1);
				pp->vars[1] = cpl_gotmpl_strndup(p->g, v.s + 1,
								 v.len - 1);
				pp->nvars = 2;
				pp->assign = u.t == T_DECL ? 1 : 2;
			}
		} else if (u.t == T_DECL || u.t == T_ASSIGN) {
			pp->vars[0] = cpl_gotmpl_strndup(p->g, t.s + 1,
							 t.len - 1);
			pp->nvars = 1;
			pp->assign = u.t == T_DECL ? 1 : 2;
		}
		for (i = 0; i < (size_t)pp->nvars; i++)
			if (strchr(pp->vars[i], '.') != NULL) {
				fail(p, -1, pp->line, pp->column, "%s",
				     "bad variable declaration");
				return NULL;
			}
		if (pp->nvars == 0)
			p->ai = save;
	} else {
		p->ai = save;
	}
	for (;;) {
		struct cmd *c;
		size_t arg_cap = 0;

		cpl_gotmpl_grow(p->g, (void **)&pp->cmds, &cmd_cap, pp->n + 1,
				sizeof(*pp->cmds));
		c = &pp->cmds[pp->n++];
		for (;;) {
			t = peek_token(p);
			if (t.t == T_EOF || t.t == T_PIPE ||
			    t.t == T_RPAREN)
				break;
			if (t.t == T_BAD || t.t == T_DECL ||
			    t.t == T_ASSIGN || t.t == T_COMMA) {
				int l, col;

				apos(p, t.at, &l, &col);
				fail(p, -1, l, col, "%s",
				     "unexpected token in an action");
				return NULL;
			}
			t = next_token(p);
			cpl_gotmpl_grow(p->g, (void **)&c->args, &arg_cap,
					c->n + 1, sizeof(*c->args));
			if (!parse_arg(p, t, &c->args[c->n++]))
				return NULL;
		}
		if (c->n == 0) {
			fail(p, -1, pp->line, pp->column, "%s",
			     "missing value for command");
			return NULL;
		}
		if (t.t != T_PIPE)
			break;
		next_token(p);
	}
	if (t.t == T_RPAREN && !in_paren) {
		int l, col;

		apos(p, t.at, &l, &col);
		fail(p, -1, l, col, "%s", "unexpected right paren");
		return NULL;
	}
	for (t.len = 0; t.len < (size_t)pp->nvars; t.len++) {
		if (pp->assign == 1) {
			declare(p, pp->vars[t.len]);
		} else if (!declared(p, pp->vars[t.len])) {
			fail(p, -1, pp->line, pp->column,
			     "undefined variable \"$%s\"", pp->vars[t.len]);
			return NULL;
		}
	}
	return pp;
}

/* ---- the text: actions and pieces -------------------------------------- */

/* The next action: sets p->a/alen/aline/acol past its delimiters and
 * trim markers; the text before it is [pos, *text_end).  false at the end
 * of the text (text_end: the end). */
static bool
next_action(struct parser *p, size_t *text_end)
{
	const char *open = NULL;
	size_t i, start, end;
	bool trim_left, trim_right;

	for (i = p->pos; i + 1 < p->len; i++)
		if (p->text[i] == '{' && p->text[i + 1] == '{') {
			open = p->text + i;
			break;
		}
	if (open == NULL) {
		*text_end = p->len;
		return false;
	}
	start = i + 2;
	trim_left = start + 1 < p->len && p->text[start] == '-' &&
		    is_space(p->text[start + 1]);
	*text_end = i;
	end = start;
	/* A comment (an action that opens with slash-star, after the trim
	 * marker) ends at its own star-slash, as Go's lexer ends it: what
	 * it holds (an example action, a quote) is not read. */
	{
		size_t c = start + (trim_left ? 2 : 0);

		if (c + 1 < p->len && p->text[c] == '/' &&
		    p->text[c + 1] == '*') {
			const char *close = NULL;

			if (c + 2 < p->len)
				close = memmem(p->text + c + 2,
					       p->len - c - 2, "*/", 2);
			end = close ? (size_t)(close - p->text) + 2 : p->len;
		}
	}
	/* the closing delimiter, outside quotes */
	for (; end + 1 < p->len; end++) {
		char c = p->text[end];

		if (c == '"' || c == '`') {
			size_t k = end + 1;

			while (k < p->len && p->text[k] != c &&
			       !(c == '"' && p->text[k] == '\n')) {
				if (c == '"' && p->text[k] == '\\')
					k++;
				k++;
			}
			end = k;
			continue;
		}
		if (c == '}' && p->text[end + 1] == '}')
			break;
	}
	advance(p, i);
	if (end + 1 >= p->len) {
		fail(p, -1, p->line, p->column, "%s", "unclosed action");
		return false;
	}
	trim_right = end >= start + 2 && p->text[end - 1] == '-' &&
		     is_space(p->text[end - 2]);
	p->a = p->text + start + (trim_left ? 2 : 0);
	p->alen = (size_t)((p->text + end - (trim_right ? 2 : 0)) - p->a);
	if (p->text + end - (trim_right ? 2 : 0) < p->a)
		p->alen = 0;
	p->ai = 0;
	{
		/* the action's own position, for its tokens */
		size_t k;

		p->aline = p->line;
		p->acol = p->column;
		for (k = i; k < (size_t)(p->a - p->text); k++) {
			if (p->text[k] == '\n') {
				p->aline++;
				p->acol = 1;
			} else {
				p->acol++;
			}
		}
	}
	/* the action's place is its first word's */
	while (p->alen > 0 && is_space(p->a[0])) {
		if (p->a[0] == '\n') {
			p->aline++;
			p->acol = 1;
		} else {
			p->acol++;
		}
		p->a++;
		p->alen--;
	}
	/* trim_left applies to the text before; the caller trims it */
	advance(p, end + 2);
	if (trim_right)
		while (p->pos < p->len && is_space(p->text[p->pos]))
			advance(p, p->pos + 1);
	p->trim_left = trim_left;
	return true;
}

static void
add_node(struct parser *p, struct nlist *l, struct node *n)
{
	cpl_gotmpl_grow(p->g, (void **)&l->v, &l->cap, l->n + 1,
			sizeof(*l->v));
	l->v[l->n++] = n;
}

static struct node *
new_node(struct parser *p, enum nkind k, int line, int col)
{
	struct node *n = cpl_gotmpl_alloc(p->g, sizeof(*n));

	n->kind = k;
	n->file = p->path;
	n->line = line;
	n->column = col;
	return n;
}

/* What ended a list: the end of text, {{ end }}, {{ else … }}. */
enum stop {
	S_EOF,
	S_END,
	S_ELSE,		/* plain else */
	S_ELSE_IF,	/* else if: p->a holds the condition from ai */
	S_ERROR,
};

/* The keyword at the start of the action, or NULL; moves ai past it. */
static bool
keyword(struct parser *p, const char *kw)
{
	size_t n = strlen(kw), i = p->ai;

	while (i < p->alen && is_space(p->a[i]))
		i++;
	if (i + n > p->alen || memcmp(p->a + i, kw, n) != 0 ||
	    (i + n < p->alen && !is_space(p->a[i + n]) &&
	     p->a[i + n] != '(' && p->a[i + n] != '"'))
		return false;
	p->ai = i + n;
	return true;
}

static bool
at_end(struct parser *p)
{
	while (p->ai < p->alen && is_space(p->a[p->ai]))
		p->ai++;
	return p->ai >= p->alen;
}

static enum stop parse_list(struct parser *p, struct nlist *l);

/* The body (and else branches) of if/with/range at node n. */
static enum stop
parse_block(struct parser *p, struct node *n)
{
	enum stop s = parse_list(p, &n->body);

	if (s == S_ELSE) {
		s = parse_list(p, &n->alt);
		if (s == S_ELSE || s == S_ELSE_IF) {
			fail(p, -1, p->aline, p->acol, "%s",
			     "else after else");
			return S_ERROR;
		}
	} else if (s == S_ELSE_IF) {
		struct node *elif;

		if (n->kind != N_IF) {
			fail(p, 1, p->aline, p->acol, "%s", "else with a "
			     "condition outside if is outside the template "
			     "subset the tool evaluates");
			return S_ERROR;
		}
		elif = new_node(p, N_IF, p->aline, p->acol);
		elif->pipe = parse_pipe(p, false);
		if (elif->pipe == NULL)
			return S_ERROR;
		add_node(p, &n->alt, elif);
		return parse_block(p, elif);
	}
	if (s == S_ERROR)
		return s;
	if (s != S_END) {
		fail(p, -1, n->line, n->column, "%s with no {{ end }} (the "
		     "template ends first)", n->kind == N_IF ? "if" :
		     n->kind == N_WITH ? "with" : "range");
		return S_ERROR;
	}
	return S_END;
}

static enum stop
parse_list(struct parser *p, struct nlist *l)
{
	for (;;) {
		size_t tend;
		int tline = p->line, tcol = p->column;
		size_t tstart = p->pos;
		bool more = next_action(p, &tend);
		bool trim_left = more && p->trim_left;
		struct node *n;

		if (p->rc != 0)
			return S_ERROR;
		if (trim_left)
			while (tend > tstart && is_space(p->text[tend - 1]))
				tend--;
		if (tend > tstart) {
			n = new_node(p, N_TEXT, tline, tcol);
			n->text = p->text + tstart;
			n->len = tend - tstart;
			add_node(p, l, n);
		}
		if (!more)
			return S_EOF;
		p->ai = 0;
		while (p->ai < p->alen && is_space(p->a[p->ai]))
			p->ai++;
		if (p->ai + 1 < p->alen && p->a[p->ai] == '/' &&
		    p->a[p->ai + 1] == '*') {
			size_t e = p->alen;

			while (e > 0 && is_space(p->a[e - 1]))
				e--;
			if (e < p->ai + 4 || p->a[e - 1] != '/' ||
			    p->a[e - 2] != '*') {
				fail(p, -1, p->aline, p->acol, "%s",
				     "unclosed comment");
				return S_ERROR;
			}
			continue;
		}
		if (keyword(p, "end")) {
			if (!at_end(p)) {
				fail(p, -1, p->aline, p->acol, "%s",
				     "unexpected words after end");
				return S_ERROR;
			}
			return S_END;
		}
		if (keyword(p, "else")) {
			if (at_end(p))
				return S_ELSE;
			if (keyword(p, "if"))
				return S_ELSE_IF;
			fail(p, 1, p->aline, p->acol, "%s", "else with a "
			     "pipeline other than if is outside the template "
			     "subset the tool evaluates");
			return S_ERROR;
		}
		if (keyword(p, "if") || keyword(p, "with") ||
		    keyword(p, "range")) {
			const char *k = p->a;
			enum nkind kind;
			size_t i = 0;

			while (is_space(k[i]))
				i++;
			kind = k[i] == 'i' ? N_IF : k[i] == 'w' ? N_WITH :
			       N_RANGE;
			size_t mark = p->nvars;

			n = new_node(p, kind, p->aline, p->acol);
			n->pipe = parse_pipe(p, false);
			if (n->pipe == NULL)
				return S_ERROR;
			if (parse_block(p, n) == S_ERROR)
				return S_ERROR;
			p->nvars = mark;	/* the block's own end here */
			add_node(p, l, n);
			continue;
		}
		if (keyword(p, "define")) {
			struct token t = next_token(p);
			struct nlist *body;

			if (t.t != T_STR || !at_end(p)) {
				fail(p, -1, p->aline, p->acol, "%s",
				     "define needs a quoted name");
				return S_ERROR;
			}
			body = cpl_gotmpl_alloc(p->g, sizeof(*body));
			{
				size_t mark = p->nvars, floor = p->vfloor;
				enum stop s;

				p->vfloor = p->nvars;
				s = parse_list(p, body);
				p->nvars = mark;
				p->vfloor = floor;
				if (s != S_END) {
					if (p->rc == 0)
						fail(p, -1, p->aline, p->acol,
						     "%s", "define with no end");
					return S_ERROR;
				}
			}
			cpl_strmap_put(&p->g->defines, t.s, body);
			continue;
		}
		if (keyword(p, "template")) {
			struct token t = next_token(p);

			if (t.t != T_STR) {
				fail(p, -1, p->aline, p->acol, "%s",
				     "template needs a quoted name");
				return S_ERROR;
			}
			n = new_node(p, N_TEMPLATE, p->aline, p->acol);
			n->name = t.s;
			if (!at_end(p)) {
				n->pipe = parse_pipe(p, false);
				if (n->pipe == NULL)
					return S_ERROR;
			}
			add_node(p, l, n);
			continue;
		}
		if (keyword(p, "block") || keyword(p, "break") ||
		    keyword(p, "continue")) {
			fail(p, 1, p->aline, p->acol, "%s", "block, break and "
			     "continue are outside the template subset the "
			     "tool evaluates");
			return S_ERROR;
		}
		n = new_node(p, N_ACTION, p->aline, p->acol);
		n->pipe = parse_pipe(p, false);
		if (n->pipe == NULL)
			return S_ERROR;
		if (!at_end(p)) {
			fail(p, -1, p->aline, p->acol, "%s",
			     "unexpected token in an action");
			return S_ERROR;
		}
		add_node(p, l, n);
	}
}

int
cpl_gotmpl_parse(struct cpl_gotmpl *g, const char *path, const char *text,
		 size_t len, struct nlist *list, struct cpl_error *err)
{
	struct parser p = { 0 };
	enum stop s;

	p.g = g;
	p.path = path;
	p.text = cpl_gotmpl_strndup(g, text, len);
	p.len = len;
	p.line = 1;
	p.column = 1;
	p.err = err;
	s = parse_list(&p, list);
	if (p.rc != 0)
		return p.rc;
	if (s == S_END || s == S_ELSE || s == S_ELSE_IF) {
		cpl_error_set(err, path, p.aline, p.acol, "unexpected %s",
			      s == S_END ? "{{end}}" : "{{else}}");
		return -1;
	}
	return 0;
}
