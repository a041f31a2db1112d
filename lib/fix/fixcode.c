/*
 * fixcode.c — the edit CPU301's fix makes to Python code: a CPU count
 * call replaced by cpu_quota(), a helper added once per file that counts
 * the CPUs the process may run on and caps them by the container's CFS
 * quota.
 *
 * Invariant: the helper's insertion depends on the file alone, so every
 * finding in one file carries the same insertion and an applier that
 * drops exact duplicates adds it once.  It goes after the module
 * docstring and the leading imports, before any statement that could
 * call it; a file that already names cpu_quota otherwise gets no edit.
 *
 * Ownership: the edits go onto the finding, which owns them; the memo
 * of where the helper goes lives on the resolver's source (fix_int.h).
 *
 * May include: model/, fix/ and text/.
 */
#include "fix/fix_int.h"

#include <stdlib.h>
#include <string.h>

/* The helper, one line per string; each ends with the file's newline. */
static const char *const helper[] = {
	"def cpu_quota():",
	"    \"\"\"CPUs this process may keep busy: the CPUs it may run on,",
	"    capped by the container's CFS quota (cgroup v2 cpu.max, else v1",
	"    cpu.cfs_quota_us / cpu.cfs_period_us); at least 1.\"\"\"",
	"    import os",
	"",
	"    quota = 0  # none",
	"    try:",
	"        with open(\"/sys/fs/cgroup/cpu.max\") as f:",
	"            q, p = f.read().split()[:2]",
	"        if q != \"max\":",
	"            quota = max(1, int(q) // int(p))",
	"    except (OSError, ValueError):",
	"        try:",
	"            with open(\"/sys/fs/cgroup/cpu/cpu.cfs_quota_us\") as f:",
	"                q = int(f.read())",
	"            with open(\"/sys/fs/cgroup/cpu/cpu.cfs_period_us\") as f:",
	"                p = int(f.read())",
	"            if q > 0 and p > 0:",
	"                quota = max(1, q // p)",
	"        except (OSError, ValueError):",
	"            pass",
	"    unlimited = 1 << 20",
	"    try:",
	"        return max(1, min(len(os.sched_getaffinity(0)),",
	"                          quota or unlimited))",
	"    except AttributeError:  # no sched_getaffinity: not Linux",
	"        return max(1, min(os.cpu_count() or 1, quota or unlimited))",
	NULL,
};

/* The offset just past the line holding off (or the end). */
static size_t
next_line(const struct cpl_fixsrc *src, size_t off)
{
	const char *nl = memchr(src->text + off, '\n', src->len - off);

	return nl ? (size_t)(nl - src->text) + 1 : src->len;
}

/* Whether the line at off starts with word followed by a space. */
static bool
starts(const struct cpl_fixsrc *src, size_t off, const char *word)
{
	size_t n = strlen(word);

	return src->len - off > n && memcmp(src->text + off, word, n) == 0 &&
	       (src->text[off + n] == ' ' || src->text[off + n] == '\t');
}

/* Past a triple-quoted docstring opening at off (prefix letters
 * allowed), or off when there is none. */
static size_t
past_docstring(const struct cpl_fixsrc *src, size_t off)
{
	size_t i = off;
	const char *close;
	char delim[4];

	while (i < src->len && strchr("rRuUbB", src->text[i]) &&
	       src->text[i] != '\0')
		i++;
	if (src->len - i < 3 || (memcmp(src->text + i, "\"\"\"", 3) != 0 &&
				 memcmp(src->text + i, "'''", 3) != 0))
		return off;
	memcpy(delim, src->text + i, 3);
	delim[3] = '\0';
	for (close = src->text + i + 3; close + 3 <= src->text + src->len;
	     close++) {
		if (*close == '\\') {
			close++;
			continue;
		}
		if (memcmp(close, delim, 3) == 0)
			return next_line(src, (size_t)(close - src->text) + 3);
	}
	return off;
}

/* Past one import statement at off: parenthesised or continued with a
 * backslash over several lines. */
static size_t
past_import(const struct cpl_fixsrc *src, size_t off)
{
	size_t end = next_line(src, off), i;
	int depth = 0;

	for (i = off; i < src->len; i++) {
		char ch = src->text[i];

		if (ch == '#') {
			i = next_line(src, i) - 1;
			if (depth == 0)
				return i + 1;
			continue;
		}
		if (ch == '(')
			depth++;
		else if (ch == ')')
			depth--;
		else if (ch == '\\' && i + 1 < src->len &&
			 (src->text[i + 1] == '\n' || src->text[i + 1] == '\r'))
			i = next_line(src, i) - 1;
		else if (ch == '\n' && depth <= 0)
			return i + 1;
	}
	return end > i ? end : i;
}

/* Where the helper goes: after leading comments, the docstring and the
 * imports that open the module. */
static size_t
helper_at(const struct cpl_fixsrc *src)
{
	size_t off = 0, at, next;

	while (off < src->len && (src->text[off] == '#' ||
				  src->text[off] == '\n' ||
				  src->text[off] == '\r'))
		off = next_line(src, off);
	at = off = past_docstring(src, off);
	while (off < src->len) {
		char ch = src->text[off];

		if (ch == '#' || ch == '\n' || ch == '\r') {
			off = next_line(src, off);
			continue;
		}
		if (!starts(src, off, "import") && !starts(src, off, "from"))
			break;
		next = past_import(src, off);
		at = off = next;
	}
	/* Before the first statement when nothing precedes it. */
	if (at == 0)
		while (at < src->len && src->text[at] == '#')
			at = next_line(src, at);
	return at;
}

/* The insertion text for src: the helper set apart by blank lines. */
static char *
helper_text(const struct cpl_fixsrc *src, size_t at)
{
	const char *nl;
	struct cpl_buf b;
	size_t i;

	nl = memchr(src->text, '\n', src->len);
	nl = nl && nl > src->text && nl[-1] == '\r' ? "\r\n" : "\n";
	cpl_buf_init(&b, 0);
	if (at > 0 && src->text[at - 1] != '\n')
		cpl_buf_adds(&b, nl);
	if (at > 0) {
		cpl_buf_adds(&b, nl);
		cpl_buf_adds(&b, nl);
	}
	for (i = 0; helper[i]; i++) {
		cpl_buf_adds(&b, helper[i]);
		cpl_buf_adds(&b, nl);
	}
	/* Two blank lines after it, counting a blank line already there. */
	if (at < src->len) {
		cpl_buf_adds(&b, nl);
		if (src->text[at] != '\n' && src->text[at] != '\r')
			cpl_buf_adds(&b, nl);
	}
	return cpl_buf_detach(&b);
}

void
cpl_fixres_cpu_quota(struct cpl_fixres *r, struct cpl_finding *f,
		     const struct cpl_pos *call, const struct cpl_pos *end)
{
	struct cpl_fixsrc *src = call && call->file ?
		cpl_fixres_src(r, call->file) : NULL;
	struct cpl_pos a, b;
	long from, to;
	char *text;

	if (src == NULL || src->yaml || end == NULL ||
	    (from = cpl_fixsrc_offset(src, call->line, call->column)) < 0 ||
	    (to = cpl_fixsrc_offset(src, end->line, end->column)) <= from)
		return;
	/* Once per file: whether it defines the helper or uses the name. */
	if (src->quota_helper == 0) {
		if (memmem(src->text, src->len, "def cpu_quota(", 14))
			src->quota_helper = 2;
		else if (memmem(src->text, src->len, "cpu_quota", 9))
			src->quota_helper = 3;	/* means something else */
		else
			src->quota_helper = 1;
		src->quota_at = helper_at(src);
	}
	if (src->quota_helper == 3 ||
	    (src->quota_helper == 1 && (long)src->quota_at > from))
		return;
	if (src->quota_helper == 1) {
		text = helper_text(src, src->quota_at);
		a = cpl_fixsrc_pos(src, call->file, src->quota_at);
		cpl_finding_add_edit(f, &a, a.line, a.column, text);
		free(text);
	}
	a = cpl_fixsrc_pos(src, call->file, (size_t)from);
	b = cpl_fixsrc_pos(src, call->file, (size_t)to);
	cpl_finding_add_edit(f, &a, b.line, b.column, "cpu_quota()");
}
