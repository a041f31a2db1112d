/*
 * group.c — a run judged group by group, so that its memory follows one
 * group's Python facts and not the whole tree's, and the files of the
 * next groups are scanned on other threads while this thread judges.
 *
 * The pipeline (pipeline.c) scans every Python file once and keeps it
 * unloaded (pyscan.h): path, text and imports.  Here:
 *
 *  1. The graph: each static container's command is resolved to its entry
 *     script and the local modules it imports (the linker's own walks,
 *     over unloaded files, without evaluating, made as one batch:
 *     cpl_link_batch_run()), and so is each linted file that may be an
 *     entry script (the light scan's screen) no container runs.  A
 *     workload and every file its containers reach form one group, and
 *     so do a lone script and its modules; union-find joins groups that
 *     share a file.  A bare file alone in its group (pyscan.h) is quiet:
 *     no code rule can report on it, so it is not loaded again.
 *     So every process that runs a file is linked in that file's group,
 *     and a code rule asking for a file's processes (cpl_check_codes_of())
 *     sees them all.  With Python files named on their own (reach.c) the
 *     run is one group.
 *  2. Groups in order of their first workload (then of their first file)
 *     are cut into batches of about BATCH_FILES Python files.  While this
 *     thread judges a batch, the other threads (-j) load the next batch's
 *     files again (cpl_pyfile_reload(); tokens kept unless the batch is
 *     large: one group may be a whole tree, whose modules all import one
 *     package, and the token cache bounds its tokens as before).
 *  3. Judging a group is what a run does, in the same order: link its
 *     containers, then its lone scripts; read its launchers' config
 *     files; make its budget entries; run the code rules over its linted
 *     files and the container rules over its containers.  Then its files
 *     are unloaded, and the edit parse of a YAML file (fixedit.c) is
 *     freed once its last workload is judged; so are their texts, when
 *     the run lets texts go (cpl_engine_drop_texts()).
 *
 * The output is the same for any grouping and any -j: findings carry an
 * order key that is the order a run of every file, then every container,
 * would report them in (the sort's last key), budget entries one of
 * workload and container order, and a file an evaluation asks for
 * outside its group (a dynamic import) is loaded on demand, after any
 * thread loading it has finished (cpl_engine_python()).
 *
 * Owns the run's graph and crews while judging; nothing after.
 */
#include "run/engine_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fix/resolve.h"
#include "model/budget.h"
#include "model/pools.h"
#include "model/rule.h"

/* Files past which a batch is cut (a group is never split). */
#define BATCH_FILES 48
/* Module look-ups the linker's memo keeps: at most about 12 MB, the
 * look-ups of some 10,000 small projects.  The graph's walks fill it and
 * the groups' walks find theirs there, so a run that forgets them pays
 * every look-up twice (2.5% more instructions per file at 4,000 projects
 * with a bound of 32,768). */
#define MEMO_MAX 131072

/* The order key of a finding: which part of a run of every file, then
 * every container, reports it (file or workload index), then its place
 * in that part.  A part reports fewer than 2^24 findings. */
#define ORDER_PART(container, index) \
	(((uint64_t)(container) << 62) | ((uint64_t)(index) << 24))

/* The threads that load batches while this one judges: started once a
 * run (with -j beyond 1, at the first batch worth them) and handed each
 * batch's crew in turn, rather than started and joined per batch (a
 * tree of 2,000 projects is 80 batches). */
struct pool {
	pthread_mutex_t mu;
	pthread_cond_t go;	/* a crew is out, or the run is over */
	pthread_cond_t done;	/* a thread has let go of its crew */
	struct crew *crew;	/* the crew out now; NULL between crews */
	unsigned long gen;	/* crews handed out so far */
	size_t busy;		/* threads working on the crew out */
	bool stop;
	pthread_t *tid;
	size_t n;		/* threads running */
	bool made;		/* tried to start them */
};

/* The files a batch loads again, and the threads loading them. */
struct crew {
	struct source **srcs;
	size_t n;
	bool keep_toks;		/* the files keep their tokens (a batch of
				 * a few groups); else the token cache
				 * bounds them (one group of a whole tree) */
	atomic_size_t next;
	struct pool *pool;	/* handed to it; NULL: loaded here alone */
};

/* The run's graph: nodes are workloads [0, nw) then files [nw, nw + nf)
 * (the files the run had once the walks were done). */
struct graph {
	size_t nw, nf;
	size_t nlinked;		/* files that may be lone scripts (those read
				 * before the lone scripts were walked) */
	size_t *edges;		/* pairs of nodes, joined after the walks */
	size_t nedges, edges_cap;
	size_t *members;	/* nodes by group, groups in order */
	size_t *start;		/* [group]: its first member in members */
	size_t *pyfiles;	/* [group]: its Python files */
	size_t ngroups;
	size_t *wsrc;		/* [workload]: its source's index, or
				 * SIZE_MAX */
	size_t *pending;	/* [file]: its workloads not judged yet */
	bool *quiet;		/* [file]: alone in its group and bare
				 * (pyscan.h): no walk takes it and no code
				 * rule can report on it, so it is neither
				 * loaded again nor judged */
};

static size_t
find(size_t *parent, size_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Joins the groups of a and b; the smaller node is the root, so a
 * group's root is its first node. */
static void
join(size_t *parent, size_t a, size_t b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

/* The node of the file f (its source's index among the run's files). */
static size_t
file_node(const struct graph *g, const struct cpl_pyfile *f)
{
	return g->nw + ((const struct source *)f->owner)->index;
}

static void
edge(struct graph *g, size_t a, size_t b)
{
	CPL_GROW(g->edges, g->edges_cap, g->nedges + 2);
	g->edges[g->nedges++] = a;
	g->edges[g->nedges++] = b;
}

/* The batch's edge hook: joins the two files. */
static void
file_edge(void *ctx, const struct cpl_pyfile *from,
	  const struct cpl_pyfile *to)
{
	struct graph *g = ctx;

	edge(g, file_node(g, from), file_node(g, to));
}

/*
 * Walks every static container and lone script as the linker would, with
 * the files held unloaded (the engine's loader then loads no facts), and
 * records which nodes belong together: a workload with the entry script
 * of each of its containers, each file with the files its imports lead
 * to on those walks (cpl_link_batch_run(): joined along them, every file
 * a walk reaches is in its asker's group, as if joined to it).  A
 * workload declared in a Python file (pywork.c) is joined with that
 * file and, through a script's walk from it, what the file imports.
 */
static void
walk_graph(struct cpl_engine *e, struct graph *g)
{
	struct cpl_linker lk;
	struct cpl_link_batch *b;
	size_t *entries = NULL, nentries = 0, entries_cap = 0;
	bool *entry_of;		/* [file]: some container's entry script */
	const struct cpl_pyfile *last_decl = NULL;
	size_t i, j, k;

	cpl_engine_linker(e, &lk, PY_SCANNED);
	g->nw = e->res.workloads.count;
	b = cpl_link_batch_new(&lk);
	for (i = 0; i < g->nw; i++) {
		struct cpl_workload *w = e->res.workloads.items[i];

		if (w->source == CPL_SRC_LIVE || w->merged || w->context)
			continue;
		/* Declared in a Python file: its containers run a copy of
		 * that file, whose imports its group must hold. */
		if (w->py_declared && w->file != NULL) {
			const struct source *src =
				cpl_engine_find_source(e, w->file);

			if (src != NULL && src->py != NULL) {
				edge(g, i, file_node(g, src->py));
				if (src->py != last_decl)
					cpl_link_batch_script(b, src->py);
				last_decl = src->py;
			}
		}
		for (j = 0; j < w->ncontainers; j++) {
			const struct cpl_pyfile *entry;

			entry = cpl_link_batch_code(b, w, &w->containers[j]);
			if (entry == NULL)
				continue;
			edge(g, i, file_node(g, entry));
			CPL_GROW(entries, entries_cap, nentries + 1);
			entries[nentries++] = file_node(g, entry) - g->nw;
		}
	}
	cpl_link_batch_run(b, file_edge, g);
	cpl_link_batch_free(b);
	cpl_link_memo_bound(lk.memo, MEMO_MAX);
	/* Lone scripts: only files read before them, as linking does. */
	g->nlinked = e->load.nfiles;
	entry_of = cpl_xcalloc(g->nlinked + 1, sizeof(*entry_of));
	for (k = 0; k < nentries; k++)
		entry_of[entries[k]] = true;
	free(entries);
	b = cpl_link_batch_new(&lk);
	for (i = 0; i < g->nlinked; i++) {
		const struct source *src = e->load.files[i];

		if (!src->linted || src->py == NULL || !src->py->entry ||
		    entry_of[i])
			continue;
		cpl_link_batch_script(b, src->py);
	}
	cpl_link_batch_run(b, file_edge, g);
	cpl_link_batch_free(b);
	cpl_link_memo_bound(lk.memo, MEMO_MAX);
	free(entry_of);
	g->nf = e->load.nfiles;
}

/* Makes the groups from the walks' edges: every node in one group's
 * members, groups in the order of their first node. */
static void
make_groups(struct cpl_engine *e, struct graph *g)
{
	size_t n = g->nw + g->nf, i, gi, at = 0, *parent, *slot;

	parent = cpl_xcalloc(n + 1, sizeof(*parent));
	for (i = 0; i < n; i++)
		parent[i] = i;
	for (i = 0; i < g->nedges; i += 2)
		join(parent, g->edges[i], g->edges[i + 1]);
	if (e->load.nseeds > 0)	/* reach.c's context: one group */
		for (i = 1; i < n; i++)
			join(parent, 0, i);
	/* Roots are first nodes: count each group's members at its root. */
	slot = cpl_xcalloc(n + 1, sizeof(*slot));
	for (i = 0; i < n; i++)
		slot[find(parent, i)]++;
	g->start = cpl_xcalloc(n + 1, sizeof(*g->start));
	for (i = 0; i < n; i++) {
		size_t count;

		if (parent[i] != i)
			continue;
		count = slot[i];
		g->start[g->ngroups++] = at;
		slot[i] = at;		/* now the group's next free slot */
		at += count;
	}
	g->start[g->ngroups] = at;
	g->members = cpl_xcalloc(n + 1, sizeof(*g->members));
	for (i = 0; i < n; i++)
		g->members[slot[find(parent, i)]++] = i;
	g->quiet = cpl_xcalloc(g->nf + 1, sizeof(*g->quiet));
	for (gi = 0; gi < g->ngroups; gi++) {
		struct source *src;

		if (g->start[gi + 1] - g->start[gi] != 1 ||
		    g->members[g->start[gi]] < g->nw)
			continue;
		src = e->load.files[g->members[g->start[gi]] - g->nw];
		/* (A scan error held for it is reported when it is
		 * loaded: cpl_engine_python().) */
		g->quiet[src->index] = src->py != NULL && src->py->bare &&
				       !cpl_pyfile_loaded(src->py) &&
				       src->scan_err.message == NULL &&
				       e->load.nseeds == 0;
		/* Nothing reads a quiet file's text again (a dynamic import
		 * that asks for it after all reads it again): it goes now,
		 * not when the judging reaches its group, so the first
		 * batches' facts take its memory rather than fresh pages
		 * (the run's peak is the texts of the tree with those). */
		if (g->quiet[src->index])
			cpl_engine_let_text_go(e, src);
	}
	g->pyfiles = cpl_xcalloc(g->ngroups + 1, sizeof(*g->pyfiles));
	for (gi = 0; gi < g->ngroups; gi++)
		for (i = g->start[gi]; i < g->start[gi + 1]; i++)
			g->pyfiles[gi] +=
				g->members[i] >= g->nw &&
				e->load.files[g->members[i] - g->nw]->py;
	free(slot);
	free(parent);
}

/* ---- loading a batch again on other threads --------------------------- */

static void *
crew_work(void *arg)
{
	struct crew *c = arg;
	size_t i;

	while ((i = atomic_fetch_add(&c->next, 1)) < c->n)
		cpl_pyfile_reload(c->srcs[i]->py, c->keep_toks);
	return NULL;
}

/* A thread of the pool: works on each crew handed out, once. */
static void *
pool_thread(void *arg)
{
	struct pool *p = arg;
	unsigned long seen = 0;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct crew *c;

		while (!p->stop && (p->crew == NULL || p->gen == seen))
			pthread_cond_wait(&p->go, &p->mu);
		if (p->stop)
			break;
		seen = p->gen;
		c = p->crew;
		p->busy++;
		pthread_mutex_unlock(&p->mu);
		crew_work(c);
		pthread_mutex_lock(&p->mu);
		if (--p->busy == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Starts nt - 1 threads in p (fewer if the system will not). */
static void
pool_start(struct pool *p, size_t nt)
{
	size_t k;

	p->made = true;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	p->tid = cpl_xcalloc(nt - 1, sizeof(*p->tid));
	for (k = 0; k + 1 < nt; k++)
		if (pthread_create(&p->tid[p->n], NULL, pool_thread, p) == 0)
			p->n++;
}

/* Stops and joins p's threads. */
static void
pool_stop(struct pool *p)
{
	size_t k;

	if (!p->made)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	for (k = 0; k < p->n; k++)
		pthread_join(p->tid[k], NULL);
	free(p->tid);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->go);
	pthread_mutex_destroy(&p->mu);
	memset(p, 0, sizeof(*p));
}

/* Starts loading the unloaded files among groups [from, to) on the
 * pool's threads (none with -j 1, or for a batch too small for them:
 * crew_finish() loads them). */
static void
crew_start(struct cpl_engine *e, const struct graph *g, size_t from,
	   size_t to, struct crew *c, struct pool *p)
{
	size_t k, nt, cap = 0;

	memset(c, 0, sizeof(*c));
	for (k = g->start[from]; k < g->start[to]; k++) {
		struct source *src;

		if (g->members[k] < g->nw)
			continue;
		src = e->load.files[g->members[k] - g->nw];
		if (src->py == NULL || cpl_pyfile_loaded(src->py) ||
		    g->quiet[src->index])
			continue;
		cpl_engine_text_back(e, src);	/* (never let go yet) */
		src->inflight = true;
		CPL_GROW(c->srcs, cap, c->n + 1);
		c->srcs[c->n++] = src;
	}
	/* Tokens kept are made once; kept for a whole tree they would be
	 * a third of its facts again. */
	c->keep_toks = c->n <= 2 * BATCH_FILES;
	atomic_init(&c->next, 0);
	nt = cpl_engine_threads(e, c->n);
	if (nt <= 1)
		return;
	if (!p->made)
		pool_start(p, cpl_engine_threads(e, SIZE_MAX));
	if (p->n == 0)
		return;
	c->pool = p;
	pthread_mutex_lock(&p->mu);
	p->crew = c;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
}

/* Loads what the crew has not, waits for the pool's threads to let go
 * of it, clears it. */
static void
crew_finish(struct crew *c)
{
	struct pool *p = c->pool;
	size_t i;

	crew_work(c);
	if (p != NULL) {
		pthread_mutex_lock(&p->mu);
		p->crew = NULL;
		while (p->busy > 0)
			pthread_cond_wait(&p->done, &p->mu);
		pthread_mutex_unlock(&p->mu);
	}
	for (i = 0; i < c->n; i++)
		c->srcs[i]->inflight = false;
	free(c->srcs);
	memset(c, 0, sizeof(*c));
}

/* ---- judging one group -------------------------------------------------- */

/* Budget entries sort by file (live objects first), line, object,
 * container, then the order they were made in (workload, container). */
static int
budget_cmp(const void *pa, const void *pb)
{
	const struct cpl_budget_entry *a = pa, *b = pb;
	int d = strcmp(a->file ? a->file : "", b->file ? b->file : "");

	if (d)
		return d;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	d = strcmp(a->object ? a->object : "", b->object ? b->object : "");
	if (d)
		return d;
	d = strcmp(a->container ? a->container : "",
		   b->container ? b->container : "");
	if (d)
		return d;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Whether some container's command runs path as its entry script. */
static bool
is_linked_entry(const struct cpl_engine *e, const char *path)
{
	size_t n, i;
	const struct cpl_code_ref *r = cpl_engine_codes_of(e, path, &n);

	for (i = 0; i < n; i++)
		if (r[i].file == 0)
			return true;
	return false;
}

/*
 * The code of an inline Python script container c runs (an Argo script
 * template's source, a Tekton step's script) when its command names no
 * file: the script scanned as a file at the workload file's path, laid
 * at its lines there, and the local modules it imports; NULL when there
 * is none.  Its findings are the container's (the code rules judge the
 * files linted, not these).
 */
static struct cpl_code *
inline_code(struct cpl_engine *e, const struct cpl_linker *lk,
	    const struct cpl_workload *w, const struct cpl_container *c)
{
	struct cpl_error err = { 0 };
	struct cpl_pyfile *py = NULL;

	if (c->script_py == NULL || w->file == NULL)
		return NULL;
	/* A tokenizer error leaves the facts read before it. */
	(void)cpl_pyscan_file_at(&py, w->file, c->script_py, c->script_len,
				 c->script_line, &err);
	cpl_error_clear(&err);
	if (py == NULL)
		return NULL;
	CPL_GROW(e->check.inline_py, e->check.inline_cap, e->check.ninline + 1);
	e->check.inline_py[e->check.ninline++] = py;
	return cpl_link_script(lk, py);
}

/* Links the group's containers, then its lone scripts (as a run links
 * every container, then every lone script). */
static void
link_group(struct cpl_engine *e, const struct graph *g,
	   const struct cpl_linker *lk, size_t from, size_t to)
{
	size_t k, j;

	for (k = from; k < to; k++) {
		struct cpl_workload *w;

		if (g->members[k] >= g->nw)
			continue;
		w = e->res.workloads.items[g->members[k]];
		if (w->source == CPL_SRC_LIVE || w->merged || w->context)
			continue;
		for (j = 0; j < w->ncontainers; j++) {
			struct cpl_code *code;

			code = cpl_link_code(lk, w, &w->containers[j]);
			if (code == NULL)
				code = inline_code(e, lk, w,
						   &w->containers[j]);
			if (code != NULL)
				cpl_engine_keep_code(e, w, &w->containers[j],
						     code);
			cpl_pytokcache_trim(e->load.tokcache);
		}
	}
	for (k = from; k < to; k++) {
		size_t f = g->members[k] - g->nw;
		const struct source *src;
		const struct cpl_pyfile *py;

		if (g->members[k] < g->nw || f >= g->nlinked)
			continue;
		src = e->load.files[f];
		/* Not even maybe an entry (the light scan's screen): no
		 * need to load it to know. */
		if (!src->linted || src->py == NULL || !src->py->entry)
			continue;
		/* Loaded: entry is known only then. */
		py = cpl_engine_python(e, e->load.files[f], PY_LOADED);
		if (!py->entry || is_linked_entry(e, py->path))
			continue;
		cpl_engine_keep_code(e, NULL, NULL, cpl_link_script(lk, py));
		cpl_pytokcache_trim(e->load.tokcache);
	}
}

/* One budget entry per training container of the group's workloads. */
static void
budgets_group(struct cpl_engine *e, const struct graph *g, size_t from,
	      size_t to)
{
	size_t k, j;

	for (k = from; k < to; k++) {
		struct cpl_workload *w;
		char *object;

		if (g->members[k] >= g->nw)
			continue;
		w = e->res.workloads.items[g->members[k]];
		cpl_engine_launch_configs(e, w);
		if (w->merged || w->context)
			continue;
		object = cpl_engine_object_name(w);
		for (j = 0; j < w->ncontainers; j++) {
			struct cpl_container *c = &w->containers[j];
			struct cpl_budget_entry *b;

			if (!cpl_budget_training(w, c))
				continue;
			cpl_facts_keep(w, c);
			cpl_pools_keep(w, c);
			CPL_GROW(e->res.budgets, e->res.budgets_cap, e->res.nbudgets + 1);
			b = &e->res.budgets[e->res.nbudgets++];
			cpl_budget_entry(b, object, w, c);
			cpl_pools_entry(b, w, c);	/* the other pools */
			b->seq = ((uint64_t)g->members[k] << 24) | j;
			/* Its facts stay for its rules (rules_group() lets
			 * them go): gathered once, not twice. */
		}
		free(object);
		cpl_pytokcache_trim(e->load.tokcache);
	}
}

/* The rules that are on over the group's linted files, then over its
 * containers; each part's findings keyed in a run's order. */
/* A position laid in the quoted inline script of container c of w (past
 * its file's end) moves to the string; file and line are the finding's or
 * a related location's. */
static void
unlay(const struct cpl_workload *w, const struct cpl_container *c,
      const char *file, int *line, int *column)
{
	if (c->script_base > 0 && *line >= c->script_base && file != NULL &&
	    w->file != NULL && cpl_str_eq(file, w->file)) {
		*line = c->script_at.line;
		*column = c->script_at.column;
	}
}

/* unlay() over the findings reported since from, in c's turn: only c's
 * own script can be quoted in them. */
static void
unlay_since(struct cpl_engine *e, const struct cpl_workload *w,
	    const struct cpl_container *c, size_t from)
{
	size_t i, k;

	if (c->script_base <= 0)
		return;
	for (i = from; i < e->res.nfindings; i++) {
		struct cpl_finding *f = &e->res.findings[i];

		unlay(w, c, f->file, &f->line, &f->column);
		for (k = 0; k < f->nrelated; k++)
			unlay(w, c, f->related[k].file, &f->related[k].line,
			      &f->related[k].column);
	}
}

/* Every code rule the configuration leaves on, over Python file py. */
static void
code_rules(struct cpl_engine *e, struct cpl_check *ck,
	   const struct cpl_pyfile *py)
{
	const struct cpl_rule *const *rules;
	size_t nrules, r;

	rules = cpl_rules_all(&nrules);
	for (r = 0; r < nrules; r++) {
		if (rules[r]->check_code == NULL ||
		    cpl_config_severity(e->set.config, r) == CPL_SEV_OFF)
			continue;
		ck->rule = rules[r];
		ck->index = r;
		rules[r]->check_code(ck, py);
	}
}

/*
 * The code rules over the inline script container c of w runs (an Argo
 * script template's source, a Tekton step's script): no linted file holds
 * it, so they run here, in the container's turn; their findings sit at
 * the script's lines in the workload's file.  A workload declared in a
 * Python file (w->py_declared) runs a copy of a file the run lints: the
 * code rules judge that file once, in its own turn.
 */
static void
inline_rules(struct cpl_engine *e, struct cpl_check *ck,
	     const struct cpl_workload *w, const struct cpl_container *c)
{
	if (c->script_py == NULL || c->code == NULL || w->py_declared ||
	    c->code->entry == NULL || w->file == NULL ||
	    !cpl_str_eq(c->code->entry->path, w->file))
		return;
	code_rules(e, ck, c->code->entry);
}

static void
rules_group(struct cpl_engine *e, const struct graph *g, size_t from,
	    size_t to)
{
	const struct cpl_rule *const *rules;
	size_t nrules, r, k, j;
	struct cpl_check ck;

	cpl_engine_check(&ck, e, NULL, 0);
	rules = cpl_rules_all(&nrules);
	for (k = from; k < to; k++) {
		size_t f = g->members[k] - g->nw;
		const struct cpl_pyfile *py;

		if (g->members[k] < g->nw || !e->load.files[f]->linted ||
		    e->load.files[f]->py == NULL || g->quiet[f])
			continue;
		py = cpl_engine_python(e, e->load.files[f], PY_LOADED);
		e->res.order = ORDER_PART(0, f);
		code_rules(e, &ck, py);
		cpl_pytokcache_trim(e->load.tokcache);
	}
	for (k = from; k < to; k++) {
		const struct cpl_workload *w;

		if (g->members[k] >= g->nw)
			continue;
		w = e->res.workloads.items[g->members[k]];
		e->res.order = ORDER_PART(1, g->members[k]);
		for (j = 0; j < w->ncontainers && !w->merged; j++) {
			size_t first = e->res.nfindings;

			inline_rules(e, &ck, w, &w->containers[j]);
			for (r = 0; r < nrules; r++) {
				if (rules[r]->check_container == NULL ||
				    cpl_config_severity(e->set.config, r) ==
				    CPL_SEV_OFF)
					continue;
				ck.rule = rules[r];
				ck.index = r;
				rules[r]->check_container(&ck, w,
							  &w->containers[j]);
			}
			unlay_since(e, w, &w->containers[j], first);
			/* Its rules asked for its facts; no one else will. */
			cpl_facts_forget(&w->containers[j]);
			cpl_pools_forget(&w->containers[j]);
			cpl_pytokcache_trim(e->load.tokcache);
		}
	}
}

/* Unloads the group's files: judged, nothing reads their facts again. */
static void
unload_group(struct cpl_engine *e, const struct graph *g,
	     struct cpl_fixres *fr, size_t from, size_t to)
{
	size_t k;

	for (k = from; k < to; k++) {
		struct source *src;

		if (g->members[k] < g->nw)
			continue;
		src = e->load.files[g->members[k] - g->nw];
		if (src->py != NULL) {
			cpl_pyfile_unload(src->py);
			cpl_fixres_forget_path(fr, src->path);
			cpl_engine_let_text_go(e, src);
		}
	}
}

/* The group after the last of the batch that starts at group from: about
 * BATCH_FILES Python files (groups without any join the batch freely). */
static size_t
batch_end(const struct graph *g, size_t from)
{
	size_t files = 0, end = from;

	while (end < g->ngroups && (files < BATCH_FILES || end == from))
		files += g->pyfiles[end++];
	return end;
}

/* Counts, for each YAML source, the workloads it holds that are not
 * judged yet: its text (and its edit parse, fix/resolve.h) is let go
 * when none is left. */
static void
count_pending(struct cpl_engine *e, struct graph *g)
{
	size_t i;

	g->wsrc = cpl_xcalloc(g->nw + 1, sizeof(*g->wsrc));
	g->pending = cpl_xcalloc(g->nf + 1, sizeof(*g->pending));
	for (i = 0; i < g->nw; i++) {
		const struct cpl_workload *w = e->res.workloads.items[i];
		const struct source *src = w->file ?
			cpl_engine_find_source(e, w->file) : NULL;

		g->wsrc[i] = src && src->index < g->nf ? src->index : SIZE_MAX;
		if (g->wsrc[i] != SIZE_MAX)
			g->pending[g->wsrc[i]]++;
	}
}

/* The group's workloads are judged: lets go of the texts and edit
 * parses no workload left needs. */
static void
done_group(struct cpl_engine *e, struct graph *g, struct cpl_fixres *fr,
	   size_t from, size_t to)
{
	size_t k;

	for (k = from; k < to; k++) {
		size_t f;

		if (g->members[k] >= g->nw ||
		    (f = g->wsrc[g->members[k]]) == SIZE_MAX)
			continue;
		if (--g->pending[f] == 0) {
			cpl_fixres_forget_path(fr, e->load.files[f]->path);
			cpl_engine_let_text_go(e, e->load.files[f]);
		}
	}
}

void
cpl_engine_judge(struct cpl_engine *e)
{
	struct graph g = { 0 };
	struct cpl_linker lk;
	struct crew next = { 0 };
	struct pool pool = { 0 };
	/* Edits asked for: made group by group while the texts are held,
	 * each file parsed for them once (until done_group lets it go). */
	struct cpl_fixres *fr = e->set.want_edits ? cpl_engine_fixres(e) : NULL;
	size_t gi, end, i;

	cpl_engine_kustomize(e);
	cpl_engine_limitranges(e);
	cpl_engine_entrypoints(e);
	walk_graph(e, &g);
	make_groups(e, &g);
	count_pending(e, &g);
	cpl_engine_linker(e, &lk, PY_LOADED);
	/* The first batch loaded, then each judged while the next loads. */
	end = batch_end(&g, 0);
	crew_start(e, &g, 0, end, &next, &pool);
	crew_finish(&next);
	for (gi = 0; gi < g.ngroups; gi = end) {
		end = batch_end(&g, gi);
		crew_start(e, &g, end, batch_end(&g, end), &next, &pool);
		e->check.crew = &next;
		for (i = gi; i < end; i++) {
			size_t from = g.start[i], to = g.start[i + 1];

			size_t nf = e->res.nfindings;

			link_group(e, &g, &lk, from, to);
			budgets_group(e, &g, from, to);
			rules_group(e, &g, from, to);
			if (fr != NULL)
				cpl_engine_fix_range(e, fr, nf,
						     e->res.nfindings);
			unload_group(e, &g, fr, from, to);
			done_group(e, &g, fr, from, to);
			cpl_link_memo_bound(lk.memo, MEMO_MAX);
		}
		e->check.crew = NULL;
		crew_finish(&next);
	}
	pool_stop(&pool);
	cpl_fixres_free(fr);
	if (e->res.nbudgets > 1)
		qsort(e->res.budgets, e->res.nbudgets, sizeof(*e->res.budgets),
		      budget_cmp);
	free(g.edges);
	free(g.members);
	free(g.start);
	free(g.pyfiles);
	free(g.wsrc);
	free(g.pending);
	free(g.quiet);
}

void
cpl_engine_crew_wait(struct cpl_engine *e)
{
	struct crew *c = e->check.crew;

	if (c == NULL)
		return;
	e->check.crew = NULL;
	crew_finish(c);
}
