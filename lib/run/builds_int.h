/*
 * builds_int.h — which Dockerfile builds an image, as the repository's build
 * files say (builds.c): Makefile, docker-compose, skaffold, GitHub
 * workflows.  The list owns its strings; cpl_builds_free() frees them.
 */
#ifndef CPL_BUILDS_H
#define CPL_BUILDS_H

#include <stdbool.h>
#include <stddef.h>

struct cpl_engine;

/* One build: the image it tags, its Dockerfile and its context (paths
 * relative to the folder the run starts in). */
struct cpl_build {
	char *image;
	char *dockerfile;
	char *context;
};

struct cpl_builds {
	struct cpl_build *v;
	size_t n;
	size_t cap;
};

/* Reads the build files at the run's starting folder into *b (zeroed
 * first); a file that cannot be read or parsed adds nothing. */
void cpl_builds_read(struct cpl_builds *b, struct cpl_engine *e);
/* The build of image, or NULL (borrowed from b). */
const struct cpl_build *cpl_builds_find(const struct cpl_builds *b,
					const char *image);
/* The Dockerfiles (Dockerfile, Dockerfile.*, *.Dockerfile, Containerfile)
 * under root (a directory the run walks, "." the starting folder),
 * outside vendored and hidden folders and the configured excludes, in a
 * bounded walk: at most max paths into out (caller frees each and out),
 * in the order listed; returns how many.  None when the run reads the
 * index (--staged). */
size_t cpl_builds_dockerfiles(char **out, size_t max, struct cpl_engine *e,
			      const char *root);
/*
 * Where to search for file's repository Dockerfiles: the nearest folder
 * above file holding .git (up to the starting folder when file is below
 * it), else the starting folder ".", or, for a file outside it, the
 * directory of the run that holds it.  Borrowed (engine-owned).
 */
const char *cpl_builds_root_of(struct cpl_engine *e, const char *file);
/* Whether path lies in a vendored folder (vendor/, third_party/ ...). */
bool cpl_builds_vendored(const char *path);
void cpl_builds_free(struct cpl_builds *b);	/* zeroes it */

#endif
