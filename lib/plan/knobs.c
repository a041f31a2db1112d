/*
 * knobs.c — reading and setting threads and workers in a container's
 * JSON (knobs_int.h).  A flag is found in three shapes: a word of its own
 * followed by the value ("--workers", "4"), one word with '='
 * ("--workers=4"), or inside a shell string ("python t.py --workers 4",
 * "--workers={{ workers }}"): the value is then the text up to the next
 * blank, quote or shell operator, a Polyaxon "{{ x }}" whole.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "model/budget.h"
#include "plan/knobs_int.h"
#include "util.h"

const char *
cpl_knob_env(const json_t *c, const char *name)
{
	json_t *env = json_object_get(c, "env"), *e;
	const char *found = NULL;
	size_t i;

	json_array_foreach(env, i, e)
		if (cpl_str_eq(json_string_value(json_object_get(e, "name")),
			       name))
			found = json_string_value(json_object_get(e, "value"));
	return found;
}

void
cpl_knob_set_env(json_t *c, const char *name, const char *value)
{
	json_t *env = json_object_get(c, "env"), *e;
	bool done = false;
	size_t i;

	if (!json_is_array(env)) {
		env = json_array();
		json_object_set_new(c, "env", env);
	}
	json_array_foreach(env, i, e) {
		if (!cpl_str_eq(json_string_value(json_object_get(e, "name")),
				name))
			continue;
		json_object_del(e, "valueFrom");
		json_object_set_new(e, "value", json_string(value));
		done = true;
	}
	if (!done)
		json_array_append_new(env, json_pack("{s:s,s:s}", "name", name,
						     "value", value));
}

void
cpl_knob_set_threads(json_t *c, const char *value)
{
	cpl_knob_set_env(c, "OMP_NUM_THREADS", value);
	cpl_knob_set_env(c, "MKL_NUM_THREADS", value);
}

static long
count_of(const char *s)
{
	long n;

	if (s == NULL || cpl_parse_long(&n, s) < 0 || n < 0)
		return -1;
	return n;
}

long
cpl_knob_threads(const json_t *c)
{
	long n = count_of(cpl_knob_env(c, "MKL_NUM_THREADS"));

	return n >= 0 ? n : count_of(cpl_knob_env(c, "OMP_NUM_THREADS"));
}

/* Whether flag text f[0, len) is the one asked for. */
static bool
flag_is(const char *f, size_t len, const char *want)
{
	size_t i = 0, j = 0;

	if (want == NULL)
		return cpl_budget_worker_flag(f, len);
	if (len == 0 || f[0] != '-')
		return false;
	while (i < len && f[i] == '-')
		i++;
	while (want[j] == '-')
		j++;
	for (; i < len && want[j]; i++, j++) {
		char a = f[i] == '-' ? '_' : (char)tolower((unsigned char)f[i]);
		char b = want[j] == '-' ? '_' :
			 (char)tolower((unsigned char)want[j]);

		if (a != b)
			return false;
	}
	return i == len && want[j] == '\0';
}

/* Where a flag's value is: string s of array a at index i (a NULL: the
 * value s of key in object o), bytes [off, off + len). */
struct spot {
	json_t *a;
	size_t i;
	json_t *o;
	const char *key;
	size_t off;
	size_t len;
	bool found;
};

static bool
ends_value(char ch)
{
	return ch == '\0' || isspace((unsigned char)ch) || ch == '"' ||
	       ch == '\'' || ch == ';' || ch == '&' || ch == '|' ||
	       ch == ')' || ch == '`';
}

/* The end of a value starting at p ("{{ x }}" whole). */
static const char *
value_end(const char *p)
{
	if (strncmp(p, "{{", 2) == 0) {
		const char *e = strstr(p, "}}");

		if (e)
			return e + 2;
	}
	if (strncmp(p, "${", 2) == 0) {
		const char *e = strchr(p, '}');

		if (e)
			return e + 1;
	}
	while (!ends_value(*p))
		p++;
	return p;
}

/* Looks for the flag inside one string; the last one wins. */
static void
scan_text(struct spot *sp, const char *s, const char *flag)
{
	const char *p = s;

	while ((p = strchr(p, '-')) != NULL) {
		const char *f = p, *q;

		if (p > s && !isspace((unsigned char)p[-1]) && p[-1] != '"' &&
		    p[-1] != '\'') {
			p++;
			continue;
		}
		q = p;
		while (*q == '-')
			q++;
		while (isalnum((unsigned char)*q) || *q == '_' || *q == '-')
			q++;
		if (!flag_is(f, (size_t)(q - f), flag)) {
			p = q > p ? q : p + 1;
			continue;
		}
		if (*q == '=')
			q++;
		else if (*q == ' ' || *q == '\t')
			while (*q == ' ' || *q == '\t')
				q++;
		else {
			p = q;
			continue;
		}
		if (ends_value(*q) && strncmp(q, "{{", 2) != 0) {
			p = q;
			continue;
		}
		sp->off = (size_t)(q - s);
		sp->len = (size_t)(value_end(q) - q);
		sp->found = true;
		p = q + sp->len;
	}
}

/* Looks in one array of words (or a string) for the flag. */
static void
scan(struct spot *sp, json_t *o, const char *key, const char *flag)
{
	json_t *v = json_object_get(o, key), *w;
	size_t i;

	if (json_is_string(v)) {
		struct spot t = { 0 };

		scan_text(&t, json_string_value(v), flag);
		if (t.found) {
			*sp = t;
			sp->a = NULL;
			sp->o = o;
			sp->key = key;
		}
		return;
	}
	json_array_foreach(v, i, w) {
		const char *s = json_string_value(w), *eq;
		struct spot t = { 0 };

		if (s == NULL)
			continue;
		eq = strchr(s, '=');
		if (s[0] == '-' && !strchr(s, ' ') &&
		    flag_is(s, eq ? (size_t)(eq - s) : strlen(s), flag)) {
			if (eq) {
				t.a = v;
				t.i = i;
				t.off = (size_t)(eq + 1 - s);
				t.len = strlen(eq + 1);
				t.found = true;
			} else if (json_is_string(json_array_get(v, i + 1))) {
				t.a = v;
				t.i = i + 1;
				t.off = 0;
				t.len = json_string_length(
					json_array_get(v, i + 1));
				t.found = true;
			}
		} else {
			scan_text(&t, s, flag);
			if (t.found) {
				t.a = v;
				t.i = i;
			}
		}
		if (t.found)
			*sp = t;
	}
}

static struct spot
find(const json_t *c, const char *flag)
{
	struct spot sp = { 0 };

	scan(&sp, (json_t *)c, "command", flag);
	scan(&sp, (json_t *)c, "args", flag);
	return sp;
}

static const char *
spot_text(const struct spot *sp)
{
	return sp->a ? json_string_value(json_array_get(sp->a, sp->i)) :
		       json_string_value(json_object_get(sp->o, sp->key));
}

char *
cpl_knob_flag(const json_t *c, const char *flag)
{
	struct spot sp = find(c, flag);

	if (!sp.found)
		return NULL;
	return cpl_xstrndup(spot_text(&sp) + sp.off, sp.len);
}

bool
cpl_knob_set_flag(json_t *c, const char *flag, const char *value)
{
	struct spot sp = find(c, flag);
	const char *s;
	char *n;

	if (!sp.found)
		return false;
	s = spot_text(&sp);
	n = cpl_xasprintf("%.*s%s%s", (int)sp.off, s, value,
			  s + sp.off + sp.len);
	if (sp.a)
		json_array_set_new(sp.a, sp.i, json_string(n));
	else
		json_object_set_new(sp.o, sp.key, json_string(n));
	free(n);
	return true;
}

long
cpl_knob_workers(const json_t *c)
{
	char *v = cpl_knob_flag(c, NULL);
	long n = count_of(v);

	free(v);
	return n;
}
