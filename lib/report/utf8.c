/*
 * utf8.c — decoding one UTF-8 code point (utf8_int.h).  Owns nothing.
 */
#include "report/utf8_int.h"

uint32_t
cpl_report_utf8_next(size_t *adv, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	uint32_t cp;
	size_t need, i;

	if (p[0] < 0x80) {
		*adv = 1;
		return p[0];
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		need = 1;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		need = 2;
		cp = p[0] & 0x0f;
		if (p[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (p[0] == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		need = 3;
		cp = p[0] & 0x07;
		if (p[0] == 0xf0)
			lo = 0x90;	/* overlong */
		else if (p[0] == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		*adv = 1;
		return 0xfffd;
	}
	for (i = 1; i <= need; i++) {
		if (i >= len || p[i] < lo || p[i] > hi) {
			*adv = i;
			return 0xfffd;
		}
		lo = 0x80;
		hi = 0xbf;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	*adv = need + 1;
	return cp;
}
