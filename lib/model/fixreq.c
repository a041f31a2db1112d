/*
 * fixreq.c — a fix's requests recorded on its finding (fixreq.h): plain
 * data, resolved into edits by fix/resolve.c when an edit is asked for.
 *
 * Ownership: each request's strings and position files are copies the
 * finding owns; containers and workloads stay borrowed.
 */
#include "model/fixreq.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A copy of pos whose file the request owns. */
static struct cpl_pos
own_pos(const struct cpl_pos *pos)
{
	struct cpl_pos p = { 0 };

	if (pos != NULL) {
		p = *pos;
		p.file = pos->file ? cpl_xstrdup(pos->file) : NULL;
	}
	return p;
}

struct cpl_fixreq *
cpl_fix_add(struct cpl_finding *f, enum cpl_fixop op, unsigned flags)
{
	struct cpl_fixreq *q;

	f->reqs = cpl_xrealloc(f->reqs, (f->nreqs + 1) * sizeof(*f->reqs));
	q = &f->reqs[f->nreqs++];
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->flags = flags;
	return q;
}

void
cpl_fix_scalar(struct cpl_finding *f, const struct cpl_pos *pos,
	       const char *text)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_SCALAR, 0);

	q->pos = own_pos(pos);
	q->text = cpl_xstrdup(text);
}

void
cpl_fix_env(struct cpl_finding *f, const struct cpl_container *c,
	    const char *const *names, size_t n, const char *value)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_ENV, 0);
	size_t i;

	q->c = c;
	for (i = 0; i < n && i < 2; i++)
		q->names[i] = names[i];
	q->nnames = i;
	q->text = cpl_xstrdup(value);
}

void
cpl_fix_shm(struct cpl_finding *f, const struct cpl_container *c,
	    const char *size)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_SHM, 0);

	q->c = c;
	q->text = size ? cpl_xstrdup(size) : NULL;
}

void
cpl_fix_cpu(struct cpl_finding *f, const struct cpl_container *c,
	    const char *request, const char *limit)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_CPU, 0);

	q->c = c;
	q->text = request ? cpl_xstrdup(request) : NULL;
	q->text2 = limit ? cpl_xstrdup(limit) : NULL;
}

void
cpl_fix_limit(struct cpl_finding *f, const struct cpl_container *c,
	      const char *limit)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_LIMIT, 0);

	q->c = c;
	q->text = limit ? cpl_xstrdup(limit) : NULL;
}

void
cpl_fix_env_count(struct cpl_finding *f, const struct cpl_pos *pos,
		  long from, long to, unsigned flags)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_ENV_COUNT, flags);

	q->pos = own_pos(pos);
	q->from = from;
	q->to = to;
}

void
cpl_fix_count(struct cpl_finding *f, const struct cpl_pos *pos, long from,
	      long to)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_COUNT, 0);

	q->pos = own_pos(pos);
	q->from = from;
	q->to = to;
}

void
cpl_fix_args(struct cpl_finding *f, const struct cpl_pos *pos,
	     const char *text)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_ARGS, 0);

	q->pos = own_pos(pos);
	q->text = cpl_xstrdup(text);
}

void
cpl_fix_cpu_quota(struct cpl_finding *f, const struct cpl_pos *call,
		  const struct cpl_pos *end)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_CPU_QUOTA, 0);

	q->pos = own_pos(call);
	q->end = own_pos(end);
	f->fix_safety = CPL_FIX_UNSAFE;		/* changes the code */
}

void
cpl_fix_split(struct cpl_finding *f, const struct cpl_container *c,
	      const struct cpl_facts *fa, long t, long w, bool workers)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_SPLIT, 0);

	q->c = c;
	q->from = t;
	q->to = w;
	q->set_workers = workers;
	q->threads = fa->threads;
	q->threads.pos = own_pos(&fa->threads.pos);
	q->workers = fa->workers;
	q->workers.pos = own_pos(&fa->workers.pos);
	f->fix_safety = CPL_FIX_UNSAFE;		/* changes what the job runs */
}

void
cpl_fix_annotation(struct cpl_finding *f, const struct cpl_workload *w,
		   const char *key, const char *value,
		   const struct cpl_pos *at)
{
	struct cpl_fixreq *q = cpl_fix_add(f, CPL_FIXOP_ANNOTATION, 0);

	q->w = w;
	q->text = cpl_xstrdup(key);
	q->text2 = cpl_xstrdup(value);
	q->pos = own_pos(at);
}

void
cpl_fixreq_free(struct cpl_fixreq *reqs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free((char *)reqs[i].pos.file);
		free((char *)reqs[i].end.file);
		free((char *)reqs[i].threads.pos.file);
		free((char *)reqs[i].workers.pos.file);
		free(reqs[i].text);
		free(reqs[i].text2);
	}
	free(reqs);
}
