/*
 * CPU304 opencv-threads-unbounded — cv2 runs in the data pipeline (a
 * Dataset's __getitem__, a transform, or what they call) while DataLoader
 * workers > 0, and nothing calls cv2.setNumThreads: each worker process
 * starts its own OpenCV pool of one thread per node CPU.  Judged per
 * process: the files a workload links or an entry script imports (where a
 * Dataset, transform or helper of one module runs in the workers of a
 * DataLoader built in another), or the file alone.  One process, one
 * finding: at the first cv2 call its workers run, since one
 * cv2.setNumThreads anywhere in the process fixes them all.
 */
#include "common.h"
#include "python/pyscan.h"
#include "python/pyvalue.h"

/* The first cv2 call in a data-pipeline scope of f alone, or NULL. */
static const struct cpl_pycall *
pipeline_cv2(const struct cpl_pyfile *f)
{
	size_t s, i;

	for (s = 0; s < f->nscopes; s++) {
		const struct cpl_pyscope *sc = &f->scopes[s];

		if (!(sc->roles & CPL_PYROLE_PIPELINE) || !sc->uses_cv2)
			continue;
		for (i = 0; i < sc->ncalls; i++)
			if (f->calls[sc->calls[i]].kind == CPL_PYCALL_CV2)
				return &f->calls[sc->calls[i]];
	}
	return NULL;
}

static bool
sets_cv2_threads(const struct cpl_pyfile *const *files, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < files[i]->nthreads; j++)
			if (files[i]->threads[j].kind == CPL_PYTHREADS_CV2)
				return true;
	return false;
}

/* Workers > 0 somewhere in the process: *pos gets the DataLoader. */
static bool
has_workers(const struct cpl_code *code, const struct cpl_pyfile *f,
	    struct cpl_pos *pos, long *n)
{
	struct cpl_pyval v;
	size_t i;

	if (code) {
		for (i = 0; i < code->nloaders; i++) {
			v = code->loaders[i].value;
			if ((v.kind == CPL_PYVAL_KNOWN && v.value > 0) ||
			    v.kind == CPL_PYVAL_HOST) {
				*pos = code->loaders[i].pos;
				*n = v.kind == CPL_PYVAL_KNOWN ? v.value : -1;
				return true;
			}
		}
		return false;
	}
	for (i = 0; i < f->nloaders; i++) {
		cpl_pyvalue_loader(&v, f, i, NULL, NULL);
		if ((v.kind == CPL_PYVAL_KNOWN && v.value > 0) ||
		    v.kind == CPL_PYVAL_HOST) {
			*pos = f->loaders[i].pos;
			*n = v.kind == CPL_PYVAL_KNOWN ? v.value : -1;
			return true;
		}
	}
	return false;
}

/* Judges f in one process (code NULL: the file alone, at index 0);
 * true when it reported. */
static bool
judge(struct cpl_check *ck, const struct cpl_pyfile *f,
      const struct cpl_code *code, size_t at)
{
	const struct cpl_pyfile *const *files = code ? code->files : &f;
	size_t nfiles = code ? code->nfiles : 1;
	const struct cpl_pycall *cv;
	struct cpl_finding *fd;
	struct cpl_pos loader = { 0 };
	long n = 0;

	/* One process, one finding: at the first cv2 call its workers run. */
	if (code)
		cv = code->cv2_file == (long)at ? &f->calls[code->cv2_call] :
						  NULL;
	else
		cv = pipeline_cv2(f);
	if (cv == NULL || sets_cv2_threads(files, nfiles) ||
	    !has_workers(code, f, &loader, &n))
		return false;
	if (n > 0)
		fd = cpl_check_report(ck, NULL, NULL, &cv->pos,
			"%s runs in the data pipeline of %ld DataLoader "
			"workers and nothing calls cv2.setNumThreads: each "
			"worker runs its own OpenCV thread pool on top of the "
			"loader's %ld processes", cv->callee, n, n);
	else
		fd = cpl_check_report(ck, NULL, NULL, &cv->pos,
			"%s runs in the data pipeline of DataLoader workers "
			"sized from the host and nothing calls "
			"cv2.setNumThreads: each worker runs its own OpenCV "
			"thread pool on top of the loader's processes",
			cv->callee);
	cpl_finding_add_related(fd, &loader, "the DataLoader");
	cpl_finding_set_fix(fd,
		"call cv2.setNumThreads(0) at the top of the module that "
		"imports cv2 (workers inherit it), or in a worker_init_fn; "
		"the DataLoader workers already give the pipeline its "
		"parallelism");
	return true;
}

/* Judged per process that runs f (the first that shows it reports), or
 * the file alone when none does. */
static void
check(struct cpl_check *ck, const struct cpl_pyfile *f)
{
	const struct cpl_code_ref *refs;
	size_t n = cpl_check_codes_of(ck, f, &refs), i;

	if (n == 0) {
		judge(ck, f, NULL, 0);
		return;
	}
	for (i = 0; i < n; i++)
		if (judge(ck, f, refs[i].code, refs[i].file))
			return;
}

const struct cpl_rule cpl_rule_cpu304 = {
	.id = "CPU304",
	.name = "opencv-threads-unbounded",
	.severity = CPL_SEV_WARNING,
	.summary = "cv2 runs in the data pipeline with DataLoader workers > 0 "
		   "and no cv2.setNumThreads.",
	.precision = "medium",
	.check_code = check,
};
