/*
 * patch.c — applies groups of edits to a text and writes unified diffs
 * (patch.h).
 *
 * Invariant: bytes outside the applied edits are copied unchanged, so
 * comments, quoting, indentation and CRLF line ends survive; the regions
 * handed to the diff writer are whole lines and differ in old and new
 * (identical lines at their edges are trimmed), so every hunk is one
 * `patch -p1` and `git apply` accept.  The diff is made from those
 * regions, not by comparing arbitrary texts: the edits say which lines
 * changed.  A name goes into the "---"/"+++" lines quoted as git quotes
 * it, never raw: a newline in a directory name cannot end the header and
 * start a diff of another file.
 *
 * May include: util.h and its own header.
 */
#include <stdlib.h>
#include <string.h>

#include "text/lines.h"
#include "text/patch.h"
#include "util.h"

enum { CONTEXT = 3 };

/* An edit as byte offsets, with its place in the caller's array. */
struct span {
	size_t start, end;
	size_t index;
};

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Whether two edits touch the same bytes (insertions never overlap each
 * other; one inside a replaced range does). */
static bool
overlaps(const struct span *a, const struct span *b)
{
	if (a->start == a->end && b->start == b->end)
		return false;
	if (a->start == a->end)
		return b->start < a->start && a->start < b->end;
	if (b->start == b->end)
		return a->start < b->start && b->start < a->end;
	return a->start < b->end && b->start < a->end;
}

static bool
same_edit(const struct span *a, const struct span *b,
	  const struct cpl_patch_edit *edits)
{
	return a->start == b->start && a->end == b->end &&
	       strcmp(edits[a->index].text ? edits[a->index].text : "",
		      edits[b->index].text ? edits[b->index].text : "") == 0;
}

/*
 * Decides every edit's state.  sp is sorted; accepted collects the
 * positions (in sp) of applied edits.
 */
static void
choose(struct span *sp, size_t n, struct cpl_patch_edit *edits,
       size_t *accepted, size_t *nacc)
{
	bool *done = cpl_xcalloc(n ? n : 1, sizeof(*done));
	size_t i, j, k, mark;

	for (i = 0; i < n; i++) {
		size_t g = edits[sp[i].index].group;
		bool ok = true;

		if (done[i])
			continue;
		mark = *nacc;
		for (j = i; j < n && ok; j++) {
			struct cpl_patch_edit *ed = &edits[sp[j].index];
			bool dup = false;

			if (done[j] || ed->group != g)
				continue;
			if (ed->state == CPL_PATCH_INVALID) {
				ok = false;
				break;
			}
			for (k = 0; k < *nacc; k++) {
				const struct span *a = &sp[accepted[k]];

				if (same_edit(a, &sp[j], edits)) {
					dup = true;
					break;
				}
				if (overlaps(a, &sp[j])) {
					ok = false;
					break;
				}
			}
			if (!ok)
				break;
			ed->state = dup ? CPL_PATCH_DUPLICATE :
				    CPL_PATCH_APPLIED;
			if (!dup)
				accepted[(*nacc)++] = j;
		}
		if (!ok)
			*nacc = mark;
		for (j = i; j < n; j++) {
			struct cpl_patch_edit *ed = &edits[sp[j].index];

			if (done[j] || ed->group != g)
				continue;
			done[j] = true;
			if (!ok && ed->state != CPL_PATCH_INVALID)
				ed->state = CPL_PATCH_SKIPPED;
		}
	}
	free(done);
}

static int
size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The start of the line holding off (l indexes t: a long line is not
 * walked back, once per edit). */
static size_t
line_start(const struct cpl_lines *l, size_t off)
{
	int line, column;

	cpl_lines_pos(l, off, &line, &column);
	return l->at[line - 1];
}

/* Just past the '\n' ending the line that holds off, or len. */
static size_t
line_end(const struct cpl_lines *l, size_t len, size_t off)
{
	int line, column;

	cpl_lines_pos(l, off, &line, &column);
	return (size_t)line < l->n ? l->at[line] : len;
}

/* The length of the line at off (its '\n' included), within end. */
static size_t
line_len(const char *t, size_t off, size_t end)
{
	const char *nl = off < end ? memchr(t + off, '\n', end - off) : NULL;

	return nl ? (size_t)(nl - t) + 1 - off : end - off;
}

/* The start of the last line of [off, end) (end > off). */
static size_t
last_line(const char *t, size_t off, size_t end)
{
	size_t p = end - 1;

	while (p > off && t[p - 1] != '\n')
		p--;
	return p;
}

/* Drops identical whole lines at both edges of a region. */
static void
trim(struct cpl_patch_region *r, const char *old, const char *nt)
{
	while (r->old_off < r->old_end && r->new_off < r->new_end) {
		size_t a = line_len(old, r->old_off, r->old_end);
		size_t b = line_len(nt, r->new_off, r->new_end);

		if (a != b || memcmp(old + r->old_off, nt + r->new_off, a))
			break;
		r->old_off += a;
		r->new_off += b;
	}
	while (r->old_off < r->old_end && r->new_off < r->new_end) {
		size_t a = last_line(old, r->old_off, r->old_end);
		size_t b = last_line(nt, r->new_off, r->new_end);

		if (r->old_end - a != r->new_end - b ||
		    memcmp(old + a, nt + b, r->old_end - a))
			break;
		r->old_end = a;
		r->new_end = b;
	}
}

void
cpl_patch_apply(struct cpl_patch *out, const char *text, size_t len,
		struct cpl_patch_edit *edits, size_t n)
{
	struct cpl_lines l;
	struct span *sp = cpl_xcalloc(n ? n : 1, sizeof(*sp));
	size_t *acc = cpl_xcalloc(n ? n : 1, sizeof(*acc));
	size_t nacc = 0, i, pos = 0, rcap = 0;
	long delta = 0;
	struct cpl_buf b;

	memset(out, 0, sizeof(*out));
	cpl_lines_index(&l, text, len);
	for (i = 0; i < n; i++) {
		long s = cpl_lines_offset(&l, text, len, edits[i].line,
					  edits[i].column, false);
		long e = cpl_lines_offset(&l, text, len, edits[i].end_line,
					  edits[i].end_column, false);

		sp[i].index = i;
		edits[i].state = CPL_PATCH_APPLIED;
		if (s < 0 || e < s) {
			edits[i].state = CPL_PATCH_INVALID;
			s = e = s < 0 ? 0 : s;
		}
		sp[i].start = (size_t)s;
		sp[i].end = (size_t)e;
	}
	qsort(sp, n, sizeof(*sp), span_cmp);
	choose(sp, n, edits, acc, &nacc);
	qsort(acc, nacc, sizeof(*acc), size_cmp);
	cpl_buf_init(&b, 0);
	for (i = 0; i < nacc; i++) {
		const struct span *s = &sp[acc[i]];
		const char *t = edits[s->index].text ? edits[s->index].text :
				"";
		size_t tl = strlen(t), os = line_start(&l, s->start);
		size_t oe = line_end(&l, len, s->end);
		struct cpl_patch_region *r = out->nregions ?
			&out->regions[out->nregions - 1] : NULL;

		cpl_buf_add(&b, text + pos, s->start - pos);
		edits[s->index].old_off = s->start;
		edits[s->index].old_end = s->end;
		edits[s->index].new_off = b.len;
		cpl_buf_add(&b, t, tl);
		edits[s->index].new_end = b.len;
		pos = s->end;
		/* Edits on lines of their own are regions of their own,
		 * even on neighbouring lines: merged, the unchanged lines
		 * between them (an insertion's line) would be removed and
		 * added again; the hunk writer joins near regions with
		 * context. */
		if (r == NULL || os >= r->old_end) {
			CPL_GROW(out->regions, rcap, out->nregions + 1);
			r = &out->regions[out->nregions++];
			r->old_off = os;
			r->new_off = (size_t)((long)os + delta);
		}
		delta += (long)tl - (long)(s->end - s->start);
		r->old_end = oe;
		r->new_end = (size_t)((long)oe + delta);
		out->napplied++;
	}
	cpl_buf_add(&b, text + pos, len - pos);
	out->len = b.len;
	out->text = cpl_buf_detach(&b);
	for (i = 0; i < n; i++)
		out->nskipped += edits[i].state == CPL_PATCH_SKIPPED ||
				 edits[i].state == CPL_PATCH_INVALID;
	/* Trim, then drop regions that turned out to change nothing, and
	 * join those that now touch (changed lines one after another read
	 * as one block: "-a -b +a' +b'", as diff writes them). */
	for (i = pos = 0; i < out->nregions; i++) {
		struct cpl_patch_region *r = &out->regions[i];

		trim(r, text, out->text);
		if (r->old_off == r->old_end && r->new_off == r->new_end)
			continue;
		if (pos > 0 && out->regions[pos - 1].old_end == r->old_off &&
		    out->regions[pos - 1].new_end == r->new_off) {
			out->regions[pos - 1].old_end = r->old_end;
			out->regions[pos - 1].new_end = r->new_end;
		} else {
			out->regions[pos++] = *r;
		}
	}
	out->nregions = pos;
	cpl_lines_free(&l);
	free(sp);
	free(acc);
}

void
cpl_patch_free(struct cpl_patch *p)
{
	if (p == NULL)
		return;
	free(p->text);
	free(p->regions);
	memset(p, 0, sizeof(*p));
}

bool
cpl_patch_span(struct cpl_patch_region *r, const char *old, size_t old_len,
	       const char *new_text, size_t new_len)
{
	r->old_off = r->new_off = 0;
	r->old_end = old_len;
	r->new_end = new_len;
	trim(r, old, new_text);
	return r->old_off != r->old_end || r->new_off != r->new_end;
}

/* --- unified diff ------------------------------------------------------ */

/* A region in lines: first line (1-based) and count, old and new. */
struct hunkpart {
	size_t a, ac;
	size_t b, bc;
	size_t new_off;		/* where its new lines start */
};

/* Appends one diff line; a last line without '\n' gets the marker. */
static void
put_line(struct cpl_buf *b, char prefix, const char *p, size_t n)
{
	cpl_buf_addc(b, prefix);
	cpl_buf_add(b, p, n);
	if (n == 0 || p[n - 1] != '\n')
		cpl_buf_adds(b, "\n\\ No newline at end of file\n");
}

static size_t
count_lines(const char *t, size_t off, size_t end)
{
	size_t n = 0, i;

	for (i = off; i < end; i++)
		n += t[i] == '\n';
	return n + (end > off && t[end - 1] != '\n');
}

/* "@@ -a,n +b,m @@" the way diff writes it (",1" left out). */
static void
put_range(struct cpl_buf *b, char sign, size_t start, size_t count)
{
	if (count == 1)
		cpl_buf_addf(b, "%c%zu", sign, start);
	else
		cpl_buf_addf(b, "%c%zu,%zu", sign, count ? start : start - 1,
			     count);
}

/* Appends the hunk made of parts [0, n) of p. */
static void
put_hunk(struct cpl_buf *b, const struct cpl_lines *ol, const char *old,
	 size_t old_len, const char *nt, size_t new_len,
	 const struct hunkpart *p, size_t n)
{
	size_t first = p[0].a > CONTEXT ? p[0].a - CONTEXT : 1;
	size_t last_end = p[n - 1].a + p[n - 1].ac;	/* first line after */
	size_t total = old_len == 0 ? 0 : ol->n - (old[old_len - 1] == '\n');
	size_t stop = last_end + CONTEXT <= total + 1 ? last_end + CONTEXT :
		      total + 1;
	size_t oc = stop - first;	/* context and removed lines */
	size_t nc = oc, i, k, ln, off;	/* context and added lines */

	for (i = 0; i < n; i++)
		nc = nc - p[i].ac + p[i].bc;
	cpl_buf_adds(b, "@@ ");
	put_range(b, '-', first, oc);
	cpl_buf_addc(b, ' ');
	put_range(b, '+', p[0].b - (p[0].a - first), nc);
	cpl_buf_adds(b, " @@\n");
	ln = first;
	for (i = 0; i < n; i++) {
		for (; ln < p[i].a; ln++) {
			off = ol->at[ln - 1];
			put_line(b, ' ', old + off, line_len(old, off,
							      old_len));
		}
		for (; ln < p[i].a + p[i].ac; ln++) {
			off = ol->at[ln - 1];
			put_line(b, '-', old + off, line_len(old, off,
							      old_len));
		}
		for (k = 0, off = p[i].new_off; k < p[i].bc; k++) {
			size_t ll = line_len(nt, off, new_len);

			put_line(b, '+', nt + off, ll);
			off += ll;
		}
	}
	for (; ln < stop; ln++) {
		off = ol->at[ln - 1];
		put_line(b, ' ', old + off, line_len(old, off, old_len));
	}
}

/*
 * The name path stands for in a diff: its "." and empty components
 * dropped (the same file), or NULL with err set when patch -p1 and git
 * apply, run from the current directory, could not take it as that
 * file.  Caller frees.
 */
static char *
diff_name(const char *path, struct cpl_error *err)
{
	struct cpl_buf b;
	const char *p = path, *end;
	size_t n;

	if (*path == '/') {
		cpl_error_set(err, path, 0, 0, "not in the diff: patch -p1 "
			      "would apply an absolute path to a file under "
			      "the current directory, and git apply refuses "
			      "it (name the file relative to the current "
			      "directory)");
		return NULL;
	}
	cpl_buf_init(&b, 0);
	for (; *p; p = *end ? end + 1 : end) {
		end = strchr(p, '/');
		if (end == NULL)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (n == 0 || (n == 1 && p[0] == '.'))
			continue;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			cpl_error_set(err, path, 0, 0, "not in the diff: "
				      "patch(1) and git apply refuse a path "
				      "through \"..\" (run from a directory "
				      "that holds the file)");
			cpl_buf_free(&b);
			return NULL;
		}
		if (b.len > 0)
			cpl_buf_addc(&b, '/');
		cpl_buf_add(&b, p, n);
	}
	return cpl_buf_detach(&b);
}

/* git's C-style escape of byte c (quote.c's cq_lookup): a letter, or 0
 * for \ooo; -1 when c needs no quoting (core.quotePath on: every byte
 * from 0x80 is quoted). */
static int
c_escape(unsigned char c)
{
	if (c >= 0x07 && c <= 0x0d)
		return "abtnvfr"[c - 0x07];
	if (c == '"' || c == '\\')
		return c;
	if (c < 0x20 || c >= 0x7f)
		return 0;
	return -1;
}

/* Whether the '[' at p ends "##[" in name, which a GitHub runner obeys
 * anywhere in a line of a log (its old command form). */
static bool
runner_bracket(const char *name, const unsigned char *p)
{
	return *p == '[' && p - (const unsigned char *)name >= 2 &&
	       p[-1] == '#' && p[-2] == '#';
}

/*
 * Appends "--- " or "+++ " (head) and prefix + name as git writes them:
 * in double quotes with C escapes (\n \t \" \\, \ooo for other controls,
 * DEL and bytes from 0x80) when the name holds any such byte; then a tab
 * when it holds a space, so that GNU patch, which reads an unquoted name
 * up to a tab, takes all of it.  One step past git: a name holding "##["
 * is quoted too, that '[' written \133 (both tools read octal), so a
 * diff printed in a CI log commands nothing.
 */
static void
put_name(struct cpl_buf *b, const char *head, const char *prefix,
	 const char *name)
{
	const unsigned char *p;
	bool quote = false;
	int e;

	for (p = (const unsigned char *)name; *p && !quote; p++)
		quote = c_escape(*p) >= 0 || runner_bracket(name, p);
	cpl_buf_adds(b, head);
	if (quote)
		cpl_buf_addc(b, '"');
	cpl_buf_adds(b, prefix);
	for (p = (const unsigned char *)name; *p; p++) {
		e = runner_bracket(name, p) ? 0 : c_escape(*p);
		if (e < 0) {
			cpl_buf_addc(b, (char)*p);
		} else if (e > 0) {
			cpl_buf_addc(b, '\\');
			cpl_buf_addc(b, (char)e);
		} else {
			cpl_buf_addc(b, '\\');
			cpl_buf_addc(b, (char)('0' + (*p >> 6)));
			cpl_buf_addc(b, (char)('0' + (*p >> 3 & 7)));
			cpl_buf_addc(b, (char)('0' + (*p & 7)));
		}
	}
	if (quote)
		cpl_buf_addc(b, '"');
	if (strchr(name, ' '))
		cpl_buf_addc(b, '\t');
	cpl_buf_addc(b, '\n');
}

int
cpl_patch_diff(struct cpl_buf *b, const char *path, const char *old,
	       size_t old_len, const char *new_text, size_t new_len,
	       const struct cpl_patch_region *regions, size_t nregions,
	       struct cpl_error *err)
{
	struct cpl_lines ol;
	struct hunkpart *parts;
	size_t i, first, oline = 1, nline = 1, opos = 0, npos = 0;
	char *name;

	if (nregions == 0)
		return 0;
	name = diff_name(path, err);
	if (name == NULL)
		return -1;
	put_name(b, "--- ", "a/", name);
	put_name(b, "+++ ", "b/", name);
	free(name);
	cpl_lines_index(&ol, old, old_len);
	parts = cpl_xcalloc(nregions, sizeof(*parts));
	for (i = 0; i < nregions; i++) {
		const struct cpl_patch_region *r = &regions[i];

		oline += count_lines(old, opos, r->old_off);
		nline += count_lines(new_text, npos, r->new_off);
		opos = r->old_off;
		npos = r->new_off;
		parts[i].a = oline;
		parts[i].ac = count_lines(old, r->old_off, r->old_end);
		parts[i].b = nline;
		parts[i].bc = count_lines(new_text, r->new_off, r->new_end);
		parts[i].new_off = r->new_off;
	}
	for (first = 0, i = 1; i <= nregions; i++) {
		if (i < nregions && parts[i].a <=
		    parts[i - 1].a + parts[i - 1].ac + 2 * CONTEXT)
			continue;
		put_hunk(b, &ol, old, old_len, new_text, new_len,
			 parts + first, i - first);
		first = i;
	}
	free(parts);
	cpl_lines_free(&ol);
	return 0;
}
