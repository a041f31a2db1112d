/*
 * escape.c — values from inputs shown safely on every output line (see
 * escape.h for the promises).
 *
 * One pass over the bytes: a run of bytes that need nothing is copied in
 * one piece, each other byte (or ill-formed sequence, or C1 code point)
 * becomes its escape.  With CPL_ESC_RUNNER the pass also knows whether
 * it is still at the start of a line (only blanks written since the last
 * '\n': what the runner's TrimStart would skip) and how many '#' were
 * just written, which is all that the two command forms need.
 */
#include "report/escape.h"

#include <stdint.h>
#include <string.h>

#include "report/utf8_int.h"

static const char hex[] = "0123456789abcdef";

/* Appends "\xHH". */
static void
put_x(struct cpl_buf *b, unsigned char c)
{
	char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

	cpl_buf_add(b, e, sizeof(e));
}

/*
 * Whether cp is blank to the runner: .NET's Char.IsWhiteSpace, which
 * String.TrimStart skips, and the invisible spaces a later .NET might
 * count (U+180E, U+200B, U+FEFF).  C0 and C1 blanks never get here: they
 * are escaped first.
 */
static bool
blank(uint32_t cp)
{
	return cp == ' ' || cp == 0xa0 || cp == 0x1680 || cp == 0x180e ||
	       (cp >= 0x2000 && cp <= 0x200b) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
	       cp == 0x3000 || cp == 0xfeff;
}

/*
 * Whether cp is shown as its escape although it is well-formed: the
 * invisible format characters a name can hide behind (the bidirectional
 * embeddings, overrides and isolates that reorder a line in a terminal,
 * U+202E among them; zero-width spaces and joiners, the soft hyphen, the
 * word joiner and invisible operators, the Hangul fillers, the BOM,
 * interlinear annotations, tags), the line and paragraph separators, and
 * the noncharacters (U+FDD0..U+FDEF and the last two of every plane:
 * U+FFFE and U+FFFF are not XML characters).
 */
static bool
hidden(uint32_t cp)
{
	return cp == 0xad || cp == 0x61c || cp == 0x115f || cp == 0x1160 ||
	       cp == 0x17b4 || cp == 0x17b5 ||
	       (cp >= 0x180b && cp <= 0x180f) ||
	       (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x206f) || cp == 0x3164 ||
	       (cp >= 0xfdd0 && cp <= 0xfdef) || cp == 0xfeff ||
	       cp == 0xffa0 || (cp >= 0xfff9 && cp <= 0xfffb) ||
	       (cp & 0xfffe) == 0xfffe || (cp >= 0x1bca0 && cp <= 0x1bca3) ||
	       (cp >= 0x1d173 && cp <= 0x1d17a) ||
	       (cp >= 0xe0000 && cp <= 0xe007f);
}

/* Markdown: what breaks one of GitHub's autolinks at s[i] (the '.' of
 * "www.", the ':' of "://"), or NULL.  An empty HTML comment splits the
 * text the autolinker reads and renders as nothing; an entity would not
 * (GitHub decodes "&#64;" before it looks for e-mail addresses). */
static const char *
autolink_break(const char *s, size_t n, size_t i)
{
	if (s[i] == '.' && i >= 3 && (s[i - 1] | 0x20) == 'w' &&
	    (s[i - 2] | 0x20) == 'w' && (s[i - 3] | 0x20) == 'w')
		return "<!-- -->.";
	if (s[i] == ':' && i + 2 < n && s[i + 1] == '/' && s[i + 2] == '/')
		return ":<!-- -->";
	return NULL;
}

/* The length of the SGR sequence (ESC '[' digits and ';' 'm') at s, or
 * 0 when there is none. */
static size_t
sgr_len(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 3 || s[0] != '\033' || s[1] != '[')
		return 0;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';'))
		i++;
	return i < n && s[i] == 'm' ? i + 1 : 0;
}

/* The code point at s (n >= 1 bytes), its length in *adv; UINT32_MAX
 * for an ill-formed sequence (*adv: its maximal subpart). */
static uint32_t
decode(const char *s, size_t n, size_t *adv)
{
	uint32_t cp = cpl_report_utf8_next(adv, s, n);

	/* U+FFFD itself, well-formed in the input, is a character. */
	if (cp == 0xfffd && !(*adv == 3 && memcmp(s, "\xef\xbf\xbd", 3) == 0))
		return UINT32_MAX;
	return cp;
}

/* What a printable ASCII character becomes in XML (md false) or in a
 * Markdown table cell; NULL: itself. */
static const char *
markup(unsigned char c, bool md)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return md ? NULL : "&quot;";
	case '\'':
		return md ? NULL : "&apos;";
	case '@':
		return md ? "<!-- -->&#64;<!-- -->" : NULL;
	}
	if (md) {
		static const char *const punct[] = {
			"\\\\", "\\`", "\\*", "\\_", "\\[", "\\]", "\\(",
			"\\)", "\\~", "\\|", "\\!", "\\#",
		};
		static const char chars[] = "\\`*_[]()~|!#";
		const char *at = strchr(chars, c);

		if (at)
			return punct[at - chars];
	}
	return NULL;
}

void
cpl_escape(struct cpl_buf *b, const char *s, size_t n, unsigned how)
{
	bool runner = (how & CPL_ESC_RUNNER) != 0;
	bool github = (how & CPL_ESC_GITHUB) != 0;
	bool prop = github && (how & CPL_ESC_GITHUB_PROP) != 0;
	bool xml = (how & CPL_ESC_XML) != 0;
	bool md = (how & CPL_ESC_MARKDOWN) != 0;
	bool at_start = runner;	/* only blanks since the line began */
	unsigned hashes = 0;	/* '#' just written */
	size_t i = 0, run = 0, adv, k;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		uint32_t cp;

		if (c >= 0x20 && c < 0x7f) {
			if (runner && c == ':' && at_start)
				rep = "\\x3a";
			else if ((runner || github || xml || md) && c == '[' &&
				 hashes >= 2)
				rep = "\\x5b";
			else if (md && (rep = autolink_break(s, n, i)))
				;
			else if (xml || md)
				rep = markup(c, md);
			else if (github && c == '%')
				rep = "%25";
			else if (prop && c == ':')
				rep = "%3A";
			else if (prop && c == ',')
				rep = "%2C";
			if (rep == NULL) {
				at_start = at_start && c == ' ';
				hashes = c == '#' ? hashes + 1 : 0;
				i++;
				continue;
			}
			adv = 1;
		} else if (c == '\n' && (how & CPL_ESC_NL)) {
			at_start = runner;
			hashes = 0;
			i++;
			continue;
		} else if (c == '\033' && runner && (how & CPL_ESC_SGR) &&
			   (adv = sgr_len(s + i, n - i)) > 0) {
			hashes = 0;	/* at_start stays: no character shown */
			i += adv;
			continue;
		} else if (c < 0x80) {
			adv = 1;
			rep = c == '\n' ? (github ? "%0A" : "\\n") :
			      c == '\r' ? (github ? "%0D" : "\\r") :
			      c == '\t' ? "\\t" : NULL;
		} else {
			cp = decode(s + i, n - i, &adv);
			if (cp != UINT32_MAX && cp > 0x9f && !hidden(cp)) {
				at_start = at_start && blank(cp);
				hashes = 0;
				i += adv;
				continue;
			}
			cpl_buf_add(b, s + run, i - run);
			if (cp == UINT32_MAX) {
				for (k = 0; k < adv; k++)
					put_x(b, (unsigned char)s[i + k]);
			} else if (cp <= 0xffff) {
				cpl_buf_addf(b, "\\u%04x", (unsigned)cp);
			} else {
				cpl_buf_addf(b, "\\U%08x", (unsigned)cp);
			}
			at_start = false;
			hashes = 0;
			i += adv;
			run = i;
			continue;
		}
		cpl_buf_add(b, s + run, i - run);
		if (rep)
			cpl_buf_adds(b, rep);
		else
			put_x(b, c);
		at_start = false;
		hashes = 0;
		i += adv;
		run = i;
	}
	cpl_buf_add(b, s + run, i - run);
}

void
cpl_escape_str(struct cpl_buf *b, const char *s, unsigned how)
{
	if (s != NULL)
		cpl_escape(b, s, strlen(s), how);
}

bool
cpl_escape_plain(const char *s, size_t n)
{
	size_t i = 0, adv;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp;

		if (c >= 0x20 && c < 0x7f) {
			i++;
			continue;
		}
		if (c < 0x80)
			return false;
		cp = decode(s + i, n - i, &adv);
		if (cp == UINT32_MAX || cp <= 0x9f || hidden(cp))
			return false;
		i += adv;
	}
	return true;
}
