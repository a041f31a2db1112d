/*
 * changed.c — what --diff-base keeps: whether a finding is one a change
 * caused (see engine_int.h).
 *
 * A finding is new when its own line, or a related line (a cause: the
 * budget, the ranks, the thread or worker count), changed since the
 * merge base, or when the Python its container runs changed in its code.
 * A file merely on the way, or one whose edit touched only comments and
 * blank lines, does not make an old finding new.  Lines come from the
 * repository's changed set (git/repo.h); code is told from comments by
 * comparing tokens with the merge base's content, once per file.
 */
#include "run/engine_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git/repo.h"
#include "python/pytoken.h"

/* Whether a line of a file (as the finding names it) changed. */
bool
cpl_engine_line_changed(const struct cpl_engine *e, const char *file,
			int line)
{
	struct cpl_error err = { 0 };
	char *rel = NULL;
	bool yes;

	if (file == NULL)
		return true;	/* live findings are never filtered */
	if (cpl_repo_relpath(&rel, e->set.repo, file, &err) != 0) {
		cpl_error_clear(&err);
		return true;	/* outside the repository: keep */
	}
	yes = cpl_repo_line_changed(e->set.repo, rel, line);
	free(rel);
	return yes;
}

/* Whether a file (as the engine names it) changed at all. */
bool
cpl_engine_file_changed(const struct cpl_engine *e, const char *file)
{
	struct cpl_error err = { 0 };
	char *rel = NULL;
	bool yes;

	if (cpl_repo_relpath(&rel, e->set.repo, file, &err) != 0) {
		cpl_error_clear(&err);
		return false;
	}
	yes = cpl_repo_file_changed(e->set.repo, rel);
	free(rel);
	return yes;
}

/* Whether two Python texts hold the same code: the same tokens, but
 * for comments and line breaks inside brackets and blank lines. */
static bool
same_code(const char *a, size_t alen, const char *b, size_t blen)
{
	struct cpl_pytokens ta = { 0 }, tb = { 0 };
	struct cpl_error err = { 0 };
	size_t i = 0, j = 0;
	bool same = false;

	if (cpl_pytoken_scan(&ta, a, alen, "", &err) < 0 ||
	    cpl_pytoken_scan(&tb, b, blen, "", &err) < 0)
		goto out;
	for (;;) {
		while (i < ta.count && (ta.toks[i].kind == CPL_PYTOK_COMMENT ||
					ta.toks[i].kind == CPL_PYTOK_NL))
			i++;
		while (j < tb.count && (tb.toks[j].kind == CPL_PYTOK_COMMENT ||
					tb.toks[j].kind == CPL_PYTOK_NL))
			j++;
		if (i >= ta.count || j >= tb.count)
			break;
		if (ta.toks[i].kind != tb.toks[j].kind ||
		    ta.toks[i].len != tb.toks[j].len ||
		    memcmp(a + ta.toks[i].off, b + tb.toks[j].off,
			   ta.toks[i].len) != 0)
			goto out;
		i++;
		j++;
	}
	same = i >= ta.count && j >= tb.count;
out:
	cpl_error_clear(&err);
	cpl_pytoken_clear(&ta);
	cpl_pytoken_clear(&tb);
	return same;
}

/*
 * Whether Python file path changed in its code since the diff base: not
 * only in comments, blank lines or line breaks inside brackets (its
 * tokens otherwise equal the merge base's).  A file the diff holds no old
 * content of (new, or unreadable) changed.  Asked once per file per run
 * (e->check.code_changed keeps answers).
 */
static bool
code_changed(struct cpl_engine *e, const char *path)
{
	struct cpl_error err = { 0 };
	struct source *src;
	char *rel = NULL, *old = NULL;
	size_t olen = 0;
	void *memo;
	bool yes = false;

	memo = cpl_strmap_get(&e->check.code_changed, path);
	if (memo != NULL)
		return memo == (void *)2;
	if (cpl_engine_file_changed(e, path)) {
		src = cpl_engine_text_source(e, path);
		yes = src == NULL || src->text == NULL ||
		      cpl_repo_relpath(&rel, e->set.repo, path, &err) != 0 ||
		      cpl_repo_base_text(&old, &olen, e->set.repo, rel,
					 MAX_FILE_BYTES) != 0 ||
		      !same_code(old, olen, src->text, src->len);
	}
	cpl_error_clear(&err);
	free(rel);
	free(old);
	cpl_strmap_put(&e->check.code_changed, path,
		       (void *)(uintptr_t)(yes ? 2 : 1));
	return yes;
}

/* --diff-base: the finding's line or a related line (a place that is a
 * cause of it: the budget, the ranks, the thread or worker count)
 * changed, or, for a finding about a container, the code of the Python
 * it runs did: not a comment or a blank line, which change nothing the
 * finding says. */
bool
cpl_engine_finding_changed(struct cpl_engine *e,
			   const struct cpl_finding *f)
{
	const struct cpl_code *code = f->origin ? f->origin->code : NULL;
	size_t i;

	if (cpl_engine_line_changed(e, f->file, f->line))
		return true;
	for (i = 0; i < f->nrelated; i++)
		if (cpl_engine_line_changed(e, f->related[i].file,
					    f->related[i].line))
			return true;
	for (i = 0; code && i < code->nfiles; i++)
		if (code_changed(e, code->files[i]->path))
			return true;
	return false;
}
