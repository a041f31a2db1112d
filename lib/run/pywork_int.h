/*
 * pywork_int.h — workloads declared in Python files: Flyte tasks,
 * Kubeflow Pipelines v2 components and their tasks, Metaflow steps, Ray
 * Train TorchTrainers, ZenML steps.  First what the run wing calls
 * (pipeline.c: cpl_pywork_load() and its screens), then what the two
 * files of the reader share: pywork_py.c (reading a declaration: tokens,
 * values, decorators, the code a workload is given, building it) below
 * pywork.c (each framework's declarations, and cpl_pywork_load()).
 * Private to the run wing.
 *
 * Ownership: workloads and skipped declarations are appended to the
 * caller's list; text and path are borrowed for the call.  A struct
 * cpl_pyw_rd borrows its file and list for one reading; its decorator
 * targets are its own (freed by cpl_pywork_load).
 */
#ifndef CPL_PYWORK_INT_H
#define CPL_PYWORK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/workload.h"
#include "python/pyscan.h"

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

/* Decorators kept of one def. */
#define CPL_PYW_MAX_DECOS 8
/* Workloads one file may declare: each holds a copy of the file. */
#define CPL_PYW_MAX_WORKLOADS 512

/* A decorator: what it names (through the imports) and its call (-1:
 * not called). */
struct cpl_pyw_deco {
	char *target;		/* "flytekit.task", "metaflow.kubernetes" */
	int call;
	struct cpl_pos pos;	/* the '@' */
};

/* The decorators of one def. */
struct cpl_pyw_decos {
	struct cpl_pyw_deco d[CPL_PYW_MAX_DECOS];
	size_t n;
	int first_line;		/* the first decorator's line */
};

/* One reading of a file. */
struct cpl_pyw_rd {
	const struct cpl_pyfile *f;
	const struct cpl_pytoken *t;
	struct cpl_pyw_decos *by_scope;	/* [scope]: its decorators */
	bool *decl;		/* [scope]: a declared function (a task,
				 * a component, a step) */
	struct cpl_wlist *out;
	size_t nout;		/* workloads emitted */
};

/* Value states of what a declaration says. */
enum cpl_pyw_vstate {
	CPL_PYW_ABSENT,
	CPL_PYW_KNOWN,
	CPL_PYW_UNKNOWN,
};

/* Whether token i is of kind k and, with s, spelled s. */
bool cpl_pyw_tok_is(const struct cpl_pyw_rd *r, size_t i, enum cpl_pytok_kind k,
		    const char *s);

/* A string token's contents when it is a plain literal (no f-string, no
 * escape), copied; NULL otherwise. */
char *cpl_pyw_str_lit(const struct cpl_pyw_rd *r, size_t i);

/* The call expression e is, through one name; -1 when it is none. */
int cpl_pyw_expr_call(const struct cpl_pyw_rd *r, const struct cpl_pyexpr *e,
		      int depth);

/* Whether dotted name s ends in the component last. */
bool cpl_pyw_ends_name(const char *s, const char *last);

/* The keyword argument kw of call k (NULL: none). */
const struct cpl_pyarg *cpl_pyw_kwarg(const struct cpl_pyw_rd *r, int k,
				      const char *kw);

/* The positional argument n of call k (NULL: none). */
const struct cpl_pyarg *cpl_pyw_posarg(const struct cpl_pyw_rd *r, int k,
				       size_t n);

/* Whether call k passes *args or **kwargs (anything may hide there). */
bool cpl_pyw_spread(const struct cpl_pyw_rd *r, int k);

/* A CPU (or GPU) amount written as e: a string or number literal, or a
 * name bound once to one; *millis in millicores.  With whole, a count
 * (GPUs): *millis is the number itself. */
enum cpl_pyw_vstate cpl_pyw_amount(const struct cpl_pyw_rd *r,
				   const struct cpl_pyexpr *e, int64_t *millis,
				   bool whole, int depth);

/* A count resolved as the code resolves one (literals, names, simple
 * arithmetic); -1 when it is not known. */
long cpl_pyw_count(const struct cpl_pyw_rd *r, const struct cpl_pyexpr *e);

/* The value of key (a string) in dict display e: 1 and *val when there,
 * 0 when the display lacks it, -1 when e is no display the text fixes. */
int cpl_pyw_dict_get(const struct cpl_pyw_rd *r, const struct cpl_pyexpr *e,
		     const char *key, struct cpl_pyexpr *val, int depth);

/* Reads every decorator of the file and gives each def its own. */
void cpl_pyw_read_decorators(struct cpl_pyw_rd *r);

/* The decorator of scope s whose target is under module mod (a prefix
 * "flytekit", "kfp") and whose last name is last; NULL when none. */
const struct cpl_pyw_deco *cpl_pyw_deco_of(const struct cpl_pyw_rd *r, size_t s,
					   const char *mod, const char *last);

/* The code of a workload whose function is scope s, as container c's
 * inline script laid at the file's lines: the module's own statements
 * and what s reaches (reach()), every other def and class blanked; with
 * only, s's lines alone (a KFP component ships only its function). */
void cpl_pyw_keep_code(const struct cpl_pyw_rd *r, struct cpl_container *c,
		       size_t s, bool only);

/* A new workload of kind kind, named name[replica], with one container
 * named cname declared at pos; the file is r's. */
struct cpl_workload *cpl_pyw_new_workload(const struct cpl_pyw_rd *r,
					  const char *kind, const char *name,
					  const char *replica,
					  const char *cname, struct cpl_pos pos,
					  const char *note);

/* pos of a file fact, moved to w's copy of the path. */
struct cpl_pos cpl_pyw_at(const struct cpl_workload *w, struct cpl_pos pos);

/* Lists a declaration as not judged, and why. */
void cpl_pyw_not_judged(const struct cpl_pyw_rd *r, const char *what,
			const char *name, struct cpl_pos pos, const char *why);

/* Appends w to the run's workloads: at most CPL_PYW_MAX_WORKLOADS a file, each
 * with a copy of the file as its code; past them, not judged. */
void cpl_pyw_emit(struct cpl_pyw_rd *r, struct cpl_workload *w);

/* The CPU and GPUs of a Resources-like call k into *cpu, *gpus (each
 * CPL_PYW_ABSENT when not given); cpu_kw and gpu_kw are its keywords.  False
 * with *why when a value is not fixed by the text. */
bool cpl_pyw_read_res(const struct cpl_pyw_rd *r, int k, const char *cpu_kw,
		      const char *gpu_kw, bool cpu_whole, int64_t *cpu,
		      enum cpl_pyw_vstate *cs, struct cpl_pos *cpos, long *gpus,
		      const char **why);

/* Adds env from dict display e (string keys and values) to c; false when
 * the display is not one the text fixes. */
bool cpl_pyw_read_env(const struct cpl_pyw_rd *r, struct cpl_container *c,
	 const struct cpl_workload *w, const struct cpl_pyexpr *e);

/* Sets c's CPU: a request and limit as the framework reads them. */
void cpl_pyw_set_cpu(const struct cpl_workload *w, struct cpl_container *c,
	int64_t req, enum cpl_pyw_vstate rs, struct cpl_pos rpos, int64_t lim,
	enum cpl_pyw_vstate ls, struct cpl_pos lpos);

#endif
