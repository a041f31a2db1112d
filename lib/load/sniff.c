/*
 * sniff.c — does a text that would not parse look like a workload?
 *
 * A YAML or JSON file that is neither a Polyaxonfile nor a Kubernetes
 * object (a tsconfig.json with comments, a docker-compose.yaml with a
 * typo) is none of the linter's business even when it does not parse; one
 * that names the keys of ours is, and its parse error is reported.  The
 * test is on the raw text, since there is no tree: a key is a word (not
 * preceded by a letter, digit, '_' or '-'), optionally quoted, followed
 * by blanks and a ':'.  Every document of a stream counts, so a stream
 * whose one good manifest sits beside a broken document is still ours.
 * Nothing here allocates.
 */
#include "load/loader.h"

#include <ctype.h>
#include <string.h>

/* Whether c may be part of a key word (so the match is a longer word). */
static bool
word_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.';
}

/* Whether key occurs in text as a mapping key: key, an optional closing
 * quote, blanks, then ':'. */
static bool
has_key(const char *text, size_t len, const char *key)
{
	size_t n = strlen(key);
	const char *p = text, *end = text + len, *hit, *q;

	while (p < end && (hit = memmem(p, (size_t)(end - p), key, n))) {
		p = hit + 1;
		if (hit > text && word_char((unsigned char)hit[-1]))
			continue;
		q = hit + n;
		if (q < end && (*q == '"' || *q == '\''))
			q++;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q == ':')
			return true;
	}
	return false;
}

bool
cpl_loader_looks_ours(const char *text, size_t len)
{
	if (text == NULL || !has_key(text, len, "kind"))
		return false;
	return has_key(text, len, "apiVersion") ||
	       has_key(text, len, "version");
}
