/*
 * yamlfast_diff.h — the oracle of the fast YAML reader (yamlfast_int.h),
 * shared by its unit test and its fuzz target: read a text both ways and
 * describe the first difference from libyaml's events.
 *
 * yamlfast_diff() returns NULL when the fast reader refused the text
 * (*read false) or read it exactly as libyaml does (*read true: the same
 * event types; the same start marks of nodes; the end marks of scalars
 * and flow collections; values, styles and flow flags; no tag or anchor;
 * and libyaml reads the whole text without an error).  Otherwise it
 * returns the difference, which the caller frees.
 *
 * Include once per program; it defines static functions.
 * Includes: text/yamlfast_int.h, text/yamldoc.h, util.h, libyaml.
 */
#ifndef CPL_YAMLFAST_DIFF_H
#define CPL_YAMLFAST_DIFF_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "text/yamldoc.h"
#include "text/yamlfast_int.h"
#include "util.h"

/* The fast event type of a libyaml event; -1 for stream start. */
static int
yfd_type(yaml_event_type_t t)
{
	switch (t) {
	case YAML_DOCUMENT_START_EVENT: return CPL_YFE_DOC_START;
	case YAML_DOCUMENT_END_EVENT: return CPL_YFE_DOC_END;
	case YAML_SCALAR_EVENT: return CPL_YFE_SCALAR;
	case YAML_SEQUENCE_START_EVENT: return CPL_YFE_SEQ_START;
	case YAML_SEQUENCE_END_EVENT: return CPL_YFE_SEQ_END;
	case YAML_MAPPING_START_EVENT: return CPL_YFE_MAP_START;
	case YAML_MAPPING_END_EVENT: return CPL_YFE_MAP_END;
	case YAML_STREAM_END_EVENT: return CPL_YFE_STREAM_END;
	default: return -1;
	}
}

static int
yfd_style(yaml_scalar_style_t st)
{
	switch (st) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE: return CPL_YS_SINGLE;
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return CPL_YS_DOUBLE;
	case YAML_LITERAL_SCALAR_STYLE: return CPL_YS_LITERAL;
	case YAML_FOLDED_SCALAR_STYLE: return CPL_YS_FOLDED;
	default: return CPL_YS_PLAIN;
	}
}

/* How fast event fe differs from libyaml's e, or NULL. */
static char *
yfd_event(const struct cpl_yfast *f, const struct cpl_yfev *fe,
	  const yaml_event_t *e, const char *text)
{
	int t = yfd_type(e->type);

	if (fe->type != t)
		return cpl_xasprintf("type %d, libyaml %d", fe->type, t);
	if ((t == CPL_YFE_SCALAR || t == CPL_YFE_SEQ_START ||
	     t == CPL_YFE_MAP_START) &&
	    ((size_t)fe->line != e->start_mark.line ||
	     (size_t)fe->column != e->start_mark.column ||
	     fe->index != e->start_mark.index))
		return cpl_xasprintf("mark %d:%d @%zu, libyaml %zu:%zu @%zu",
				     fe->line, fe->column, fe->index,
				     (size_t)e->start_mark.line,
				     (size_t)e->start_mark.column,
				     (size_t)e->start_mark.index);
	/* The end marks an edit reads (yamledit.c). */
	if ((t == CPL_YFE_SCALAR || fe->flow) &&
	    ((size_t)fe->eline != e->end_mark.line ||
	     (size_t)fe->ecolumn != e->end_mark.column ||
	     fe->eindex != e->end_mark.index))
		return cpl_xasprintf("end %d:%d @%zu, libyaml %zu:%zu @%zu",
				     fe->eline, fe->ecolumn, fe->eindex,
				     (size_t)e->end_mark.line,
				     (size_t)e->end_mark.column,
				     (size_t)e->end_mark.index);
	if (t == CPL_YFE_SEQ_START &&
	    (fe->flow != (e->data.sequence_start.style ==
			  YAML_FLOW_SEQUENCE_STYLE) ||
	     e->data.sequence_start.anchor || e->data.sequence_start.tag))
		return cpl_xasprintf("sequence style, tag or anchor");
	if (t == CPL_YFE_MAP_START &&
	    (fe->flow != (e->data.mapping_start.style ==
			  YAML_FLOW_MAPPING_STYLE) ||
	     e->data.mapping_start.anchor || e->data.mapping_start.tag))
		return cpl_xasprintf("mapping style, tag or anchor");
	if (t == CPL_YFE_SCALAR) {
		const char *v = cpl_yfast_value(f, fe, text);

		if (e->data.scalar.tag || e->data.scalar.anchor)
			return cpl_xasprintf("libyaml has a tag or anchor");
		if (fe->style != yfd_style(e->data.scalar.style))
			return cpl_xasprintf("style %d, libyaml %d",
					     fe->style,
					     yfd_style(e->data.scalar.style));
		if (fe->len != e->data.scalar.length ||
		    memcmp(v, e->data.scalar.value, fe->len) != 0)
			return cpl_xasprintf("value \"%.*s\", libyaml \"%s\"",
					     (int)fe->len, v,
					     (const char *)e->data.scalar.value);
	}
	return NULL;
}

static char *
yamlfast_diff(const char *text, size_t len, bool *read)
{
	struct cpl_yfast f = { 0 };
	yaml_parser_t p;
	char *copy = cpl_xstrndup(text, len);	/* a NUL after its end */
	char *diff = NULL, *d;
	size_t i = 0;
	int done = 0;

	*read = cpl_yfast_read(&f, copy, len) == 0;
	free(copy);
	if (!*read) {
		cpl_yfast_free(&f);
		return NULL;
	}
	if (!yaml_parser_initialize(&p)) {
		cpl_yfast_free(&f);
		return cpl_xstrdup("cannot start libyaml");
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!done && diff == NULL) {
		yaml_event_t e;

		if (!yaml_parser_parse(&p, &e)) {
			diff = cpl_xasprintf("read fast, but libyaml fails: %s "
					     "(line %zu column %zu)",
					     p.problem ? p.problem : "?",
					     (size_t)p.problem_mark.line + 1,
					     (size_t)p.problem_mark.column +
					     1);
			break;
		}
		done = e.type == YAML_STREAM_END_EVENT;
		if (yfd_type(e.type) >= 0) {
			if (i >= f.n)
				diff = cpl_xasprintf("event %zu: libyaml has "
						     "more", i);
			else if ((d = yfd_event(&f, &f.ev[i], &e, text))) {
				diff = cpl_xasprintf("event %zu (line %zu): "
						     "%s", i,
						     (size_t)e.start_mark.line
						     + 1, d);
				free(d);
			}
			i++;
		}
		yaml_event_delete(&e);
	}
	if (diff == NULL && i != f.n)
		diff = cpl_xasprintf("%zu events, libyaml %zu", f.n, i);
	yaml_parser_delete(&p);
	cpl_yfast_free(&f);
	return diff;
}

#endif
