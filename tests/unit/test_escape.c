/*
 * test_escape.c — values from inputs on output lines (report/escape.h):
 * the escapes of each mode by name, and every reporter of the table
 * (report.h; a format added there is checked here without a line of this
 * file changing) over findings, errors and budgets made of hostile
 * values: newlines before "::add-mask::", CR, ESC sequences (SGR, OSC 8
 * hyperlinks), C1 controls, DEL, stray bytes, "##[", Unicode blanks
 * before "::".  Every output must be well-formed UTF-8 with no control
 * but '\n', no C1 control, no "##[" and no line a GitHub runner would
 * take for a command, except -o github's own; JSON and SARIF must parse
 * and give back the values.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "model/finding.h"
#include "model/rule.h"
#include "report/escape.h"
#include "report/render_int.h"
#include "report/report.h"
#include "util.h"

/* s escaped as how says; caller frees. */
static char *
esc(const char *s, size_t n, unsigned how)
{
	struct cpl_buf b;

	cpl_buf_init(&b, 0);
	cpl_escape(&b, s, n, how);
	return cpl_buf_detach(&b);
}

#define ESC(s, how) esc((s), sizeof(s) - 1, (how))
/* A case: input (NUL bytes allowed) and its escaped text. */
#define C(in, out) { (in), sizeof(in) - 1, (out) }

START_TEST(values)
{
	static const struct {
		const char *in;
		size_t n;
		const char *out;
	} cases[] = {
		C("plain/path.yaml", "plain/path.yaml"),
		C("a\nb\rc\td", "a\\nb\\rc\\td"),
		C("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
		/* OSC 8 hyperlink, BEL-terminated */
		C("\x1b]8;;http://x\x07t", "\\x1b]8;;http://x\\x07t"),
		C("nul\0del\x7f", "nul\\x00del\\x7f"),
		/* C1 controls as code points: CSI, NEL, OSC; U+00A0 stays */
		C("\xc2\x9b" "1m \xc2\x85 \xc2\x9d \xc2\xa0",
		  "\\u009b1m \\u0085 \\u009d \xc2\xa0"),
		/* stray bytes, each byte of an ill-formed sequence */
		C("\x9b\xff\xe2\x82x", "\\x9b\\xff\\xe2\\x82x"),
		/* U+FFFD itself and other characters are kept */
		C("\xef\xbf\xbd \xe2\x82\xac \xf0\x9f\x98\x80",
		  "\xef\xbf\xbd \xe2\x82\xac \xf0\x9f\x98\x80"),
		/* invisible format characters (bidi overrides and isolates,
		 * zero-width ones, the soft hyphen, tags) and noncharacters
		 * (which XML refuses) as code points */
		C("a\xe2\x80\xae" "b", "a\\u202eb"),
		C("\xef\xbf\xbf\xef\xbf\xbe", "\\uffff\\ufffe"),
		C("\xe2\x81\xa6x\xe2\x80\x8b\xc2\xad", "\\u2066x\\u200b\\u00ad"),
		C("\xf3\xa0\x80\x81", "\\U000e0001"),
		/* a value alone: no line rule */
		C("::add-mask::x ##[y]", "::add-mask::x ##[y]"),
	};
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(cases); i++) {
		char *got = esc(cases[i].in, cases[i].n, 0);

		ck_assert_msg(strcmp(got, cases[i].out) == 0, "case %zu: %s",
			      i, got);
		ck_assert(cpl_escape_plain(cases[i].in, cases[i].n) ==
			  (strcmp(cases[i].in, cases[i].out) == 0));
		free(got);
	}
}
END_TEST

/* The tool's own lines: newlines kept, the two command forms broken. */
START_TEST(lines)
{
	char *s;

	s = ESC("::add-mask::x\n  ::stop-commands::y\nok: a::b ##[c] #[d]\n",
		CPL_ESC_NL | CPL_ESC_RUNNER);
	ck_assert_str_eq(s, "\\x3a:add-mask::x\n  \\x3a:stop-commands::y\n"
			 "ok: a::b ##\\x5bc] #[d]\n");
	free(s);
	/* blanks the runner's TrimStart skips: NBSP, U+2003, U+3000 */
	s = ESC("\xc2\xa0\xe2\x80\x83\xe3\x80\x80::x", CPL_ESC_RUNNER);
	ck_assert_str_eq(s, "\xc2\xa0\xe2\x80\x83\xe3\x80\x80\\x3a:x");
	free(s);
	/* one line: its newline escaped, the ':' after it is no line start */
	s = ESC("a\n::b", CPL_ESC_RUNNER);
	ck_assert_str_eq(s, "a\\n::b");
	free(s);
	/* colour is kept, and does not end the line start; other ESC
	 * sequences are not colour */
	s = ESC("\x1b[1m::x\x1b[0m \x1b]8;;u\x07", CPL_ESC_RUNNER |
		CPL_ESC_SGR);
	ck_assert_str_eq(s, "\x1b[1m\\x3a:x\x1b[0m \\x1b]8;;u\\x07");
	free(s);
	s = ESC("\x1b[1m", CPL_ESC_RUNNER);
	ck_assert_str_eq(s, "\\x1b[1m");
	free(s);
	/* "##[" split over what came before: ###[ */
	s = ESC("###[x", CPL_ESC_RUNNER);
	ck_assert_str_eq(s, "###\\x5bx");
	free(s);
}
END_TEST

/* GitHub's escapes, data and property values. */
START_TEST(github)
{
	char *s;

	s = ESC("50%\r\n::x, a:b \x1b[1m ##[y]", CPL_ESC_GITHUB);
	ck_assert_str_eq(s, "50%25%0D%0A::x, a:b \\x1b[1m ##\\x5by]");
	free(s);
	s = ESC("d\n::add-mask::x/a,b%.yaml", CPL_ESC_GITHUB |
		CPL_ESC_GITHUB_PROP);
	ck_assert_str_eq(s, "d%0A%3A%3Aadd-mask%3A%3Ax/a%2Cb%25.yaml");
	free(s);
}
END_TEST

/* Markdown: GitHub's autolinks (www., e-mail even as &#64;, scheme://)
 * broken by an empty HTML comment, which renders as nothing. */
START_TEST(markdown_links)
{
	char *s;

	s = ESC("see www.evil.example, WWW.x.org", CPL_ESC_MARKDOWN);
	ck_assert_str_eq(s, "see www<!-- -->.evil.example, WWW<!-- -->.x.org");
	free(s);
	s = ESC("ops@corp.example", CPL_ESC_MARKDOWN);
	ck_assert_str_eq(s, "ops<!-- -->&#64;<!-- -->corp.example");
	free(s);
	s = ESC("https://evil.example/x", CPL_ESC_MARKDOWN);
	ck_assert_str_eq(s, "https:<!-- -->//evil.example/x");
	free(s);
	/* nowhere else */
	s = ESC("www.x.org a@b https://c", 0);
	ck_assert_str_eq(s, "www.x.org a@b https://c");
	free(s);
}
END_TEST

/* ---- every reporter over hostile values --------------------------- */

static const struct cpl_rule rule_x = {
	.id = "CPU990",
	.name = "test-hostile",
	.severity = CPL_SEV_ERROR,
	.summary = "Test rule over hostile values.",
};

/* The values: each would command a runner or a terminal if written raw. */
static const char *const hostile[] = {
	"d\n::add-mask::x/job.yaml",
	"c\r::stop-commands::tok",
	"::add-mask::lead",
	"\xc2\xa0\xe2\x80\xa8::warning::blank",
	"\x1b[31mred\x1b[0m",
	"\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07",
	"csi\xc2\x9b" "2J nel\xc2\x85 osc\xc2\x9d" "0;t\xc2\x9c",
	"del\x7f bel\x07 nul-free \x01\x1f",
	"##[add-mask]secret",
	"x##",		/* then '[' from the layout: "x##[c]" */
	"add-mask]y",
	"stray \xff\x9b\xe2\x82 end",
};

/* A finding of every kind over value v. */
static void
mk_findings(struct cpl_finding f[2], const char *v)
{
	memset(f, 0, 2 * sizeof(*f));
	f[0].rule = &rule_x;
	f[0].severity = CPL_SEV_ERROR;
	f[0].file = cpl_xstrdup(v);
	f[0].line = 3;
	f[0].column = 1;
	f[0].message = cpl_xasprintf("container \"%s\" over budget", v);
	f[0].fix = cpl_xstrdup(v);
	f[0].related = cpl_xcalloc(1, sizeof(*f[0].related));
	f[0].nrelated = 1;
	f[0].related[0].file = cpl_xstrdup(v);
	f[0].related[0].line = 1;
	f[0].related[0].message = cpl_xstrdup(v);
	f[1].rule = &rule_x;
	f[1].severity = CPL_SEV_WARNING;
	f[1].object = cpl_xstrdup(v);
	f[1].container = cpl_xstrdup(v);
	f[1].message = cpl_xstrdup(v);
}

/* A budget row over v, live (measured, several Pods) or from a file. */
static void
mk_budget(struct cpl_budget_entry *b, const char *v, bool live)
{
	memset(b, 0, sizeof(*b));
	b->object = cpl_xstrdup(v);
	b->container = cpl_xstrdup(v);
	b->file = live ? NULL : cpl_xstrdup(v);
	b->line = 2;
	b->cpu_request = b->cpu_limit = 4;
	b->ranks = b->threads = b->workers = b->busy = 1;
	b->per_rank = b->suggested_threads = b->suggested_workers = 1;
	b->how_cpu.text = cpl_xstrdup(v);
	b->how_cpu.file = cpl_xstrdup(v);
	b->measured = live;
	b->source = v;
	b->window_s = 30;
	b->m_threads = b->cpu_used = b->throttled_pct = 1;
	b->measured_pod = live ? cpl_xstrdup(v) : NULL;
	b->pods = live ? 3 : 0;
}

/* Whether cp is blank to the runner's TrimStart (.NET's White_Space),
 * written out here apart from escape.c. */
static bool
net_blank(uint32_t cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0x85 ||
	       cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
	       cp == 0x3000;
}

/* Whether s (after a line's "::") is -o github's own command: error,
 * warning or notice, then its properties or its data. */
static bool
own_command(const char *s)
{
	static const char *const names[] = { "error", "warning", "notice" };
	size_t i, n;

	for (i = 0; i < CPL_ARRAY_LEN(names); i++) {
		n = strlen(names[i]);
		if (strncmp(s, names[i], n) == 0 &&
		    (s[n] == ' ' || strncmp(s + n, "::", 2) == 0))
			return true;
	}
	return false;
}

/* out without its colour (ESC '[' digits and ';' 'm'); caller frees. */
static char *
strip_sgr(const char *out)
{
	struct cpl_buf b;
	size_t i = 0, j;

	cpl_buf_init(&b, 0);
	while (out[i]) {
		if (out[i] == '\033' && out[i + 1] == '[') {
			for (j = i + 2; (out[j] >= '0' && out[j] <= '9') ||
			     out[j] == ';'; j++)
				;
			if (out[j] == 'm') {
				i = j + 1;
				continue;
			}
		}
		cpl_buf_addc(&b, out[i++]);
	}
	return cpl_buf_detach(&b);
}

/*
 * Fails unless out (format's output) keeps the promises: well-formed
 * UTF-8; no control but '\n', no C1 control; no "##["; no line that
 * starts (after blanks) with "::" except, in github, a line that is one
 * of the format's own commands.
 */
static void
assert_safe(const char *format, const char *out, const char *value)
{
	size_t n = strlen(out), i = 0, adv;
	bool blank_so_far = true;
	size_t line_at = 0;

	ck_assert_msg(strstr(out, "##[") == NULL, "%s: \"##[\" for %s",
		      format, value);
	while (i < n) {
		unsigned char c = (unsigned char)out[i];
		uint32_t cp = c < 0x80 ? c :
			      cpl_report_utf8_next(&adv, out + i, n - i);

		if (c < 0x80)
			adv = 1;
		/* (check's asserts cost a write each: test, then abort) */
		if (cp == 0xfffd && !(adv == 3 &&
				      memcmp(out + i, "\xef\xbf\xbd", 3) == 0))
			ck_abort_msg("%s: ill-formed UTF-8 at %zu", format, i);
		if (c != '\n' && (cp < 0x20 || cp == 0x7f ||
				  (cp >= 0x80 && cp <= 0x9f)))
			ck_abort_msg("%s: control U+%04X at %zu", format,
				     (unsigned)cp, i);
		if (c == '\n') {
			blank_so_far = true;
			line_at = i + 1;
		} else if (blank_so_far && net_blank(cp)) {
			/* still at the start */
		} else if (blank_so_far) {
			blank_so_far = false;
			if (c == ':' && i + 1 < n && out[i + 1] == ':') {
				bool own = strcmp(format, "github") == 0 &&
					   i == line_at &&
					   own_command(out + i + 2);

				if (!own)
					ck_abort_msg("%s: a line starts with "
						     "\"::\" for value %s: "
						     "%.60s", format, value,
						     out + i);
			}
		}
		i += adv;
	}
}

/* Renders with format into memory; caller frees. */
static char *
render(const struct cpl_reporter *r, const struct cpl_report_meta *m,
       const struct cpl_finding *fs, size_t n)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);
	void *st;

	ck_assert_ptr_nonnull(fp);
	st = r->begin(fp, m);
	for (i = 0; i < n; i++)
		r->emit(st, &fs[i]);
	ck_assert_int_eq(r->end(st), 0);
	ck_assert_int_eq(fclose(fp), 0);
	return buf;
}

/* The value JSON gives back for v: ill-formed bytes repaired. */
static char *
repaired(const char *v)
{
	struct cpl_buf b;
	size_t i = 0, n = strlen(v), adv;

	cpl_buf_init(&b, 0);
	while (i < n) {
		if ((unsigned char)v[i] < 0x80) {
			cpl_buf_addc(&b, v[i++]);
			continue;
		}
		if (cpl_report_utf8_next(&adv, v + i, n - i) == 0xfffd)
			cpl_buf_adds(&b, "\xef\xbf\xbd");
		else
			cpl_buf_add(&b, v + i, adv);
		i += adv;
	}
	return cpl_buf_detach(&b);
}

START_TEST(every_reporter)
{
	const struct cpl_reporter *r;
	size_t k, i;
	char cwd[4096];

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	for (k = 0; k < CPL_ARRAY_LEN(hostile); k++) {
		const char *v = hostile[k];
		struct cpl_finding fs[2];
		struct cpl_budget_entry b[2];
		struct cpl_error errs[2] = {
			{ .path = (char *)v, .line = 4, .column = 2,
			  .message = (char *)v },
			{ .message = (char *)v },
		};
		struct cpl_report_meta m = { 0 };

		mk_findings(fs, v);
		mk_budget(&b[0], v, false);
		mk_budget(&b[1], v, true);
		m.version = "0.0.0";
		m.srcroot = cwd;
		m.errors = errs;
		m.nerrors = 2;
		m.command_line = v;
		m.budgets = b;
		m.nbudgets = 2;
		m.budget_table = true;
		for (i = 0; (r = cpl_reporter_at(i)) != NULL; i++) {
			char *out = render(r, &m, fs, 2);
			json_error_t jerr;
			json_t *doc;

			assert_safe(r->name, out, v);
			if (strcmp(r->name, "json") == 0) {
				char *want = repaired(v);
				json_t *f0;

				doc = json_loads(out, 0, &jerr);
				ck_assert_msg(doc != NULL, "json: %s",
					      jerr.text);
				f0 = json_array_get(json_object_get(doc,
						"findings"), 0);
				ck_assert_str_eq(json_string_value(
					json_object_get(f0, "fix")), want);
				json_decref(doc);
				free(want);
			} else if (strcmp(r->name, "sarif") == 0) {
				doc = json_loads(out, 0, &jerr);
				ck_assert_msg(doc != NULL, "sarif: %s",
					      jerr.text);
				json_decref(doc);
			}
			/* the colour of text is kept, nothing else */
			if (strcmp(r->name, "text") == 0) {
				char *col, *plain;

				m.color = true;
				col = render(r, &m, fs, 2);
				m.color = false;
				ck_assert_ptr_nonnull(strstr(col, "\x1b[1m"));
				plain = strip_sgr(col);
				assert_safe("text (colour)", plain, v);
				free(plain);
				free(col);
			}
			free(out);
		}
		for (i = 0; i < 2; i++) {
			cpl_finding_free(&fs[i]);
			cpl_finding_budget_free(&b[i]);
		}
	}
}
END_TEST

static Suite *
escape_suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, values);
	tcase_add_test(tc, lines);
	tcase_add_test(tc, github);
	tcase_add_test(tc, markdown_links);
	tcase_add_test(tc, every_reporter);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(escape_suite)
