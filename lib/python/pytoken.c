/*
 * pytoken.c — the Python tokenizer (see pytoken.h).
 *
 * One forward pass over the bytes with a cursor that keeps line and
 * column; tokens are appended to a growing array.  Invariant: the cursor
 * only ever moves forward through step(), which alone updates line and
 * column, so every position is exact whatever path consumed the bytes.
 * Indentation is a stack of columns (tabs to multiples of 8, as CPython);
 * brackets are a stack of the opening characters and their positions.
 * f-strings are scanned recursively: a replacement field is read as an
 * expression whose own strings may be f-strings again, down to
 * CPL_PYTOKEN_MAX_FSTRING open fields (lexer.fields), past which a
 * nested string's braces are text: the recursion is bounded.
 */
#include "python/pytoken.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An open bracket and where it was opened. */
struct bracket {
	char c;
	int line;
	int column;
};

/* The tokenizer's state: cursor, stacks and the output. */
struct lexer {
	const char *s;
	size_t n;
	size_t i;
	int line;
	int col;
	struct cpl_pytokens *out;
	int *indents;		/* indentation columns; [0] is 0 */
	size_t nindents;
	size_t capindents;
	struct bracket *br;	/* open brackets */
	size_t nbr;
	size_t capbr;
	bool content;		/* the logical line has a token */
	int fields;		/* f-string replacement fields open */
	const char *path;
	struct cpl_error *err;
	int rc;
};

static void scan_string(struct lexer *lx, unsigned flags);

/* Records the first error of the scan. */
static void
lex_error(struct lexer *lx, int line, int column, const char *msg)
{
	if (lx->rc == 0)
		cpl_error_set(lx->err, lx->path, line, column, "%s", msg);
	lx->rc = -1;
}

/* The cursor is past the last byte. */
static bool
at_end(const struct lexer *lx)
{
	return lx->i >= lx->n;
}

/* The byte k ahead of the cursor, 0 past the end. */
static unsigned char
peek(const struct lexer *lx, size_t k)
{
	return lx->i + k < lx->n ? (unsigned char)lx->s[lx->i + k] : 0;
}

/* c starts a line break (LF, or CR alone or before LF). */
static bool
is_newline(unsigned char c)
{
	return c == '\n' || c == '\r';
}

/* Consumes one character (CRLF counts as one) and moves line/column. */
static inline void
step(struct lexer *lx)
{
	unsigned char c = peek(lx, 0);

	if (at_end(lx))
		return;
	lx->i++;
	if (c == '\r' || c == '\n') {
		if (c == '\r' && peek(lx, 0) == '\n')
			lx->i++;
		lx->line++;
		lx->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		lx->col++;
	}
}

/* Character classes by byte, looked up once per character (names are
 * most of a file): NS starts a name, NC continues one, NA continues one
 * and is ASCII (a column a byte). */
enum { NS = 1, NC = 2, NA = 4 };
#define NB8 NS | NC, NS | NC, NS | NC, NS | NC, NS | NC, NS | NC, NS | NC, \
	NS | NC
#define NB64 NB8, NB8, NB8, NB8, NB8, NB8, NB8, NB8
#define LTR (NS | NC | NA)
#define DGT (NC | NA)
static const unsigned char char_class[256] = {
	['0'] = DGT, ['1'] = DGT, ['2'] = DGT, ['3'] = DGT, ['4'] = DGT,
	['5'] = DGT, ['6'] = DGT, ['7'] = DGT, ['8'] = DGT, ['9'] = DGT,
	['A'] = LTR, ['B'] = LTR, ['C'] = LTR, ['D'] = LTR,
	['E'] = LTR, ['F'] = LTR, ['G'] = LTR, ['H'] = LTR,
	['I'] = LTR, ['J'] = LTR, ['K'] = LTR, ['L'] = LTR,
	['M'] = LTR, ['N'] = LTR, ['O'] = LTR, ['P'] = LTR,
	['Q'] = LTR, ['R'] = LTR, ['S'] = LTR, ['T'] = LTR,
	['U'] = LTR, ['V'] = LTR, ['W'] = LTR, ['X'] = LTR,
	['Y'] = LTR, ['Z'] = LTR, ['_'] = LTR,
	['a'] = LTR, ['b'] = LTR, ['c'] = LTR, ['d'] = LTR,
	['e'] = LTR, ['f'] = LTR, ['g'] = LTR, ['h'] = LTR,
	['i'] = LTR, ['j'] = LTR, ['k'] = LTR, ['l'] = LTR,
	['m'] = LTR, ['n'] = LTR, ['o'] = LTR, ['p'] = LTR,
	['q'] = LTR, ['r'] = LTR, ['s'] = LTR, ['t'] = LTR,
	['u'] = LTR, ['v'] = LTR, ['w'] = LTR, ['x'] = LTR,
	['y'] = LTR, ['z'] = LTR,
	/* 0x80-0xFF, one after another: non-ASCII bytes are letters */
	[0x80] = NB64, NB64,
};
#undef DGT
#undef LTR
#undef NB64
#undef NB8

/* Bytes a string's run of plain text stops at (scan_string_at(),
 * skip_string()): each quote, a backslash or line end, a byte past
 * ASCII (for its column, or the light scan), a brace. */
enum { SQ_SINGLE = 1, SQ_DOUBLE = 2, SQ_ESC = 4, SQ_HIGH = 8, SQ_BRACE = 16 };
#define SQ8 SQ_HIGH, SQ_HIGH, SQ_HIGH, SQ_HIGH, SQ_HIGH, SQ_HIGH, SQ_HIGH, \
	SQ_HIGH
#define SQ64 SQ8, SQ8, SQ8, SQ8, SQ8, SQ8, SQ8, SQ8
static const unsigned char string_stop[256] = {
	['\''] = SQ_SINGLE, ['"'] = SQ_DOUBLE, ['\\'] = SQ_ESC,
	['\n'] = SQ_ESC, ['\r'] = SQ_ESC, ['{'] = SQ_BRACE, ['}'] = SQ_BRACE,
	[0x80] = SQ64, SQ64,
};
#undef SQ64
#undef SQ8

/* c may start an identifier (non-ASCII bytes are taken as letters). */
static inline bool
is_name_start(unsigned char c)
{
	return char_class[c] & NS;
}

/* c may continue an identifier. */
static inline bool
is_name_char(unsigned char c)
{
	return char_class[c] & NC;
}

/* c is a decimal digit. */
static bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Appends a token from (off, line, col) to the cursor (inline: the
 * lexer's commonest call). */
static inline void
emit(struct lexer *lx, enum cpl_pytok_kind kind, unsigned flags, size_t off,
     int line, int col)
{
	struct cpl_pytokens *o = lx->out;
	struct cpl_pytoken *t;

	if (o->count == o->cap)
		CPL_GROW(o->toks, o->cap, o->count + 1);
	t = &o->toks[o->count++];
	*t = (struct cpl_pytoken){ .kind = kind, .flags = flags,
				   .off = (uint32_t)off,
				   .len = (uint32_t)(lx->i - off),
				   .line = line, .column = col };
	if ((1u << kind) & ((1u << CPL_PYTOK_NAME) | (1u << CPL_PYTOK_KEYWORD) |
			    (1u << CPL_PYTOK_NUMBER) | (1u << CPL_PYTOK_STRING) |
			    (1u << CPL_PYTOK_OP) |
			    (1u << CPL_PYTOK_ERRORTOKEN)))
		lx->content = true;
	if (kind == CPL_PYTOK_NEWLINE && o->on_line != NULL) {
		o->on_line(o->on_line_ctx, o);
		o->count = 0;
	}
}

/* Appends a zero-length token at the cursor. */
static void
emit_empty(struct lexer *lx, enum cpl_pytok_kind kind)
{
	emit(lx, kind, 0, lx->i, lx->line, lx->col);
}

/* Opens an indentation level at column col. */
static void
push_indent(struct lexer *lx, int col)
{
	if (lx->nindents == lx->capindents)
		CPL_GROW(lx->indents, lx->capindents, lx->nindents + 1);
	lx->indents[lx->nindents++] = col;
}

/*
 * At the start of a line outside brackets: measures the indentation and
 * emits INDENT or DEDENTs when the line holds a token.  Blank and
 * comment-only lines leave the indentation alone, as in CPython.
 */
static void
indentation(struct lexer *lx)
{
	size_t start = lx->i;
	int line = lx->line, width = 0;
	unsigned char c;

	const char *s = lx->s;
	size_t i = lx->i, n = lx->n;

	for (c = 0; i < n; i++) {	/* step(), for each blank */
		c = (unsigned char)s[i];
		if (c == ' ')
			width++;
		else if (c == '\t')
			width = (width / 8 + 1) * 8;
		else if (c == '\f')
			width = 0;
		else
			break;
	}
	if (i == n)
		c = 0;
	lx->col += (int)(i - lx->i);
	lx->i = i;
	if (at_end(lx) || c == '#' || is_newline(c))
		return;
	if (c == '\\' && is_newline(peek(lx, 1)))
		return;
	if (width > lx->indents[lx->nindents - 1]) {
		push_indent(lx, width);
		emit(lx, CPL_PYTOK_INDENT, 0, start, line, 1);
		return;
	}
	while (lx->nindents > 1 && width < lx->indents[lx->nindents - 1]) {
		lx->nindents--;
		emit_empty(lx, CPL_PYTOK_DEDENT);
	}
	if (width != lx->indents[lx->nindents - 1])
		lex_error(lx, lx->line, lx->col, "unindent does not match "
			  "any outer indentation level");
}

/*
 * Consumes name characters.  They hold no newline, so the cursor moves
 * here without step(): a column per byte that starts a character.
 */
static inline void
skip_name_chars(struct lexer *lx)
{
	const unsigned char *s = (const unsigned char *)lx->s;
	size_t i = lx->i, n = lx->n, k;

	while (i < n && (char_class[s[i]] & NA))
		i++;
	if (i < n && s[i] >= 0x80) {	/* non-ASCII: continuation bytes */
		while (i < n && is_name_char(s[i]))
			i++;
		for (k = lx->i; k < i; k++)
			lx->col -= (s[k] & 0xC0) == 0x80;
	}
	lx->col += (int)(i - lx->i);
	lx->i = i;
}

/* A comment, from its '#' to the end of the line. */
static void
scan_comment(struct lexer *lx)
{
	size_t off = lx->i;
	int line = lx->line, col = lx->col;

	while (lx->i < lx->n && !is_newline((unsigned char)lx->s[lx->i])) {
		if (((unsigned char)lx->s[lx->i] & 0xC0) != 0x80)
			lx->col++;
		lx->i++;
	}
	emit(lx, CPL_PYTOK_COMMENT, 0, off, line, col);
}

/* c is a digit in base (2, 8, 10 or 16). */
static bool
is_base_digit(unsigned char c, int base)
{
	if (base == 16)
		return is_digit(c) || (c >= 'a' && c <= 'f') ||
		       (c >= 'A' && c <= 'F');
	if (base == 8)
		return c >= '0' && c <= '7';
	if (base == 2)
		return c == '0' || c == '1';
	return is_digit(c);
}

/* Consumes digits of base and single underscores between them. */
static void
digits(struct lexer *lx, int base)
{
	for (;;) {
		unsigned char c = peek(lx, 0);

		if (c == '_' && is_base_digit(peek(lx, 1), base))
			step(lx);
		else if (!is_base_digit(c, base))
			break;
		step(lx);
	}
}

/* A number: integer, float or imaginary, in any base. */
static void
scan_number(struct lexer *lx)
{
	size_t off = lx->i;
	int line = lx->line, col = lx->col;
	unsigned flags = CPL_PYNUM_INT;
	unsigned char c = peek(lx, 0), x = peek(lx, 1);

	if (c == '0' && (x == 'x' || x == 'X' || x == 'o' || x == 'O' ||
			 x == 'b' || x == 'B')) {
		step(lx);
		step(lx);
		digits(lx, x == 'x' || x == 'X' ? 16 :
			   x == 'o' || x == 'O' ? 8 : 2);
		emit(lx, CPL_PYTOK_NUMBER, flags, off, line, col);
		return;
	}
	digits(lx, 10);
	if (peek(lx, 0) == '.') {
		flags = CPL_PYNUM_FLOAT;
		step(lx);
		digits(lx, 10);
	}
	c = peek(lx, 0);
	x = peek(lx, 1);
	if ((c == 'e' || c == 'E') && (is_digit(x) ||
				       ((x == '+' || x == '-') &&
					is_digit(peek(lx, 2))))) {
		flags = CPL_PYNUM_FLOAT;
		step(lx);
		if (x == '+' || x == '-')
			step(lx);
		digits(lx, 10);
	}
	c = peek(lx, 0);
	if (c == 'j' || c == 'J') {
		flags = CPL_PYNUM_IMAG;
		step(lx);
	}
	emit(lx, CPL_PYTOK_NUMBER, flags, off, line, col);
}

/*
 * The flags of a string prefix s[0, n) ("rb", "F" ...), or -1 when it is
 * not one.
 */
static int
prefix_flags(const char *s, size_t n)
{
	unsigned f = 0;
	size_t k;

	if (n == 0 || n > 2)
		return -1;
	for (k = 0; k < n; k++) {
		unsigned bit;

		switch (s[k] | 0x20) {
		case 'r': bit = CPL_PYSTR_RAW; break;
		case 'b': bit = CPL_PYSTR_BYTES; break;
		case 'f': bit = CPL_PYSTR_FMT; break;
		case 'u': bit = CPL_PYSTR_UNI; break;
		case 't': bit = CPL_PYSTR_TMPL; break;
		default: return -1;
		}
		if (f & bit)
			return -1;
		f |= bit;
	}
	/* u mixes with nothing; b with neither f nor t; f not with t. */
	if ((f & CPL_PYSTR_UNI) && n > 1)
		return -1;
	if ((f & CPL_PYSTR_BYTES) && (f & (CPL_PYSTR_FMT | CPL_PYSTR_TMPL)))
		return -1;
	if ((f & CPL_PYSTR_FMT) && (f & CPL_PYSTR_TMPL))
		return -1;
	return (int)f;
}

/* The cursor is at the closing quote(s) of a string opened with q. */
static bool
at_close(const struct lexer *lx, unsigned char q, bool triple)
{
	if (peek(lx, 0) != q)
		return false;
	return !triple || (peek(lx, 1) == q && peek(lx, 2) == q);
}

static void scan_field(struct lexer *lx, unsigned char q, bool triple);

/*
 * A format spec after ':' inside a replacement field: literal text with
 * nested fields, up to the field's closing brace (consumed).  Stops
 * without consuming at the string's closing quote or, in a single-quoted
 * string, at a newline.
 */
static void
scan_spec(struct lexer *lx, unsigned char q, bool triple)
{
	while (!at_end(lx)) {
		unsigned char c = peek(lx, 0);

		if (at_close(lx, q, triple))
			return;
		if (!triple && is_newline(c))
			return;
		if (c == '}') {
			step(lx);
			return;
		}
		if (c == '{' && lx->fields < CPL_PYTOKEN_MAX_FSTRING) {
			scan_field(lx, q, triple);
			continue;
		}
		if (c == '{')
			lex_error(lx, lx->line, lx->col,
				  "too many nested f-strings");
		step(lx);
	}
}

/*
 * A replacement field of an f-string, from its '{' to its '}' (both
 * consumed): an expression with brackets, nested strings and comments,
 * then an optional !conversion and :spec.
 */
static void
scan_field(struct lexer *lx, unsigned char q, bool triple)
{
	int depth = 0;

	lx->fields++;
	step(lx);	/* '{' */
	while (!at_end(lx)) {
		unsigned char c = peek(lx, 0);

		if (c == '\'' || c == '"') {
			scan_string(lx, 0);
			continue;
		}
		if (is_name_start(c)) {
			size_t start = lx->i;
			int f;

			skip_name_chars(lx);
			f = prefix_flags(lx->s + start, lx->i - start);
			c = peek(lx, 0);
			if (f >= 0 && (c == '\'' || c == '"'))
				scan_string(lx, (unsigned)f);
			continue;
		}
		switch (c) {
		case '#':
			while (!at_end(lx) && !is_newline(peek(lx, 0)))
				step(lx);
			continue;
		case '(': case '[': case '{':
			depth++;
			break;
		case ')': case ']':
			if (depth > 0)
				depth--;
			break;
		case '}':
			if (depth == 0) {
				step(lx);
				lx->fields--;
				return;
			}
			depth--;
			break;
		case ':':
			if (depth == 0) {
				step(lx);
				scan_spec(lx, q, triple);
				lx->fields--;
				return;
			}
			break;
		case '\\':
			step(lx);
			break;
		default:
			break;
		}
		step(lx);
	}
	lx->fields--;
}

/*
 * A string literal whose prefix (flags) has been consumed; the cursor is
 * at its opening quote.  Emits one STRING token from the prefix on.
 */
static void
scan_string_at(struct lexer *lx, unsigned flags, size_t off, int line,
	       int col, bool emit_token)
{
	unsigned char q = peek(lx, 0);
	bool triple = peek(lx, 1) == q && peek(lx, 2) == q;
	bool fmt = flags & (CPL_PYSTR_FMT | CPL_PYSTR_TMPL);
	bool raw = flags & CPL_PYSTR_RAW;
	unsigned char stop;

	if (fmt && lx->fields >= CPL_PYTOKEN_MAX_FSTRING) {
		/* Its braces are text from here: no deeper recursion. */
		lex_error(lx, line, col, "too many nested f-strings");
		fmt = false;
	}
	stop = (q == '\'' ? SQ_SINGLE : SQ_DOUBLE) | SQ_ESC | SQ_HIGH |
	       (fmt ? SQ_BRACE : 0);

	if (triple) {
		flags |= CPL_PYSTR_TRIPLE;
		step(lx);
		step(lx);
	}
	step(lx);
	for (;;) {
		unsigned char c;

		/* A run of characters that end nothing and open nothing,
		 * taken at once (no newline among them: a column each
		 * character; a '}' ends the run and is stepped over
		 * below). */
		{
			const unsigned char *t = (const unsigned char *)lx->s;
			size_t i = lx->i, n = lx->n, from;
			int at = lx->col;

			for (;;) {	/* ASCII a column a byte, by table */
				from = i;
				while (i < n && !(string_stop[t[i]] & stop))
					i++;
				at += (int)(i - from);
				if (i == n || t[i] < 0x80)
					break;
				for (; i < n && t[i] >= 0x80; i++)
					at += (t[i] & 0xC0) != 0x80;
			}
			lx->i = i;
			lx->col = at;
		}
		c = peek(lx, 0);
		if (at_end(lx) || (!triple && is_newline(c))) {
			flags |= CPL_PYSTR_OPEN;
			lex_error(lx, line, col, triple ?
				  "unterminated triple-quoted string literal" :
				  "unterminated string literal");
			break;
		}
		if (at_close(lx, q, triple)) {
			step(lx);
			if (triple) {
				step(lx);
				step(lx);
			}
			break;
		}
		if (c == '\\') {
			unsigned char e = peek(lx, 1);

			step(lx);
			if (fmt && (e == '{' || e == '}'))
				continue;
			if (fmt && !raw && e == 'N' && peek(lx, 1) == '{') {
				while (!at_end(lx) && peek(lx, 0) != '}' &&
				       !at_close(lx, q, triple))
					step(lx);
				if (peek(lx, 0) == '}')
					step(lx);
				continue;
			}
			step(lx);
			continue;
		}
		if (fmt && c == '{') {
			if (peek(lx, 1) == '{') {
				step(lx);
				step(lx);
			} else {
				scan_field(lx, q, triple);
			}
			continue;
		}
		step(lx);
	}
	if (emit_token)
		emit(lx, CPL_PYTOK_STRING, flags, off, line, col);
}

/* A string nested in an f-string field: consumed, no token. */
static void
scan_string(struct lexer *lx, unsigned flags)
{
	scan_string_at(lx, flags, lx->i, lx->line, lx->col, false);
}

/* A name, a keyword, or the prefix of a string. */
static void
scan_name(struct lexer *lx)
{
	size_t off = lx->i;
	int line = lx->line, col = lx->col, f;
	unsigned char c;

	skip_name_chars(lx);
	c = peek(lx, 0);
	if ((c == '\'' || c == '"') &&
	    (f = prefix_flags(lx->s + off, lx->i - off)) >= 0) {
		scan_string_at(lx, (unsigned)f, off, line, col, true);
		return;
	}
	emit(lx, cpl_pytoken_keyword(lx->s + off, lx->i - off) ?
		 CPL_PYTOK_KEYWORD : CPL_PYTOK_NAME, 0, off, line, col);
}

/* Remembers an opening bracket and where it is. */
static void
open_bracket(struct lexer *lx, char c, int line, int col)
{
	if (lx->nbr == CPL_PYTOKEN_MAX_NEST)
		lex_error(lx, line, col, "too many nested parentheses");
	if (lx->nbr == lx->capbr)
		CPL_GROW(lx->br, lx->capbr, lx->nbr + 1);
	lx->br[lx->nbr].c = c;
	lx->br[lx->nbr].line = line;
	lx->br[lx->nbr].column = col;
	lx->nbr++;
}

/* Matches a closing bracket, noting a mismatch or a stray one. */
static void
close_bracket(struct lexer *lx, char c, int line, int col)
{
	char want = c == ')' ? '(' : c == ']' ? '[' : '{';

	if (lx->nbr == 0) {
		lex_error(lx, line, col, c == ')' ? "unmatched ')'" :
			  c == ']' ? "unmatched ']'" : "unmatched '}'");
		return;
	}
	if (lx->br[lx->nbr - 1].c != want)
		lex_error(lx, line, col,
			  "closing bracket does not match the opening one");
	lx->nbr--;
}

/*
 * The length of the operator at p (avail bytes there) by longest match:
 * :=  ->  **=  //=  >>=  <<=  ...  and the one- and two-character ones;
 * 0 for a character that is no operator ('!' alone, '$', '?', '`').
 */
static size_t
op_len(const unsigned char *p, size_t avail)
{
	unsigned char d = avail > 1 ? p[1] : 0, e = avail > 2 ? p[2] : 0;

	switch (p[0]) {
	case '*': case '/': case '>': case '<':
		if (d == p[0])
			return e == '=' ? 3 : 2;
		return d == '=' ? 2 : 1;
	case '.':
		return d == '.' && e == '.' ? 3 : 1;
	case '-':
		return d == '=' || d == '>' ? 2 : 1;
	case '!':
		return d == '=' ? 2 : 0;
	case ':': case '=': case '+': case '%': case '&': case '|': case '^':
	case '@':
		return d == '=' ? 2 : 1;
	case '~': case '(': case ')': case '[': case ']': case '{': case '}':
	case ',': case ';':
		return 1;
	default:
		return 0;
	}
}

/* An operator by longest match, or an ERRORTOKEN for a stray character. */
static void
scan_op(struct lexer *lx)
{
	size_t off = lx->i, len;
	int line = lx->line, col = lx->col;
	unsigned char c = peek(lx, 0);

	len = op_len((const unsigned char *)lx->s + lx->i, lx->n - lx->i);
	if (len == 0) {
		step(lx);
		emit(lx, CPL_PYTOK_ERRORTOKEN, 0, off, line, col);
		lex_error(lx, line, col, "invalid character in Python source");
		return;
	}
	lx->i += len;
	lx->col += (int)len;
	if (c == '(' || c == '[' || c == '{')
		open_bracket(lx, (char)c, line, col);
	else if (c == ')' || c == ']' || c == '}')
		close_bracket(lx, (char)c, line, col);
	emit(lx, CPL_PYTOK_OP, 0, off, line, col);
}

/* A newline: NEWLINE when it ends a logical line with content, else NL. */
static void
scan_newline(struct lexer *lx)
{
	size_t off = lx->i;
	int line = lx->line, col = lx->col;
	bool logical = lx->nbr == 0 && lx->content;

	step(lx);
	/* It ends a column after its start (cpl_pytoken_end()). */
	emit(lx, logical ? CPL_PYTOK_NEWLINE : CPL_PYTOK_NL, 0, off, line, col);
	if (logical)
		lx->content = false;
}

/* Everything after the last character: NEWLINE, DEDENTs, ENDMARKER. */
static void
finish(struct lexer *lx)
{
	if (lx->nbr > 0) {
		struct bracket *b = &lx->br[lx->nbr - 1];

		lex_error(lx, b->line, b->column,
			  "unexpected end of file: bracket never closed");
	}
	if (lx->content)
		emit_empty(lx, CPL_PYTOK_NEWLINE);
	/* Like CPython, what follows an unterminated last line sits at the
	 * start of the line after it. */
	if (lx->n > 0 && !is_newline((unsigned char)lx->s[lx->n - 1])) {
		lx->line++;
		lx->col = 1;
	}
	while (lx->nindents > 1) {
		lx->nindents--;
		emit_empty(lx, CPL_PYTOK_DEDENT);
	}
	emit_empty(lx, CPL_PYTOK_ENDMARKER);
}

/* Bytes the light scan's skip_plain_line() passes without a look:
 * letters but 'm' (the one letter "import" and "from" share, and rarer
 * in Python than their first letters), digits, '_', blanks and the
 * operators that open, close and escape nothing ('!' is one only before
 * '=').  Every other byte is looked at. */
#define PP8(c) [c] = 1, [c + 1] = 1, [c + 2] = 1, [c + 3] = 1, \
	[c + 4] = 1, [c + 5] = 1, [c + 6] = 1, [c + 7] = 1
static const unsigned char plain_pass[256] = {
	PP8('A'), PP8('I'), PP8('Q'), ['Y'] = 1, ['Z'] = 1,
	PP8('a'), ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, PP8('n'),
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	PP8('0'), ['8'] = 1, ['9'] = 1, ['_'] = 1,
	[' '] = 1, ['\t'] = 1, ['\f'] = 1,
	['*'] = 1, ['/'] = 1, ['>'] = 1, ['<'] = 1, ['.'] = 1, ['-'] = 1,
	[':'] = 1, ['='] = 1, ['+'] = 1, ['%'] = 1, ['&'] = 1, ['|'] = 1,
	['^'] = 1, ['@'] = 1, ['~'] = 1, [','] = 1, [';'] = 1,
};
#undef PP8

/*
 * A string at s[i] (its quote; flags: its prefix's) that the light scan
 * may pass over: no backslash, no byte past ASCII, on its line unless
 * triple-quoted, no braces in an f- or t-string.  Returns the index past
 * its closing quote and counts its line ends in *lines (CRLF once) with
 * the index after the last in *bol; 0 for any other string.
 */
static size_t
skip_string(const unsigned char *s, size_t i, size_t n, unsigned flags,
	    int *lines, size_t *bol)
{
	unsigned char q = s[i];
	bool triple = i + 2 < n && s[i + 1] == q && s[i + 2] == q;
	unsigned char stop = (q == '\'' ? SQ_SINGLE : SQ_DOUBLE) | SQ_ESC |
			     SQ_HIGH | (flags & (CPL_PYSTR_FMT | CPL_PYSTR_TMPL) ?
					SQ_BRACE : 0);

	for (i += triple ? 3 : 1; i < n; i++) {
		unsigned char c;

		while (!(string_stop[s[i]] & stop))	/* plain text */
			if (++i == n)
				return 0;	/* unterminated */
		c = s[i];
		if (c == q) {
			if (!triple)
				return i + 1;
			if (i + 2 < n && s[i + 1] == q && s[i + 2] == q)
				return i + 3;
			continue;
		}
		if (c == '\n' || c == '\r') {
			if (!triple)
				return 0;
			if (c == '\r' && i + 1 < n && s[i + 1] == '\n')
				i++;
			(*lines)++;
			*bol = i + 1;
			continue;
		}
		return 0;	/* a backslash, a brace, a byte past ASCII */
	}
	return 0;		/* unterminated */
}

/*
 * In a light scan (skip_plain_lines), at a logical line's first token
 * outside brackets: passes over the whole logical line when it can
 * start no import statement and holds nothing the tokenizer reports.
 * Its names are neither "import" nor "from" (a keyword after a number
 * starts no statement, so a number's letters need no look); its strings
 * are those skip_string() passes; its brackets close within it (it goes
 * on over line ends inside them, and after a backslash that ends a
 * line); it has no other backslash, no byte past ASCII outside comments
 * and no character that is no operator.  Such a line's tokens are all
 * names, numbers, operators, strings, comments and NLs, which the light
 * scan does not read.  Returns false, having moved nothing, for any
 * other line.  Stops at the line end that ends it (or the text's end).
 *
 * It reads no token: it passes the bytes of plain_pass[] four at a time
 * and looks only at the others.  An 'm' is looked at for the word
 * "import" or "from" around it (not after or before a name character,
 * so inside a number's letters too, which only ends more skips); a quote
 * for the prefix before it (the name characters just before: none, or
 * a prefix of one or two that no name character precedes).  Returning
 * false where a token-by-token skip would pass is safe (the tokenizer
 * reads that line); the other way is not, and test_pytoken holds it.
 */
static bool
skip_plain_line(struct lexer *lx)
{
	const unsigned char *s = (const unsigned char *)lx->s;
	size_t i = lx->i, n = lx->n, start = lx->i, k, bol = lx->i, end;
	char open[32];
	size_t depth = 0, np;
	bool any;
	int lines = 0, f;
	unsigned char c, high = 0;

	/* Content: the first byte that is no blank, no backslash ending a
	 * line and no line end (a comment runs to the line's end, and a
	 * line end inside brackets comes after an opening one). */
	for (k = i; k < n; k++) {
		if (s[k] == ' ' || s[k] == '\t' || s[k] == '\f')
			continue;
		if (s[k] == '\\' && k + 1 < n &&
		    (s[k + 1] == '\n' || s[k + 1] == '\r')) {
			k++;
			continue;
		}
		break;
	}
	any = k < n && s[k] != '#' && s[k] != '\n' && s[k] != '\r';
	for (;;) {
		while (i + 4 <= n && (plain_pass[s[i]] & plain_pass[s[i + 1]] &
				      plain_pass[s[i + 2]] &
				      plain_pass[s[i + 3]]))
			i += 4;
		while (i < n && plain_pass[s[i]])
			i++;
		if (i == n)
			break;
		switch (c = s[i]) {
		case 'm':	/* i[m]port, fro[m] */
			if (i - start >= 1 && n - i >= 5 &&
			    memcmp(s + i - 1, "import", 6) == 0 &&
			    (i + 5 == n || !is_name_char(s[i + 5])) &&
			    (i - 1 == start || !is_name_char(s[i - 2])))
				return false;
			if (i - start >= 3 &&
			    memcmp(s + i - 3, "from", 4) == 0 &&
			    (i + 1 == n || !is_name_char(s[i + 1])) &&
			    (i - 3 == start || !is_name_char(s[i - 4])))
				return false;
			i++;
			continue;
		case '!':
			if (i + 1 >= n || s[i + 1] != '=')
				return false;
			i += 2;
			continue;
		case '(': case '[': case '{':
			if (depth == sizeof(open))
				return false;
			open[depth++] = (char)c;
			i++;
			continue;
		case ')': case ']': case '}':
			if (depth == 0 || open[depth - 1] != (c == ')' ? '(' :
			    c == ']' ? '[' : '{'))
				return false;
			depth--;
			i++;
			continue;
		case '\'': case '"':
			/* Its prefix: the name characters before it. */
			for (np = 0; np < 3 && i - np > start &&
				     is_name_char(s[i - np - 1]); np++)
				;
			f = np == 0 ? 0 : np == 3 ? -1 :
			    prefix_flags((const char *)s + i - np, np);
			if (f < 0 || (end = skip_string(s, i, n, (unsigned)f,
							&lines, &bol)) == 0)
				return false;
			i = end;
			continue;
		case '#':
			while (i < n && s[i] != '\n' && s[i] != '\r')
				high |= s[i++];
			continue;
		case '\\':
			/* A backslash that ends a line joins the next. */
			if (i + 1 >= n || (s[i + 1] != '\n' && s[i + 1] != '\r'))
				return false;
			i += s[i + 1] == '\r' && i + 2 < n && s[i + 2] == '\n' ?
			     3 : 2;
			lines++;
			bol = i;
			continue;
		case '\n': case '\r':
			if (depth == 0)
				break;
			i += c == '\r' && i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
			lines++;
			bol = i;
			continue;
		default:
			return false;	/* '$', '?', '`', past ASCII, ... */
		}
		break;
	}
	if (depth != 0)
		return false;	/* the tokenizer reports the open bracket */
	/* The column: a column per character since the last line end (a
	 * comment may hold bytes past ASCII). */
	if (lines > 0) {
		lx->line += lines;
		lx->col = 1;
		k = bol;
	} else {
		k = lx->i;
	}
	if (high & 0x80)
		for (; k < i; k++)
			lx->col += (s[k] & 0xC0) != 0x80;
	else
		lx->col += (int)(i - k);
	lx->i = i;
	if (any)
		lx->content = true;
	return true;
}

int
cpl_pytoken_scan(struct cpl_pytokens *out, const char *text, size_t len,
		 const char *path, struct cpl_error *err)
{
	struct lexer lx;
	bool bol = true;

	memset(&lx, 0, sizeof(lx));
	if (len > UINT32_MAX)	/* offsets are 32-bit */
		len = UINT32_MAX;
	lx.s = text;
	lx.n = len;
	lx.line = out->first_line > 1 ? out->first_line : 1;
	lx.col = 1;
	lx.out = out;
	lx.path = path;
	lx.err = err;
	out->text = text;
	out->len = len;
	out->count = 0;
	push_indent(&lx, 0);
	/* Room for a whole file's tokens at once (one per 3.5 to 4.5 bytes
	 * in Python as written, NLs and comments counted; denser text grows
	 * the array): not grown from 8 by copying, nor once by doubling.  A
	 * line at a time needs no more than it grows to. */
	if (out->on_line == NULL && out->cap < len / 3 + 32) {
		out->cap = len / 3 + 32;
		out->toks = cpl_xrealloc(out->toks,
					 out->cap * sizeof(*out->toks));
	}
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		lx.i = 3;
	while (!at_end(&lx)) {
		unsigned char c;

		if (bol && lx.nbr == 0) {
			indentation(&lx);
			if (out->skip_plain_lines && out->on_line != NULL &&
			    skip_plain_line(&lx)) {
				/* At the line's end: its NEWLINE or NL, with
				 * the INDENT or DEDENTs before it, is not
				 * handed over (pytoken.h). */
				bol = false;
				if (!at_end(&lx)) {
					step(&lx);
					lx.content = false;
					out->count = 0;
					bol = true;
				}
				continue;
			}
		}
		bol = false;
		if (at_end(&lx))
			break;
		c = peek(&lx, 0);
		if (is_name_start(c)) {	/* the commonest: first */
			scan_name(&lx);
		} else if (c == ' ' || c == '\t' || c == '\f') {
			do {	/* step(), for a run of blanks */
				lx.i++;
				lx.col++;
				c = peek(&lx, 0);
			} while (c == ' ' || c == '\t' || c == '\f');
		} else if (c == '#') {
			scan_comment(&lx);
		} else if (is_newline(c)) {
			scan_newline(&lx);
			bol = true;
		} else if (c == '\\' && is_newline(peek(&lx, 1))) {
			step(&lx);
			step(&lx);
		} else if (c == '\\' && lx.i + 1 >= lx.n) {
			lex_error(&lx, lx.line, lx.col,
				  "unexpected end of file after '\\'");
			step(&lx);
		} else if (is_digit(c) ||
			   (c == '.' && is_digit(peek(&lx, 1)))) {
			scan_number(&lx);
		} else if (c == '\'' || c == '"') {
			scan_string_at(&lx, 0, lx.i, lx.line, lx.col, true);
		} else {
			scan_op(&lx);
		}
	}
	finish(&lx);
	if (out->on_line != NULL && out->count > 0) {
		out->on_line(out->on_line_ctx, out);
		out->count = 0;
	}
	free(lx.indents);
	free(lx.br);
	return lx.rc;
}

void
cpl_pytoken_clear(struct cpl_pytokens *t)
{
	if (t == NULL)
		return;
	free(t->toks);
	memset(t, 0, sizeof(*t));
}

const char *
cpl_pytoken_kind_name(enum cpl_pytok_kind k)
{
	switch (k) {
	case CPL_PYTOK_ENDMARKER: return "ENDMARKER";
	case CPL_PYTOK_NAME: return "NAME";
	case CPL_PYTOK_KEYWORD: return "KEYWORD";
	case CPL_PYTOK_NUMBER: return "NUMBER";
	case CPL_PYTOK_STRING: return "STRING";
	case CPL_PYTOK_OP: return "OP";
	case CPL_PYTOK_NEWLINE: return "NEWLINE";
	case CPL_PYTOK_NL: return "NL";
	case CPL_PYTOK_COMMENT: return "COMMENT";
	case CPL_PYTOK_INDENT: return "INDENT";
	case CPL_PYTOK_DEDENT: return "DEDENT";
	case CPL_PYTOK_ERRORTOKEN: return "ERRORTOKEN";
	}
	return "?";
}

void
cpl_pytoken_end(const char *text, const struct cpl_pytoken *t, int *line,
		int *column)
{
	const unsigned char *s = (const unsigned char *)text + t->off;
	size_t i, n = t->len;
	int l = t->line, c = t->column;

	if ((t->kind == CPL_PYTOK_NEWLINE || t->kind == CPL_PYTOK_NL) &&
	    n > 0) {
		*line = l;
		*column = c + 1;
		return;
	}
	for (i = 0; i < n; i++) {
		if (s[i] == '\r' || s[i] == '\n') {
			if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
				i++;
			l++;
			c = 1;
		} else if ((s[i] & 0xC0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*column = c;
}

bool
cpl_pytoken_is(const char *text, const struct cpl_pytoken *t, const char *s)
{
	size_t n;

	if (t == NULL)
		return false;
	n = strlen(s);
	return t->len == n && memcmp(text + t->off, s, n) == 0;
}

bool
cpl_pytoken_keyword(const char *s, size_t n)
{
	/* The first letters of Python 3's 35 keywords by length: most
	 * names are ruled out by one test.  Names are the commonest tokens,
	 * so this is hot: past the test a name is compared with the words
	 * of its length and first letter, each a comparison of a constant
	 * length (made inline, not a call). */
#define KW(c) ((uint64_t)1 << ((c) - 'A'))
	static const uint64_t firsts[9] = {
		[2] = KW('a') | KW('i') | KW('o'),
		[3] = KW('a') | KW('d') | KW('f') | KW('n') | KW('t'),
		[4] = KW('N') | KW('T') | KW('e') | KW('f') | KW('p') |
		      KW('w'),
		[5] = KW('F') | KW('a') | KW('b') | KW('c') | KW('r') |
		      KW('w') | KW('y'),
		[6] = KW('a') | KW('e') | KW('g') | KW('i') | KW('l') |
		      KW('r'),
		[7] = KW('f'),
		[8] = KW('c') | KW('n'),
	};
	unsigned char c0;

	if (n < 2 || n > 8)
		return false;
	c0 = (unsigned char)s[0];
	if (c0 < 'A' || c0 > 'z' || !(firsts[n] & KW(c0)))
		return false;
#undef KW
	/* Each case below is one of firsts[n]'s letters: the last of a
	 * switch needs no test of its own. */
#define IS(w) (memcmp(s, w, sizeof(w) - 1) == 0)
	switch (n) {
	case 2:
		return c0 == 'a' ? s[1] == 's' :
		       c0 == 'i' ? s[1] == 'f' || s[1] == 'n' || s[1] == 's' :
		       s[1] == 'r';
	case 3:
		switch (c0) {
		case 'a': return IS("and");
		case 'd': return IS("def") || IS("del");
		case 'f': return IS("for");
		case 'n': return IS("not");
		default: return IS("try");
		}
	case 4:
		switch (c0) {
		case 'N': return IS("None");
		case 'T': return IS("True");
		case 'e': return IS("elif") || IS("else");
		case 'f': return IS("from");
		case 'p': return IS("pass");
		default: return IS("with");
		}
	case 5:
		switch (c0) {
		case 'F': return IS("False");
		case 'a': return IS("async") || IS("await");
		case 'b': return IS("break");
		case 'c': return IS("class");
		case 'r': return IS("raise");
		case 'w': return IS("while");
		default: return IS("yield");
		}
	case 6:
		switch (c0) {
		case 'a': return IS("assert");
		case 'e': return IS("except");
		case 'g': return IS("global");
		case 'i': return IS("import");
		case 'l': return IS("lambda");
		default: return IS("return");
		}
	case 7:
		return IS("finally");
	default:
		return IS("continue") || IS("nonlocal");
	}
#undef IS
}

int
cpl_pytoken_number(double *out, bool *integral, const char *text,
		   const struct cpl_pytoken *t)
{
	char buf[64], *end;
	size_t k, m = 0;
	int base = 10;
	double v;

	*out = 0;
	*integral = false;
	if (t->kind != CPL_PYTOK_NUMBER || (t->flags & CPL_PYNUM_IMAG))
		return -1;
	for (k = 0; k < t->len; k++) {
		if (text[t->off + k] == '_')
			continue;
		if (m + 1 >= sizeof(buf))
			return -1;
		buf[m++] = text[t->off + k];
	}
	buf[m] = '\0';
	errno = 0;
	if (t->flags & CPL_PYNUM_FLOAT) {
		v = strtod(buf, &end);
	} else {
		const char *p = buf;

		if (m > 2 && buf[0] == '0') {
			char x = (char)(buf[1] | 0x20);

			base = x == 'x' ? 16 : x == 'o' ? 8 : x == 'b' ? 2 : 10;
			if (base != 10)
				p = buf + 2;
		}
		v = (double)strtoull(p, &end, base);
		*integral = true;
	}
	if (*end != '\0' || errno != 0 || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* The escape character e of a non-raw string, or -1 when not handled. */
static int
simple_escape(unsigned char e)
{
	switch (e) {
	case '\\': return '\\';
	case '\'': return '\'';
	case '"': return '"';
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case '0': return '\0';
	default: return -1;
	}
}

int
cpl_pytoken_string(char **out, const char *text, const struct cpl_pytoken *t)
{
	const char *p = text + t->off, *end = p + t->len;
	struct cpl_buf b;
	size_t q;
	int rc = -1;

	*out = NULL;
	cpl_buf_init(&b, 0);
	if (t->kind != CPL_PYTOK_STRING || (t->flags & (CPL_PYSTR_FMT |
	    CPL_PYSTR_TMPL | CPL_PYSTR_BYTES | CPL_PYSTR_OPEN)))
		goto out;
	while (p < end && *p != '\'' && *p != '"')
		p++;
	q = t->flags & CPL_PYSTR_TRIPLE ? 3 : 1;
	if ((size_t)(end - p) < 2 * q)
		goto out;
	p += q;
	end -= q;
	while (p < end) {
		int c;

		if (*p != '\\' || (t->flags & CPL_PYSTR_RAW)) {
			cpl_buf_addc(&b, *p++);
			continue;
		}
		if (p + 1 < end && (p[1] == '\n' || p[1] == '\r')) {
			p += p[1] == '\r' && p + 2 < end &&
			     p[2] == '\n' ? 3 : 2;
			continue;
		}
		c = p + 1 < end ? simple_escape((unsigned char)p[1]) : -1;
		if (c < 0)
			goto out;
		if (c == '\0')
			goto out;	/* would cut the C string */
		cpl_buf_addc(&b, (char)c);
		p += 2;
	}
	*out = cpl_buf_detach(&b);
	rc = 0;
out:
	cpl_buf_free(&b);
	return rc;
}
