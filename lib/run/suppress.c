/*
 * suppress.c — finds `cpulint: disable=` comments in one pass and answers
 * "is rule R suppressed at line L" by a binary search over the comment
 * lines (kept sorted because the scan goes forward).
 */
#include "run/suppress_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/rule.h"
#include "util.h"

struct suppress_entry {
	int line;	/* -1: whole file */
	char *rules;	/* ",CPU301,CPU102," upper-cased, or ",ALL," */
	char *reason;	/* the words after the list, or NULL */
};

struct cpl_suppress {
	struct suppress_entry *v;	/* line comments, in line order */
	size_t n;
	size_t cap;
	char *file_rules;	/* disable-file lists, concatenated */
	char *file_reason;	/* the first disable-file comment's reason */
	struct cpl_suppress_unknown *unknown;	/* words naming no rule */
	size_t nunknown;
};

/* Records a word that names no rule, at line:column. */
static void
add_unknown(struct cpl_suppress **s, int line, int column, char *word)
{
	struct cpl_suppress_unknown *u;

	if (*s == NULL)
		*s = cpl_xcalloc(1, sizeof(**s));
	(*s)->unknown = cpl_xrealloc((*s)->unknown, ((*s)->nunknown + 1) *
				     sizeof(*(*s)->unknown));
	u = &(*s)->unknown[(*s)->nunknown++];
	u->line = line;
	u->column = column;
	u->word = word;
}

/* A word of prose (letters only): after the first word of a list it
 * ends the list ("disable=CPU301 sized on purpose") instead of being
 * taken for a misspelt rule. */
static bool
prose(const char *word)
{
	for (; *word; word++)
		if (!isalpha((unsigned char)*word))
			return false;
	return true;
}

/*
 * The reason written after a rule list ("disable=CPU202 by policy",
 * "disable=CPU202 -- sized on purpose"): the rest of the line without
 * leading blanks and separators ('-', ':', ';', '#', '(') nor trailing
 * blanks; NULL when nothing is left.  Caller frees.
 */
static char *
reason_of(const char *p, const char *end)
{
	while (p < end && strchr(" \t-:;#(", *p))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\r' || end[-1] == ')'))
		end--;
	return p < end ? cpl_xstrndup(p, (size_t)(end - p)) : NULL;
}

/*
 * Parses the rule list after '=' up to the end of the line (which starts
 * at bol, line number line).  Words naming no rule (nor `all`) are
 * recorded as unknown.
 */
static char *
parse_list(struct cpl_suppress **s, const char *p, const char *end,
	   const char *bol, int line, char **reason)
{
	struct cpl_buf b;
	bool first = true;

	cpl_buf_init(&b, 4096);
	cpl_buf_addc(&b, ',');
	while (p < end) {
		const char *q = p;
		const struct cpl_rule *r;
		char *word;
		size_t i;

		while (q < end && (isalnum((unsigned char)*q) || *q == '-' ||
				   *q == '_'))
			q++;
		if (q == p)
			break;
		word = cpl_xstrndup(p, (size_t)(q - p));
		r = cpl_rule_find(word);
		if (r == NULL && strcasecmp(word, "all") != 0) {
			if (!first && prose(word)) {
				free(word);
				break;
			}
			add_unknown(s, line, (int)(p - bol) + 1,
				    cpl_xstrdup(word));
		}
		if (r)
			cpl_buf_adds(&b, r->id);
		else
			for (i = 0; word[i]; i++)
				cpl_buf_addc(&b, (char)toupper(
					(unsigned char)word[i]));
		cpl_buf_addc(&b, ',');
		free(word);
		first = false;
		while (q < end && (*q == ',' || *q == ' ' || *q == '\t'))
			q++;
		p = q;
	}
	*reason = reason_of(p, end);
	return cpl_buf_detach(&b);
}

static void
add(struct cpl_suppress **s, int line, char *rules, char *reason)
{
	if (*s == NULL)
		*s = cpl_xcalloc(1, sizeof(**s));
	if (line < 0) {
		char *all = cpl_xasprintf("%s%s", (*s)->file_rules ?
					  (*s)->file_rules : "", rules);

		free((*s)->file_rules);
		free(rules);
		(*s)->file_rules = all;
		if ((*s)->file_reason == NULL)
			(*s)->file_reason = reason;
		else
			free(reason);
		return;
	}
	CPL_GROW((*s)->v, (*s)->cap, (*s)->n + 1);
	(*s)->v[(*s)->n].line = line;
	(*s)->v[(*s)->n].rules = rules;
	(*s)->v[(*s)->n].reason = reason;
	(*s)->n++;
}

/* Reads the suppression comment of one line [p, eol), if it has one: the
 * first '#' that starts the line or follows a blank opens the comment. */
static void
scan_line(struct cpl_suppress **s, const char *p, const char *eol, int line)
{
	const char *q, *hit;
	char *reason = NULL, *rules;

	for (q = p; q < eol; q++) {
		if (*q != '#' || (q > p && q[-1] != ' ' && q[-1] != '\t'))
			continue;
		hit = memmem(q, (size_t)(eol - q), "cpulint:", 8);
		if (hit == NULL)
			return;
		hit += 8;
		while (hit < eol && *hit == ' ')
			hit++;
		if ((size_t)(eol - hit) > 13 &&
		    strncmp(hit, "disable-file=", 13) == 0) {
			rules = parse_list(s, hit + 13, eol, p, line, &reason);
			add(s, -1, rules, reason);
		} else if ((size_t)(eol - hit) > 8 &&
			   strncmp(hit, "disable=", 8) == 0) {
			rules = parse_list(s, hit + 8, eol, p, line, &reason);
			add(s, line, rules, reason);
		}
		return;
	}
}

struct cpl_suppress *
cpl_suppress_scan(const char *text, size_t len)
{
	struct cpl_suppress *s = NULL;
	const char *p = text, *end = text + len, *hash, *ls, *eol;
	const char *counted = text;	/* lines counted up to here */
	int line = 1;

	/* Only a line whose "cpulint:" follows a '#' can suppress
	 * (scan_line() reads the words after the first '#' that opens a
	 * comment): find the '#'s, rarer than any byte of "cpulint:", look
	 * for the word in the rest of each such line only, and count the
	 * lines passed only when a line is read.  Each line is read at most
	 * once, as when the whole text was searched for "cpulint:". */
	while (p < end && (hash = memchr(p, '#', (size_t)(end - p))) != NULL) {
		eol = memchr(hash, '\n', (size_t)(end - hash));
		if (eol == NULL)
			eol = end;
		if ((size_t)(eol - hash) > 8 &&
		    memmem(hash + 1, (size_t)(eol - hash - 1), "cpulint:",
			   8) != NULL) {
			for (ls = hash; ls > p && ls[-1] != '\n'; ls--)
				;
			for (; counted < ls; counted++) {
				counted = memchr(counted, '\n',
						 (size_t)(ls - counted));
				if (counted == NULL)
					break;
				line++;
			}
			counted = eol + 1;
			scan_line(&s, ls, eol, line);
			line++;
		}
		p = eol + 1;
	}
	return s;
}

void
cpl_suppress_free(struct cpl_suppress *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->v[i].rules);
		free(s->v[i].reason);
	}
	free(s->v);
	free(s->file_rules);
	free(s->file_reason);
	for (i = 0; i < s->nunknown; i++)
		free(s->unknown[i].word);
	free(s->unknown);
	free(s);
}

const struct cpl_suppress_unknown *
cpl_suppress_unknowns(const struct cpl_suppress *s, size_t *n)
{
	*n = s ? s->nunknown : 0;
	return s ? s->unknown : NULL;
}

/* Whether the ",A,B," list names id (or ALL). */
static bool
names(const char *rules, const char *id)
{
	char key[32];
	const char *p;
	size_t n = strlen(id);

	if (rules == NULL)
		return false;
	if (strstr(rules, ",ALL,") != NULL)
		return true;
	if (n + 3 > sizeof(key))
		return false;
	key[0] = ',';
	memcpy(key + 1, id, n);
	key[n + 1] = ',';
	key[n + 2] = '\0';
	p = strstr(rules, key);
	return p != NULL;
}

int
cpl_suppress_match(const struct cpl_suppress *s, const char *rule_id,
		   int line)
{
	return cpl_suppress_match_why(s, rule_id, line, NULL);
}

int
cpl_suppress_match_why(const struct cpl_suppress *s, const char *rule_id,
		       int line, const char **reason)
{
	size_t i, lo = 0, hi;

	if (reason)
		*reason = NULL;
	if (s == NULL)
		return 0;
	if (names(s->file_rules, rule_id)) {
		if (reason)
			*reason = s->file_reason;
		return -1;
	}
	/* Comments on line-1 and line: find the first entry >= line-1. */
	hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->v[mid].line < line - 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < s->n && s->v[i].line <= line; i++)
		if (s->v[i].line >= line - 1 &&
		    names(s->v[i].rules, rule_id)) {
			if (reason)
				*reason = s->v[i].reason;
			return s->v[i].line;
		}
	return 0;
}
