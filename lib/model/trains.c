/*
 * trains.c — whether linked Python trains: the evidence the budget rules
 * ask for of a container that is not training by its kind (budget.c).  A
 * DataLoader, a .backward() or an optimizer's .step() is training; what
 * a task declared in Python reaches is read by its reach, not by what its
 * imports hold.  Borrows everything; owns nothing.
 */
#include "model/trains_int.h"

#include <ctype.h>
#include <string.h>

#include "model/link.h"
#include "python/pyscan.h"

/* The receiver of a .step() call (callee[0, n)) is an optimizer or an
 * AMP grad scaler: its last name is "opt" or holds "optim" or "scaler". */
static bool
optimizer_name(const char *callee, size_t n)
{
	const char *last = callee;
	char low[64];
	size_t i, len;

	for (i = 0; i < n; i++)
		if (callee[i] == '.')
			last = callee + i + 1;
	len = (size_t)(callee + n - last);
	if (len == 0 || len >= sizeof(low))
		return false;
	for (i = 0; i < len; i++)
		low[i] = (char)tolower((unsigned char)last[i]);
	low[len] = '\0';
	return strcmp(low, "opt") == 0 || strstr(low, "optim") != NULL ||
	       strstr(low, "scaler") != NULL;
}

/* Whether call k of f is a training call: .backward() or an optimizer's
 * .step(). */
static bool
training_call(const struct cpl_pyfile *f, size_t k)
{
	const char *callee = f->calls[k].callee;
	const char *dot = callee ? strrchr(callee, '.') : NULL;

	if (dot == NULL)
		return false;
	return strcmp(dot, ".backward") == 0 ||
	       (strcmp(dot, ".step") == 0 &&
		optimizer_name(callee, (size_t)(dot - callee)));
}

/* Whether scope s of f is root or lies inside it. */
static bool
scope_within(const struct cpl_pyfile *f, int s, int root)
{
	int guard = 0;

	while (s >= 0 && (size_t)s < f->nscopes && guard++ < 64) {
		if (s == root)
			return true;
		s = f->scopes[s].parent;
	}
	return false;
}

/* Whether the body of def root of f (its nested defs too) builds a
 * DataLoader or makes a training call. */
static bool
def_trains(const struct cpl_pyfile *f, int root)
{
	size_t k;

	for (k = 0; k < f->nloaders; k++) {
		int call = f->loaders[k].call;

		if (call >= 0 && (size_t)call < f->ncalls &&
		    scope_within(f, f->calls[call].scope, root))
			return true;
	}
	for (k = 0; k < f->ncalls; k++)
		if (scope_within(f, f->calls[k].scope, root) &&
		    training_call(f, k))
			return true;
	return false;
}

/*
 * A task declared in Python (a Flyte task, a KFP component): its copy
 * of the file (files[0]) keeps only what the task reaches, so a loader
 * or a training call there trains; another module's code trains only
 * through a def of it the task calls by its imported name (batch
 * inference that imports a helper from the module that holds the
 * fine-tuning task trains nothing).
 */
bool
cpl_trains_declared(const struct cpl_code *code)
{
	const struct cpl_pyfile *e;
	size_t i, j, k;

	if (code == NULL || code->nfiles == 0 || !cpl_code_imports_torch(code))
		return false;
	e = code->files[0];
	if (def_trains(e, 0))
		return true;
	for (k = 0; k < e->ncalls; k++) {
		const struct cpl_pycall *call = &e->calls[k];
		const char *name;

		if (call->import < 0 || (size_t)call->import >= e->nimports)
			continue;
		name = e->imports[call->import].name;
		if (name == NULL || strcmp(name, "*") == 0)
			continue;
		for (i = 1; i < code->nfiles; i++) {
			const struct cpl_pyfile *f = code->files[i];

			for (j = 1; j < f->nscopes; j++)
				if (f->scopes[j].name != NULL &&
				    f->scopes[j].parent == 0 &&
				    strcmp(f->scopes[j].name, name) == 0 &&
				    def_trains(f, (int)j))
					return true;
		}
	}
	return false;
}

/*
 * A training script, for a long-running controller whose command starts
 * no launcher: the linked Python imports torch and trains, that is it
 * builds a DataLoader, calls .backward(), or steps an optimizer
 * (optimizer.step(), opt.step(), self.optim.step(), scaler.step(opt)).
 * An inference server imports torch too, but does none of these; a
 * learning-rate scheduler's .step() alone does not count.
 */
bool
cpl_trains_script(const struct cpl_code *code)
{
	size_t i, j;

	if (!cpl_code_imports_torch(code))
		return false;
	if (code->nloaders > 0)
		return true;
	for (i = 0; i < code->nfiles; i++)
		for (j = 0; j < code->files[i]->ncalls; j++)
			if (training_call(code->files[i], j))
				return true;
	return false;
}
