/*
 * keep.c — compare --fix's edits (keep.h): the setting a comparison
 * chose, written into a workload's source by CPU401's split fix (a
 * SPLIT request, model/fixreq.h, made into edits at once through
 * fixrun.c), reported by a rule of its own that no lint runs.
 *
 * May include: the run's headers, model/ and fix/.
 */
#include "run/keep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/resolve.h"
#include "model/fixreq.h"
#include "model/pools.h"
#include "model/rule.h"
#include "run/engine.h"
#include "run/engine_int.h"

/* The rule compare --fix's findings carry: in no registry, so no lint
 * runs it and no report names it. */
static const struct cpl_rule keep_rule = {
	.id = "KEEP",
	.name = "compare-keep",
	.severity = CPL_SEV_NOTE,
	.summary = "The setting a comparison chose, kept in the file.",
	.precision = "high",
};

static bool
same_doc(const struct cpl_workload *a, const struct cpl_workload *b)
{
	return a->pos.line == b->pos.line && a->pos.column == b->pos.column &&
	       cpl_str_eq(a->file, b->file);
}

/*
 * Whether the run judged c of wk a training container: it made a budget
 * entry for it.  Asked of the run, not again of the code: after the run
 * the linked files' calls are released (a script whose only sign of
 * training is its .backward() would read as no training here).
 */
static bool
judged_training(const struct cpl_engine *e, const struct cpl_workload *wk,
		const struct cpl_container *c)
{
	const struct cpl_budget_entry *b;
	size_t n, i;
	int line = c->pos.line > 0 ? c->pos.line : wk->pos.line;

	b = cpl_engine_budgets(e, &n);
	for (i = 0; i < n; i++)
		if (b[i].line == line && cpl_str_eq(b[i].file, wk->file) &&
		    cpl_str_eq(b[i].container, c->name))
			return true;
	return false;
}

/* Where a worker count would go, for a refusal. */
static void
refuse_workers(struct cpl_keep_result *r, const char *file,
	       const struct cpl_container *c, const struct cpl_facts *f,
	       long w)
{
	const char *cname = c->name ? c->name : "the container";

	if (f->workers.pos.file &&
	    !cpl_str_eq(f->workers.pos.file, file))
		r->why = cpl_xasprintf("%s: the worker count of container "
			"\"%s\" is set at %s:%d (%s), not in a flag of its "
			"command: pass it as --workers %ld in the command "
			"(and read it in the script), or set it there",
			file, cname, f->workers.pos.file, f->workers.pos.line,
			f->workers.how, w);
	else
		r->why = cpl_xasprintf("%s: container \"%s\" sets no worker "
			"count compare --fix can edit: give its command a "
			"--workers style flag (--workers %ld) that the "
			"script reads as DataLoader(num_workers=...)",
			file, cname, w);
}

/* Copies fd's edits into r; false (and r->why) when one is in another
 * file. */
static bool
take_edits(struct cpl_keep_result *r, const char *file,
	   const struct cpl_finding *fd, const struct cpl_container *c)
{
	size_t i;

	for (i = 0; i < fd->nedits; i++) {
		const struct cpl_edit *x = &fd->edits[i];

		if (x->file == NULL || !cpl_str_eq(x->file, file)) {
			r->why = cpl_xasprintf("%s: the threads of container "
				"\"%s\" are set at %s:%d, not in this file: "
				"set them there, or set OMP_NUM_THREADS in "
				"its env instead", file,
				c->name ? c->name : "", x->file ? x->file : "?",
				x->line);
			return false;
		}
	}
	r->edits = cpl_xrealloc(r->edits, (r->nedits + fd->nedits) *
				sizeof(*r->edits));
	for (i = 0; i < fd->nedits; i++) {
		struct cpl_edit *y = &r->edits[r->nedits++];

		*y = fd->edits[i];
		y->file = cpl_xstrdup(fd->edits[i].file);
		y->text = cpl_xstrdup(fd->edits[i].text);
	}
	return true;
}

static bool
same_pos(const struct cpl_pos *a, const struct cpl_pos *b)
{
	return a->line == b->line && a->column == b->column &&
	       cpl_str_eq(a->file, b->file);
}

/*
 * The place of the word after the worker flag at pos (`--workers 6`),
 * in the script's arguments or the container's argv; NULL when the flag
 * holds its value (`--workers=6`) or none follows.  A command written
 * as a block sequence or a multi-line JSON array puts it on a line of
 * its own.
 */
static const struct cpl_pos *
value_after(const struct cpl_container *c, const struct cpl_pos *pos)
{
	const struct cpl_launch *l = &c->launch;
	size_t i;

	for (i = 0; i + 1 < l->nargs; i++)
		if (same_pos(&l->args[i].pos, pos) &&
		    strchr(l->args[i].text, '=') == NULL)
			return &l->args[i + 1].pos;
	for (i = 0; i + 1 < c->argc; i++)
		if (same_pos(&c->argv[i].pos, pos) &&
		    strchr(c->argv[i].text, '=') == NULL)
			return &c->argv[i + 1].pos;
	return NULL;
}

/*
 * Whether pos is a word of the container's command or of its script's
 * arguments (`--workers 4`, the 4 of it, `--workers=4`): the only places
 * compare --fix writes a worker count.  A count set in the script, or
 * read by it from a flag's default, is not one.
 */
static bool
in_command(const struct cpl_container *c, const struct cpl_pos *pos)
{
	size_t i;

	for (i = 0; i < c->launch.nargs; i++)
		if (same_pos(&c->launch.args[i].pos, pos))
			return true;
	for (i = 0; i < c->argc; i++)
		if (same_pos(&c->argv[i].pos, pos))
			return true;
	return false;
}

/* Replaces the worker count from with to, beside its flag or on the
 * value's own line. */
static bool
replace_workers(struct cpl_engine *e, struct cpl_fixres *r,
		struct cpl_finding *fd, const struct cpl_container *c,
		const struct cpl_pos *pos, long from, long to)
{
	const struct cpl_pos *v;

	cpl_fix_count(fd, pos, from, to);
	if (cpl_engine_fix_finding(e, r, fd))
		return true;
	v = value_after(c, pos);
	if (v == NULL || v->line == pos->line)
		return false;
	cpl_fix_count(fd, v, from, to);
	return cpl_engine_fix_finding(e, r, fd);
}

/* The budget of a record: "1", "0.5", "250m" (millicores otherwise). */
static void
budget_text(char *out, size_t size, int64_t cpu)
{
	if (cpu % 1000 == 0)
		snprintf(out, size, "%lld", (long long)(cpu / 1000));
	else if (cpu % 100 == 0)
		snprintf(out, size, "%lld.%lld", (long long)(cpu / 1000),
			 (long long)(cpu % 1000 / 100));
	else
		snprintf(out, size, "%lldm", (long long)cpu);
}

/*
 * The annotation's edit on wk: "tT-wW on B CPU: measured" (B the budget
 * of its first training container c), unless it holds that already.
 * False (r->why) when it cannot be written.
 */
static bool
record(struct cpl_check *ck, struct cpl_fixres *fr, struct cpl_keep_result *r,
       const char *file,
       const struct cpl_workload *wk, const struct cpl_container *c,
       int64_t cpu, long t, long w, const char *measured)
{
	struct cpl_finding *fd;
	char b[32], *text;
	bool ok = true;

	budget_text(b, sizeof(b), cpu);
	text = w >= 0 ?
	       cpl_xasprintf("t%ld-w%ld on %s CPU: %s", t, w, b, measured) :
	       cpl_xasprintf("t%ld on %s CPU: %s", t, b, measured);
	if (cpl_str_eq(wk->measured, text))
		goto out;
	fd = cpl_check_report(ck, wk, c, &c->pos, "keep measured");
	cpl_fix_annotation(fd, wk, CPL_MEASURED_ANNOTATION, text,
			   wk->measured ? &wk->measured_pos : NULL);
	(void)cpl_engine_fix_finding(ck->e, fr, fd);
	if (fd->nedits == 0) {
		/* The setting is kept all the same; the lint will not
		 * know it was measured. */
		r->unrecorded = true;
		goto out;
	}
	ok = take_edits(r, file, fd, c);
out:
	free(text);
	return ok;
}

/* The pool variables of the kept setting, where c's env writes them as
 * counts; false (r->why) when one cannot be edited. */
static bool
keep_pools(struct cpl_engine *e, struct cpl_fixres *fr,
	   struct cpl_finding *fd, struct cpl_keep_result *r,
	   const char *file, const struct cpl_container *c,
	   const long *pools)
{
	const char *const *vars;
	size_t i, n = cpl_pools_vars(&vars);

	for (i = 0; pools != NULL && i < n; i++) {
		const struct cpl_env *env;
		long v;

		if (pools[i] < 0)
			continue;
		env = cpl_container_env_effective(c, vars[i]);
		if (env == NULL || env->value == NULL ||
		    cpl_parse_long(&v, env->value) < 0 || v == pools[i])
			continue;
		cpl_fix_env_count(fd, &env->pos, v, pools[i], 0);
		if (!cpl_engine_fix_finding(e, fr, fd)) {
			r->why = cpl_xasprintf("%s: container \"%s\" sets %s "
				"in a way compare --fix cannot edit: set it "
				"to \"%ld\"", file, c->name ? c->name : "",
				vars[i], pools[i]);
			return false;
		}
	}
	return true;
}

void
cpl_engine_keep(struct cpl_engine *e, const char *file, long t, long w,
		const long *pools, const char *measured,
		struct cpl_keep_result *r)
{

	const struct cpl_wlist *wl = cpl_engine_workloads(e);
	const struct cpl_workload *first = NULL, *other = NULL;
	struct cpl_check ck;
	struct cpl_fixres *fr;
	size_t i, j;

	cpl_engine_check(&ck, e, &keep_rule, 0);
	memset(r, 0, sizeof(*r));
	for (i = 0; i < wl->count; i++) {
		const struct cpl_workload *wk = wl->items[i];

		if (wk->merged || wk->file == NULL)
			continue;
		for (j = 0; j < wk->ncontainers; j++) {
			if (!judged_training(e, wk, &wk->containers[j]))
				continue;
			if (first == NULL)
				first = wk;
			else if (!same_doc(first, wk) && other == NULL)
				other = wk;
		}
	}
	if (first == NULL) {
		r->why = cpl_xasprintf("%s: no training container to keep "
				       "the setting in", file);
		return;
	}
	if (other != NULL) {
		r->why = cpl_xasprintf("%s: several workloads with training "
			"containers (%s %s at line %d, %s %s at line %d): "
			"compare --fix keeps a setting in a file of one",
			file, first->kind, first->name, first->pos.line,
			other->kind, other->name, other->pos.line);
		return;
	}
	fr = cpl_engine_fixres(e);
	for (i = 0; i < wl->count && r->why == NULL; i++) {
		const struct cpl_workload *wk = wl->items[i];

		const struct cpl_container *c0 = NULL;
		int64_t cpu0 = -1;

		if (wk->merged || wk->file == NULL || !same_doc(first, wk))
			continue;
		for (j = 0; j < wk->ncontainers && r->why == NULL; j++) {
			const struct cpl_container *c = &wk->containers[j];
			struct cpl_facts f;
			struct cpl_finding *fd;

			if (!judged_training(e, wk, c))
				continue;
			cpl_facts_gather(&f, wk, c);
			/* w < 0: a setting of threads alone (a job with
			 * no loader), whose worker count is not touched. */
			if (w >= 0 &&
			    (f.workers.state != CPL_AMT_KNOWN ||
			     f.workers.pos.file == NULL ||
			     !cpl_str_eq(f.workers.pos.file, file) ||
			     !in_command(c, &f.workers.pos))) {
				refuse_workers(r, file, c, &f, w);
				break;
			}
			fd = w >= 0 ? cpl_check_report(&ck, wk, c, &c->pos,
						       "keep t%ld-w%ld", t, w)
				    : cpl_check_report(&ck, wk, c, &c->pos,
						       "keep t%ld", t);
			cpl_fix_split(fd, c, &f, t, w, false);
			if (!cpl_engine_fix_finding(e, fr, fd)) {
				r->why = cpl_xasprintf("%s: container \"%s\" "
					"sets its threads (%s) in a way "
					"compare --fix cannot edit: set "
					"OMP_NUM_THREADS to \"%ld\" in its env",
					file, c->name ? c->name : "",
					f.threads.how, t);
				break;
			}
			if (w >= 0 && f.workers.n != w &&
			    !replace_workers(e, fr, fd, c, &f.workers.pos,
					     f.workers.n, w)) {
				r->why = cpl_xasprintf("%s:%d:%d: the worker "
					"count of container \"%s\" (%s) is not "
					"written there as a number compare "
					"--fix can change (a template or an "
					"input): make it %ld where it is set",
					file, f.workers.pos.line,
					f.workers.pos.column,
					c->name ? c->name : "", f.workers.how,
					w);
				break;
			}
			if (!keep_pools(e, fr, fd, r, file, c, pools))
				break;
			if (take_edits(r, file, fd, c))
				r->ncontainers++;
			if (c0 == NULL) {
				c0 = c;
				cpu0 = f.cpu;
			}
		}
		/* Each workload of the document: a PyTorchJob's replicas
		 * share their object's annotation (one edit, made once), a
		 * Polyaxon run's replicas have one each. */
		if (r->why == NULL && measured != NULL && c0 != NULL &&
		    cpu0 > 0)
			record(&ck, fr, r, file, wk, c0, cpu0, t, w,
			       measured);
	}
	cpl_fixres_free(fr);
	/* The engine sorted its findings in cpl_engine_run(); the keep's
	 * are dropped again so that a report made after sees none. */
	while (e->res.nfindings > 0 &&
	       e->res.findings[e->res.nfindings - 1].rule == &keep_rule)
		cpl_finding_free(&e->res.findings[--e->res.nfindings]);
}

void
cpl_keep_free(struct cpl_keep_result *r)
{
	size_t i;

	for (i = 0; i < r->nedits; i++) {
		free(r->edits[i].file);
		free(r->edits[i].text);
	}
	free(r->edits);
	free(r->why);
	memset(r, 0, sizeof(*r));
}
