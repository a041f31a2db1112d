/*
 * pipeline.c — the files of a run read, parsed and scanned on a few
 * threads (-j), and taken into the run in the order they were met.
 *
 * Each file is independent until linking: reading it, parsing its YAML
 * and loading its workloads, or tokenizing its Python and reading its
 * imports (a light scan: the facts are made when its group is judged,
 * group.c), needs nothing from another file.  So walks and named paths
 * only queue files; a flush hands the queue to up to -j threads (the
 * calling one among them), each taking the next file from a shared
 * counter and writing only to that file's job: its source, and an
 * engine of its own whose errors, warnings, notes and workloads are the
 * only fields used.  Then the calling thread takes the jobs in queue
 * order, so sources, workloads and every message come out exactly as
 * with -j 1.  Linking, rules, suppressions and output stay on one thread
 * (while group.c loads the next groups' Python on the others).
 *
 * A queue that fills up during a walk (QUEUE_MAX files) is handed to the
 * other threads as a batch in flight, and the calling thread walks on:
 * the walk's own time overlaps the reading.  Before anything else is
 * taken (the next full queue, a flush, an error or note of the walk) the
 * batch lands: the calling thread helps finish it and takes its jobs,
 * so the order is as above.  A walk's look-up of a path it met already
 * (cpl_engine_known()) sees the batch's paths too.
 *
 * Memory: a file is admitted to a thread only while the bytes of the
 * files being read and parsed stay under CPL_ENGINE_PARSE_BUDGET (a
 * larger file alone), so -j shares one budget rather than multiplying
 * the peak of parsing (admit(), the crew's lock).
 *
 * What a worker may touch: its job, the libraries' per-call state
 * (libyaml parsers, the tokenizer), read-only engine fields (staged).
 * libgit2 stays on the calling thread: with --staged, blobs are read when
 * queued.  A Python scan's error is kept in the source and reported when
 * the engine first asks for the file, as a scan on the calling thread
 * would have been.
 *
 * Owns the queue and its jobs until they are taken.
 */
#include "run/engine_int.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "model/link.h"
#include "run/cpus_int.h"
#include "run/pywork_int.h"

/* Queued files past which a flush starts: bounds what waits in memory. */
#define QUEUE_MAX 1024
/* Without -j, fewer files than this are not worth a thread (one named
 * file, pre-commit's case, starts none). */
#define THREAD_MIN 8

/* A queued file and, once processed, what came of it. */
struct pjob {
	char *path;		/* as met */
	char *key;		/* normalised, the queued map's key */
	bool explicit;		/* named on the command line */
	bool have_text;		/* read when queued (--staged) */
	char *text;
	size_t len;
	struct cpl_engine *out;	/* its errors, warnings, notes, workloads */
	struct source *src;	/* NULL when it could not be read */
};

/* The work of one flush, shared by its threads. */
struct crew {
	struct pjob *jobs;
	size_t n;
	atomic_size_t next;	/* the next job to take */
	pthread_mutex_t lock;	/* guards inflight */
	pthread_cond_t room;	/* inflight went down */
	size_t inflight;	/* bytes of the files being parsed */
};

/* A full queue being read on the other threads (cpl_engine_queue()). */
struct pbatch {
	struct crew c;
	struct cpl_strmap queued;	/* its jobs' keys → job */
	pthread_t *tid;
	size_t started;
};

static void launch(struct cpl_engine *e);

bool
cpl_engine_known(const struct cpl_engine *e, const char *path)
{
	char *key;
	bool known;

	if (cpl_engine_find_source(e, path) != NULL)
		return true;
	if (e->queue.njobs == 0 && e->queue.inflight == NULL)
		return false;
	key = cpl_link_join(".", path);
	known = cpl_strmap_get(&e->queue.queued, key) != NULL ||
		(e->queue.inflight != NULL &&
		 cpl_strmap_get(&e->queue.inflight->queued, key) != NULL);
	free(key);
	return known;
}

void
cpl_engine_queue(struct cpl_engine *e, const char *path, bool explicit)
{
	struct pjob *j;
	struct cpl_error err = { 0 };

	CPL_GROW(e->queue.jobs, e->queue.jobs_cap, e->queue.njobs + 1);
	j = &e->queue.jobs[e->queue.njobs++];
	memset(j, 0, sizeof(*j));
	j->path = cpl_xstrdup(path);
	j->key = cpl_link_join(".", path);
	j->explicit = explicit;
	j->out = cpl_xcalloc(1, sizeof(*j->out));
	j->out->set.drop_texts = e->set.drop_texts;	/* read by process() */
	cpl_strmap_put(&e->queue.queued, j->key, j);
	/* A text given for the path (a --fix pass) is read here, on the
	 * main thread, like the index with --staged. */
	if (cpl_engine_overlay_read(e, path, &j->text, &j->len) == 0) {
		j->have_text = true;
	} else if (e->set.staged) {
		j->have_text = true;
		if (cpl_engine_read_source(e, path, &j->text, &j->len,
					   &err) < 0) {
			cpl_engine_add_error(j->out, &err);
			cpl_error_clear(&err);
			j->text = NULL;
		}
	}
	if (e->queue.njobs >= QUEUE_MAX)
		launch(e);
}

/* Reads, parses and scans one file into its job (any thread): unless
 * the job has its text, fd is the file opened by cpl_read_open() (size
 * its size), or -1 with err saying why it could not be. */
static void
process(struct pjob *j, int fd, size_t size, struct cpl_error *err)
{
	bool python = cpl_str_ends(j->path, ".py");
	int rc;

	if (!j->have_text &&
	    (fd < 0 || cpl_read_fd(&j->text, &j->len, fd, size, j->path,
				   CPL_ENGINE_MAX_FILE_BYTES, err) < 0)) {
		cpl_engine_add_error(j->out, err);
		cpl_error_clear(err);
		j->text = NULL;
	}
	if (j->text == NULL)
		return;
	j->src = cpl_engine_source_new(j->path,
				       python ? FILE_PYTHON : FILE_YAML,
				       j->text, j->len);
	j->text = NULL;		/* the source's now */
	j->src->reread = true;
	if (!python) {
		cpl_engine_load_yaml(j->out, j->src, j->explicit);
		/* Nothing in it to judge (a values file, a CRD bundle, a
		 * package-lock.json): when the run lets texts go, its text
		 * goes now, not after the whole tree is read (read again
		 * if asked for).  The source is this job's alone here. */
		if (j->out->res.workloads.count == 0 &&
		    j->out->res.nerrors == 0 && j->out->res.nwarnings == 0)
			cpl_engine_let_text_go(j->out, j->src);
		return;
	}
	/* Scanned light: held unloaded until its group is judged
	 * (group.c). */
	j->src->scanned = true;
	rc = cpl_pyscan_file_light(&j->src->py, j->src->path, j->src->text,
				   j->src->len, err);
	/* Workloads it declares (a Flyte task, a KFP pipeline ...): read
	 * here, on this thread, from a scan of their own, when the light
	 * scan's imports (a full scan's: pyscan.h) name a framework.  A
	 * text the light scan cannot read, a full scan cannot either:
	 * such a file declares nothing. */
	if (rc == 0 && cpl_pywork_declares(j->src->py))
		(void)cpl_pywork_load(&j->out->res.workloads, j->src->path,
				      j->src->text, j->src->len);
	if (rc != 0) {
		j->src->scan_err = *err;	/* reported when asked for */
		memset(err, 0, sizeof(*err));
		if (j->src->scan_err.message == NULL)
			j->src->scan_err.message = cpl_xstrdup("error");
		return;
	}
	cpl_error_clear(err);
}

/* Waits until n more bytes fit the budget, or nothing else is in
 * flight, and takes them. */
static void
admit(struct crew *c, size_t n)
{
	pthread_mutex_lock(&c->lock);
	while (c->inflight > 0 && c->inflight + n > CPL_ENGINE_PARSE_BUDGET)
		pthread_cond_wait(&c->room, &c->lock);
	c->inflight += n;
	pthread_mutex_unlock(&c->lock);
}

/* Gives back what admit() took. */
static void
release(struct crew *c, size_t n)
{
	pthread_mutex_lock(&c->lock);
	c->inflight -= n;
	pthread_cond_broadcast(&c->room);
	pthread_mutex_unlock(&c->lock);
}

/* A thread of a flush: takes jobs until none is left, each when it fits
 * the parsing budget. */
static void *
work(void *arg)
{
	struct crew *c = arg;
	size_t i;

	while ((i = atomic_fetch_add(&c->next, 1)) < c->n) {
		struct pjob *j = &c->jobs[i];
		struct cpl_error err = { 0 };
		size_t n = 0;
		int fd = -1;

		/* The bytes it will parse: its text's, or its file's size
		 * from the descriptor it is read from (0 when it cannot be
		 * opened: process() says why). */
		if (j->have_text)
			n = j->len;
		else
			fd = cpl_read_open(j->path, CPL_ENGINE_MAX_FILE_BYTES,
					   &n, &err);
		admit(c, n);
		process(j, fd, n, &err);
		release(c, n);
	}
	return NULL;
}

/* Sets c up over jobs[0, n). */
static void
crew_init(struct crew *c, struct pjob *jobs, size_t n)
{
	c->jobs = jobs;
	c->n = n;
	atomic_init(&c->next, 0);
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->room, NULL);
	c->inflight = 0;
}

/* Frees what crew_init() made (not the jobs). */
static void
crew_destroy(struct crew *c)
{
	pthread_cond_destroy(&c->room);
	pthread_mutex_destroy(&c->lock);
}

/* Moves the errors (or warnings, notes) of a job onto the run's. */
static void
take_errors(struct cpl_error **to, size_t *n, size_t *cap,
	    struct cpl_error *from, size_t nfrom)
{
	if (nfrom == 0)
		return;
	*to = cpl_xgrow_to(*to, cap, *n + nfrom, sizeof(**to));
	memcpy(*to + *n, from, nfrom * sizeof(*from));
	*n += nfrom;
	free(from);
}

/* Takes what a job made into the run, and frees the job. */
static void
take(struct cpl_engine *e, struct pjob *j)
{
	struct cpl_engine *o = j->out;
	struct cpl_wlist *wl = &o->res.workloads;
	size_t i;

	if (j->src != NULL)
		cpl_engine_source_add(e, j->src);
	take_errors(&e->res.errors, &e->res.nerrors, &e->res.errors_cap,
		    o->res.errors, o->res.nerrors);
	take_errors(&e->res.warnings, &e->res.nwarnings, &e->res.warnings_cap,
		    o->res.warnings, o->res.nwarnings);
	take_errors(&e->res.notes, &e->res.nnotes, &e->res.notes_cap,
		    o->res.notes, o->res.nnotes);
	for (i = 0; i < wl->count; i++)
		cpl_wlist_add(&e->res.workloads, wl->items[i]);
	if (wl->nskipped > 0) {
		struct cpl_wlist *to = &e->res.workloads;

		CPL_GROW(to->skipped, to->skipped_cap, to->nskipped + wl->nskipped);
		memcpy(to->skipped + to->nskipped, wl->skipped,
		       wl->nskipped * sizeof(*wl->skipped));
		to->nskipped += wl->nskipped;
	}
	free(wl->items);
	free(wl->skipped);
	free(o);
	free(j->text);
	free(j->path);
	free(j->key);
}

size_t
cpl_engine_threads(struct cpl_engine *e, size_t n)
{
	size_t t = (size_t)e->set.threads;

	if (n < 2 || e->set.threads == 1)
		return 1;
	if (e->set.threads <= 0) {
		if (n < THREAD_MIN)
			return 1;
		if (e->queue.cpus == 0)
			e->queue.cpus = cpl_cpus_available();
		t = (size_t)e->queue.cpus;
	}
	return t < n ? t : n;
}

/* Starts up to nt - 1 threads on c; returns them (NULL: none). */
static pthread_t *
start_crew(struct cpl_engine *e, struct crew *c, size_t nt, size_t *started)
{
	pthread_t *tid;
	size_t i;

	*started = 0;
	if (nt <= 1)
		return NULL;
	if (!e->queue.seeded) {	/* jansson seeds itself racily */
		json_object_seed(0);
		e->queue.seeded = true;
	}
	tid = cpl_xcalloc(nt - 1, sizeof(*tid));
	for (i = 0; i + 1 < nt; i++)
		if (pthread_create(&tid[*started], NULL, work, c) == 0)
			(*started)++;
	return tid;
}

/* This thread works on c too (alone when no thread started), waits for
 * the threads, takes every job in order and frees them. */
static void
finish_crew(struct cpl_engine *e, struct crew *c, pthread_t *tid,
	    size_t started)
{
	size_t i;

	work(c);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	for (i = 0; i < c->n; i++)
		take(e, &c->jobs[i]);
}

/* The batch in flight finished and taken, if there is one. */
void
cpl_engine_land(struct cpl_engine *e)
{
	struct pbatch *b = e->queue.inflight;

	if (b == NULL)
		return;
	e->queue.inflight = NULL;
	finish_crew(e, &b->c, b->tid, b->started);
	crew_destroy(&b->c);
	cpl_strmap_free(&b->queued);
	free(b->c.jobs);
	free(b);
}

/* The full queue handed to the other threads while this one walks on
 * (-j 1, or a failure to start a thread: read now). */
static void
launch(struct cpl_engine *e)
{
	struct pbatch *b;
	size_t nt;

	cpl_engine_land(e);
	nt = cpl_engine_threads(e, e->queue.njobs);
	if (nt <= 1) {
		cpl_engine_flush(e);
		return;
	}
	b = cpl_xcalloc(1, sizeof(*b));
	crew_init(&b->c, e->queue.jobs, e->queue.njobs);
	b->tid = start_crew(e, &b->c, nt, &b->started);
	b->queued = e->queue.queued;
	memset(&e->queue.queued, 0, sizeof(e->queue.queued));
	e->queue.jobs = NULL;
	e->queue.njobs = 0;
	e->queue.jobs_cap = 0;
	e->queue.inflight = b;
	if (b->started == 0)
		cpl_engine_land(e);
}

void
cpl_engine_flush(struct cpl_engine *e)
{
	struct crew c;
	pthread_t *tid;
	size_t started;

	cpl_engine_land(e);
	if (e->queue.njobs == 0)
		return;
	crew_init(&c, e->queue.jobs, e->queue.njobs);
	tid = start_crew(e, &c, cpl_engine_threads(e, e->queue.njobs),
			 &started);
	finish_crew(e, &c, tid, started);
	crew_destroy(&c);
	cpl_strmap_free(&e->queue.queued);
	e->queue.njobs = 0;
}

void
cpl_engine_pipeline_free(struct cpl_engine *e)
{
	size_t i;


	for (i = 0; i < e->queue.njobs; i++) {	/* queued, never flushed */
		struct pjob *j = &e->queue.jobs[i];
		size_t k;

		for (k = 0; k < j->out->res.nerrors; k++)
			cpl_error_clear(&j->out->res.errors[k]);
		free(j->out->res.errors);
		cpl_wlist_free(&j->out->res.workloads);
		free(j->out);
		free(j->text);
		free(j->path);
		free(j->key);
	}
	free(e->queue.jobs);
	cpl_strmap_free(&e->queue.queued);
}

void
cpl_engine_set_jobs(struct cpl_engine *e, int n)
{
	e->set.threads = n > 0 ? n : 0;
}
