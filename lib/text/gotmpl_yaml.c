/*
 * gotmpl_yaml.c — YAML scalars as Helm reads them (go-yaml v2's YAML
 * 1.1, then JSON: every number a float64 that Go prints with %v), and
 * Helm's toYaml, byte for byte for what it accepts:
 * sigs.k8s.io/yaml (JSON, then go-yaml v2) writes mapping keys in
 * go-yaml's natural order, two-space indentation, sequences in a mapping
 * not indented, strings plain when go-yaml may, single-quoted when plain
 * is not allowed, double-quoted when plain would read as another type.
 *
 * What it does not model is refused (1 with a reason), never guessed:
 * multi-line strings, strings with non-ASCII or control bytes, a string
 * with spaces that go-yaml would fold past column 80, sequences directly
 * in sequences, values Helm reads in a way not modelled.
 */
#include "text/gotmpl_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- scalars as Helm reads them ---------------------------------------- */

static struct gval *
scalar_new(struct cpl_gotmpl *g, enum gv_kind k, const char *s, size_t len)
{
	struct gval *v = cpl_gotmpl_alloc(g, sizeof(*v));

	v->kind = k;
	if (s != NULL) {
		v->s = cpl_gotmpl_strndup(g, s, len);
		v->len = len;
	}
	return v;
}

/* The text Go's %v gives the float64 of a plain decimal d (no exponent),
 * or NULL when it would differ from d in more than trailing zeros and
 * leading zeros (exponent form from 1e6 up and under 1e-4, a negative
 * zero, more than 15 significant digits: not modelled). */
static char *
go_number(const char *d, size_t len, bool is_int)
{
	struct cpl_buf b = { 0 };
	size_t i = 0, ip, iend, fs = 0, fe = 0, z;
	bool neg = false, dot = false, zero_int;

	if (i < len && d[i] == '-') {
		neg = true;
		i++;
	}
	ip = i;
	while (i < len && isdigit((unsigned char)d[i]))
		i++;
	iend = i;
	if (i < len && d[i] == '.') {
		if (is_int)
			return NULL;
		dot = true;
		fs = ++i;
		while (i < len && isdigit((unsigned char)d[i]))
			i++;
		fe = i;
	}
	if (i != len || (is_int && iend == ip) || (!is_int && !dot) ||
	    (iend == ip && fe == fs))
		return NULL;
	while (iend - ip > 1 && d[ip] == '0')
		ip++;
	while (fe > fs && d[fe - 1] == '0')
		fe--;
	zero_int = iend == ip || (iend - ip == 1 && d[ip] == '0');
	if (!zero_int && iend - ip >= 7)
		return NULL;		/* 1e+06 and up */
	z = fs;
	while (z < fe && d[z] == '0')
		z++;
	if (zero_int && fe > fs && z - fs >= 4)
		return NULL;		/* under 1e-4 */
	if (neg && zero_int && fe == fs)
		return NULL;		/* -0 */
	if ((zero_int ? fe - z : (iend - ip) + (fe - fs)) > 15)
		return NULL;
	if (neg)
		cpl_buf_addc(&b, '-');
	if (iend == ip)
		cpl_buf_addc(&b, '0');
	else
		cpl_buf_add(&b, d + ip, iend - ip);
	if (fe > fs) {
		cpl_buf_addc(&b, '.');
		cpl_buf_add(&b, d + fs, fe - fs);
	}
	return cpl_buf_detach(&b);
}

/* ---- values from YAML -------------------------------------------------- */

static bool
word_in(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* Whether a plain scalar that is no number the tool prints may still be
 * read by go-yaml v2 as another type (a number in a form not modelled:
 * an exponent, a sign, '_' separators, hex, binary, a decimal beyond
 * what is printed exactly; a time or a date), or is a string for sure
 * ("1.2.3", "1-2", "v2"). */
static bool
other_type(const char *s, size_t len)
{
	size_t i, dots = 0, digits = 0, at = s[0] == '-' || s[0] == '+';

	for (i = 0; i < len; i++) {
		dots += s[i] == '.';
		digits += isdigit((unsigned char)s[i]) != 0;
	}
	if (s[0] == '+' || memchr(s, ':', len) || memchr(s, '_', len) ||
	    (s[0] == '.' && len > 1 && isalpha((unsigned char)s[1])))
		return true;
	if (len > at + 1 && s[at] == '0' && (s[at + 1] == 'x' ||
					     s[at + 1] == 'b' ||
					     s[at + 1] == 'o'))
		return true;
	if (digits > 0 && dots <= 1 && (memchr(s, 'e', len) ||
					memchr(s, 'E', len)))
		return true;
	if (digits > 0 && dots <= 1 &&
	    strspn(s + at, "0123456789.") == len - at)
		return true;
	return len >= 8 && strspn(s, "0123456789") == 4 && s[4] == '-';
}

struct gval *
cpl_gotmpl_resolve(struct cpl_gotmpl *g, const char *s, size_t len)
{
	static const char *const nul[] = { "", "~", "null", "Null", "NULL",
					   NULL };
	static const char *const yes[] = { "true", "True", "TRUE", "y", "Y",
					   "yes", "Yes", "YES", "on", "On",
					   "ON", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "n", "N",
					  "no", "No", "NO", "off", "Off",
					  "OFF", NULL };
	struct gval *v;
	char *num;
	size_t i;
	bool numeric = len > 0;

	if (word_in(s, nul))
		return scalar_new(g, GV_NIL, NULL, 0);
	if (word_in(s, yes) || word_in(s, no)) {
		v = scalar_new(g, GV_BOOL, NULL, 0);
		v->b = word_in(s, yes);
		return v;
	}
	for (i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '-' && s[i] != '+' && s[i] != '_' &&
		    s[i] != 'e' && s[i] != 'E' && s[i] != 'x' &&
		    s[i] != 'o' && s[i] != 'b' && s[i] != ':' &&
		    !(i > 0 && isxdigit((unsigned char)s[i])))
			numeric = false;
	if (len > 0 && s[0] == '.' && len > 1 && isalpha((unsigned char)s[1]))
		numeric = true;	/* .inf, .nan */
	if (!numeric || !(isdigit((unsigned char)s[0]) || s[0] == '-' ||
			  s[0] == '+' || s[0] == '.'))
		return scalar_new(g, GV_STR, s, len);
	if (len > 1 && s[0] == '0' && isdigit((unsigned char)s[1]))
		return scalar_new(g, GV_ODD, NULL, 0);	/* octal in YAML 1.1 */
	if ((num = go_number(s, len, true)) != NULL) {
		v = scalar_new(g, GV_INT, NULL, 0);
	} else if ((num = go_number(s, len, false)) != NULL) {
		v = scalar_new(g, GV_FLOAT, NULL, 0);
	} else {
		return other_type(s, len) ? scalar_new(g, GV_ODD, NULL, 0) :
		       scalar_new(g, GV_STR, s, len);
	}
	v->s = cpl_gotmpl_strndup(g, num, strlen(num));
	v->len = strlen(num);
	free(num);
	return v;
}

/* ---- toYaml ------------------------------------------------------------ */

struct yw {
	struct cpl_gotmpl *g;
	struct cpl_buf *b;
	struct gorigin *org;
	size_t norg, cap;
	int col;		/* of the next byte */
	const char *why;
};

static bool
is_letter(unsigned char c)
{
	return isalpha(c);
}

/* go-yaml v2's keyList.Less for ASCII strings. */
static bool
key_less(const char *a, const char *b)
{
	size_t i, la = strlen(a), lb = strlen(b);

	for (i = 0; i < la && i < lb; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
		bool al, bl;
		size_t ai, bi;
		long an = 0, bn = 0;

		if (x == y)
			continue;
		al = is_letter(x);
		bl = is_letter(y);
		if (al && bl)
			return x < y;
		if (al || bl)
			return bl;
		if (x == '0' || y == '0') {
			size_t j;

			for (j = i; j-- > 0 && isdigit((unsigned char)a[j]);)
				if (a[j] != '0') {
					an = 1;
					bn = 1;
					break;
				}
		}
		for (ai = i; ai < la && isdigit((unsigned char)a[ai]); ai++)
			an = an * 10 + (a[ai] - '0');
		for (bi = i; bi < lb && isdigit((unsigned char)b[bi]); bi++)
			bn = bn * 10 + (b[bi] - '0');
		if (an != bn)
			return an < bn;
		if (ai != bi)
			return ai < bi;
		return x < y;
	}
	return la < lb;
}

/* A key and its position, sorted in go-yaml's order. */
struct ykey {
	const char *key;
	size_t at;
};

static int
cmp_go_yaml(const void *a, const void *b)
{
	const char *x = ((const struct ykey *)a)->key;
	const char *y = ((const struct ykey *)b)->key;

	return key_less(x, y) ? -1 : key_less(y, x) ? 1 : 0;
}

static void
put(struct yw *w, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		cpl_buf_addc(w->b, s[i]);
		w->col = s[i] == '\n' ? 1 : w->col + 1;
	}
}

static void
puts_(struct yw *w, const char *s)
{
	put(w, s, strlen(s));
}

/* Starts an output line (not the first) at indent, from origin v. */
static void
line(struct yw *w, int indent, const struct gval *v)
{
	int i;

	put(w, "\n", 1);
	for (i = 0; i < indent; i++)
		put(w, " ", 1);
	cpl_gotmpl_grow(w->g, (void **)&w->org, &w->cap, w->norg + 1,
			sizeof(*w->org));
	w->org[w->norg].file = v ? v->file : NULL;
	w->org[w->norg++].line = v ? v->line : 0;
}

/* A string as go-yaml v2 writes it. */
static bool
string(struct yw *w, const char *s, size_t len)
{
	size_t i;
	bool plain = len > 0, space = false;
	struct gval *r;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ws_after = i + 1 >= len || s[i + 1] == ' ';

		if (c < 0x20 || c >= 0x7f) {
			w->why = "toYaml of a string with control or "
				 "non-ASCII bytes";
			return false;
		}
		if (c == ' ')
			space = true;
		if (i == 0 && strchr("#,[]{}&*!|>'\"%@`", c) != NULL)
			plain = false;
		if (i == 0 && (c == '?' || c == ':' || c == '-') && ws_after)
			plain = false;
		if (c == ':' && ws_after)
			plain = false;
		if (c == '#' && i > 0 && s[i - 1] == ' ')
			plain = false;
	}
	if (len > 0 && (s[0] == ' ' || s[len - 1] == ' '))
		plain = false;
	if (space && (size_t)w->col + len + 2 > 80) {
		w->why = "toYaml of a long string with spaces (go-yaml folds "
			 "it)";
		return false;
	}
	r = cpl_gotmpl_resolve(w->g, s, len);
	if (r->kind == GV_ODD) {
		w->why = "toYaml of a string go-yaml may read as a number, "
			 "date or other type";
		return false;
	}
	if (r->kind != GV_STR || len == 0) {
		if (memchr(s, '"', len) || memchr(s, '\\', len)) {
			w->why = "toYaml of a string with quotes";
			return false;
		}
		put(w, "\"", 1);
		put(w, s, len);
		put(w, "\"", 1);
		return true;
	}
	if (plain) {
		put(w, s, len);
		return true;
	}
	put(w, "'", 1);
	for (i = 0; i < len; i++) {
		if (s[i] == '\'')
			put(w, "'", 1);
		put(w, s + i, 1);
	}
	put(w, "'", 1);
	return true;
}

static bool
scalar(struct yw *w, const struct gval *v)
{
	switch (v->kind) {
	case GV_NIL:
		puts_(w, "null");
		return true;
	case GV_BOOL:
		puts_(w, v->b ? "true" : "false");
		return true;
	case GV_INT:
	case GV_FLOAT:
		puts_(w, v->s);
		return true;
	case GV_STR:
		return string(w, v->s, v->len);
	default:
		w->why = "toYaml of a value Helm reads in a way the tool does "
			 "not model";
		return false;
	}
}

static bool node(struct yw *w, const struct gval *v, int indent,
		 bool inline_first, int depth);

/* A mapping's entries, the first on the current line when inline. */
static bool
mapping(struct yw *w, const struct gval *v, int indent, bool inline_first,
	int depth)
{
	size_t *order = cpl_xcalloc(v->n, sizeof(*order)), i;
	bool ok = true;

	{
		struct ykey *kp = cpl_xcalloc(v->n, sizeof(*kp));

		for (i = 0; i < v->n; i++) {
			kp[i].key = v->keys[i];
			kp[i].at = i;
		}
		qsort(kp, v->n, sizeof(*kp), cmp_go_yaml);
		for (i = 0; i < v->n; i++)
			order[i] = kp[i].at;
		free(kp);
	}
	for (i = 0; i < v->n && ok; i++) {
		const struct gval *c = v->vals[order[i]];

		if (i > 0 || !inline_first)
			line(w, indent, c);
		ok = string(w, v->keys[order[i]], strlen(v->keys[order[i]]));
		if (!ok)
			break;
		put(w, ":", 1);
		if ((c->kind == GV_MAP || c->kind == GV_SEQ) && c->n > 0) {
			ok = node(w, c, c->kind == GV_MAP ? indent + 2 :
				  indent, false, depth + 1);
		} else {
			put(w, " ", 1);
			ok = node(w, c, indent, true, depth + 1);
		}
	}
	free(order);
	return ok;
}

static bool
node(struct yw *w, const struct gval *v, int indent, bool inline_first,
     int depth)
{
	size_t i;

	if (depth > 100) {
		w->why = "toYaml of values nested this deep";
		return false;
	}
	if (v->kind == GV_MAP) {
		if (v->n == 0) {
			puts_(w, "{}");
			return true;
		}
		return mapping(w, v, indent, inline_first, depth);
	}
	if (v->kind == GV_SEQ) {
		if (v->n == 0) {
			puts_(w, "[]");
			return true;
		}
		for (i = 0; i < v->n; i++) {
			const struct gval *c = v->vals[i];

			if (i > 0 || !inline_first)
				line(w, indent, c);
			put(w, "- ", 2);
			if (c->kind == GV_SEQ && c->n > 0) {
				w->why = "toYaml of a list in a list";
				return false;
			}
			if (!node(w, c, indent + 2, true, depth + 1))
				return false;
		}
		return true;
	}
	return scalar(w, v);
}

int
cpl_gotmpl_yaml(struct cpl_gotmpl *g, const struct gval *v,
		struct cpl_buf *out, struct gorigin **origins,
		size_t *norigins, const char **why)
{
	struct yw w = { 0 };

	w.g = g;
	w.b = out;
	w.col = 1;
	cpl_gotmpl_grow(g, (void **)&w.org, &w.cap, 1, sizeof(*w.org));
	w.org[0].file = v->file;
	w.org[0].line = v->line;
	w.norg = 1;
	if (!node(&w, v, 0, true, 0)) {
		*why = w.why;
		return 1;
	}
	*origins = w.org;
	*norigins = w.norg;
	return 0;
}
