/*
 * shlex_int.h — the shell wing's private lexer (shlex.c): splits POSIX shell
 * text into words and simple commands for the scanner (shscan.c).
 *
 * Private to lib/shell/: only shlex.c, shlaunch.c and shscan.c include it;
 * nothing outside the wing may.  It may include text/ and util.h, never a
 * higher wing or the core's model.
 *
 * What it owns: the types the lexer produces (struct src, frame, ref, sword,
 * cmd, enum conn) and the functions that make and read them.  The lexer
 * runs inside a scan (shstate_int.h): it reads the scan's line index and
 * here-documents, and reports host-count reads, variable uses and finished
 * commands back to the scanner by calling its cpl_shscan_* functions.
 *
 * Ownership: a struct sword owns its text and refs (cpl_shlex_word_free());
 * a struct sh_cmd owns its words (cpl_shlex_free()).  Source text is borrowed.
 */
#ifndef CPL_SHELL_SHLEX_H
#define CPL_SHELL_SHLEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/pos.h"
#include "text/yamldoc.h"
#include "util.h"

#define NO_IDX SIZE_MAX

struct sh_scan;			/* shstate_int.h */

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
struct sh_frame {
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
	/* Set by top_command() (shscan.c): */
	bool prefix;		/* an assignment in the command's env */
	const char *sizes;	/* what its host-count reads size; borrowed */
	size_t sizeslen;
	bool sink;		/* uses of host-sized variables count here */
	bool pool;		/* sizes names a pool flag of the command's
				 * program (gunicorn -w, celery -c) */
};

/* A simple command: its words. */
struct sh_cmd {
	struct sword *w;
	size_t n;
	size_t cap;
};

/* How a command is joined to the next one. */
enum conn {
	CONN_SEQ,		/* ; & | newline */
	CONN_AND,		/* && */
	CONN_OR,		/* || */
};

/* ---- characters and words --------------------------------------------- */

/* True for [A-Za-z_]. */
static inline bool
name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* True for [A-Za-z0-9_]. */
static inline bool
name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* The word's text, "" when empty; borrowed from w. */
static inline const char *
wtext(const struct sword *w)
{
	return cpl_buf_str(&w->text);
}

/* The last path component of s; borrowed from s. */
const char *cpl_shlex_base(const char *s);

/* True when s names one of the words in the NULL-terminated list. */
bool cpl_shlex_oneof(const char *s, const char *const *list);

/* Resets w to an empty word. */
void cpl_shlex_word_init(struct sword *w);

/* Frees what w holds. */
void cpl_shlex_word_free(struct sword *w);

/* Appends a new empty word to c; borrowed until the next push. */
struct sword *cpl_shlex_push(struct sh_cmd *c);

/* Drops every word of c, keeping its array. */
void cpl_shlex_clear(struct sh_cmd *c);

/* Frees c. */
void cpl_shlex_free(struct sh_cmd *c);

/* Length of NAME when the text of w reads NAME=..., else 0; with strict,
 * NAME= must also be unquoted (as the shell requires of assignments, but
 * not of export's arguments). */
size_t cpl_shlex_assign_name(const struct sword *w, bool strict);

/* Length of NAME when w is an assignment NAME=..., else 0. */
size_t cpl_shlex_assign_len(const struct sword *w);

/* ---- positions -------------------------------------------------------- */

/*
 * Indexes the lines of the script t (len bytes, the value of scalar node,
 * or with node NULL a whole file from line 1, column 1)
 * into sc; true when offsets map to positions linearly, so that
 * cpl_shlex_pos() can use the index.
 */
bool cpl_shlex_index_lines(struct sh_scan *sc, const struct cpl_ynode *node,
			   const char *t, size_t len);

/* Position of byte offset off of src. */
struct cpl_pos cpl_shlex_pos(const struct sh_scan *sc, const struct src *src,
			     size_t off);

/* ---- the parser ------------------------------------------------------- */

/*
 * Reads simple commands from *i to the end of src, or (to_paren) to the ')'
 * that ends a $(...), handing each to cpl_shscan_finish().
 */
void cpl_shlex_list(struct sh_scan *sc, const struct src *src, size_t *i,
		    struct sh_frame *fr, bool to_paren);

/*
 * Reads an expansion at *i ('$'): $((...)), $(...), ${...}, $NAME, $1,
 * $'...', $"...", or a lone '$'.  The text as written goes into w; dq says
 * it is inside double quotes.
 */
void cpl_shlex_dollar(struct sh_scan *sc, const struct src *src, size_t *i,
		      struct sh_frame *fr, struct sword *w, bool dq);

/* Reads a `...` substitution at *i: its unescaped body is parsed as a
 * script of its own, whose positions all stand for the backtick. */
void cpl_shlex_backtick(struct sh_scan *sc, const struct src *src, size_t *i,
			struct sh_frame *fr, struct sword *w);

/* Skips the bodies of the here-documents opened on the line just ended. */
void cpl_shlex_skip_heredocs(struct sh_scan *sc, const struct src *src,
			     size_t *i);

#endif
