/*
 * comparechart.c — compare's table drawn: in the terminal, a bar per
 * setting of its examples per second (or, without a throughput figure,
 * its CPU used) and of its throttled share of CFS periods, text bars,
 * colour only on a terminal; and the same as an SVG (--plot FILE, and
 * inside -o html's page).  Every setting name is escaped for where it
 * goes (terminal text through report/escape.h, XML here); figures are
 * numbers this file formats.  The caller owns the buffers it passes.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "plan/compare.h"
#include "plan/verdict.h"
#include "report/escape.h"

#define BAR 30		/* the figure's bar, in characters */
#define TBAR 10		/* the throttled share's bar */

/* The figure a row is drawn by: examples/s, else CPU used; < 0 none. */
static double
figure_of(const struct cpl_compare_row *r, bool by_throughput)
{
	return by_throughput ? r->r.throughput : r->r.cpu_used;
}

/* The largest figure of c, at least a tiny positive number. */
static double
top_of(const struct cpl_compare *c, bool by_throughput)
{
	double top = 1e-9;
	size_t i;

	for (i = 0; i < c->nrows; i++)
		if (figure_of(&c->rows[i], by_throughput) > top)
			top = figure_of(&c->rows[i], by_throughput);
	return top;
}

/* n of ch, then width - n spaces. */
static void
bar(struct cpl_buf *b, long n, long width, char ch)
{
	long i;

	for (i = 0; i < width; i++)
		cpl_buf_addc(b, i < n ? ch : ' ');
}

void
cpl_cli_compare_chart(struct cpl_buf *b, const struct cpl_compare *c,
		      const struct cpl_verdict *v, bool color)
{
	bool tp = v->by_throughput;
	double top = top_of(c, tp);
	size_t i, width = 8;

	for (i = 0; i < c->nrows; i++)
		if (strlen(c->rows[i].setting) > width)
			width = strlen(c->rows[i].setting);
	if (width > 32)
		width = 32;
	cpl_buf_addf(b, "chart: %s (#) and throttled share of CFS periods "
		     "(=) per setting\n", tp ? "examples/s" : "CPU used");
	for (i = 0; i < c->nrows; i++) {
		const struct cpl_compare_row *r = &c->rows[i];
		double f = figure_of(r, tp);
		size_t start = b->len, len;
		bool best = (long)i == v->best;

		cpl_buf_adds(b, "  ");
		cpl_escape_str(b, r->setting, 0);
		len = b->len - start - 2;
		cpl_buf_addf(b, "%*s ", (int)(len < width ? width - len : 0),
			     "");
		if (color && best)
			cpl_buf_adds(b, "\033[32m");
		bar(b, f < 0 ? 0 : lround(f / top * BAR), BAR, '#');
		if (color && best)
			cpl_buf_adds(b, "\033[0m");
		if (f < 0)
			cpl_buf_addf(b, " %8s", "-");
		else
			cpl_buf_addf(b, tp ? " %8.1f" : " %8.2f", f);
		cpl_buf_adds(b, "  |");
		bar(b, r->r.throttled < 0 ? 0 : lround(fmin(r->r.throttled,
			100) / 100 * TBAR), TBAR, '=');
		if (r->r.throttled < 0)
			cpl_buf_addf(b, "| %4s", "-");
		else
			cpl_buf_addf(b, "| %3.0f%%", r->r.throttled);
		cpl_buf_adds(b, best ? "  best\n" : "\n");
	}
}

/* s as XML character data or an attribute value: the five entities, and
 * control characters (no XML 1.0 document may hold them) as U+FFFD. */
static void
xml(struct cpl_buf *b, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '&')
			cpl_buf_adds(b, "&amp;");
		else if (ch == '<')
			cpl_buf_adds(b, "&lt;");
		else if (ch == '>')
			cpl_buf_adds(b, "&gt;");
		else if (ch == '"')
			cpl_buf_adds(b, "&quot;");
		else if (ch == '\'')
			cpl_buf_adds(b, "&#39;");
		else if (ch < 0x20 || ch == 0x7f)
			cpl_buf_adds(b, "\xef\xbf\xbd");
		else
			cpl_buf_addc(b, (char)ch);
	}
}

void
cpl_cli_compare_svg(struct cpl_buf *b, const struct cpl_compare *c,
		    const struct cpl_verdict *v)
{
	bool tp = v->by_throughput;
	double top = top_of(c, tp);
	const int row = 26, left = 190, w1 = 320, gap = 90, w2 = 160;
	const int head = 44, width = left + w1 + gap + w2 + 70;
	int height = head + row * (int)c->nrows + 16;
	size_t i;

	cpl_buf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		     "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "font-family=\"sans-serif\" font-size=\"13\">\n",
		     width, height, width, height);
	cpl_buf_adds(b, "<title>kubectl cpulint compare");
	if (c->plan) {
		cpl_buf_adds(b, " ");
		xml(b, c->plan);
	}
	cpl_buf_adds(b, "</title>\n");
	cpl_buf_addf(b, "<text x=\"%d\" y=\"18\" font-weight=\"bold\">%s"
		     "</text>\n", left, tp ? "examples/s" : "CPU used");
	cpl_buf_addf(b, "<text x=\"%d\" y=\"18\" font-weight=\"bold\">"
		     "throttled share</text>\n", left + w1 + gap);
	for (i = 0; i < c->nrows; i++) {
		const struct cpl_compare_row *r = &c->rows[i];
		double f = figure_of(r, tp);
		int y = head + row * (int)i;
		bool best = (long)i == v->best;
		double bw = f < 0 ? 0 : f / top * w1;
		double tw = r->r.throttled < 0 ? 0 :
			    fmin(r->r.throttled, 100) / 100 * w2;

		cpl_buf_addf(b, "<g class=\"setting%s\">\n",
			     best ? " best" : "");
		cpl_buf_addf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>",
			     left - 8, y + 14, best ?
			     " font-weight=\"bold\"" : "");
		xml(b, r->setting);
		cpl_buf_adds(b, "</text>\n");
		cpl_buf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
			     "height=\"18\" fill=\"%s\"/>\n", left, y, bw,
			     best ? "#2e7d32" : "#5b8def");
		if (f < 0)
			cpl_buf_addf(b, "<text x=\"%d\" y=\"%d\">-</text>\n",
				     left + 4, y + 14);
		else
			cpl_buf_addf(b, tp ? "<text x=\"%.1f\" y=\"%d\">%.1f"
				     "</text>\n" : "<text x=\"%.1f\" y=\"%d\">"
				     "%.2f</text>\n", left + bw + 4, y + 14, f);
		cpl_buf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" "
			     "height=\"18\" fill=\"#eeeeee\"/>\n",
			     left + w1 + gap, y, w2);
		cpl_buf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
			     "height=\"18\" fill=\"#d84315\"/>\n",
			     left + w1 + gap, y, tw);
		if (r->r.throttled < 0)
			cpl_buf_addf(b, "<text x=\"%d\" y=\"%d\">-</text>\n",
				     left + w1 + gap + w2 + 6, y + 14);
		else
			cpl_buf_addf(b, "<text x=\"%d\" y=\"%d\">%.0f%%"
				     "</text>\n", left + w1 + gap + w2 + 6,
				     y + 14, r->r.throttled);
		cpl_buf_adds(b, "</g>\n");
	}
	cpl_buf_adds(b, "</svg>\n");
}

void
cpl_cli_compare_html(struct cpl_buf *b, const struct cpl_compare *c,
		     const struct cpl_verdict *v)
{
	bool runs = false;	/* plan --repeat: the runs and range too */
	size_t i;

	cpl_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		     "<meta charset=\"utf-8\"/>\n<title>kubectl cpulint "
		     "compare");
	if (c->plan) {
		cpl_buf_adds(b, " ");
		xml(b, c->plan);
	}
	cpl_buf_adds(b, "</title>\n</head>\n<body>\n<h1>kubectl cpulint "
		     "compare");
	if (c->plan) {
		cpl_buf_adds(b, " ");
		xml(b, c->plan);
	}
	cpl_buf_adds(b, "</h1>\n");
	cpl_cli_compare_svg(b, c, v);
	for (i = 0; i < c->nrows; i++)
		runs = runs || c->rows[i].r.runs > 1;
	cpl_buf_adds(b, "<table>\n<tr><th>setting</th><th>threads</th>"
		     "<th>workers</th><th>examples/s</th><th>wait</th>"
		     "<th>CPU used</th><th>CPU budget</th><th>throttled</th>"
		     "<th>pods</th>");
	cpl_buf_adds(b, runs ? "<th>runs</th><th>examples/s range</th>"
		     "</tr>\n" : "</tr>\n");
	for (i = 0; i < c->nrows; i++) {
		const struct cpl_compare_row *r = &c->rows[i];

		cpl_buf_adds(b, "<tr><td>");
		xml(b, r->setting);
		cpl_buf_addf(b, "</td><td>%ld</td>", r->r.threads);
		if (r->r.workers < 0)
			cpl_buf_adds(b, "<td>-</td>");
		else
			cpl_buf_addf(b, "<td>%ld</td>", r->r.workers);
#define CELL(v, fmt) do { \
		if ((v) < 0) \
			cpl_buf_adds(b, "<td>-</td>"); \
		else \
			cpl_buf_addf(b, "<td>" fmt "</td>", (v)); \
	} while (0)
		CELL(r->r.throughput, "%.1f");
		CELL(r->r.wait < 0 ? -1 : r->r.wait * 100, "%.0f%%");
		CELL(r->r.cpu_used, "%.2f");
		CELL(r->r.cpu_budget, "%g");
		CELL(r->r.throttled, "%.0f%%");
#undef CELL
		cpl_buf_addf(b, "<td>%zu</td>", r->pods);
		if (runs && r->r.throughput_min >= 0)
			cpl_buf_addf(b, "<td>%zu</td><td>%.1f-%.1f</td>",
				     r->r.runs, r->r.throughput_min,
				     r->r.throughput_max);
		else if (runs)
			cpl_buf_addf(b, "<td>%zu</td><td>-</td>", r->r.runs);
		cpl_buf_adds(b, "</tr>\n");
	}
	cpl_buf_adds(b, "</table>\n<h2>verdict</h2>\n<ul>\n");
	for (i = 0; i < v->nlines; i++) {
		cpl_buf_adds(b, "<li>");
		xml(b, v->lines[i].text);
		cpl_buf_adds(b, "</li>\n");
	}
	cpl_buf_adds(b, "</ul>\n</body>\n</html>\n");
}
