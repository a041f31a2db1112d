/*
 * overlay.c — texts given for paths, read instead of the files
 * (cpl_engine_set_text; see engine_int.h).
 *
 * --fix and --diff lint the fixed text again before anything is written:
 * each pass is a new engine given the texts of the files fixed so far.
 * Paths are matched however they are spelled ("./a.yaml", "a.yaml"),
 * like the engine's sources.
 *
 * Ownership: the engine owns each given text (a copy) and its key until
 * cpl_engine_free(); a read hands out a fresh copy the caller frees.
 */
#include "run/engine_int.h"

#include <stdlib.h>

#include "util.h"

/* One text given for a path. */
struct overlay_text {
	char *key;		/* the normalised path */
	char *text;
	size_t len;
};

void
cpl_engine_set_text(struct cpl_engine *e, const char *path,
		    const char *text, size_t len)
{
	char *key = cpl_link_join(".", path);
	struct overlay_text *o = cpl_strmap_get(&e->set.overlay, key);

	if (o != NULL) {
		free(key);
		free(o->text);
	} else {
		o = cpl_xcalloc(1, sizeof(*o));
		o->key = key;
		CPL_GROW(e->set.overlays, e->set.overlays_cap,
			 e->set.noverlays + 1);
		e->set.overlays[e->set.noverlays++] = o;
		cpl_strmap_put(&e->set.overlay, o->key, o);
	}
	o->text = cpl_xstrndup(text, len);
	o->len = len;
}

int
cpl_engine_overlay_read(const struct cpl_engine *e, const char *path,
			char **text, size_t *len)
{
	const struct overlay_text *o;
	char *key;

	if (e->set.noverlays == 0)
		return -1;
	key = cpl_link_join(".", path);
	o = cpl_strmap_get(&e->set.overlay, key);
	free(key);
	if (o == NULL)
		return -1;
	*text = cpl_xstrndup(o->text, o->len);
	*len = o->len;
	return 0;
}

void
cpl_engine_overlay_free(struct cpl_engine *e)
{
	size_t i;

	for (i = 0; i < e->set.noverlays; i++) {
		free(e->set.overlays[i]->key);
		free(e->set.overlays[i]->text);
		free(e->set.overlays[i]);
	}
	free(e->set.overlays);
	cpl_strmap_free(&e->set.overlay);
}
