/*
 * pywork.h — workloads declared in Python files (pywork.c): Flyte tasks,
 * Kubeflow Pipelines v2 components and their tasks, Metaflow steps, Ray
 * Train TorchTrainers, ZenML steps.
 *
 * Ownership: workloads and skipped declarations are appended to out
 * (the list's); text and path are borrowed for the call.
 */
#ifndef CPL_PYWORK_H
#define CPL_PYWORK_H

#include <stdbool.h>
#include <stddef.h>

#include "model/workload.h"

/* Whether text names one of the frameworks at all (a cheap screen). */
bool cpl_pywork_screen(const char *text, size_t len);
/*
 * Whether f imports one of the frameworks (at the top level of a module
 * path): the test cpl_pywork_load() makes of its own scan's imports, so
 * a file for which this is false declares nothing.  A light scan's
 * imports will do (pyscan.h: the same as a full scan's); f is borrowed.
 */
struct cpl_pyfile;
bool cpl_pywork_declares(const struct cpl_pyfile *f);

/*
 * Reads the workloads Python file path (text[0, len), NUL at len)
 * declares, appending them to out; a declaration whose values the file
 * does not fix is appended to out's skipped, not judged, with why.  A
 * file that imports none of the frameworks adds nothing.  Returns 0.
 */
int cpl_pywork_load(struct cpl_wlist *out, const char *path,
		    const char *text, size_t len);

#endif
