/*
 * planrun.c — the plan subcommand's run (planrun.h): the engine's budget
 * entries grouped by document, each document read again as a JSON tree
 * (plan/ydoc_int.h) and its plan written.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "model/finding.h"
#include "model/pools.h"
#include "plan/plan_int.h"
#include "plan/planrun.h"
#include "plan/sweep_int.h"
#include "plan/ydoc_int.h"

static void
fail(struct cpl_planrun *r, const char *file, int line, const char *fmt,
     const char *a, const char *b)
{
	size_t cap = r->nerrors;

	CPL_GROW(r->errors, cap, r->nerrors + 1);
	memset(&r->errors[r->nerrors], 0, sizeof(*r->errors));
	cpl_error_set(&r->errors[r->nerrors++], file, line, 0, fmt, a, b);
}

/* A label value: lower case letters, digits and '-', at most 40. */
static void
slug(char *out, size_t size, const char *name)
{
	size_t i = 0;

	for (; name && *name && i + 1 < size && i < 40; name++) {
		char ch = (char)tolower((unsigned char)*name);

		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			out[i++] = ch;
		else if (i > 0 && out[i - 1] != '-')
			out[i++] = '-';
	}
	while (i > 0 && out[i - 1] == '-')
		i--;
	if (i == 0)
		i = (size_t)cpl_format(out, size, "plan");
	out[i] = '\0';
}

/* The document's name: metadata.name, a Polyaxonfile's name. */
static const char *
doc_name(const json_t *doc)
{
	const char *n = json_string_value(json_object_get(
		json_object_get(doc, "metadata"), "name"));

	if (n == NULL)
		n = json_string_value(json_object_get(doc, "name"));
	if (n == NULL)
		n = json_string_value(json_object_get(json_object_get(doc,
						"component"), "name"));
	return n;
}

/*
 * Why a budget leaves nothing to compare (one setting fits it and the job
 * as written is that setting or not a number the plan can set), with
 * the budget that would make a comparison worth running: 2 CPUs per
 * rank, where threads 1 and 2 both fit.  Caller frees.
 */
static char *
nothing_to_compare(const struct cpl_budget_entry *m,
		   const struct cpl_sweep_in *in)
{
	long ranks = m->ranks > 0 ? m->ranks : 1;

	return cpl_xasprintf("nothing to compare: a budget of %ld CPU(s) "
		"per rank fits one setting (%ld thread(s)%s) and the job as "
		"written is that setting or not one the plan can set; a "
		"comparison is worth running from 2 CPUs per rank "
		"(resources.limits.cpu \"%ld\" for %ld rank(s))%s",
		in->per_rank, in->threads < 1 ? 1 : in->threads,
		in->set_workers ? ", no loader workers" : "",
		cpl_sat_mul(2, ranks), ranks, in->set_workers || !in->loader ?
		"" : ", or a --workers flag in the command for the plan to "
		"set the loader workers");
}

/*
 * The pools each setting sets beside its threads and workers (m's
 * pools whose size is a count in the env): the share the setting's
 * budget gives each process that runs the pool (cpl_pools_share_n,
 * CPU202's and CPU401's arithmetic), or, for the job's current
 * setting, the size as written.  So the setting that runs is the one
 * compare --fix writes.
 */
static void
plan_pools(struct cpl_sweep_setting *set, size_t n,
	   const struct cpl_budget_entry *m)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < m->npool_vars && j < CPL_SWEEP_POOLS; j++)
			set[i].pools[j] = set[i].knob == CPL_SWEEP_CURRENT ?
				m->pool_written[j] :
				cpl_pools_share_n(m->pool_in_workers[j],
					m->pools_rank, m->pools_workers,
					m->per_rank, set[i].threads,
					set[i].workers >= 0 ? set[i].workers :
					m->workers);
}

/* Plans one document: entries b[0, n) are its training containers. */
static void
plan_doc(struct cpl_planrun *r, struct cpl_buf *out, const json_t *doc,
	 const struct cpl_budget_entry *b, size_t n,
	 const struct cpl_planrun_opts *o)
{
	const struct cpl_budget_entry *m = NULL, *low = NULL;
	struct cpl_sweep_setting set[CPL_SWEEP_MAX];
	struct cpl_sweep_in in = { 0 };
	struct cpl_plan p = { 0 };
	struct cpl_error err = { 0 };
	const char **names = cpl_xcalloc(n + 1, sizeof(*names));
	enum cpl_plan_engine eng;
	const char *why;
	char id[64], s[48], *dump, *summary = NULL;
	char cpus[16], per[48];
	size_t i, cap, planned;
	int rc;
	bool busy;

	eng = cpl_plan_engine_of(doc, &why);
	if (eng == CPL_PLAN_NONE) {
		char *kinds = why ? NULL : cpl_plan_kinds_why();

		fail(r, b[0].file, b[0].line, "%s: %s", b[0].object,
		     why ? why : kinds);
		free(kinds);
		goto out;
	}
	for (i = 0; i < n; i++) {
		names[i] = b[i].container;
		if (b[i].per_rank >= 1 && (m == NULL ||
					   b[i].per_rank < m->per_rank))
			m = &b[i];
		else if (b[i].per_rank < 1 && low == NULL && b[i].ranks > 0 &&
			 (b[i].cpu_limit > 0 || b[i].cpu_request > 0))
			low = &b[i];
	}
	/* Under one CPU per rank each rank still runs one thread: the
	 * threads stay at 1 and the workers vary (the lab's 0.5-CPU image
	 * job ran best at t1-w2, 2% over t1-w0). */
	if (m == NULL)
		m = low;
	if (m == NULL) {
		fail(r, b[0].file, b[0].line, "%s: %s", b[0].object,
		     "no CPU budget to plan in (no CPU limit or request): "
		     "set one first");
		goto out;
	}
	if (cpl_plan_command_sets_threads(doc, names, n)) {
		fail(r, b[0].file, b[0].line, "%s: %s", b[0].object,
		     "the command sets OMP_NUM_THREADS or MKL_NUM_THREADS "
		     "itself, over the plan's environment: remove that "
		     "assignment first (the linter's fix), then plan");
		goto out;
	}
	in.per_rank = m->per_rank >= 1 ? m->per_rank : 1;
	in.threads = m->suggested_threads >= 1 ? m->suggested_threads : 1;
	in.workers = m->suggested_workers >= 0 ? m->suggested_workers : 0;
	in.max = o->max;
	in.set_workers = cpl_plan_can_set_workers(doc, names, n);
	in.loader = m->loader;
	in.min_workers = m->min_workers;
	busy = m->busy_loader != NULL && *m->busy_loader != '\0';
	in.cur_threads = m->threads;
	in.cur_workers = m->workers;
	p.nsettings = cpl_sweep_make(set, &in);
	plan_pools(set, p.nsettings, m);
	for (i = 0, planned = 0; i < p.nsettings; i++)
		planned += set[i].knob != CPL_SWEEP_CURRENT;
	if (planned < 2 && o->max == 0 && p.nsettings < 2) {
		char *none = nothing_to_compare(m, &in);

		fail(r, b[0].file, b[0].line, "%s: %s", b[0].object, none);
		free(none);
		goto out;
	}
	slug(s, sizeof(s), doc_name(doc));
	dump = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	cpl_format(id, sizeof(id), "%s-%06llx", s, (unsigned long long)
		   (cpl_hash_str(dump ? dump : "") & 0xffffff));
	free(dump);
	cpl_format(cpus, sizeof(cpus), "%g", m->cpu_limit >= 0 ?
		   m->cpu_limit : m->cpu_request);
	cpl_format(per, sizeof(per), m->per_rank >= 1 ? "%ld" :
		   "under 1 (each rank still runs one thread)", m->per_rank);
	summary = cpl_xasprintf("kubectl cpulint plan %s: a budget of %s CPUs "
		"over %s%ld rank(s), %s per rank, split by the suggestion into "
		"%ld thread(s) and %ld loader worker(s)%s%s%s; %zu setting(s) "
		"varying %s%s%s", id, cpus, m->ranks > 0 ? "" : "at least ",
		m->ranks > 0 ? m->ranks : 1, per,
		in.threads, in.workers, busy ?
		" (the larger share to the workers: the code " : "",
		busy ? m->busy_loader : "", busy ? ")" : "", p.nsettings, in.set_workers ? (in.loader ?
		"one knob at a time (threads at the suggested workers, then "
		"workers at the suggested threads, past the budget as the "
		"loader waits while compute runs)" : "one knob at a time "
		"(threads at the suggested workers, then workers at the "
		"suggested threads)") : "the threads only (no --workers flag in "
		"the command sets the workers)", planned < p.nsettings ?
		", and the job's current setting " : "", planned < p.nsettings ?
		set[p.nsettings - 1].id : "");
	if (m->npool_vars > 0) {
		char *more = cpl_xasprintf("%s; each setting also sets %s%s "
			"to the share the setting gives each process that "
			"runs it", summary, m->pool_vars[0],
			m->npool_vars > 1 ? " (and the other pools)" : "");

		free(summary);
		summary = more;
	}
	p.id = id;
	p.doc = doc;
	p.containers = names;
	p.ncontainers = n;
	p.settings = set;
	p.pool_vars = m->pool_vars;
	p.npools = m->npool_vars < CPL_SWEEP_POOLS ? m->npool_vars :
		   CPL_SWEEP_POOLS;
	p.segment = o->segment;
	p.repeats = o->repeat;
	if (o->repeat > 1) {
		char *more = cpl_xasprintf("%s; each setting run %ld times "
			"(labelled %s), compared by the median of its runs",
			summary, o->repeat, CPL_PLAN_REPEAT_LABEL);

		free(summary);
		summary = more;
	}
	p.summary = summary;
	if (eng == CPL_PLAN_POLYAXON)
		rc = cpl_plan_polyaxon(out, &p, &err);
	else if (o->jobs)
		rc = cpl_plan_jobs(out, &p, &err);
	else
		rc = cpl_plan_katib(out, &p, &err);
	if (rc < 0) {
		fail(r, b[0].file, b[0].line, "%s: %s", b[0].object,
		     err.message);
		cpl_error_clear(&err);
		goto out;
	}
	cap = r->ndone;
	CPL_GROW(r->done, cap, r->ndone + 1);
	r->done[r->ndone].id = cpl_xstrdup(id);
	r->done[r->ndone].object = cpl_xstrdup(b[0].object);
	r->done[r->ndone].file = cpl_xstrdup(b[0].file);
	r->done[r->ndone].line = b[0].line;
	r->done[r->ndone].settings = p.nsettings;
	r->done[r->ndone].repeat = o->repeat > 1 ? o->repeat : 1;
	r->done[r->ndone].engine = eng == CPL_PLAN_POLYAXON ?
		"Polyaxon operation" : o->jobs ? "Jobs" :
		"Katib Experiments (one per knob)";
	r->done[r->ndone].workers = in.set_workers;
	r->done[r->ndone].current[0] = '\0';
	if (planned < p.nsettings)
		cpl_format(r->done[r->ndone].current,
			   sizeof(r->done[r->ndone].current), "%s",
			   set[p.nsettings - 1].id);
	r->ndone++;
out:
	free(summary);
	free(names);
}

void
cpl_planrun(struct cpl_planrun *r, struct cpl_buf *out,
	    const struct cpl_engine *e, const struct cpl_planrun_opts *o)
{
	const struct cpl_budget_entry *b;
	size_t nb, i = 0;

	memset(r, 0, sizeof(*r));
	b = cpl_engine_budgets(e, &nb);
	while (i < nb) {
		struct cpl_ydoc *docs = NULL;
		struct cpl_error err = { 0 };
		const char *text;
		size_t len, nd, j, k;

		for (j = i; j < nb && cpl_str_eq(b[j].file, b[i].file); j++)
			;
		text = b[i].file ? cpl_engine_source_text(e, b[i].file, &len)
				 : NULL;
		if (text == NULL) {
			fail(r, b[i].file, 0, "%s%s", "cannot read the file "
			     "again", "");
			i = j;
			continue;
		}
		if (cpl_ydoc_load(&docs, &nd, b[i].file, text, len,
				  &err) < 0) {
			fail(r, err.path, err.line, "%s%s", err.message, "");
			cpl_error_clear(&err);
			i = j;
			continue;
		}
		/* entries of one document are consecutive (sorted by line) */
		while (i < j) {
			const struct cpl_ydoc *d = cpl_ydoc_at(docs, nd,
							       b[i].line);

			for (k = i + 1; k < j && cpl_ydoc_at(docs, nd,
					b[k].line) == d; k++)
				;
			if (d != NULL)
				plan_doc(r, out, d->root, &b[i], k - i, o);
			i = k;
		}
		cpl_ydoc_free(docs, nd);
	}
}

void
cpl_planrun_free(struct cpl_planrun *r)
{
	size_t i;

	for (i = 0; i < r->ndone; i++) {
		free(r->done[i].id);
		free(r->done[i].object);
		free(r->done[i].file);
	}
	free(r->done);
	for (i = 0; i < r->nerrors; i++)
		cpl_error_clear(&r->errors[i]);
	free(r->errors);
	memset(r, 0, sizeof(*r));
}
