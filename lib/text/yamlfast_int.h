/*
 * yamlfast_int.h — libyaml's parse events for the YAML most manifests are
 * written in, read without libyaml, or a refusal.
 *
 * cpl_yfast_read() reads a text as a stream of parse events: the same
 * events, marks, values and styles libyaml 0.2.5's yaml_parser_parse()
 * gives for it, or -1 ("not mine") and nothing else.  It knows a subset
 * of YAML: printable ASCII with line feeds; block mappings with keys on
 * one line, block sequences (indentless ones too), flow sequences and
 * mappings (JSON too) whose keys and plain scalars each sit on one
 * line, quoted scalars on one line, literal and folded block scalars
 * without an indentation indicator, comments, and documents split by
 * "---" and ended by "...".  Everything else (tabs, carriage returns,
 * other bytes, anchors, aliases, tags, directives, complex keys,
 * multi-line plain or quoted scalars, and every error) is refused, and
 * the caller parses the text with libyaml, whose events and error
 * messages are the reference.  So a text is never accepted here that
 * libyaml rejects, and refusing is always safe.
 *
 * tests/unit/test_yamlfast.c holds the two to the same events, over
 * every YAML and JSON file of testdata/, texts made to probe each rule
 * and mutations of them.
 *
 * Ownership: the events and the values they do not borrow from the text
 * live in the struct cpl_yfast, freed with cpl_yfast_free(); a value
 * that is a slice of the text borrows it.
 */
#ifndef CPL_YAMLFAST_H
#define CPL_YAMLFAST_H

#include <stdbool.h>
#include <stddef.h>

enum cpl_yfev_type {
	CPL_YFE_DOC_START,
	CPL_YFE_DOC_END,
	CPL_YFE_SCALAR,
	CPL_YFE_SEQ_START,
	CPL_YFE_SEQ_END,
	CPL_YFE_MAP_START,
	CPL_YFE_MAP_END,
	CPL_YFE_STREAM_END,
};

/* One event.  Marks as libyaml's start_mark: 0-based line and column, and
 * the byte index (the text is ASCII, so characters are bytes); the end
 * mark as libyaml's end_mark where an edit needs it (scalars, and flow
 * collections' start and end events), else the start.  Scalars carry
 * their value (cpl_yfast_value()) and style (enum cpl_ystyle). */
struct cpl_yfev {
	unsigned char type;		/* enum cpl_yfev_type */
	unsigned char style;		/* scalars: enum cpl_ystyle */
	bool own;			/* the value is in the scratch text */
	bool flow;			/* collections: [..] or {..} */
	int line;
	int column;
	size_t index;
	int eline;			/* the end mark */
	int ecolumn;
	size_t eindex;
	size_t voff;			/* value: offset in the text or in
					 * the scratch text */
	size_t len;
};

/* Events handed to a sink at once (cpl_yfast.sink). */
#define CPL_YFAST_BATCH 4096

struct cpl_yfast {
	struct cpl_yfev *ev;
	size_t n, cap;
	char *scratch;			/* values that are not slices of the
					 * text: folded, unescaped */
	size_t slen, scap;
	/* Optional, set before reading: the events read so far are handed
	 * to sink every CPL_YFAST_BATCH events and at the end (the last
	 * batch ends with STREAM_END), and ev starts over, so a reader that
	 * builds as it goes holds one batch, not all the text's events
	 * (56 bytes each: more than the text).  Values in the scratch text
	 * stay valid to the end of the read.  A refusal may come after
	 * batches were handed over: the caller drops what it made of them. */
	void (*sink)(void *ctx, const struct cpl_yfast *f);
	void *sink_ctx;
};

/* Reads text (len bytes, and text[len] a NUL the scans stop at) into f's
 * events (f zeroed or reused: its events are replaced), or through
 * f->sink.  0: read; -1: not in the subset, f's events (and what a sink
 * was handed) are meaningless and libyaml must read the text. */
int cpl_yfast_read(struct cpl_yfast *f, const char *text, size_t len);
/* The value of scalar event e read from text (not NUL-terminated). */
const char *cpl_yfast_value(const struct cpl_yfast *f,
			    const struct cpl_yfev *e, const char *text);
void cpl_yfast_free(struct cpl_yfast *f);

#endif
