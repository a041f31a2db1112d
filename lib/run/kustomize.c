/*
 * kustomize.c — the patches of kustomize overlays are not objects of
 * their own.  A kustomization (kustomization.yaml, kustomization.yml or
 * Kustomization) names files that kustomize lays over the objects of its
 * resources (`patches[].path`, `patchesStrategicMerge[]`): such a file
 * holds only the fields it changes, so judging it alone reports what it
 * does not say (a patch that sets env has no resources).  Its documents
 * are taken out of the run and recorded as skipped, with the reason and
 * the command that judges the built objects instead; a document of it
 * whose every container names its image is a manifest of its own and is
 * judged (a kustomization cannot hide a real manifest).
 *
 * Runs once per run, after every file is loaded and before the group
 * graph (group.c).  Owns nothing after it returns.
 */
#include "run/engine_int.h"

#include <stdlib.h>
#include <string.h>

#include "model/link.h"
#include "text/yamldoc.h"

/* Whether path names a kustomization file. */
static bool
is_kustomization(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strcmp(base, "kustomization.yaml") == 0 ||
	       strcmp(base, "kustomization.yml") == 0 ||
	       strcmp(base, "Kustomization") == 0;
}

/*
 * Whether w is a patch in its own right: some container does not name
 * its image (a strategic-merge patch names a container to change, not
 * what it runs).  A document whose every container names its image is a
 * manifest of its own, which a kustomization that lists it as a patch
 * does not hide: it is judged.
 */
static bool
patch_like(const struct cpl_workload *w)
{
	size_t i;

	for (i = 0; i < w->ncontainers; i++)
		if (w->containers[i].image == NULL ||
		    *w->containers[i].image == '\0')
			return true;
	return w->ncontainers == 0;
}

/* Records patch file rel of the kustomization at kpath (in dir) in
 * patches: normalised path → the kustomization's path. */
static void
add_patch(struct cpl_strmap *patches, const char *dir,
	  const char *kpath, const struct cpl_ynode *rel)
{
	const char *r = cpl_ynode_str(rel);
	char *path, *key;

	if (r == NULL || *r == '\0' || strstr(r, "://") != NULL)
		return;
	path = cpl_link_join(dir, r);
	key = cpl_link_join(".", path);
	free(path);
	if (cpl_strmap_get(patches, key) == NULL)
		cpl_strmap_put(patches, key, (void *)kpath);
	free(key);
}

/* The patch files one kustomization names. */
static void
read_kustomization(struct cpl_engine *e, struct cpl_strmap *patches,
		   const char *kpath)
{
	static const char *const lists[] = {
		"patchesStrategicMerge", "patches", "patchesJson6902",
	};
	struct cpl_error err = { 0 };
	struct cpl_ystream *s = NULL;
	const struct cpl_ynode *doc, *list;
	const char *slash = strrchr(kpath, '/');
	char *text = NULL, *dir;
	size_t len, k, i;

	if (cpl_engine_read_source(e, kpath, &text, &len, &err) < 0 ||
	    cpl_yaml_parse(&s, kpath, text, len, &err) < 0 ||
	    cpl_ystream_count(s) == 0) {
		cpl_error_clear(&err);
		cpl_ystream_free(s);
		free(text);
		return;
	}
	doc = cpl_ystream_doc(s, 0);
	dir = slash ? cpl_xstrndup(kpath, (size_t)(slash - kpath)) :
	      cpl_xstrdup(".");
	for (k = 0; k < CPL_ARRAY_LEN(lists); k++) {
		list = cpl_ynode_get(doc, lists[k]);
		if (!cpl_ynode_is_seq(list))
			continue;
		for (i = 0; i < list->count; i++) {
			const struct cpl_ynode *it = list->items[i];

			if (cpl_ynode_is_scalar(it))
				add_patch(patches, dir, kpath, it);
			else if (cpl_ynode_is_map(it))
				add_patch(patches, dir, kpath,
					  cpl_ynode_get(it, "path"));
		}
	}
	free(dir);
	cpl_ystream_free(s);
	free(text);
}

void
cpl_engine_kustomize(struct cpl_engine *e)
{
	struct cpl_strmap patches = { .own_keys = true };
	struct cpl_wlist *l = &e->res.workloads;
	size_t i, out;
	bool any = false;

	for (i = 0; i < e->load.nfiles; i++)
		if (e->load.files[i]->kind == FILE_YAML &&
		    is_kustomization(e->load.files[i]->path)) {
			read_kustomization(e, &patches, e->load.files[i]->path);
			any = true;
		}
	if (!any)
		return;
	for (i = 0, out = 0; i < l->count; i++) {
		struct cpl_workload *w = l->items[i];
		const char *kpath = NULL;
		char *key;

		if (w->source != CPL_SRC_LIVE && w->file != NULL &&
		    !w->merged && w->trainer == NULL && patch_like(w)) {
			key = cpl_link_join(".", w->file);
			kpath = cpl_strmap_get(&patches, key);
			free(key);
		}
		if (kpath == NULL) {
			l->items[out++] = w;
			continue;
		}
		{
			const char *slash = strrchr(kpath, '/');
			struct cpl_skip *sk;
			char *why;

			why = cpl_xasprintf("a kustomize patch of %s: only "
					    "the fields it changes (judge the "
					    "built objects: kustomize build "
					    "%.*s | kubectl cpulint -f -)",
					    kpath, slash ? (int)(slash - kpath)
					    : 1, slash ? kpath : ".");
			sk = cpl_wlist_skip(l, w->file, w->pos.line,
					    w->pos.column, why, "%s \"%s\"",
					    w->kind ? w->kind : "object",
					    w->name ? w->name : "");
			free(why);
			sk->kind = w->kind ? cpl_xstrdup(w->kind) : NULL;
			sk->containers = w->ncontainers > 0;
		}
		cpl_workload_free(w);
	}
	l->count = out;
	cpl_strmap_free(&patches);
}
