/*
 * render.c — tallies, UTF-8 decoding and jansson building shared by
 * the reporters (see render.h).
 *
 * Invariant: every string handed to jansson is well-formed UTF-8, so
 * json_string() can only fail for lack of memory, which (like cpl_xmalloc)
 * aborts with a message.  Nothing else here prints.
 */
#include "report/render.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The out-of-memory policy of util.c, for allocations made by jansson. */
static void
json_oom(void)
{
	fprintf(stderr, "kubectl-cpulint: out of memory (jansson)\n");
	abort();
}

void
cpl_report_tally_add(struct cpl_report_tally *t, const struct cpl_finding *f)
{
	if (f->suppressed) {
		t->suppressed++;
		return;
	}
	switch (f->severity) {
	case CPL_SEV_ERROR:
		t->errors++;
		break;
	case CPL_SEV_WARNING:
		t->warnings++;
		break;
	case CPL_SEV_NOTE:
		t->notes++;
		break;
	case CPL_SEV_OFF:
		break;
	}
}

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

/* True when s is well-formed UTF-8 throughout. */
static bool
utf8_valid(const char *s, size_t len)
{
	size_t i = 0, adv;

	while (i < len) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if (cpl_report_utf8_next(&adv, s + i, len - i) == 0xfffd &&
		    !(adv == 3 && memcmp(s + i, "\xef\xbf\xbd", 3) == 0))
			return false;
		i += adv;
	}
	return true;
}

json_t *
cpl_report_jstr(const char *s)
{
	struct cpl_buf b;
	json_t *j;
	size_t len, i = 0, adv;

	if (s == NULL)
		return json_null();
	len = strlen(s);
	if (utf8_valid(s, len)) {
		j = json_stringn(s, len);
		if (j == NULL)
			json_oom();
		return j;
	}
	cpl_buf_init(&b, 0);
	while (i < len) {
		uint32_t cp = cpl_report_utf8_next(&adv, s + i, len - i);

		if (cp == 0xfffd)
			cpl_buf_adds(&b, "\xef\xbf\xbd");
		else
			cpl_buf_add(&b, s + i, adv);
		i += adv;
	}
	j = json_stringn(cpl_buf_str(&b), b.len);
	cpl_buf_free(&b);
	if (j == NULL)
		json_oom();
	return j;
}

json_t *
cpl_report_jint(long long v)
{
	json_t *j = json_integer((json_int_t)v);

	if (j == NULL)
		json_oom();
	return j;
}

void
cpl_report_jset(json_t *obj, const char *key, json_t *v)
{
	if (v == NULL || json_object_set_new(obj, key, v) != 0)
		json_oom();
}

void
cpl_report_jpush(json_t *arr, json_t *v)
{
	if (v == NULL || json_array_append_new(arr, v) != 0)
		json_oom();
}

json_t *
cpl_report_jobject(void)
{
	json_t *j = json_object();

	if (j == NULL)
		json_oom();
	return j;
}

json_t *
cpl_report_jarray(void)
{
	json_t *j = json_array();

	if (j == NULL)
		json_oom();
	return j;
}

int
cpl_report_jdump(FILE *out, const json_t *root)
{
	if (json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
		return -1;
	if (fputc('\n', out) == EOF)
		return -1;
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* A count, or null when unknown (< 0). */
static json_t *
jcount(long v)
{
	return v >= 0 ? cpl_report_jint(v) : json_null();
}

/* A number of CPUs, threads or percent rounded to 3 decimals; null < 0. */
static json_t *
jnum(double v)
{
	json_t *j;

	if (v < 0)
		return json_null();
	/* Whole numbers stay integers ("cpu_limit": 4). */
	if (v == (double)(long long)v && v < 1e15)
		return cpl_report_jint((long long)v);
	j = json_real((double)(long long)(v * 1000.0 + 0.5) / 1000.0);
	if (j == NULL)
		json_oom();
	return j;
}

/* {"from", "file", "line", "column"} or null. */
static json_t *
how_json(const struct cpl_budget_how *h)
{
	json_t *o;

	if (h->text == NULL)
		return json_null();
	o = cpl_report_jobject();
	cpl_report_jset(o, "from", cpl_report_jstr(h->text));
	cpl_report_jset(o, "file", cpl_report_jstr(h->file));
	cpl_report_jset(o, "line", cpl_report_jint(h->line));
	cpl_report_jset(o, "column", cpl_report_jint(h->column));
	return o;
}

static json_t *
budget_json(const struct cpl_budget_entry *b)
{
	json_t *o = cpl_report_jobject();
	json_t *how = cpl_report_jobject();

	cpl_report_jset(o, "object", cpl_report_jstr(b->object));
	cpl_report_jset(o, "container", cpl_report_jstr(b->container));
	cpl_report_jset(o, "file", cpl_report_jstr(b->file));
	cpl_report_jset(o, "line", cpl_report_jint(b->line));
	cpl_report_jset(o, "cpu_request", jnum(b->cpu_request));
	cpl_report_jset(o, "cpu_limit", jnum(b->cpu_limit));
	cpl_report_jset(o, "ranks", jcount(b->ranks));
	cpl_report_jset(o, "threads", jcount(b->threads));
	cpl_report_jset(o, "workers", jcount(b->workers));
	cpl_report_jset(o, "busy", jcount(b->busy));
	cpl_report_jset(o, "per_rank", jcount(b->per_rank));
	cpl_report_jset(o, "suggested_threads",
			jcount(b->suggested_threads));
	cpl_report_jset(o, "suggested_workers",
			jcount(b->suggested_workers));
	cpl_report_jset(how, "cpu", how_json(&b->how_cpu));
	cpl_report_jset(how, "ranks", how_json(&b->how_ranks));
	cpl_report_jset(how, "threads", how_json(&b->how_threads));
	cpl_report_jset(how, "workers", how_json(&b->how_workers));
	cpl_report_jset(o, "how", how);
	if (b->measured) {
		json_t *m = cpl_report_jobject();

		cpl_report_jset(m, "source", cpl_report_jstr(b->source));
		cpl_report_jset(m, "window_s", jnum(b->window_s));
		cpl_report_jset(m, "threads", jnum(b->m_threads));
		cpl_report_jset(m, "cpu_used", jnum(b->cpu_used));
		cpl_report_jset(m, "throttled_pct", jnum(b->throttled_pct));
		if (b->measured_pod)	/* whose figures, of several Pods */
			cpl_report_jset(m, "pod",
					cpl_report_jstr(b->measured_pod));
		cpl_report_jset(o, "measured", m);
	}
	if (b->pods > 1)	/* live: the Pods of one owner it stands for */
		cpl_report_jset(o, "pods", cpl_report_jint((long long)b->pods));
	return o;
}

json_t *
cpl_report_budgets(const struct cpl_budget_entry *b, size_t n)
{
	json_t *a = cpl_report_jarray();
	size_t i;

	for (i = 0; i < n; i++)
		cpl_report_jpush(a, budget_json(&b[i]));
	return a;
}
