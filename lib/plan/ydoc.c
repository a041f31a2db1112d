/*
 * ydoc.c — YAML documents to JSON trees (libyaml's loader, scalars typed
 * by the core schema) and JSON trees to block YAML (libyaml's emitter,
 * strings quoted where they would read back as another type).  See
 * ydoc_int.h.  Depth is bounded (MAX_DEPTH) so that a hostile nesting cannot
 * exhaust the stack; the loader's own limits bound the rest.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "plan/ydoc_int.h"

#define MAX_DEPTH 256

static bool
all_digits(const char *s, const char *digits)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (strchr(digits, *s) == NULL)
			return false;
	return true;
}

/* A plain scalar typed by YAML 1.2's core schema; NULL: a string. */
static json_t *
typed(const char *s)
{
	const char *d = s;
	char *end;

	if (*s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0)
		return json_null();
	if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 ||
	    strcmp(s, "TRUE") == 0)
		return json_true();
	if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 ||
	    strcmp(s, "FALSE") == 0)
		return json_false();
	if (*d == '-' || *d == '+')
		d++;
	if (all_digits(d, "0123456789")) {
		long long v;

		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno == 0 && *end == '\0')
			return json_integer(v);
		return NULL;
	}
	if ((strncmp(s, "0x", 2) == 0 && all_digits(s + 2,
			"0123456789abcdefABCDEF")) ||
	    (strncmp(s, "0o", 2) == 0 && all_digits(s + 2, "01234567"))) {
		long long v;

		errno = 0;
		v = strtoll(s + 2, &end, s[1] == 'x' ? 16 : 8);
		if (errno == 0 && *end == '\0')
			return json_integer(v);
		return NULL;
	}
	if (strcmp(d, ".inf") == 0 || strcmp(d, ".Inf") == 0 ||
	    strcmp(d, ".INF") == 0 || strcmp(s, ".nan") == 0 ||
	    strcmp(s, ".NaN") == 0 || strcmp(s, ".NAN") == 0)
		return NULL;	/* JSON has no infinity or NaN: kept as text */
	/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
	{
		const char *p = d;
		bool digits = false;

		while (*p >= '0' && *p <= '9')
			p++, digits = true;
		if (*p == '.') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++, digits = true;
		}
		if (!digits)
			return NULL;
		if (*p == 'e' || *p == 'E') {
			p++;
			if (*p == '-' || *p == '+')
				p++;
			if (!(*p >= '0' && *p <= '9'))
				return NULL;
			while (*p >= '0' && *p <= '9')
				p++;
		}
		if (*p != '\0')
			return NULL;
		errno = 0;
		{
			double v = strtod(s, &end);

			if (errno != 0 || *end != '\0' || !isfinite(v))
				return NULL;
			return json_real(v);
		}
	}
}

static json_t *
convert(yaml_document_t *doc, yaml_node_t *node, int depth)
{
	json_t *v = NULL;

	if (node == NULL || depth > MAX_DEPTH)
		return NULL;
	switch (node->type) {
	case YAML_SCALAR_NODE: {
		const char *s = (const char *)node->data.scalar.value;

		if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		    (node->tag == NULL || strcmp((const char *)node->tag,
						 YAML_DEFAULT_SCALAR_TAG) == 0 ||
		     strcmp((const char *)node->tag, "?") == 0))
			v = typed(s);
		if (v == NULL)
			v = json_stringn(s, node->data.scalar.length);
		if (v == NULL)	/* not UTF-8 */
			v = json_string("");
		return v;
	}
	case YAML_SEQUENCE_NODE: {
		yaml_node_item_t *it;

		v = json_array();
		for (it = node->data.sequence.items.start;
		     it < node->data.sequence.items.top; it++) {
			json_t *x = convert(doc, yaml_document_get_node(doc,
							*it), depth + 1);

			if (x == NULL) {
				json_decref(v);
				return NULL;
			}
			json_array_append_new(v, x);
		}
		return v;
	}
	case YAML_MAPPING_NODE: {
		yaml_node_pair_t *p;

		v = json_object();
		for (p = node->data.mapping.pairs.start;
		     p < node->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			json_t *x;

			if (k == NULL || k->type != YAML_SCALAR_NODE)
				continue;	/* complex keys: not in k8s */
			x = convert(doc, yaml_document_get_node(doc, p->value),
				    depth + 1);
			if (x == NULL) {
				json_decref(v);
				return NULL;
			}
			json_object_set_new(v, (const char *)
					    k->data.scalar.value, x);
		}
		return v;
	}
	default:
		return json_null();
	}
}

int
cpl_ydoc_load(struct cpl_ydoc **docs, size_t *n, const char *path,
	      const char *text, size_t len, struct cpl_error *err)
{
	yaml_parser_t parser;
	struct cpl_ydoc *out = NULL;
	size_t cap = 0, count = 0;
	int rc = -1;

	*docs = NULL;
	*n = 0;
	if (!yaml_parser_initialize(&parser)) {
		cpl_error_set(err, path, 0, 0, "libyaml cannot start");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
				     len);
	for (;;) {
		yaml_document_t doc;
		yaml_node_t *root;
		json_t *v;

		if (!yaml_parser_load(&parser, &doc)) {
			cpl_error_set(err, path,
				      (int)parser.problem_mark.line + 1,
				      (int)parser.problem_mark.column + 1,
				      "not YAML: %s", parser.problem ?
				      parser.problem : "cannot be read");
			goto out;
		}
		root = yaml_document_get_root_node(&doc);
		if (root == NULL) {
			yaml_document_delete(&doc);
			break;
		}
		v = convert(&doc, root, 0);
		if (v == NULL) {
			cpl_error_set(err, path, (int)root->start_mark.line + 1,
				      (int)root->start_mark.column + 1,
				      "nested deeper than %d levels",
				      MAX_DEPTH);
			yaml_document_delete(&doc);
			goto out;
		}
		CPL_GROW(out, cap, count + 1);
		out[count].root = v;
		out[count].line = (int)root->start_mark.line + 1;
		count++;
		yaml_document_delete(&doc);
	}
	rc = 0;
out:
	yaml_parser_delete(&parser);
	if (rc < 0) {
		cpl_ydoc_free(out, count);
		return -1;
	}
	*docs = out;
	*n = count;
	return 0;
}

void
cpl_ydoc_free(struct cpl_ydoc *docs, size_t n)
{
	size_t i;

	if (docs == NULL)
		return;
	for (i = 0; i < n; i++)
		json_decref(docs[i].root);
	free(docs);
}

const struct cpl_ydoc *
cpl_ydoc_at(const struct cpl_ydoc *docs, size_t n, int line)
{
	const struct cpl_ydoc *best = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (docs[i].line <= line)
			best = &docs[i];
	return best;
}

/* libyaml's output handler: into a cpl_buf. */
static int
on_write(void *ctx, unsigned char *p, size_t size)
{
	cpl_buf_add(ctx, p, size);
	return 1;
}

static int
scalar(yaml_emitter_t *e, const char *s, size_t len,
       yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
					  (yaml_char_t *)s, (int)len, 1, 1,
					  style))
		return -1;
	return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static int
emit(yaml_emitter_t *e, const json_t *v, int depth)
{
	yaml_event_t ev;
	char num[64];

	if (depth > MAX_DEPTH)
		return -1;
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *k;
		json_t *x;

		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
				json_object_size(v) ? YAML_BLOCK_MAPPING_STYLE :
				YAML_FLOW_MAPPING_STYLE) ||
		    !yaml_emitter_emit(e, &ev))
			return -1;
		json_object_foreach((json_t *)v, k, x) {
			json_t *kt = typed(k);
			bool quote = kt != NULL;

			json_decref(kt);
			if (scalar(e, k, strlen(k), quote ?
				   YAML_DOUBLE_QUOTED_SCALAR_STYLE :
				   YAML_ANY_SCALAR_STYLE) < 0 ||
			    emit(e, x, depth + 1) < 0)
				return -1;
		}
		if (!yaml_mapping_end_event_initialize(&ev) ||
		    !yaml_emitter_emit(e, &ev))
			return -1;
		return 0;
	}
	case JSON_ARRAY: {
		size_t i;

		if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
				json_array_size(v) ? YAML_BLOCK_SEQUENCE_STYLE :
				YAML_FLOW_SEQUENCE_STYLE) ||
		    !yaml_emitter_emit(e, &ev))
			return -1;
		for (i = 0; i < json_array_size(v); i++)
			if (emit(e, json_array_get(v, i), depth + 1) < 0)
				return -1;
		if (!yaml_sequence_end_event_initialize(&ev) ||
		    !yaml_emitter_emit(e, &ev))
			return -1;
		return 0;
	}
	case JSON_STRING: {
		const char *s = json_string_value(v);
		size_t len = json_string_length(v);
		json_t *t = typed(s);
		yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;

		if (t != NULL || len == 0)
			style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		else if (memchr(s, '\n', len))
			style = YAML_LITERAL_SCALAR_STYLE;
		json_decref(t);
		return scalar(e, s, len, style);
	}
	case JSON_INTEGER:
		cpl_format(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
			   json_integer_value(v));
		return scalar(e, num, strlen(num), YAML_PLAIN_SCALAR_STYLE);
	case JSON_REAL:
		{
			int prec;

			/* the shortest that reads back the same */
			for (prec = 15; prec <= 17; prec++) {
				cpl_format(num, sizeof(num), "%.*g", prec,
					   json_real_value(v));
				if (strtod(num, NULL) == json_real_value(v))
					break;
			}
		}
		if (strpbrk(num, ".eE") == NULL) {
			size_t l = strlen(num);

			if (l + 2 < sizeof(num))
				memcpy(num + l, ".0", 3);
		}
		return scalar(e, num, strlen(num), YAML_PLAIN_SCALAR_STYLE);
	case JSON_TRUE:
		return scalar(e, "true", 4, YAML_PLAIN_SCALAR_STYLE);
	case JSON_FALSE:
		return scalar(e, "false", 5, YAML_PLAIN_SCALAR_STYLE);
	default:
		return scalar(e, "null", 4, YAML_PLAIN_SCALAR_STYLE);
	}
}

int
cpl_ydoc_emit(struct cpl_buf *out, const json_t *v, bool start)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int rc = -1;

	if (!yaml_emitter_initialize(&e))
		return -1;
	yaml_emitter_set_output(&e, on_write, out);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	yaml_emitter_set_indent(&e, 2);
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
	    !yaml_emitter_emit(&e, &ev))
		goto out;
	if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL,
						  start ? 0 : 1) ||
	    !yaml_emitter_emit(&e, &ev))
		goto out;
	if (emit(&e, v, 0) < 0)
		goto out;
	if (!yaml_document_end_event_initialize(&ev, 1) ||
	    !yaml_emitter_emit(&e, &ev) ||
	    !yaml_stream_end_event_initialize(&ev) ||
	    !yaml_emitter_emit(&e, &ev) || !yaml_emitter_flush(&e))
		goto out;
	rc = 0;
out:
	yaml_emitter_delete(&e);
	return rc;
}
