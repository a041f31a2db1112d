/*
 * loader_test.h — what the loader tests share: parse a YAML text or a
 * file of testdata/loaders/, load every document with one loader, free it
 * all; find a container; check positions and argv words.  Static helpers
 * for one test binary each (include once).
 */
#ifndef CPL_LOADER_TEST_H
#define CPL_LOADER_TEST_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "load/loader.h"

#define DIR "testdata/loaders/"

/* A parsed input and what loading its documents gave. */
struct loaded {
	char *buf;
	struct cpl_ystream *s;
	struct cpl_wlist wl;
	struct cpl_error err;
	int rc;			/* -1 when some document failed */
	int failed_doc;		/* index of the first failing document */
};

/* The loader under test (set by the including file). */
struct loader_under_test {
	bool (*detect)(const struct cpl_ynode *doc);
	int (*load)(struct cpl_wlist *out, const struct cpl_ystream *s,
		    const struct cpl_ynode *doc, const char *path,
		    struct cpl_error *err);
	bool require_detect;	/* every document must be detected */
	bool stop_on_error;	/* stop at the first failing document */
};

static const struct loader_under_test LOADER;

/* Parses text (which must be valid YAML) and loads every document. */
static void
load_text(struct loaded *l, const char *path, const char *text)
{
	struct cpl_error perr = { 0 };
	size_t i;

	memset(l, 0, sizeof(*l));
	l->failed_doc = -1;
	ck_assert_msg(cpl_yaml_parse(&l->s, path, text, strlen(text),
				     &perr) == 0, "%s",
		      perr.message ? perr.message : "");
	for (i = 0; i < cpl_ystream_count(l->s); i++) {
		const struct cpl_ynode *doc = cpl_ystream_doc(l->s, i);

		if (LOADER.require_detect)
			ck_assert(LOADER.detect(doc));
		else if (!LOADER.detect(doc))
			continue;
		if (LOADER.load(&l->wl, l->s, doc, path, &l->err) < 0 &&
		    l->rc == 0) {
			l->rc = -1;
			l->failed_doc = (int)i;
			if (LOADER.stop_on_error)
				break;
		}
	}
}

/* load_text() over a file of testdata/loaders/. */
static void
load_file(struct loaded *l, const char *name)
{
	struct cpl_error err = { 0 };
	char *path = cpl_xasprintf(DIR "%s", name);
	char *buf;
	size_t len;

	ck_assert_msg(cpl_read_file(&buf, &len, path, 1 << 20, &err) == 0,
		      "%s", err.message ? err.message : "");
	load_text(l, path, buf);
	l->buf = buf;
	free(path);
}

static void
loaded_free(struct loaded *l)
{
	cpl_wlist_free(&l->wl);
	cpl_ystream_free(l->s);
	cpl_error_clear(&l->err);
	free(l->buf);
}

/* The container named name in w (fails the test when absent). */
static const struct cpl_container *
container(const struct cpl_workload *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->ncontainers; i++)
		if (cpl_str_eq(w->containers[i].name, name))
			return &w->containers[i];
	ck_abort_msg("no container %s", name);
	return NULL;
}

#define ck_pos(p, l, c)							\
	do {								\
		ck_assert_int_eq((p).line, (l));			\
		ck_assert_int_eq((p).column, (c));			\
	} while (0)

#define ck_word(c, i, want, l, col)					\
	do {								\
		ck_assert_str_eq((c)->argv[i].text, (want));		\
		ck_pos((c)->argv[i].pos, (l), (col));			\
	} while (0)

#endif
