/*
 * jsonw.c — the streaming JSON writer (see jsonw.h).
 *
 * Invariant: a value is preceded by exactly what jansson puts before it:
 * nothing at the top, ": " after a key, and in a container "\n" (first
 * member) or ",\n" (later ones) plus two spaces per level; a container
 * closes with "\n" and its own indentation unless it stayed empty.
 * Includes only report/ and core headers; nothing here prints.
 */
#include "report/jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/utf8_int.h"

#define INDENT 2	/* spaces per level, JSON_INDENT(2) */

/* Aborts on a misuse of the writer: a bug in the reporter, not input. */
static void
misuse(const char *what)
{
	fprintf(stderr, "kubectl-cpulint: internal error: JSON writer: %s\n",
		what);
	abort();
}

void
cpl_jsonw_init(struct cpl_jsonw *j, struct cpl_wbuf *w, unsigned depth)
{
	if (depth >= CPL_JSONW_MAX_DEPTH)
		misuse("too deep");
	memset(j, 0, sizeof(*j));
	j->w = w;
	j->base = depth;
	j->depth = depth;
}

/* s[0, n) needs no escape: printable ASCII without '"', '\\' or DEL,
 * and without '#' (which may begin "##[").  Most strings are, so every
 * byte is looked at, in a loop compilers make a vector loop (GCC is asked
 * to at -O2 too). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-vectorize")))
#endif
static bool
plain(const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned char bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		bad |= (unsigned char)((unsigned char)(c - 0x20) >= 0x5f) |
		       (unsigned char)(c == '"') | (unsigned char)(c == '\\') |
		       (unsigned char)(c == '#');
	}
	return bad == 0;
}

/* Writes comma (when set), a newline and the indentation of level d at
 * p; returns the end. */
static char *
put_break(char *p, bool comma, unsigned d)
{
	if (comma)
		*p++ = ',';
	*p++ = '\n';
	memset(p, ' ', (size_t)d * INDENT);
	return p + (size_t)d * INDENT;
}

/* Newline and indentation for level d. */
static void
newline(struct cpl_jsonw *j, unsigned d)
{
	char *p = cpl_wbuf_reserve(j->w, 1 + (size_t)d * INDENT);

	if (p != NULL)
		cpl_wbuf_wrote(j->w, (size_t)(put_break(p, false, d) - p));
}

/* Writes what goes before a value in the current container. */
static void
before_value(struct cpl_jsonw *j)
{
	uint64_t bit;

	if (j->depth == j->base)
		return;			/* the value itself */
	bit = (uint64_t)1 << (j->depth - 1);
	if (!(j->array & bit)) {
		if (!j->keyed)
			misuse("value without a key");
		j->keyed = false;
		return;
	}
	if (j->filled & bit)
		cpl_wbuf_addc(j->w, ',');
	j->filled |= bit;
	newline(j, j->depth);
}

/* Opens a container; array tells which kind. */
static void
open_container(struct cpl_jsonw *j, bool array)
{
	uint64_t bit;

	before_value(j);
	if (j->depth + 1 >= CPL_JSONW_MAX_DEPTH)
		misuse("too deep");
	bit = (uint64_t)1 << j->depth;
	j->depth++;
	if (array)
		j->array |= bit;
	else
		j->array &= ~bit;
	j->filled &= ~bit;
	cpl_wbuf_addc(j->w, array ? '[' : '{');
}

void
cpl_jsonw_object(struct cpl_jsonw *j)
{
	open_container(j, false);
}

void
cpl_jsonw_array(struct cpl_jsonw *j)
{
	open_container(j, true);
}

void
cpl_jsonw_close(struct cpl_jsonw *j)
{
	uint64_t bit;

	if (j->depth == j->base || j->keyed)
		misuse("close without an open container");
	j->depth--;
	bit = (uint64_t)1 << j->depth;
	if (j->filled & bit)
		newline(j, j->depth);
	cpl_wbuf_addc(j->w, (j->array & bit) ? ']' : '}');
}

void
cpl_jsonw_key(struct cpl_jsonw *j, const char *key)
{
	uint64_t bit;
	size_t n, need;

	if (j->depth == j->base || j->keyed)
		misuse("key outside an object");
	bit = (uint64_t)1 << (j->depth - 1);
	if (j->array & bit)
		misuse("key in an array");
	n = strlen(key);
	/* ",\n", the indentation, the quoted key and ": " */
	need = 2 + j->depth * INDENT + 1 + n + 3;
	if (plain(key, n) &&	/* the keys this program writes */
	    need < CPL_WBUF_SIZE) {
		char *p = cpl_wbuf_reserve(j->w, need), *q = p;

		if (p != NULL) {
			q = put_break(q, j->filled & bit, j->depth);
			*q++ = '"';
			memcpy(q, key, n);
			q += n;
			memcpy(q, "\": ", 3);
			cpl_wbuf_wrote(j->w, (size_t)(q + 3 - p));
		}
	} else {
		if (j->filled & bit)
			cpl_wbuf_addc(j->w, ',');
		newline(j, j->depth);
		cpl_jsonw_escape(j->w, key, n);
		cpl_wbuf_add(j->w, ": ", 2);
	}
	j->filled |= bit;
	j->keyed = true;
}

void
cpl_jsonw_escape(struct cpl_wbuf *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i = 0, run = 0, adv;

	if (plain(s, n) && n + 2 < CPL_WBUF_SIZE) {	/* most strings */
		char *p = cpl_wbuf_reserve(w, n + 2);

		if (p != NULL) {
			p[0] = '"';
			memcpy(p + 1, s, n);
			p[n + 1] = '"';
			cpl_wbuf_wrote(w, n + 2);
		}
		return;
	}
	cpl_wbuf_addc(w, '"');
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		char esc[7] = "\\u00";

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
		    !(c == '[' && i >= 2 && s[i - 1] == '#' &&
		      s[i - 2] == '#')) {
			i++;
			continue;
		}
		cpl_wbuf_add(w, s + run, i - run);
		if (c >= 0x80) {
			uint32_t cp = cpl_report_utf8_next(&adv, s + i, n - i);

			if (cp == 0xfffd) {
				cpl_wbuf_add(w, "\xef\xbf\xbd", 3);
			} else if (cp <= 0x9f) {	/* C1: \u0080..\u009F */
				esc[4] = hex[cp >> 4];
				esc[5] = hex[cp & 15];
				cpl_wbuf_add(w, esc, 6);
			} else {
				cpl_wbuf_add(w, s + i, adv);
			}
			i += adv;
			run = i;
			continue;
		}
		switch (c) {
		case '"':
			cpl_wbuf_add(w, "\\\"", 2);
			break;
		case '\\':
			cpl_wbuf_add(w, "\\\\", 2);
			break;
		case '\b':
			cpl_wbuf_add(w, "\\b", 2);
			break;
		case '\f':
			cpl_wbuf_add(w, "\\f", 2);
			break;
		case '\n':
			cpl_wbuf_add(w, "\\n", 2);
			break;
		case '\r':
			cpl_wbuf_add(w, "\\r", 2);
			break;
		case '\t':
			cpl_wbuf_add(w, "\\t", 2);
			break;
		default:
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			cpl_wbuf_add(w, esc, 6);
			break;
		}
		i++;
		run = i;
	}
	cpl_wbuf_add(w, s + run, i - run);
	cpl_wbuf_addc(w, '"');
}

void
cpl_jsonw_str(struct cpl_jsonw *j, const char *s)
{
	if (s == NULL) {
		cpl_jsonw_null(j);
		return;
	}
	cpl_jsonw_strn(j, s, strlen(s));
}

void
cpl_jsonw_strn(struct cpl_jsonw *j, const char *s, size_t n)
{
	before_value(j);
	cpl_jsonw_escape(j->w, s, n);
}

void
cpl_jsonw_int(struct cpl_jsonw *j, long long v)
{
	char buf[24], *p = buf + sizeof(buf);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
				       (unsigned long long)v;

	before_value(j);
	do {	/* printf's "%lld", without parsing a format per number */
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		*--p = '-';
	cpl_wbuf_add(j->w, p, (size_t)(buf + sizeof(buf) - p));
}

void
cpl_jsonw_format_real(struct cpl_wbuf *w, double v)
{
	char buf[64];
	char *e, *start, *end;
	int n;

	n = snprintf(buf, sizeof(buf), "%.17g", v);
	if (n < 0 || (size_t)n >= sizeof(buf) - 3)
		misuse("real too long");
	if (strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL) {
		buf[n++] = '.';
		buf[n++] = '0';
		buf[n] = '\0';
	}
	/* "1e+05" to "1e5", "1e-05" to "1e-5", as jansson's jsonp_dtostr. */
	e = strchr(buf, 'e');
	if (e) {
		start = e + 1;
		end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, (size_t)(buf + n - end) + 1);
			n -= (int)(end - start);
		}
	}
	cpl_wbuf_add(w, buf, (size_t)n);
}

void
cpl_jsonw_real(struct cpl_jsonw *j, double v)
{
	if (!isfinite(v)) {
		cpl_jsonw_null(j);
		return;
	}
	before_value(j);
	cpl_jsonw_format_real(j->w, v);
}

void
cpl_jsonw_bool(struct cpl_jsonw *j, bool v)
{
	before_value(j);
	cpl_wbuf_adds(j->w, v ? "true" : "false");
}

void
cpl_jsonw_null(struct cpl_jsonw *j)
{
	before_value(j);
	cpl_wbuf_add(j->w, "null", 4);
}

void
cpl_jsonw_raw(struct cpl_jsonw *j, const char *text, size_t n)
{
	before_value(j);
	cpl_wbuf_add(j->w, text, n);
}
