/*
 * pyscreen.c — the light scan's screens (cpl_pyscan_screen(), pyscan.h):
 * whether a Python text holds a word an entry script needs, or a word
 * some CPU fact is made from, each answer what memmem() of the words
 * says (test_pyload holds it to that over every Python file of
 * testdata/), found with as few passes over the text as it takes: a
 * memchr() of a rare byte of a word, one pass over the '_'s for the
 * words that hold one.
 *
 * Owns nothing; reads the text only.
 */
#include "python/pyscan.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Whether text[0, len) holds "cv2": memchr() for its rare '2' (one
 * vector pass), where memmem() of a three-byte word steps a byte or two
 * at a time (it was a third of the screens' time). */
static bool
has_cv2(const char *text, size_t len)
{
	const char *p = text + (len > 2 ? 2 : len), *end = text + len;

	while (p < end && (p = memchr(p, '2', (size_t)(end - p))) != NULL) {
		if (p[-2] == 'c' && p[-1] == 'v')
			return true;
		p++;
	}
	return false;
}

/* Whether text[0, len) holds word[0, n) (as memmem()), found by
 * memchr() of its byte at anchor, one rare in Python ('L' of DataLoader
 * about once in 900 bytes): on the real-shaped bench tree's Python four
 * times as fast as memmem(), which is faster for words of common
 * letters only. */
static bool
has_word(const char *text, size_t len, const char *word, size_t n,
	 size_t anchor)
{
	const char *p, *end;

	if (len < n)
		return false;
	p = text + anchor;
	end = text + len - (n - anchor - 1);
	while (p < end && (p = memchr(p, word[anchor],
				      (size_t)(end - p))) != NULL) {
		if (memcmp(p - anchor, word, n) == 0)
			return true;
		p++;
	}
	return false;
}

/* Which of the screens' words with a '_' text[0, len) holds (bit 1
 * "__main__", 2 "cpu_count", 4 "set_num_"), as memmem() of each says:
 * one memchr() pass over its '_'s, each tried as the first of
 * "__main__" and the fourth of the others, not three passes of
 * memmem() over every byte (half the screens' instructions, on the
 * real-shaped tree and on pytorch_geometric alike). */
static unsigned
underscore_words(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	unsigned got = 0;

	while (got != 7 && p < end &&
	       (p = memchr(p, '_', (size_t)(end - p))) != NULL) {
		size_t at = (size_t)(p - text), left = (size_t)(end - p);

		if (!(got & 1) && left >= 8 && memcmp(p, "__main__", 8) == 0)
			got |= 1;
		if (at >= 3 && !(got & 2) && left >= 6 &&
		    memcmp(p - 3, "cpu_count", 9) == 0)
			got |= 2;
		if (at >= 3 && !(got & 4) && left >= 5 &&
		    memcmp(p - 3, "set_num_", 8) == 0)
			got |= 4;
		p++;
	}
	return got;
}

/*
 * The light scan's screens of text[0, len): *entry whether it holds a
 * word an entry script needs (the string "__main__" of a main guard; a
 * call whose name ends in DataLoader: is_entry()), *cpu whether it holds
 * a word some CPU fact is made from (pyscan.h, bare: the names of the
 * CPU-count calls, of the thread calls, and cv2); each what memmem() of
 * its words says (test_pyload holds it to that).  *cpu is only known
 * when *entry is false (bare needs it only then).
 */
void
cpl_pyscan_screen(const char *text, size_t len, bool *entry, bool *cpu)
{
	/* DataLoader first: a training script imports it near its top,
	 * where its main guard is at its end. */
	unsigned got;

	*entry = has_word(text, len, "DataLoader", 10, 4);
	*cpu = false;
	if (*entry)
		return;
	got = underscore_words(text, len);
	*entry = got & 1;
	if (*entry)
		return;
	*cpu = (got & 2) ||
	       has_word(text, len, "sched_getaffinity", 17, 16) ||
	       (got & 4) ||
	       has_word(text, len, "setNumThreads", 13, 3) ||
	       has_cv2(text, len);
}
