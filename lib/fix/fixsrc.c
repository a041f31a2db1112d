/*
 * fixsrc.c — the texts a resolver of fixes holds (fix_int.h): each
 * fetched from the caller's text function once, its lines indexed and
 * its YAML parsed for edits on the first question, all let go together
 * (cpl_fixres_forget()).
 *
 * Ownership: the resolver owns each struct cpl_fixsrc, its index and
 * its parse; the texts stay the caller's.
 *
 * May include: text/, model/ and fix/.
 */
#include "fix/fix_int.h"

#include <stdlib.h>
#include <string.h>

#include "text/yamledit.h"
#include "util.h"

struct cpl_fixres *
cpl_fixres_new(const struct cpl_fixtext *t)
{
	struct cpl_fixres *r = cpl_xcalloc(1, sizeof(*r));

	r->t = *t;
	return r;
}

void
cpl_fixres_forget(struct cpl_fixres *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct cpl_fixsrc *s = r->v[i];

		cpl_lines_free(&s->lines);
		cpl_yedit_free(s->yedit);
		free(s->path);
		free(s);
	}
	r->n = 0;
}

void
cpl_fixres_forget_path(struct cpl_fixres *r, const char *path)
{
	size_t i;

	if (r == NULL || path == NULL)
		return;
	for (i = 0; i < r->n; i++) {
		struct cpl_fixsrc *s = r->v[i];

		if (strcmp(s->path, path) != 0)
			continue;
		cpl_lines_free(&s->lines);
		cpl_yedit_free(s->yedit);
		free(s->path);
		free(s);
		r->v[i] = r->v[--r->n];
		return;
	}
}

void
cpl_fixres_free(struct cpl_fixres *r)
{
	if (r == NULL)
		return;
	cpl_fixres_forget(r);
	free(r->v);
	free(r);
}

struct cpl_fixsrc *
cpl_fixres_src(struct cpl_fixres *r, const char *path)
{
	struct cpl_fixsrc *s;
	const char *text;
	size_t i, len = 0;
	bool yaml = false;

	if (path == NULL)
		return NULL;
	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i]->path, path) == 0)
			return r->v[i]->text ? r->v[i] : NULL;
	text = r->t.text(r->t.arg, path, &len, &yaml);
	s = cpl_xcalloc(1, sizeof(*s));
	s->path = cpl_xstrdup(path);
	s->text = text;
	s->len = len;
	s->yaml = yaml;
	CPL_GROW(r->v, r->cap, r->n + 1);
	r->v[r->n++] = s;
	return text ? s : NULL;
}

const struct cpl_yedit *
cpl_fixres_yedit(struct cpl_fixres *r, const char *path)
{
	struct cpl_fixsrc *s = cpl_fixres_src(r, path);
	struct cpl_error err = { 0 };

	if (s == NULL || !s->yaml)
		return NULL;
	if (!s->yedit_tried) {
		s->yedit_tried = true;
		if (cpl_yedit_open(&s->yedit, s->path, s->text, s->len,
				   &err) < 0)
			s->yedit = NULL;
		cpl_error_clear(&err);
	}
	return s->yedit;
}

long
cpl_fixsrc_offset(struct cpl_fixsrc *src, int line, int column)
{
	if (src->lines.at == NULL)
		cpl_lines_index(&src->lines, src->text, src->len);
	return cpl_lines_offset(&src->lines, src->text, src->len, line,
				column, true);
}

struct cpl_pos
cpl_fixsrc_pos(struct cpl_fixsrc *src, const char *file, size_t off)
{
	struct cpl_pos p = { file, 1, 1 };

	if (src->lines.at == NULL)
		cpl_lines_index(&src->lines, src->text, src->len);
	cpl_lines_pos(&src->lines, off, &p.line, &p.column);
	return p;
}
