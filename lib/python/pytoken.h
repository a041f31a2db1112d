/*
 * pytoken.h — a Python 3 tokenizer: text in, an array of positioned tokens
 * out, the way CPython's tokenize module splits it (PEP 8 aside).
 *
 * What it knows: names (keywords told apart; soft keywords such as match,
 * case, type stay names), numbers of every form (1_000, 0x1F, 0o17, 0b1,
 * 1.5, .5, 1e3, 1.5e-3, 1j), strings with any prefix r u b f t and their
 * two-letter mixes in any case, single, double and triple quotes, f-strings
 * with nested replacement fields and nested strings (PEP 701: an f-string
 * is one STRING token), comments, backslash continuations, NEWLINE at the
 * end of a logical line vs NL for blank lines and newlines inside
 * brackets, INDENT and DEDENT, and operators by longest match (:= -> **=
 * //= ... @).  CRLF and lone CR end lines; a UTF-8 BOM is skipped.
 *
 * Positions are 1-based; a column counts code points (UTF-8 continuation
 * bytes do not advance it, a tab is one column).  A token's end is the
 * position just past its last character.  off and len locate its bytes in
 * the text.
 *
 * Invariant: the array always ends with ENDMARKER, preceded by a NEWLINE
 * when the last logical line had content and one DEDENT per open INDENT,
 * whatever the input; an error never stops the scan.
 *
 * Limits, CPython's own: brackets nested deeper than CPL_PYTOKEN_MAX_NEST
 * are an error ("too many nested parentheses"), and so are f-strings
 * nested deeper than CPL_PYTOKEN_MAX_FSTRING (replacement fields within
 * replacement fields, format specs included: "too many nested
 * f-strings"), whose deeper text is then read as plain string text.  So
 * the scan's recursion is bounded whatever the input; a file past either
 * limit does not compile under CPython either.
 *
 * Ownership: cpl_pytoken_scan() fills a caller-owned struct cpl_pytokens;
 * free its array with cpl_pytoken_clear().  The text is borrowed and must
 * outlive every use of the offsets.
 */
#ifndef CPL_PYTOKEN_H
#define CPL_PYTOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum cpl_pytok_kind {
	CPL_PYTOK_ENDMARKER,
	CPL_PYTOK_NAME,		/* identifiers and soft keywords */
	CPL_PYTOK_KEYWORD,	/* hard keywords: def, if, None, ... */
	CPL_PYTOK_NUMBER,
	CPL_PYTOK_STRING,	/* one literal with its prefix and quotes */
	CPL_PYTOK_OP,		/* operators and delimiters */
	CPL_PYTOK_NEWLINE,	/* end of a logical line */
	CPL_PYTOK_NL,		/* a newline that ends no logical line */
	CPL_PYTOK_COMMENT,	/* "# ..." up to the end of the line */
	CPL_PYTOK_INDENT,	/* the new indentation's whitespace */
	CPL_PYTOK_DEDENT,	/* zero length, before the dedented token */
	CPL_PYTOK_ERRORTOKEN,	/* a character Python does not accept */
};

/* CPython's MAXLEVEL: brackets open at once. */
#define CPL_PYTOKEN_MAX_NEST 200
/* CPython's MAXFSTRINGLEVEL: f-string replacement fields open at once. */
#define CPL_PYTOKEN_MAX_FSTRING 150

/* Flags of a STRING token (its prefix and quotes). */
#define CPL_PYSTR_RAW	0x01	/* r or R */
#define CPL_PYSTR_BYTES	0x02	/* b or B */
#define CPL_PYSTR_FMT	0x04	/* f or F: an f-string */
#define CPL_PYSTR_UNI	0x08	/* u or U */
#define CPL_PYSTR_TMPL	0x10	/* t or T: a template string (3.14) */
#define CPL_PYSTR_TRIPLE 0x20	/* ''' or """ */
#define CPL_PYSTR_OPEN	0x40	/* unterminated (an error was reported) */

/* Flags of a NUMBER token (its form). */
#define CPL_PYNUM_INT	0x01	/* decimal, 0x, 0o or 0b integer */
#define CPL_PYNUM_FLOAT	0x02	/* has a point or an exponent */
#define CPL_PYNUM_IMAG	0x04	/* ends in j or J */

/* One token: kind, flags, where its bytes are and where it starts.
 * 20 bytes: the arrays are a large part of a run's memory even though a
 * scanned file keeps them only while they are read (pyscan.h). */
struct cpl_pytoken {
	enum cpl_pytok_kind kind : 8;
	unsigned flags : 8;	/* CPL_PYSTR_* or CPL_PYNUM_* */
	uint32_t off;		/* byte offset in the text (texts are
				 * far below 4 GiB: the engine's limit) */
	uint32_t len;		/* bytes; 0 for DEDENT, ENDMARKER, a final
				 * NEWLINE that the text did not hold */
	int line;
	int column;
	/* The end is not kept (8 bytes more each is 40% more):
	 * cpl_pytoken_end() finds it. */
};

/* A token array over a borrowed text. */
struct cpl_pytokens {
	struct cpl_pytoken *toks;
	size_t count;
	size_t cap;
	const char *text;	/* borrowed */
	size_t len;
	/* NULL, or called with the tokens of each logical line once its
	 * NEWLINE is emitted (and with what is left at the end), which are
	 * then dropped: out holds one line at a time, in an array that is
	 * reused (the light scan of pyscan.c reads only imports). */
	void (*on_line)(void *ctx, struct cpl_pytokens *line);
	void *on_line_ctx;
	/* With on_line: a logical line that holds no "import" or "from"
	 * word, no string with a backslash, a brace (f- and t-strings) or
	 * a byte past ASCII, no bracket left open, no backslash but one
	 * that ends a line, no byte past ASCII outside comments and no
	 * stray character (so no import statement and no error) may be
	 * passed over unread, and is not handed over at all (nor the
	 * INDENT or DEDENTs before it, nor its NEWLINE or NL): a reader of
	 * import statements has nothing to read there. */
	bool skip_plain_lines;
	/* The line number of the text's first line: 0 or 1 for line 1; an
	 * inline script laid at its lines of another file starts there
	 * (no padding of blank lines, whose tokens and bytes grew with
	 * every script of a file). */
	int first_line;
};

/*
 * Tokenizes text[0, len).  Returns 0, or -1 when the text holds an error
 * (unterminated string, a character Python rejects, a dedent to no outer
 * level, unbalanced brackets): err then names path and the first error's
 * line and column, and out still holds every token read (but with
 * out->on_line set), ended as the invariant says.  Clear out (zero it first) even when -1 is returned.
 * out->toks may instead hold room for out->cap tokens, filled from the
 * start (the array is grown only when that is too little).
 */
int cpl_pytoken_scan(struct cpl_pytokens *out, const char *text, size_t len,
		     const char *path, struct cpl_error *err);
void cpl_pytoken_clear(struct cpl_pytokens *t);	/* NULL-safe */

/* "NAME", "OP", ... as CPython's token module names them. */
const char *cpl_pytoken_kind_name(enum cpl_pytok_kind k);

/* The token's text equals s (NULL-safe on t). */
/*
 * Where token t of text ends (the position after its last character):
 * its characters walked from its start as the tokenizer walked them (CRLF
 * one, a column per byte that starts a character); a NEWLINE or NL that
 * holds a line break ends one column after its start.
 */
void cpl_pytoken_end(const char *text, const struct cpl_pytoken *t,
		     int *line, int *column);
bool cpl_pytoken_is(const char *text, const struct cpl_pytoken *t,
		    const char *s);

/* s[0, n) is a hard keyword of Python 3. */
bool cpl_pytoken_keyword(const char *s, size_t n);

/*
 * The value of a NUMBER token: *out the number, *integral whether it is
 * an integer literal.  -1 for imaginary numbers and malformed literals.
 */
int cpl_pytoken_number(double *out, bool *integral, const char *text,
		       const struct cpl_pytoken *t);

/*
 * The contents of a plain STRING token (no f, t or b prefix), with the
 * common escapes of non-raw strings decoded (\\ \' \" \n \t \r \0 and
 * backslash-newline).  -1 for f-, t- and byte strings, unterminated ones
 * and other escapes; *out is then NULL.  Caller frees *out.
 */
int cpl_pytoken_string(char **out, const char *text,
		       const struct cpl_pytoken *t);

#endif
