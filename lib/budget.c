/*
 * budget.c — the budget arithmetic and the per-container questions the
 * budget rules share (see budget.h).  Values are resolved as far as the
 * text allows, never guessed: what cannot be read is UNKNOWN.
 */
#include "budget.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "link.h"
#include "python/pyscan.h"
#include "shell/shscan.h"
#include "util.h"

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

/*
 * A training script, for a long-running controller whose command starts
 * no launcher: the linked Python imports torch and trains, that is it
 * builds a DataLoader, calls .backward(), or steps an optimizer
 * (optimizer.step(), opt.step(), self.optim.step(), scaler.step(opt)).
 * An inference server imports torch too, but does none of these; a
 * learning-rate scheduler's .step() alone does not count.
 */
static bool
training_script(const struct cpl_code *code)
{
	size_t i, j;

	if (!cpl_code_imports_torch(code))
		return false;
	if (code->nloaders > 0)
		return true;
	for (i = 0; i < code->nfiles; i++) {
		const struct cpl_pyfile *f = code->files[i];

		for (j = 0; j < f->ncalls; j++) {
			const char *callee = f->calls[j].callee;
			const char *dot = callee ? strrchr(callee, '.') : NULL;

			if (dot == NULL)
				continue;
			if (strcmp(dot, ".backward") == 0)
				return true;
			if (strcmp(dot, ".step") == 0 &&
			    optimizer_name(callee, (size_t)(dot - callee)))
				return true;
		}
	}
	return false;
}

bool
cpl_budget_training(const struct cpl_workload *w,
		    const struct cpl_container *c)
{
	if (c->role != CPL_CROLE_MAIN || c->not_training)
		return false;
	if (c->run_container)
		return true;
	/* Every launcher shscan knows besides plain python starts training
	 * ranks (torchrun, torch.distributed.launch, accelerate, deepspeed
	 * ...). */
	if (c->launch.launcher != CPL_LAUNCH_NONE &&
	    c->launch.launcher != CPL_LAUNCH_PYTHON)
		return true;
	/* A server (Deployment, StatefulSet, DaemonSet, a restarted Pod):
	 * GPUs serve models; only training code makes it training. */
	if (!w->run_to_completion)
		return training_script(c->code);
	if (c->gpus > 0)
		return true;
	return cpl_code_imports_torch(c->code);
}

int64_t
cpl_budget_cpu(const struct cpl_container *c, struct cpl_pos *pos)
{
	if (c->cpu_limit >= 0) {
		if (pos)
			*pos = c->limit_pos;
		return c->cpu_limit;
	}
	if (c->cpu_limit == CPL_CPU_ABSENT && c->cpu_request >= 0) {
		if (pos)
			*pos = c->request_pos;
		return c->cpu_request;
	}
	return -1;
}

/* Parses a whole-number count ("4", " 8 "); -1 when it is not one. */
static long
parse_count(const char *s)
{
	long v;
	char buf[32];
	size_t n;

	if (s == NULL)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (cpl_parse_long(&v, buf) < 0 || v < 0)
		return -1;
	return v;
}

static bool
is_host_expr(const char *s)
{
	return s && (strstr(s, "nproc") || strstr(s, "_NPROCESSORS_") ||
		     strstr(s, "cpu_count") || strstr(s, "/proc/cpuinfo"));
}

static void
amount(struct cpl_amount *a, enum cpl_amount_state st, long n,
       const struct cpl_pos *pos, const char *fmt, ...) CPL_PRINTF(5, 6);

static void
amount(struct cpl_amount *a, enum cpl_amount_state st, long n,
       const struct cpl_pos *pos, const char *fmt, ...)
{
	va_list ap;

	a->state = st;
	a->n = n;
	a->auto_cpu = false;
	if (pos)
		a->pos = *pos;
	else
		memset(&a->pos, 0, sizeof(a->pos));
	va_start(ap, fmt);
	vsnprintf(a->how, sizeof(a->how), fmt, ap);
	va_end(ap);
}

/* A rank count as written ("4", "auto", "cpu", "gpu", "$(nproc)"). */
static void
rank_value(struct cpl_amount *out, const struct cpl_container *c,
	   const char *v, const struct cpl_pos *pos, const char *src)
{
	long n = parse_count(v);

	if (n > 0) {
		amount(out, CPL_AMT_KNOWN, n, pos, "%s %s", src, v);
	} else if (v && strcmp(v, "gpu") == 0 && c->gpus > 0) {
		amount(out, CPL_AMT_KNOWN, c->gpus, pos, "%s gpu (%ld GPUs)",
		       src, c->gpus);
	} else if (v && strcmp(v, "auto") == 0 && c->gpus > 0) {
		amount(out, CPL_AMT_KNOWN, c->gpus, pos, "%s auto (%ld GPUs)",
		       src, c->gpus);
	} else if (v && (strcmp(v, "auto") == 0 || strcmp(v, "cpu") == 0)) {
		amount(out, CPL_AMT_HOST, 1, pos, "%s %s", src, v);
		out->auto_cpu = true;
	} else if (is_host_expr(v)) {
		amount(out, CPL_AMT_HOST, 1, pos, "%s %s", src, v);
	} else {
		amount(out, CPL_AMT_UNKNOWN, 1, pos, "%s %s", src,
		       v ? v : "(unknown)");
	}
}

void
cpl_budget_ranks(struct cpl_amount *out, const struct cpl_workload *w,
		 const struct cpl_container *c)
{
	const struct cpl_launch *l = &c->launch;
	const struct cpl_env *pet;
	const char *flag;

	memset(out, 0, sizeof(*out));
	switch (l->launcher) {
	case CPL_LAUNCH_TORCHRUN:
	case CPL_LAUNCH_TORCH_LAUNCH:
		flag = l->launcher == CPL_LAUNCH_TORCHRUN ?
		       "torchrun --nproc_per_node" :
		       "torch.distributed.launch --nproc_per_node";
		if (l->has_nproc) {
			rank_value(out, c, l->nproc.text, &l->nproc.pos, flag);
		} else if ((pet = cpl_container_env_effective(c, "PET_NPROC_PER_NODE"))) {
			rank_value(out, c, pet->value, &pet->pos,
				   w->trainer ? "Trainer numProcPerNode" :
				   "PET_NPROC_PER_NODE=");
		} else if (w->has_nproc) {
			rank_value(out, c, w->nproc.text, &w->nproc.pos,
				   "nprocPerNode");
		} else if (w->nproc_default_auto &&
			   l->launcher == CPL_LAUNCH_TORCHRUN) {
			rank_value(out, c, "auto", &w->pos,
				   "nprocPerNode (default)");
		} else {
			amount(out, CPL_AMT_KNOWN, 1, &l->launcher_word.pos,
			       "%s default 1", flag);
		}
		return;
	case CPL_LAUNCH_ACCELERATE:
		if (l->has_nproc)
			rank_value(out, c, l->nproc.text, &l->nproc.pos,
				   "accelerate --num_processes");
		else
			amount(out, CPL_AMT_UNKNOWN, 1, &l->launcher_word.pos,
			       "accelerate launch (config file)");
		return;
	case CPL_LAUNCH_DEEPSPEED:
		if (l->has_nproc)
			rank_value(out, c, l->nproc.text, &l->nproc.pos,
				   "deepspeed --num_gpus");
		else if (c->gpus > 0)
			amount(out, CPL_AMT_KNOWN, c->gpus,
			       &l->launcher_word.pos,
			       "deepspeed (one rank per GPU: %ld)", c->gpus);
		else
			amount(out, CPL_AMT_UNKNOWN, 1, &l->launcher_word.pos,
			       "deepspeed");
		return;
	default:
		if (c->has_slots) {
			/* MPI ranks: the operator's slots, or -np. */
			rank_value(out, c, c->slots.text, &c->slots.pos,
				   c->slots_from ? c->slots_from :
				   "MPI slots");
			return;
		}
		if (w->trainer != NULL && c->run_container) {
			/* Trainer runs the command as it is; with none the
			 * image's entrypoint decides. */
			if (c->argc == 0)
				amount(out, CPL_AMT_UNKNOWN, 1, NULL,
				       "the image's entrypoint");
			else
				amount(out, CPL_AMT_KNOWN, 1, NULL,
				       "one process");
			return;
		}
		if (w->has_nproc && w->source != CPL_SRC_POLYAXON &&
		    c->run_container && l->launcher == CPL_LAUNCH_NONE) {
			/* A TrainJob runtime may wrap the command. */
			amount(out, CPL_AMT_UNKNOWN, 1, &w->nproc.pos,
			       "numProcPerNode");
			return;
		}
		amount(out, CPL_AMT_KNOWN, 1, NULL, "one process");
		return;
	}
}

void
cpl_budget_env_count(struct cpl_amount *out, const struct cpl_container *c,
		     const char *name)
{
	const struct cpl_env *e = cpl_container_env_effective(c, name);
	long n;

	memset(out, 0, sizeof(*out));
	if (e == NULL)
		return;
	n = parse_count(e->value);
	if (n >= 0)
		amount(out, CPL_AMT_KNOWN, n, &e->pos, "%s=%ld", name, n);
	else if (is_host_expr(e->value))
		amount(out, CPL_AMT_HOST, 1, &e->pos, "%s=%s", name, e->value);
	else
		amount(out, CPL_AMT_UNKNOWN, 1, &e->pos, "%s (value unknown)",
		       name);
}

/*
 * Folds resolved code values (DataLoader workers, set_num_threads counts)
 * into one amount: the largest known value, HOST when any value tracks
 * the host, UNKNOWN when none is known.  what names the value in how.
 */
static void
code_amount(struct cpl_amount *out, const struct cpl_code_size *v, size_t n,
	    const char *what)
{
	size_t i, best = n;
	bool host = false;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		if (v[i].value.kind == CPL_PYVAL_HOST)
			host = true;
		else if (v[i].value.kind == CPL_PYVAL_KNOWN &&
			 (best == n || v[i].value.value > v[best].value.value))
			best = i;
	}
	if (host) {
		for (i = 0; i < n && v[i].value.kind != CPL_PYVAL_HOST; i++)
			;
		amount(out, CPL_AMT_HOST, best < n ? v[best].value.value : 1,
		       &v[i].value.pos, "%s sized from the host's CPU count",
		       what);
	} else if (best < n) {
		amount(out, CPL_AMT_KNOWN, v[best].value.value,
		       &v[best].value.pos, "%s=%ld", what,
		       v[best].value.value);
	} else if (n > 0) {
		amount(out, CPL_AMT_UNKNOWN, 0, &v[0].pos, "%s (unknown)",
		       what);
	}
}

void
cpl_budget_threads(struct cpl_amount *out, const struct cpl_workload *w,
		   const struct cpl_container *c)
{
	struct cpl_amount ranks;

	/* torch.set_num_threads in the code wins over the environment. */
	if (c->code && c->code->nthreads > 0) {
		code_amount(out, c->code->threads, c->code->nthreads,
			    "torch.set_num_threads");
		if (out->state == CPL_AMT_KNOWN)
			snprintf(out->how, sizeof(out->how),
				 "torch.set_num_threads(%ld)", out->n);
		if (out->state != CPL_AMT_UNKNOWN)
			return;
	}
	cpl_budget_env_count(out, c, "MKL_NUM_THREADS");
	if (out->state != CPL_AMT_UNSET)
		return;
	cpl_budget_env_count(out, c, "OMP_NUM_THREADS");
	if (out->state != CPL_AMT_UNSET)
		return;
	if (c->launch.launcher == CPL_LAUNCH_TORCHRUN ||
	    c->launch.launcher == CPL_LAUNCH_TORCH_LAUNCH) {
		cpl_budget_ranks(&ranks, w, c);
		if ((ranks.state == CPL_AMT_KNOWN && ranks.n > 1) ||
		    ranks.state == CPL_AMT_HOST)
			amount(out, CPL_AMT_KNOWN, 1, &ranks.pos,
			       "OMP_NUM_THREADS=1 (set by %s)",
			       cpl_launcher_name(c->launch.launcher));
	}
}

/* Normalises a flag name: strips dashes, '-' → '_', lower case. */
static void
flag_key(char *out, size_t size, const char *flag, size_t len)
{
	size_t i = 0;

	while (len > 0 && *flag == '-')
		flag++, len--;
	for (; len > 0 && i + 1 < size; flag++, len--)
		out[i++] = *flag == '-' ? '_' :
			   (char)tolower((unsigned char)*flag);
	out[i] = '\0';
}

static bool
is_worker_flag(const char *key)
{
	static const char *const flags[] = {
		"workers", "num_workers", "n_workers", "dataloader_num_workers",
		"loader_workers", "data_workers", "num_data_workers",
		"dataloader_workers", "num_loader_workers", "j",
	};
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(flags); i++)
		if (strcmp(key, flags[i]) == 0)
			return true;
	return false;
}

void
cpl_budget_workers(struct cpl_amount *out, const struct cpl_workload *w,
		   const struct cpl_container *c)
{
	const struct cpl_launch *l = &c->launch;
	size_t i;

	(void)w;
	memset(out, 0, sizeof(*out));
	/* Linked code knows the DataLoaders, resolved with the arguments. */
	if (c->code) {
		code_amount(out, c->code->loaders, c->code->nloaders,
			    "num_workers");
		return;
	}
	for (i = 0; i < l->nargs; i++) {
		const char *a = l->args[i].text, *eq, *val;
		const struct cpl_pos *pos = &l->args[i].pos;
		char key[64];
		long n;
		int flen;

		if (a == NULL || a[0] != '-')
			continue;
		eq = strchr(a, '=');
		flag_key(key, sizeof(key), a, eq ? (size_t)(eq - a) : strlen(a));
		if (!is_worker_flag(key))
			continue;
		if (eq) {
			val = eq + 1;
		} else if (i + 1 < l->nargs) {
			val = l->args[i + 1].text;
		} else {
			continue;
		}
		n = parse_count(val);
		flen = (int)(eq ? (size_t)(eq - a) : strlen(a));
		if (n >= 0)
			amount(out, CPL_AMT_KNOWN, n, pos, "%.*s %ld", flen, a,
			       n);
		else if (is_host_expr(val))
			amount(out, CPL_AMT_HOST, 1, pos, "%.*s %s", flen, a,
			       val);
		else
			amount(out, CPL_AMT_UNKNOWN, 0, pos, "%.*s %s", flen, a,
			       val);
	}
}

void
cpl_budget_split(long *per_rank, long *threads, long *workers,
		 int64_t cpu_millis, long ranks)
{
	long b = (long)(cpu_millis / 1000) / (ranks > 0 ? ranks : 1);

	*per_rank = b;
	*threads = b / 2 > 1 ? b / 2 : 1;
	*workers = b - *threads > 0 ? b - *threads : 0;
}

void
cpl_budget_cpus_str(char *out, unsigned size, int64_t millis)
{
	if (millis % 1000 == 0)
		snprintf(out, size, "%lld", (long long)(millis / 1000));
	else if (millis % 100 == 0)
		snprintf(out, size, "%lld.%lld", (long long)(millis / 1000),
			 (long long)(millis % 1000 / 100));
	else
		snprintf(out, size, "%lldm", (long long)millis);
}

void
cpl_facts_gather(struct cpl_facts *f, const struct cpl_workload *w,
		 const struct cpl_container *c)
{
	memset(f, 0, sizeof(*f));
	f->cpu = cpl_budget_cpu(c, &f->cpu_pos);
	if (f->cpu >= 0) {
		cpl_budget_cpus_str(f->cpus, sizeof(f->cpus), f->cpu);
		snprintf(f->budget, sizeof(f->budget), "budget of %s CPU%s",
			 f->cpus, f->cpu > 1000 ? "s" : "");
	}
	cpl_budget_ranks(&f->ranks, w, c);
	cpl_budget_threads(&f->threads, w, c);
	cpl_budget_workers(&f->workers, w, c);
	if (f->cpu >= 0)
		cpl_budget_split(&f->per_rank, &f->t, &f->w, f->cpu,
				 f->ranks.n > 0 ? f->ranks.n : 1);
}

/* The text and position of a how; text NULL when nothing sets it. */
static void
how_set(struct cpl_budget_how *h, const char *text,
	const struct cpl_pos *pos)
{
	memset(h, 0, sizeof(*h));
	if (text == NULL || *text == '\0')
		return;
	h->text = cpl_xstrdup(text);
	if (pos && pos->file && pos->line > 0) {
		h->file = cpl_xstrdup(pos->file);
		h->line = pos->line;
		h->column = pos->column;
	}
}

/* A known count, else -1. */
static long
known(const struct cpl_amount *a)
{
	return a->state == CPL_AMT_KNOWN ? a->n : -1;
}

static double
cpus_of(int64_t millis)
{
	return millis >= 0 ? (double)millis / 1000.0 : -1.0;
}

void
cpl_budget_entry(struct cpl_budget_entry *b, const char *object,
		 const struct cpl_workload *w, const struct cpl_container *c)
{
	struct cpl_facts f;
	char text[64];

	memset(b, 0, sizeof(*b));
	cpl_facts_gather(&f, w, c);
	b->object = cpl_xstrdup(object);
	b->container = cpl_xstrdup(c->name);
	if (w->file) {
		b->file = cpl_xstrdup(w->file);
		b->line = c->pos.line > 0 ? c->pos.line : w->pos.line;
	}
	b->cpu_request = cpus_of(c->cpu_request);
	b->cpu_limit = cpus_of(c->cpu_limit);
	b->ranks = known(&f.ranks);
	b->threads = known(&f.threads);
	b->workers = known(&f.workers);
	b->busy = b->ranks >= 0 && b->threads >= 0 && b->workers >= 0 ?
		  cpl_sat_mul(b->ranks, cpl_sat_add(b->threads, b->workers)) :
		  -1;
	b->per_rank = f.cpu >= 1000 ? f.per_rank : -1;
	b->suggested_threads = f.cpu >= 1000 ? f.t : -1;
	b->suggested_workers = f.cpu >= 1000 ? f.w : -1;
	if (f.cpu >= 0) {
		snprintf(text, sizeof(text), "resources.%s.cpu %s",
			 c->cpu_limit >= 0 ? "limits" : "requests", f.cpus);
		how_set(&b->how_cpu, text, &f.cpu_pos);
	}
	how_set(&b->how_ranks, f.ranks.how, &f.ranks.pos);
	how_set(&b->how_threads, f.threads.how, &f.threads.pos);
	how_set(&b->how_workers, f.workers.how, &f.workers.pos);
	b->m_threads = -1;
	b->cpu_used = -1;
	b->throttled_pct = -1;
	if (c->measure_source) {
		b->measured = true;
		b->source = c->measure_source;
		b->window_s = c->measure_window;
		b->since_start = c->since_start;
		b->m_threads = c->threads_now;
		b->cpu_used = c->cpu_used;
		b->throttled_pct = c->throttled_pct;
	}
}
