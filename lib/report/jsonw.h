/*
 * jsonw.h — JSON written as it is produced, byte for byte as jansson's
 * json_dumpf(JSON_INDENT(2) | JSON_PRESERVE_ORDER) would print the same
 * document (but for the three escapes below), without building it first.
 *
 * The caller says what comes (object, key, value, close) and the writer
 * puts the separators and indentation: two spaces per level, ": " after
 * a key, "," and a newline between members, "[]" and "{}" when empty.
 * Strings are escaped as jansson does by default (", \ and control
 * characters; \b \f \n \r \t by name, others as \u00XX with capital hex;
 * "/" and non-ASCII kept), after ill-formed UTF-8 is repaired with U+FFFD
 * per maximal invalid subpart (jansson itself refuses such strings), and
 * three more escapes jansson does not make, so that a report printed on
 * a terminal or in a CI log holds no raw terminal control and no command
 * (report/escape.h): DEL as \u007F, the C1 controls U+0080..U+009F as
 * \u0080..\u009F, and the '[' of "##[" as \u005B.  The value a JSON
 * reader gets is the same.
 * Integers print as %lld; reals as jansson prints them ("%.17g", with
 * ".0" added when there is neither "." nor "e", no "+" and no leading
 * zeros in the exponent); a real that is not finite prints as null
 * (jansson cannot hold one).  Numbers assume the C locale for LC_NUMERIC,
 * which the command never changes.
 *
 * The writer borrows its cpl_wbuf; nothing is allocated.  Nesting deeper
 * than CPL_JSONW_MAX_DEPTH, a key outside an object or a value without a
 * key inside one is a programming error and aborts.
 */
#ifndef CPL_REPORT_JSONW_H
#define CPL_REPORT_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/wbuf.h"

#define CPL_JSONW_MAX_DEPTH 64

/* The state of one document (or one value of it) being written. */
struct cpl_jsonw {
	struct cpl_wbuf *w;	/* borrowed */
	unsigned base;		/* the level of the first value */
	unsigned depth;		/* open containers, counting base */
	uint64_t array;		/* bit d: level d is an array */
	uint64_t filled;	/* bit d: it has a member already */
	bool keyed;		/* a key was written, its value is due */
};

/*
 * Starts writing one value to w as if it stood depth levels deep in a
 * larger document (0: a document of its own); its members are indented
 * accordingly and its first byte is its own ("{", "[", a scalar).
 */
void cpl_jsonw_init(struct cpl_jsonw *j, struct cpl_wbuf *w, unsigned depth);
void cpl_jsonw_object(struct cpl_jsonw *j);	/* opens {} */
void cpl_jsonw_array(struct cpl_jsonw *j);	/* opens [] */
void cpl_jsonw_close(struct cpl_jsonw *j);	/* closes the innermost */
/* The key of the next member of the open object. */
void cpl_jsonw_key(struct cpl_jsonw *j, const char *key);
/* A string, or null for NULL. */
void cpl_jsonw_str(struct cpl_jsonw *j, const char *s);
/* A string of n bytes (NUL bytes allowed: \u0000). */
void cpl_jsonw_strn(struct cpl_jsonw *j, const char *s, size_t n);
void cpl_jsonw_int(struct cpl_jsonw *j, long long v);
void cpl_jsonw_real(struct cpl_jsonw *j, double v);
void cpl_jsonw_bool(struct cpl_jsonw *j, bool v);
void cpl_jsonw_null(struct cpl_jsonw *j);
/*
 * A value serialised beforehand (with cpl_jsonw_init at this depth),
 * copied as it is: the writer only adds the separator before it.
 */
void cpl_jsonw_raw(struct cpl_jsonw *j, const char *text, size_t n);

/* Appends the JSON string literal of s (n bytes), quotes included. */
void cpl_jsonw_escape(struct cpl_wbuf *w, const char *s, size_t n);
/* Appends v as jansson prints a real (see above). */
void cpl_jsonw_format_real(struct cpl_wbuf *w, double v);

#endif
