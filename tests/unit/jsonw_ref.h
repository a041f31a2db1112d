/*
 * jsonw_ref.h — the reference the JSON tests hold the streaming writer
 * (report/jsonw.h) to: jansson's own text, plus the three escapes the
 * writer adds and jansson does not make.  Shared by test_jsonw.c and
 * test_report.c; include once.
 */
#ifndef CPL_TEST_JSONW_REF_H
#define CPL_TEST_JSONW_REF_H

#include <stdlib.h>
#include <string.h>

#include "util.h"

/*
 * jansson's text with the three escapes jansson does not make and the
 * writer does (jsonw.h): DEL as \u007F, a C1 code point as \u0080..
 * \u009F, the '[' of "##[" as \u005B.  In a dump those bytes stand only
 * inside strings.  Frees text; caller frees the result.
 */
static char *
extra_escapes(char *text)
{
	static const char hx[] = "0123456789ABCDEF";
	struct cpl_buf b;
	size_t i, n = strlen(text);

	cpl_buf_init(&b, 0);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == 0x7f) {
			cpl_buf_adds(&b, "\\u007F");
		} else if (c == 0xc2 && i + 1 < n &&
			   (unsigned char)text[i + 1] >= 0x80 &&
			   (unsigned char)text[i + 1] <= 0x9f) {
			c = (unsigned char)text[++i];
			cpl_buf_addf(&b, "\\u00%c%c", hx[c >> 4], hx[c & 15]);
		} else if (c == '[' && i >= 2 && text[i - 1] == '#' &&
			   text[i - 2] == '#') {
			cpl_buf_adds(&b, "\\u005B");
		} else {
			cpl_buf_addc(&b, (char)c);
		}
	}
	free(text);
	return cpl_buf_detach(&b);
}

#endif
