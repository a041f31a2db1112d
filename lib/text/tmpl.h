/*
 * tmpl.h — tells a Go/Helm template from YAML: a `{{ … }}` action where
 * YAML expects a node, outside any string.
 *
 * Inside a string a template is data, and Polyaxonfiles rely on it
 * (`"--lr={{ lr }}"`, `--lr={{ lr }}` inside a plain scalar, block
 * scalars): those are never reported.  Outside one, YAML reads `{{ x }}`
 * as a flow mapping whose key is a flow mapping (parses, but means
 * nothing), or fails to parse (`{{- if .Values.x }}` on its own line).
 *
 * Both functions only read; positions are 1-based.
 */
#ifndef CPL_TMPL_H
#define CPL_TMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "text/yamldoc.h"

/*
 * A parsed stream holds a template action: a mapping written `{{` whose
 * key is itself a mapping.  *line and *column are the action's.  Linear
 * in the nodes (the visit is capped, so an alias-heavy tree cannot hang).
 */
bool cpl_tmpl_in_stream(const struct cpl_ystream *s, int *line,
			int *column);

/*
 * Text that failed to parse holds a template action where a node starts:
 * at the start of a line's content (after any `- ` markers), right after
 * a key's `: `, or as an item of a flow sequence, outside quotes,
 * comments and block scalars.  One pass over the text.
 */
bool cpl_tmpl_in_text(const char *text, size_t len, int *line, int *column);

#endif
