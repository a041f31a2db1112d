/*
 * gotmpl_func.c — the functions of the template subset that only compute
 * on values (no output, no templates): comparisons as Go's text/template
 * makes them, sprig's len, int, add, sub, mul, div, split, dict, list,
 * hasKey, kindIs, ternary, regexMatch, fail.
 *
 * Numbers keep the Go type they would have in Helm (gval.gokind): values
 * files give float64, template literals and len/int give int, --set and
 * sprig's arithmetic give int64.  Comparing a float64 with an int fails
 * in Helm ("incompatible types for comparison"), and fails here the same
 * way.  regexMatch takes only patterns whose meaning is the same in Go's
 * RE2 and POSIX extended syntax (no backslash, no (?flags), no lazy
 * quantifiers); any other is outside the subset.
 */
#include "text/gotmpl_int.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

static struct gval *
int_val(struct cpl_gotmpl *g, long long n, int gokind)
{
	struct gval *v = cpl_gotmpl_val_new(g, GV_INT);
	char buf[32];

	cpl_format(buf, sizeof(buf), "%lld", n);
	v->s = cpl_gotmpl_strndup(g, buf, strlen(buf));
	v->len = strlen(buf);
	v->gokind = gokind;
	return v;
}

static bool
is_float(const struct gval *v)
{
	return v->kind == GV_FLOAT || (v->kind == GV_INT && v->gokind == 0);
}

static bool
is_num(const struct gval *v)
{
	return v->kind == GV_FLOAT || v->kind == GV_INT;
}

/* sprig's toInt64 for what the subset models. */
static int
to_int(const struct gval *v, long long *out)
{
	char *end;
	double d;

	switch (v->kind) {
	case GV_NIL:
		*out = 0;
		return 0;
	case GV_BOOL:
		*out = v->b;
		return 0;
	case GV_INT:
	case GV_FLOAT:
		d = strtod(v->s, &end);
		if (*end != '\0' || d > 9e15 || d < -9e15)
			return -1;
		*out = (long long)d;	/* truncates, as Go's conversion */
		return 0;
	case GV_STR:
		if (v->len == 0 || v->len > 15 ||
		    strspn(v->s + (v->s[0] == '-'), "0123456789") !=
		    v->len - (v->s[0] == '-') ||
		    (v->s[v->s[0] == '-'] == '0' && v->len > 1u +
		     (v->s[0] == '-')))
			return -1;
		*out = strtoll(v->s, NULL, 10);
		return 0;
	default:
		return -1;
	}
}

/* Go's kind name of a value as Helm holds it. */
static const char *
kind_name(const struct gval *v)
{
	switch (v->kind) {
	case GV_NIL:
		return "invalid";
	case GV_STR:
		return "string";
	case GV_BOOL:
		return "bool";
	case GV_FLOAT:
		return "float64";
	case GV_INT:
		return v->gokind == 0 ? "float64" : v->gokind == 1 ? "int" :
		       "int64";
	case GV_MAP:
		return "map";
	case GV_SEQ:
		return "slice";
	default:
		return NULL;
	}
}

int
cpl_gotmpl_compare(const struct gval *a, const struct gval *b, int *cmp,
		   const char **why)
{
	if (is_num(a) && is_num(b)) {
		double x, y;

		if (is_float(a) != is_float(b)) {
			*why = "incompatible types for comparison";
			return -1;
		}
		x = strtod(a->s, NULL);
		y = strtod(b->s, NULL);
		*cmp = x < y ? -1 : x > y;
		return 0;
	}
	if (a->kind == GV_STR && b->kind == GV_STR) {
		int c = strcmp(a->s, b->s);

		*cmp = c < 0 ? -1 : c > 0;
		return 0;
	}
	if (a->kind == GV_BOOL && b->kind == GV_BOOL) {
		*cmp = a->b == b->b ? 0 : 2;	/* unordered */
		return 0;
	}
	if (a->kind == GV_NIL || b->kind == GV_NIL) {
		*cmp = a->kind == b->kind ? 0 : 2;
		return 0;
	}
	if (a->kind == GV_ODD || b->kind == GV_ODD ||
	    a->kind == GV_MAP || a->kind == GV_SEQ ||
	    b->kind == GV_MAP || b->kind == GV_SEQ) {
		*why = "comparing composite or unmodelled values";
		return 1;
	}
	*why = "incompatible types for comparison";
	return -1;
}

/* A pattern that means the same in RE2 and POSIX ERE. */
static bool
portable_regex(const char *re)
{
	return strchr(re, '\\') == NULL && strstr(re, "(?") == NULL &&
	       strstr(re, "*?") == NULL && strstr(re, "+?") == NULL &&
	       strstr(re, "??") == NULL && strstr(re, "}?") == NULL &&
	       strstr(re, "[[:") == NULL && strchr(re, '{') == NULL;
}

int
cpl_gotmpl_func(struct cpl_gotmpl *g, const char *name, struct gval **args,
		size_t n, struct gval **out, const char **why)
{
	long long x, y, r;
	size_t i;
	int c;

	*out = NULL;
	if (strcmp(name, "lt") == 0 || strcmp(name, "le") == 0 ||
	    strcmp(name, "gt") == 0 || strcmp(name, "ge") == 0) {
		if (n != 2) {
			*why = "wrong number of args for a comparison";
			return -1;
		}
		if ((r = cpl_gotmpl_compare(args[0], args[1], &c, why)) != 0)
			return (int)r;
		if (c == 2) {
			*why = "invalid kind for an ordered comparison";
			return -1;
		}
		*out = cpl_gotmpl_val_bool(g, name[0] == 'l' ? (name[1] == 't' ? c < 0 :
						    c <= 0) :
				(name[1] == 't' ? c > 0 : c >= 0));
		return 0;
	}
	if (strcmp(name, "len") == 0) {
		if (n != 1 || args[0]->kind == GV_NIL) {
			*why = "len of nothing";
			return -1;
		}
		if (args[0]->kind == GV_STR)
			*out = int_val(g, (long long)args[0]->len, 1);
		else if (args[0]->kind == GV_MAP || args[0]->kind == GV_SEQ)
			*out = int_val(g, (long long)args[0]->n, 1);
		else {
			*why = "len of a number or a bool";
			return -1;
		}
		return 0;
	}
	if (strcmp(name, "int") == 0 || strcmp(name, "int64") == 0) {
		if (n != 1 || to_int(args[0], &x) < 0) {
			*why = "int of a value the tool does not convert";
			return 1;
		}
		*out = int_val(g, x, name[3] ? 2 : 1);
		return 0;
	}
	if (strcmp(name, "add") == 0 || strcmp(name, "mul") == 0 ||
	    strcmp(name, "sub") == 0 || strcmp(name, "div") == 0) {
		bool two = name[0] == 's' || name[0] == 'd';

		if (n == 0 || (two && n != 2)) {
			*why = "wrong number of args for arithmetic";
			return -1;
		}
		if (to_int(args[0], &r) < 0) {
			*why = "arithmetic on a value the tool does not "
			       "convert";
			return 1;
		}
		for (i = 1; i < n; i++) {
			if (to_int(args[i], &y) < 0) {
				*why = "arithmetic on a value the tool does "
				       "not convert";
				return 1;
			}
			x = r;
			if ((name[0] == 'a' && __builtin_add_overflow(x, y, &r)) ||
			    (name[0] == 's' && __builtin_sub_overflow(x, y, &r)) ||
			    (name[0] == 'm' && __builtin_mul_overflow(x, y, &r))) {
				*why = "arithmetic that overflows";
				return 1;
			}
			if (name[0] == 'd') {
				if (y == 0) {
					*why = "integer divide by zero";
					return -1;
				}
				r = x / y;
			}
		}
		*out = int_val(g, r, 2);
		return 0;
	}
	if (strcmp(name, "kindIs") == 0) {
		const char *k;

		if (n != 2 || args[0]->kind != GV_STR ||
		    (k = kind_name(args[1])) == NULL) {
			*why = "kindIs of a value the tool does not model";
			return 1;
		}
		*out = cpl_gotmpl_val_bool(g, strcmp(args[0]->s, k) == 0);
		return 0;
	}
	if (strcmp(name, "hasKey") == 0) {
		if (n != 2 || args[0]->kind != GV_MAP ||
		    args[1]->kind != GV_STR) {
			*why = "hasKey needs a map and a key";
			return -1;
		}
		for (i = 0; i < args[0]->n; i++)
			if (strcmp(args[0]->keys[i], args[1]->s) == 0)
				break;
		*out = cpl_gotmpl_val_bool(g, i < args[0]->n);
		return 0;
	}
	if (strcmp(name, "ternary") == 0) {
		if (n != 3 || args[2]->kind != GV_BOOL) {
			*why = "ternary needs two values and a bool";
			return -1;
		}
		*out = args[2]->b ? args[0] : args[1];
		return 0;
	}
	if (strcmp(name, "list") == 0 || strcmp(name, "dict") == 0) {
		struct gval *v = cpl_gotmpl_val_new(g, name[0] == 'l' ? GV_SEQ : GV_MAP);

		if (name[0] == 'd' && n % 2 != 0) {
			*why = "dict needs key and value pairs";
			return 1;
		}
		for (i = 0; i < n; i += name[0] == 'l' ? 1 : 2) {
			size_t cap = v->cap;	/* keys grow with vals */

			if (name[0] == 'd')
				cpl_gotmpl_grow(g, (void **)&v->keys, &cap,
						v->n + 1, sizeof(*v->keys));
			cpl_gotmpl_grow(g, (void **)&v->vals, &v->cap,
					v->n + 1, sizeof(*v->vals));
			if (name[0] == 'd') {
				if (args[i]->kind != GV_STR) {
					*why = "dict with a key that is not a "
					       "string";
					return 1;
				}
				v->keys[v->n] = args[i]->s;
				v->vals[v->n++] = args[i + 1];
			} else {
				v->vals[v->n++] = args[i];
			}
		}
		*out = v;
		return 0;
	}
	if (strcmp(name, "append") == 0) {
		struct gval *v = cpl_gotmpl_val_new(g, GV_SEQ);

		if (n != 2 || (args[0]->kind != GV_SEQ &&
			       args[0]->kind != GV_NIL)) {
			*why = "append to a value that is not a list";
			return 1;
		}
		for (i = 0; i <= args[0]->n; i++) {
			cpl_gotmpl_grow(g, (void **)&v->vals, &v->cap,
					v->n + 1, sizeof(*v->vals));
			v->vals[v->n++] = i < args[0]->n ? args[0]->vals[i] :
					  args[1];
		}
		*out = v;
		return 0;
	}
	if (strcmp(name, "split") == 0) {
		struct gval *v = cpl_gotmpl_val_new(g, GV_MAP);
		const char *s, *p;
		size_t k = 0, sl;

		if (n != 2 || args[0]->kind != GV_STR || args[0]->len == 0 ||
		    args[1]->kind != GV_STR) {
			*why = "split of values that are not strings";
			return 1;
		}
		s = args[1]->s;
		sl = args[0]->len;
		for (;;) {
			char key[32];
			size_t cap = v->cap;

			p = strstr(s, args[0]->s);
			cpl_gotmpl_grow(g, (void **)&v->keys, &cap, v->n + 1,
					sizeof(*v->keys));
			cpl_gotmpl_grow(g, (void **)&v->vals, &v->cap,
					v->n + 1, sizeof(*v->vals));
			cpl_format(key, sizeof(key), "_%zu", k++);
			v->keys[v->n] = cpl_gotmpl_strndup(g, key,
							   strlen(key));
			v->vals[v->n++] = cpl_gotmpl_val_str(g, s, p ? (size_t)(p - s) :
						  strlen(s));
			if (p == NULL)
				break;
			s = p + sl;
		}
		*out = v;
		return 0;
	}
	if (strcmp(name, "regexMatch") == 0) {
		regex_t re;
		int m;

		if (n != 2 || args[0]->kind != GV_STR ||
		    args[1]->kind != GV_STR || !portable_regex(args[0]->s) ||
		    regcomp(&re, args[0]->s, REG_EXTENDED | REG_NOSUB) != 0) {
			*why = "this regexMatch pattern";
			return 1;
		}
		m = regexec(&re, args[1]->s, 0, NULL, 0);
		regfree(&re);
		*out = cpl_gotmpl_val_bool(g, m == 0);
		return 0;
	}
	if (strcmp(name, "fail") == 0) {
		*why = n == 1 && args[0]->kind == GV_STR ? args[0]->s :
		       "fail";
		return -1;
	}
	return 2;
}
