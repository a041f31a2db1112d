/*
 * utf8_int.h — one UTF-8 code point decoded: the step the escaper, the JSON
 * writer and the fingerprints share.  Lowest file of report/: it includes
 * nothing of the wing, so they all may include it.
 */
#ifndef CPL_REPORT_UTF8_H
#define CPL_REPORT_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decodes one code point from s (len >= 1 bytes) and stores the bytes it
 * used in *adv.  Ill-formed input yields U+FFFD for each maximal invalid
 * subpart (the WHATWG / Unicode "substitution of maximal subparts" rule),
 * so *adv is always at least 1.
 */
uint32_t cpl_report_utf8_next(size_t *adv, const char *s, size_t len);

#endif
