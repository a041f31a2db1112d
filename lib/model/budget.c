/*
 * budget.c — the budget arithmetic and the per-container questions the
 * budget rules share (see budget.h).  Values are resolved as far as the
 * text allows, never guessed: what cannot be read is UNKNOWN.
 */
#include "model/budget.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/pools.h"
#include "model/trains_int.h"
#include "python/pyscan.h"
#include "shell/shscan.h"
#include "util.h"

/* The command runs Python: python SCRIPT, -m MODULE, an inline script
 * (an Argo script template's source), or python among the words of a
 * launcher that starts it (mpirun, horovodrun ... python train.py). */
static bool
runs_python(const struct cpl_container *c)
{
	size_t i;

	if (c->launch.launcher == CPL_LAUNCH_PYTHON)
		return true;
	for (i = 0; i < c->argc; i++) {
		const char *t = c->argv[i].text, *base = strrchr(t, '/');

		base = base ? base + 1 : t;
		if (strncmp(base, "python", 6) == 0 &&
		    strspn(base + 6, "0123456789.") == strlen(base + 6))
			return true;
	}
	return false;
}

const char *
cpl_budget_unseen(const struct cpl_container *c)
{
	if (c->ranks_native != NULL)
		return c->ranks_native;
	if (c->ncommand == 0 || c->launch.launcher != CPL_LAUNCH_NONE ||
	    c->code != NULL || c->has_slots || runs_python(c))
		return NULL;
	return c->argv[0].text;
}

/* Whether env variable name of c holds value (case aside). */
static bool
env_is(const struct cpl_container *c, const char *name, const char *value)
{
	const struct cpl_env *e = cpl_container_env_effective(c, name);

	return e != NULL && e->value != NULL &&
	       strcasecmp(e->value, value) == 0;
}

/*
 * The env of a distributed trainer's worker, which the frameworks'
 * runtimes read to make the process one: MXNet's parameter-server role
 * (DMLC_ROLE=worker; a server or scheduler only aggregates or
 * coordinates), PaddlePaddle's (PADDLE_TRAINING_ROLE or TRAINING_ROLE
 * TRAINER; a PSERVER serves parameters), torch.distributed's env://
 * rendezvous (MASTER_ADDR with WORLD_SIZE).
 */
static bool
trainer_env(const struct cpl_container *c)
{
	return env_is(c, "DMLC_ROLE", "worker") ||
	       env_is(c, "PADDLE_TRAINING_ROLE", "TRAINER") ||
	       env_is(c, "TRAINING_ROLE", "TRAINER") ||
	       (cpl_container_env_effective(c, "MASTER_ADDR") != NULL &&
		cpl_container_env_effective(c, "WORLD_SIZE") != NULL);
}

/*
 * Whether module m (its first n bytes: the top-level name) is one of the
 * standard library's or a pipeline SDK's, which start no native pool.
 */
static bool
pure_module(const char *m, size_t n)
{
	static const char *const pure[] = {
		"os", "sys", "json", "re", "math", "typing", "collections",
		"itertools", "functools", "datetime", "time", "pathlib",
		"random", "string", "logging", "argparse", "csv",
		"dataclasses", "enum", "hashlib", "base64", "uuid", "glob",
		"shutil", "subprocess", "tempfile", "io", "textwrap", "copy",
		"pickle", "gzip", "zipfile", "tarfile", "urllib", "http",
		"__future__", "statistics", "operator", "fnmatch", "struct",
		"kfp", "yaml", "requests",
	};
	size_t k;

	for (k = 0; k < CPL_ARRAY_LEN(pure); k++)
		if (strlen(pure[k]) == n && strncmp(m, pure[k], n) == 0)
			return true;
	return false;
}

/*
 * Whether linked code is pure Python: one file that imports only the
 * standard library or a pipeline SDK, so it starts no OpenMP pool and
 * trains nothing (a pipeline step's function that splits a manifest).
 * An import of anything else (torch, numpy, a local module, a package
 * installed in the image) may train: not pure.  False when nothing is
 * linked or the file is not loaded.
 */
static bool
pure_code(const struct cpl_code *code)
{
	size_t i, j;

	if (code == NULL || code->nfiles != 1 || code->imports_torch)
		return false;
	for (i = 0; i < code->nfiles; i++) {
		const struct cpl_pyfile *f = code->files[i];

		if (f->light != NULL)
			return false;
		for (j = 0; j < f->nimports; j++) {
			const char *m = f->imports[j].module;
			size_t n = m ? strcspn(m, ".") : 0;

			if (f->imports[j].level > 0 || n == 0)
				return false;
			if (!pure_module(m, n))
				return false;
		}
	}
	return true;
}

/*
 * A container of a kind whose containers train only on evidence (the
 * generic model, Argo and Tekton steps): a training launcher in its
 * command, linked Python that trains, a distributed trainer's env, or
 * GPUs in a kind that runs to completion with a command that runs
 * Python.  A program the tool cannot see into is no evidence.
 */
static bool
training_on_evidence(const struct cpl_workload *w,
		     const struct cpl_container *c)
{
	if (c->launch.launcher != CPL_LAUNCH_NONE &&
	    c->launch.launcher != CPL_LAUNCH_PYTHON)
		return true;
	if (trainer_env(c))
		return true;
	if (w->py_declared ? cpl_trains_declared(c->code) :
	    cpl_trains_script(c->code))
		return true;
	/* GPUs with Python, unless the Python is a pure function. */
	return w->run_to_completion && c->gpus > 0 && runs_python(c) &&
	       !pure_code(c->code);
}

bool
cpl_budget_torch_kind(const struct cpl_workload *w,
		      const struct cpl_container *c)
{
	if (c->role != CPL_CROLE_MAIN || c->not_training ||
	    c->ranks_native != NULL || w->template_only)
		return false;
	/* A kind whose operator runs torchrun (kinds table): PyTorchJob;
	 * TrainJob unless its runtime is MPI's or another framework's. */
	if (w->torch_kind)
		return c->run_container &&
		       w->ml_policy != CPL_TPOLICY_MPI &&
		       w->ml_policy != CPL_TPOLICY_OTHER;
	/* The generic model marks a PyTorch ElasticJob's trainer. */
	return cpl_str_eq(w->kind, "ElasticJob") && c->run_container;
}

bool
cpl_budget_training(const struct cpl_workload *w,
		    const struct cpl_container *c)
{
	if (c->role != CPL_CROLE_MAIN || c->not_training)
		return false;
	if (cpl_budget_torch_kind(w, c))
		return true;
	if (w->by_evidence && !c->run_container)
		return training_on_evidence(w, c);
	/* A TrainJob on another framework's runtime (flux runs LAMMPS,
	 * jax-distributed JAX): its trainer trains PyTorch on evidence. */
	if (w->torch_kind && w->ml_policy == CPL_TPOLICY_OTHER)
		return training_on_evidence(w, c);
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
		return cpl_trains_script(c->code);
	return training_on_evidence(w, c);
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
	a->cap = 0;
	if (pos)
		a->pos = *pos;
	else
		memset(&a->pos, 0, sizeof(a->pos));
	va_start(ap, fmt);
	cpl_vformat(a->how, sizeof(a->how), fmt, ap);
	va_end(ap);
}

/*
 * The value a count word stands for when it names a variable: "$N",
 * "${N}" (the shell's, from the command's exports or the container's
 * env) or "$(N)" (Kubernetes expands it from the container's env before
 * the command runs).  NULL when it names none, or the variable is unset.
 */
static const char *
var_value(const struct cpl_container *c, const char *v)
{
	char name[128];
	const char *p, *close = NULL;
	const struct cpl_env *e;
	size_t n;
	bool k8s = false;

	if (v == NULL || v[0] != '$')
		return NULL;
	p = v + 1;
	if (*p == '{' || *p == '(') {
		k8s = *p == '(';
		close = k8s ? ")" : "}";
		p++;
	}
	for (n = 0; p[n] == '_' || isalnum((unsigned char)p[n]); n++)
		;
	if (n == 0 || n >= sizeof(name) || isdigit((unsigned char)p[0]))
		return NULL;
	if (close ? strcmp(p + n, close) != 0 : p[n] != '\0')
		return NULL;
	memcpy(name, p, n);
	name[n] = '\0';
	e = k8s ? cpl_container_env(c, name) :
	    cpl_container_env_effective(c, name);
	return e ? e->value : NULL;
}

/*
 * A rank count as written ("4", "auto", "cpu", "gpu", "$(nproc)", or a
 * variable holding one).  src names where it is written for messages.
 */
static void
rank_value(struct cpl_amount *out, const struct cpl_container *c,
	   const char *v, const struct cpl_pos *pos, const char *src)
{
	const char *var = var_value(c, v);
	const char *x = var ? var : v;
	long n = parse_count(x);
	char as[80];

	as[0] = '\0';
	if (var != NULL)
		cpl_format(as, sizeof(as), " = %s", var);
	if (n > 0) {
		amount(out, CPL_AMT_KNOWN, n, pos, "%s %s%s", src, v, as);
	} else if (x && strcmp(x, "gpu") == 0 && c->gpus > 0) {
		amount(out, CPL_AMT_KNOWN, c->gpus, pos, "%s %s (%ld GPUs)",
		       src, v, c->gpus);
	} else if (x && strcmp(x, "auto") == 0 && c->gpus > 0) {
		amount(out, CPL_AMT_KNOWN, c->gpus, pos, "%s %s (%ld GPUs)",
		       src, v, c->gpus);
	} else if (x && (strcmp(x, "auto") == 0 || strcmp(x, "cpu") == 0)) {
		amount(out, CPL_AMT_HOST, 1, pos, "%s %s%s", src, v, as);
		out->auto_cpu = true;
	} else if (is_host_expr(x)) {
		amount(out, CPL_AMT_HOST, 1, pos, "%s %s%s", src, v, as);
	} else {
		amount(out, CPL_AMT_UNKNOWN, 1, pos, "%s %s", src,
		       v ? v : "(unknown)");
	}
}

/* torchrun's name as the command spells it: hyperpodrun and
 * torchelastic's launcher are its kin, with its options and defaults. */
static const char *
torch_spelling(const struct cpl_launch *l)
{
	const char *t = l->launcher_word.text;

	if (t != NULL && strstr(t, "hyperpodrun") != NULL)
		return "hyperpodrun";
	if (t != NULL && strstr(t, "torchelastic") != NULL)
		return "torchelastic.distributed.launch";
	return cpl_launcher_name(l->launcher);
}

/* torchrun, python -m torch.distributed.run|launch and tune run: the
 * flag, else PET_NPROC_PER_NODE (torchrun's argparse reads its options'
 * defaults from PET_*), else the job's nprocPerNode, else 1. */
static void
torch_ranks(struct cpl_amount *out, const struct cpl_workload *w,
	    const struct cpl_container *c)
{
	const struct cpl_launch *l = &c->launch;
	const struct cpl_env *pet;
	const char *flag;

	flag = l->launcher == CPL_LAUNCH_TORCHRUN &&
	       strcmp(torch_spelling(l), "torchrun") != 0 ?
	       (strcmp(torch_spelling(l), "hyperpodrun") == 0 ?
		"hyperpodrun --nproc-per-node" :
		"torchelastic.distributed.launch --nproc_per_node") :
	       l->launcher == CPL_LAUNCH_TORCHRUN ?
	       "torchrun --nproc_per_node" :
	       l->launcher == CPL_LAUNCH_TUNE ? "tune run --nproc_per_node" :
	       "torch.distributed.launch --nproc_per_node";
	if (l->has_nproc) {
		rank_value(out, c, l->nproc.text, &l->nproc.pos, flag);
	} else if (l->launcher == CPL_LAUNCH_TUNE &&
		   !(l->flags & CPL_LFLAG_OPTIONS)) {
		/* tune run without torchrun options runs the recipe in
		 * its own process. */
		amount(out, CPL_AMT_KNOWN, 1, &l->launcher_word.pos,
		       "tune run (single device)");
	} else if ((pet = cpl_container_env_effective(c,
						"PET_NPROC_PER_NODE"))) {
		rank_value(out, c, pet->value, &pet->pos,
			   w->trainer ? "Trainer numProcPerNode" :
			   "PET_NPROC_PER_NODE=");
	} else if (w->has_nproc && l->launcher != CPL_LAUNCH_TUNE) {
		rank_value(out, c, w->nproc.text, &w->nproc.pos,
			   "nprocPerNode");
	} else if (w->nproc_default_auto &&
		   l->launcher == CPL_LAUNCH_TORCHRUN) {
		rank_value(out, c, "auto", &w->pos, "nprocPerNode (default)");
	} else {
		amount(out, CPL_AMT_KNOWN, 1, &l->launcher_word.pos,
		       "%s default 1", flag);
	}
}

/* Whether an accelerate distributed_type starts processes through
 * torch.distributed.run (multi-GPU, FSDP, DeepSpeed, Megatron-LM). */
static bool
accel_multi_type(const char *t)
{
	return t && ((cpl_str_starts(t, "MULTI_") &&
		      strcmp(t, "MULTI_CPU") != 0) ||
		     strcmp(t, "DEEPSPEED") == 0 || strcmp(t, "FSDP") == 0 ||
		     strcmp(t, "MEGATRON_LM") == 0);
}

/* What accelerate launch's command line and config file decide. */
struct accel {
	bool known;		/* config read or not named, and local */
	bool cpu;		/* --cpu: the simple launcher */
	bool multi;		/* through torch.distributed.run */
	bool deepspeed;		/* --use_deepspeed / DEEPSPEED */
	const struct cpl_word *nproc;	/* total processes, or NULL */
	const char *nsrc;
	const struct cpl_word *machines;	/* or NULL: 1 */
	const char *msrc;
	const char *why;	/* when not known */
	const struct cpl_pos *at;
};

/* Reads accelerate launch as launch_command() in accelerate's
 * commands/launch.py routes it: the command line first, then the config
 * file it names (a default config inside the image is not seen). */
static void
accel_read(struct accel *a, const struct cpl_container *c)
{
	const struct cpl_launch *l = &c->launch;
	const struct cpl_launch_cfg *cfg = &l->cfg;
	const struct cpl_word *conf = &l->opt[CPL_LOPT_CONFIG];
	bool cli_multi = (l->flags & (CPL_LFLAG_MULTI |
				      CPL_LFLAG_DEEPSPEED)) != 0;

	memset(a, 0, sizeof(*a));
	a->at = &l->launcher_word.pos;
	if (conf->text != NULL && !cfg->read) {
		a->why = "its --config_file is not in the repository";
		a->at = &conf->pos;
		return;
	}
	if (cfg->read && cfg->env.text != NULL &&
	    strcmp(cfg->env.text, "LOCAL_MACHINE") != 0) {
		a->why = "its config runs it elsewhere";
		a->at = &cfg->env.pos;
		return;
	}
	a->known = true;
	if (l->has_nproc) {
		a->nproc = &l->nproc;
		a->nsrc = "accelerate --num_processes";
	} else if (cfg->read && cfg->nproc.text != NULL) {
		a->nproc = &cfg->nproc;
		a->nsrc = "accelerate config num_processes:";
	}
	if (l->opt[CPL_LOPT_NODES].text != NULL) {
		a->machines = &l->opt[CPL_LOPT_NODES];
		a->msrc = "--num_machines";
	} else if (cfg->read && cfg->machines.text != NULL) {
		a->machines = &cfg->machines;
		a->msrc = "num_machines:";
	}
	a->cpu = (l->flags & CPL_LFLAG_CPU) != 0;
	if (a->cpu)
		return;
	a->deepspeed = (l->flags & CPL_LFLAG_DEEPSPEED) != 0 ||
		       (!cli_multi && cfg->read && cfg->dtype.text &&
			strcmp(cfg->dtype.text, "DEEPSPEED") == 0);
	a->multi = cli_multi ||
		   (cfg->read && accel_multi_type(cfg->dtype.text));
	/* Without a config, more than one GPU turns --multi_gpu on. */
	if (!a->multi && !cfg->read && c->gpus > 1)
		a->multi = true;
}

/* accelerate launch: --num_processes is the total over --num_machines,
 * so each container starts N / M; without --multi_gpu (or its config,
 * or more than one GPU) the simple launcher starts one process. */
static void
accel_ranks(struct cpl_amount *out, const struct cpl_container *c)
{
	struct accel a;
	struct cpl_amount n, m;

	accel_read(&a, c);
	if (!a.known) {
		amount(out, CPL_AMT_UNKNOWN, 1, a.at,
		       "accelerate launch (%s)", a.why);
		return;
	}
	if (!a.multi) {
		amount(out, CPL_AMT_KNOWN, 1, a.at,
		       "accelerate launch (one process%s)",
		       a.cpu ? ": --cpu" : ": not multi-GPU");
		return;
	}
	if (a.nproc == NULL) {
		if (c->gpus > 0)
			amount(out, CPL_AMT_KNOWN, c->gpus, a.at,
			       "accelerate launch (one per GPU: %ld)",
			       c->gpus);
		else
			amount(out, CPL_AMT_UNKNOWN, 1, a.at,
			       "accelerate launch (one per visible GPU)");
		return;
	}
	rank_value(&n, c, a.nproc->text, &a.nproc->pos, a.nsrc);
	if (a.machines == NULL) {
		*out = n;
		return;
	}
	rank_value(&m, c, a.machines->text, &a.machines->pos, a.msrc);
	if (n.state == CPL_AMT_KNOWN && m.state == CPL_AMT_KNOWN) {
		long per = n.n / m.n > 0 ? n.n / m.n : 1;

		amount(out, CPL_AMT_KNOWN, per, &a.nproc->pos,
		       "%s %s / %s %s = %ld per container", a.nsrc,
		       a.nproc->text, a.msrc, a.machines->text, per);
	} else if (n.state != CPL_AMT_KNOWN) {
		*out = n;
	} else {
		amount(out, CPL_AMT_UNKNOWN, 1, &a.machines->pos,
		       "%s %s / %s %s", a.nsrc, a.nproc->text, a.msrc,
		       a.machines->text);
	}
}

/* Slots of one deepspeed NODE_SPEC (NAME[:SLOT[,SLOT ...]]) in n bytes
 * at s: the listed slots, else every GPU; -1 when unknown. */
static long
ds_slots(const struct cpl_container *c, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	long count = 1;
	size_t k;

	if (colon == NULL)
		return c->gpus > 0 ? c->gpus : -1;
	for (k = (size_t)(colon - s) + 1; k < n; k++) {
		if (s[k] == ',')
			count++;
		else if (!isdigit((unsigned char)s[k]))
			return -1;
	}
	return count;
}

/* deepspeed --include / --exclude: the slots this node runs when every
 * node spec agrees; -1 when unknown. */
static long
ds_filter(const struct cpl_container *c, const char *v, bool include)
{
	long each = -1;

	if (v == NULL || strchr(v, '$') != NULL || *v == '\0')
		return -1;
	if (!include) {
		long x;

		if (strchr(v, '@') != NULL || strchr(v, ':') == NULL ||
		    c->gpus <= 0)
			return -1;
		x = ds_slots(c, v, strlen(v));
		return x > 0 && c->gpus - x > 0 ? c->gpus - x : -1;
	}
	while (*v) {
		const char *at = strchr(v, '@');
		size_t n = at ? (size_t)(at - v) : strlen(v);
		long x = ds_slots(c, v, n);

		if (x <= 0 || (each >= 0 && x != each))
			return -1;
		each = x;
		v += n + (at ? 1 : 0);
	}
	return each;
}

/* deepspeed: --num_gpus per node, else the --include/--exclude slots,
 * else (no hostfile named) one rank per GPU of the container. */
static void
ds_ranks(struct cpl_amount *out, const struct cpl_container *c)
{
	const struct cpl_launch *l = &c->launch;
	const struct cpl_word *inc = &l->opt[CPL_LOPT_INCLUDE];
	const struct cpl_word *exc = &l->opt[CPL_LOPT_EXCLUDE];
	long n;

	if (l->has_nproc) {
		rank_value(out, c, l->nproc.text, &l->nproc.pos,
			   "deepspeed --num_gpus");
	} else if (inc->text != NULL || exc->text != NULL) {
		const struct cpl_word *f = inc->text ? inc : exc;

		n = ds_filter(c, f->text, inc->text != NULL);
		amount(out, n > 0 ? CPL_AMT_KNOWN : CPL_AMT_UNKNOWN,
		       n > 0 ? n : 1, &f->pos, "deepspeed --%s %s",
		       inc->text ? "include" : "exclude", f->text);
	} else if (l->opt[CPL_LOPT_HOSTFILE].text != NULL) {
		amount(out, CPL_AMT_UNKNOWN, 1, &l->opt[CPL_LOPT_HOSTFILE].pos,
		       "deepspeed --hostfile %s (slots per host)",
		       l->opt[CPL_LOPT_HOSTFILE].text);
	} else if (c->gpus > 0) {
		amount(out, CPL_AMT_KNOWN, c->gpus, &l->launcher_word.pos,
		       "deepspeed (one rank per GPU: %ld)", c->gpus);
	} else {
		amount(out, CPL_AMT_UNKNOWN, 1, &l->launcher_word.pos,
		       "deepspeed");
	}
}

/* paddle.distributed.launch (and fleetrun): --nproc_per_node, else a
 * process per device listed (--devices 0,1,2,3, --gpus, --xpus), else
 * one per visible GPU; on a container with no GPU its default depends on
 * the release and the node, so unknown. */
static void
paddle_ranks(struct cpl_amount *out, const struct cpl_container *c)
{
	const struct cpl_launch *l = &c->launch;
	const struct cpl_word *dev = &l->opt[CPL_LOPT_DEVICES];
	const char *name = strstr(l->launcher_word.text ?
				  l->launcher_word.text : "", "fleet") ?
			   "fleetrun" : "paddle.distributed.launch";

	if (l->has_nproc) {
		char flag[64];

		snprintf(flag, sizeof(flag), "%s --nproc_per_node", name);
		rank_value(out, c, l->nproc.text, &l->nproc.pos, flag);
	} else if (dev->text != NULL) {
		const char *p = dev->text;
		long n = 1;
		bool plain = *p != '\0';

		for (; *p; p++) {
			if (*p == ',')
				n++;
			else if (!(*p >= '0' && *p <= '9') && *p != ' ')
				plain = false;
		}
		amount(out, plain ? CPL_AMT_KNOWN : CPL_AMT_UNKNOWN,
		       plain ? n : 1, &dev->pos, "%s: a process per device "
		       "listed (%s)", name, dev->text);
	} else if (c->gpus > 0) {
		amount(out, CPL_AMT_KNOWN, c->gpus, &l->launcher_word.pos,
		       "%s (one rank per GPU: %ld)", name, c->gpus);
	} else {
		amount(out, CPL_AMT_UNKNOWN, 1, &l->launcher_word.pos,
		       "%s (a process per device of the node)", name);
	}
}

void
cpl_budget_ranks(struct cpl_amount *out, const struct cpl_workload *w,
		 const struct cpl_container *c)
{
	const struct cpl_launch *l = &c->launch;

	memset(out, 0, sizeof(*out));
	switch (l->launcher) {
	case CPL_LAUNCH_TORCHRUN:
	case CPL_LAUNCH_TORCH_LAUNCH:
	case CPL_LAUNCH_TUNE:
		torch_ranks(out, w, c);
		return;
	case CPL_LAUNCH_ACCELERATE:
		accel_ranks(out, c);
		return;
	case CPL_LAUNCH_DEEPSPEED:
		ds_ranks(out, c);
		return;
	case CPL_LAUNCH_PADDLE:
		paddle_ranks(out, c);
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

/* torch.distributed.run's rule: OMP_NUM_THREADS=1 when unset and it
 * starts more than one rank; UNKNOWN when the rank count is. */
static void
torch_omp(struct cpl_amount *out, const struct cpl_workload *w,
	  const struct cpl_container *c, const char *by)
{
	struct cpl_amount ranks;

	cpl_budget_ranks(&ranks, w, c);
	if ((ranks.state == CPL_AMT_KNOWN && ranks.n > 1) ||
	    ranks.state == CPL_AMT_HOST)
		amount(out, CPL_AMT_KNOWN, 1, &ranks.pos,
		       "OMP_NUM_THREADS=1 (set by %s)", by);
	else if (ranks.state == CPL_AMT_UNKNOWN)
		amount(out, CPL_AMT_UNKNOWN, 1, &ranks.pos,
		       "OMP_NUM_THREADS=1 (set by %s for more than one "
		       "rank)", by);
}

/* accelerate launch: every local launcher but DeepSpeed's sets
 * OMP_NUM_THREADS to --num_cpu_threads_per_process, which defaults to
 * OMP_NUM_THREADS, else 1 (with --cpu: the node's physical cores over
 * the ranks).  DeepSpeed on one machine goes through
 * torch.distributed.run; on several, through the deepspeed runner. */
static void
accel_omp(struct cpl_amount *out, bool *forced,
	  const struct cpl_workload *w, const struct cpl_container *c)
{
	const struct cpl_word *th = &c->launch.opt[CPL_LOPT_THREADS];
	struct accel a;
	struct cpl_amount m;

	accel_read(&a, c);
	if (!a.known) {
		amount(out, CPL_AMT_UNKNOWN, 1, a.at,
		       "OMP_NUM_THREADS (accelerate launch: %s)", a.why);
		return;
	}
	if (a.deepspeed) {
		if (a.machines == NULL) {
			torch_omp(out, w, c, "accelerate launch");
			return;
		}
		rank_value(&m, c, a.machines->text, &a.machines->pos,
			   a.msrc);
		if (m.state == CPL_AMT_KNOWN && m.n <= 1)
			torch_omp(out, w, c, "accelerate launch");
		else if (m.state != CPL_AMT_KNOWN)
			amount(out, CPL_AMT_UNKNOWN, 1, &m.pos,
			       "OMP_NUM_THREADS (accelerate launch with "
			       "DeepSpeed)");
		return;
	}
	if (th->text != NULL) {
		const char *var = var_value(c, th->text);
		long n = parse_count(var ? var : th->text);

		*forced = true;
		if (n > 0)
			amount(out, CPL_AMT_KNOWN, n, &th->pos,
			       "accelerate --num_cpu_threads_per_process %ld",
			       n);
		else
			amount(out, CPL_AMT_UNKNOWN, 1, &th->pos,
			       "accelerate --num_cpu_threads_per_process %s",
			       th->text);
		return;
	}
	if (a.cpu || c->launch.cfg.use_cpu) {
		amount(out, CPL_AMT_HOST, 1, &c->launch.launcher_word.pos,
		       "OMP_NUM_THREADS (accelerate launch --cpu: the node's "
		       "cores over the ranks)");
		return;
	}
	amount(out, CPL_AMT_KNOWN, 1, &c->launch.launcher_word.pos,
	       "OMP_NUM_THREADS=1 (set by accelerate launch)");
}

/* Cores in a deepspeed --bind_core_list ("0-15,32-47"); -1 when it is
 * not a plain list of numbers and ranges. */
static long
core_count(const char *v)
{
	long total = 0;

	while (v && *v) {
		char *end;
		long a = strtol(v, &end, 10), b = a;

		if (end == v || a < 0)
			return -1;
		if (*end == '-') {
			const char *p = end + 1;

			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return -1;
		}
		total = cpl_sat_add(total, b - a + 1);
		if (*end == '\0')
			break;
		if (*end != ',')
			return -1;
		v = end + 1;
	}
	return v ? total : -1;
}

/* deepspeed --bind_cores_to_rank --bind_core_list: each rank gets
 * floor(listed cores / ranks) as OMP_NUM_THREADS. */
static void
ds_core_threads(struct cpl_amount *out, const struct cpl_workload *w,
		const struct cpl_container *c)
{
	const struct cpl_word *list = &c->launch.opt[CPL_LOPT_CORES];
	long cores = core_count(list->text), per;
	struct cpl_amount ranks;

	cpl_budget_ranks(&ranks, w, c);
	if (cores <= 0 || ranks.state != CPL_AMT_KNOWN || ranks.n <= 0 ||
	    (per = cores / ranks.n) < 1) {
		amount(out, CPL_AMT_UNKNOWN, 1, &list->pos,
		       "OMP_NUM_THREADS (deepspeed --bind_core_list %s over "
		       "the ranks)", list->text);
		return;
	}
	amount(out, CPL_AMT_KNOWN, per, &list->pos,
	       "OMP_NUM_THREADS=%ld (deepspeed --bind_core_list %s over %ld "
	       "ranks)", per, list->text, ranks.n);
}

void
cpl_budget_launcher_threads(struct cpl_amount *out, bool *forced,
			    const struct cpl_workload *w,
			    const struct cpl_container *c)
{
	const struct cpl_launch *l = &c->launch;

	memset(out, 0, sizeof(*out));
	*forced = false;
	switch (l->launcher) {
	case CPL_LAUNCH_TORCHRUN:
	case CPL_LAUNCH_TORCH_LAUNCH:
	case CPL_LAUNCH_TUNE:
		torch_omp(out, w, c, l->launcher == CPL_LAUNCH_TORCHRUN ?
			  torch_spelling(l) : cpl_launcher_name(l->launcher));
		return;
	case CPL_LAUNCH_ACCELERATE:
		accel_omp(out, forced, w, c);
		return;
	case CPL_LAUNCH_DEEPSPEED:
		/* deepspeed.launcher.launch sets it only to bind cores:
		 * the listed cores, else the node's, over the ranks. */
		if (!(l->flags & CPL_LFLAG_BIND_CORES))
			return;
		*forced = true;
		if (l->opt[CPL_LOPT_CORES].text != NULL)
			ds_core_threads(out, w, c);
		else
			amount(out, CPL_AMT_HOST, 1, &l->launcher_word.pos,
			       "OMP_NUM_THREADS (deepspeed "
			       "--bind_cores_to_rank: the node's cores over "
			       "the ranks)");
		return;
	default:
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
		long lo = best < n ? v[best].value.value : 1, cap = 0;
		size_t k;

		/* Bounded by the code (min(8, os.cpu_count())): at most
		 * the bound, and at least the value on a node with the
		 * CPUs requested.  An unbounded count stays CPU301's and
		 * counts as 1 here. */
		for (k = 0; k < n; k++) {
			const struct cpl_pyval *x = &v[k].value;

			if (x->kind == CPL_PYVAL_KNOWN && x->value > cap) {
				cap = x->value;
			} else if (x->kind == CPL_PYVAL_HOST) {
				if (!x->capped || x->cap < 0)
					break;
				cap = x->cap > cap ? x->cap : cap;
				lo = x->lo > lo ? x->lo : lo;
			}
		}
		for (i = 0; i < n && v[i].value.kind != CPL_PYVAL_HOST; i++)
			;
		if (k == n && cap > 0) {
			amount(out, CPL_AMT_HOST, lo < cap ? lo : cap,
			       &v[i].value.pos, "%s from the host's CPU "
			       "count, at most %ld", what, cap);
			out->cap = cap;
			return;
		}
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
	struct cpl_amount launcher;
	bool forced;

	/* torch.set_num_threads in the code wins over the environment. */
	if (c->code && c->code->nthreads > 0) {
		code_amount(out, c->code->threads, c->code->nthreads,
			    "torch.set_num_threads");
		if (out->state == CPL_AMT_KNOWN)
			cpl_format(out->how, sizeof(out->how),
				 "torch.set_num_threads(%ld)", out->n);
		if (out->state != CPL_AMT_UNKNOWN)
			return;
	}
	cpl_budget_env_count(out, c, "MKL_NUM_THREADS");
	if (out->state != CPL_AMT_UNSET)
		return;
	cpl_budget_launcher_threads(&launcher, &forced, w, c);
	if (forced) {
		*out = launcher;
		return;
	}
	cpl_budget_env_count(out, c, "OMP_NUM_THREADS");
	if (out->state != CPL_AMT_UNSET)
		return;
	*out = launcher;
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

bool
cpl_budget_worker_flag(const char *flag, size_t len)
{
	char key[64];

	if (len == 0 || flag[0] != '-')
		return false;
	flag_key(key, sizeof(key), flag, len);
	return is_worker_flag(key);
}

/* A --workers style argument of the script, the last one winning. */
static void
args_workers(struct cpl_amount *out, const struct cpl_launch *l)
{
	size_t i;

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

/*
 * Whether the code imports a library that builds DataLoaders from its own
 * settings (Hugging Face Trainer, Lightning, MMEngine, Detectron2,
 * Ultralytics, timm's create_loader ...), so that finding no DataLoader
 * call in the code does not mean it runs no loader workers.
 */
static bool
builds_loaders(const struct cpl_code *code)
{
	static const char *const libs[] = {
		"transformers", "trl", "lightning", "pytorch_lightning",
		"torchtune", "mmengine", "mmcv", "mmdet", "mmseg",
		"mmpretrain", "mmaction", "mmocr", "detectron2", "ultralytics",
		"yolov5", "timm", "fastai", "keras", "tensorflow", "webdataset",
		"ffcv", "nvidia", "deepspeed", "composer", "ray",
		"sentence_transformers", "setfit", "ignite", "catalyst",
		"nemo", "fairseq", "speechbrain", "monai", "torchtnt",
	};
	size_t i, j, k;

	for (i = 0; i < code->nfiles; i++) {
		const struct cpl_pyfile *f = code->files[i];

		for (j = 0; j < f->nimports; j++) {
			const char *m = f->imports[j].module;

			if (m == NULL || f->imports[j].level > 0)
				continue;
			for (k = 0; k < CPL_ARRAY_LEN(libs); k++) {
				size_t n = strlen(libs[k]);

				if (strncmp(m, libs[k], n) == 0 &&
				    (m[n] == '\0' || m[n] == '.'))
					return true;
			}
		}
	}
	return false;
}

void
cpl_budget_workers(struct cpl_amount *out, const struct cpl_workload *w,
		   const struct cpl_container *c)
{
	struct cpl_amount flag;

	(void)w;
	memset(out, 0, sizeof(*out));
	memset(&flag, 0, sizeof(flag));
	args_workers(&flag, &c->launch);
	/* Linked code knows the DataLoaders, resolved with the arguments;
	 * with none, no library that builds its own and no --workers flag,
	 * the process runs no loader workers. */
	if (c->code) {
		code_amount(out, c->code->loaders, c->code->nloaders,
			    "num_workers");
		if (c->code->nloaders == 0 && flag.state == CPL_AMT_UNSET &&
		    !builds_loaders(c->code))
			amount(out, CPL_AMT_KNOWN, 0, NULL,
			       "no DataLoader in the code");
		return;
	}
	*out = flag;
}

bool
cpl_budget_no_workers(const struct cpl_amount *workers)
{
	return workers->state == CPL_AMT_KNOWN && workers->n == 0;
}

/* An image decoding library: module m (with a from-import's name). */
static bool
decoding_module(const char *m, const char *name)
{
	static const char *const libs[] = {
		"PIL", "cv2", "torchvision.transforms", "torchvision.io",
		"torchvision.datasets", "albumentations", "imageio", "skimage",
		"decord", "simplejpeg", "turbojpeg",
	};
	size_t k;

	if (m == NULL)
		return false;
	if (strcmp(m, "torchvision") == 0 && name != NULL &&
	    (strcmp(name, "transforms") == 0 || strcmp(name, "io") == 0 ||
	     strcmp(name, "datasets") == 0))
		return true;
	for (k = 0; k < CPL_ARRAY_LEN(libs); k++) {
		size_t n = strlen(libs[k]);

		if (strncmp(m, libs[k], n) == 0 &&
		    (m[n] == '\0' || m[n] == '.'))
			return true;
	}
	return false;
}

enum cpl_loader
cpl_budget_loader(const char **how, struct cpl_pos *pos,
		  const struct cpl_workload *w, const struct cpl_container *c)
{
	struct cpl_amount workers;
	size_t i, j;

	if (how)
		*how = NULL;
	if (pos)
		memset(pos, 0, sizeof(*pos));
	if (c->code && c->code->nloaders > 0)
		for (i = 0; i < c->code->nfiles; i++) {
			const struct cpl_pyfile *f = c->code->files[i];

			for (j = 0; j < f->nimports; j++) {
				const struct cpl_pyimport *im = &f->imports[j];

				if (im->level > 0 ||
				    !decoding_module(im->module, im->name))
					continue;
				if (how)
					*how = im->target ? im->target :
					       im->module;
				if (pos) {
					*pos = im->pos;
					pos->file = f->path;
				}
				return CPL_LOADER_DECODE;
			}
		}
	if (c->code && c->code->nloaders > 0) {
		const char *call = NULL;
		struct cpl_pos at;

		if (cpl_pools_pipeline_computes(&call, &at, c->code)) {
			if (how)
				*how = call;
			if (pos)
				*pos = at;
			return CPL_LOADER_COMPUTE;
		}
	}
	cpl_budget_workers(&workers, w, c);
	return cpl_budget_no_workers(&workers) ? CPL_LOADER_NONE :
	       CPL_LOADER_PLAIN;
}

bool
cpl_budget_loader_busy(enum cpl_loader l, long per_rank)
{
	return (l == CPL_LOADER_DECODE && per_rank >= 1) ||
	       (l == CPL_LOADER_COMPUTE && per_rank >= 2);
}

const char *
cpl_budget_loader_phrase(enum cpl_loader l)
{
	return l == CPL_LOADER_DECODE ? "decodes images" :
	       l == CPL_LOADER_COMPUTE ? "computes per sample" : "";
}

void
cpl_budget_split(long *per_rank, long *threads, long *workers,
		 int64_t cpu_millis, long ranks, enum cpl_loader loader)
{
	long b = (long)(cpu_millis / 1000) / (ranks > 0 ? ranks : 1);

	*per_rank = b;
	if (loader == CPL_LOADER_NONE) {
		*threads = b > 1 ? b : 1;
		*workers = 0;
		return;
	}
	/* The lab's 1-CPU image job: t1-w2 449 examples/s, t1-w0 409,
	 * t1-w1 373; its features job (numpy in __getitem__) at 2 CPUs:
	 * t1-w2 1272, t1-w1 680, but at 1 CPU t1-w0 688-692 against
	 * t1-w2 592-652: a pipeline that computes gains nothing from
	 * workers on one CPU (rules/CPU401.md). */
	if (cpl_budget_loader_busy(loader, b)) {
		*threads = b / 3 > 1 ? b / 3 : 1;
		*workers = b + 1 - *threads > 2 ? b + 1 - *threads : 2;
		return;
	}
	*threads = b / 2 > 1 ? b / 2 : 1;
	*workers = b - *threads > 0 ? b - *threads : 0;
}

long
cpl_budget_worker_allowance(long per_rank, enum cpl_loader loader)
{
	long b, t, w;

	if (!cpl_budget_loader_busy(loader, per_rank))
		return 0;
	cpl_budget_split(&b, &t, &w, (int64_t)per_rank * 1000, 1, loader);
	return t + w - b > 0 ? t + w - b : 0;
}

void
cpl_budget_cpus_str(char *out, unsigned size, int64_t millis)
{
	if (millis % 1000 == 0)
		cpl_format(out, size, "%lld", (long long)(millis / 1000));
	else if (millis % 100 == 0)
		cpl_format(out, size, "%lld.%lld", (long long)(millis / 1000),
			 (long long)(millis % 1000 / 100));
	else
		cpl_format(out, size, "%lldm", (long long)millis);
}

/* The first DataLoader of c's code given an argument that needs workers
 * (python/pyscan.h, struct cpl_pyloader's needs). */
static void
workers_floor(struct cpl_facts *f, const struct cpl_container *c)
{
	size_t i;

	for (i = 0; c->code != NULL && i < c->code->nloaders; i++) {
		const struct cpl_code_size *z = &c->code->loaders[i];
		const struct cpl_pyloader *l;

		if (z->file == NULL || z->index >= z->file->nloaders)
			continue;
		l = &z->file->loaders[z->index];
		if (l->needs[0] != '\0') {
			f->w_min = 1;
			f->w_min_how = l->needs;
			f->w_min_pos = l->needs_pos;
			return;
		}
	}
}

/* Gathers the facts of c (see cpl_facts_gather). */
static void
gather(struct cpl_facts *f, const struct cpl_workload *w,
       const struct cpl_container *c)
{
	memset(f, 0, sizeof(*f));
	f->cpu = cpl_budget_cpu(c, &f->cpu_pos);
	if (f->cpu >= 0) {
		cpl_budget_cpus_str(f->cpus, sizeof(f->cpus), f->cpu);
		cpl_format(f->budget, sizeof(f->budget), "budget of %s CPU%s%s%s",
			 f->cpus, f->cpu > 1000 ? "s" : "",
			 c->cpu_note ? " " : "", c->cpu_note ? c->cpu_note : "");
	}
	cpl_budget_ranks(&f->ranks, w, c);
	cpl_budget_threads(&f->threads, w, c);
	cpl_budget_workers(&f->workers, w, c);
	f->ranks_known = f->ranks.state == CPL_AMT_KNOWN;
	f->ranks_why = f->ranks.state == CPL_AMT_HOST ?
		       "sized from the node" : "not known here";
	f->loader = cpl_budget_loader(&f->decodes, &f->decodes_pos, w, c);
	f->no_workers = f->loader == CPL_LOADER_NONE;
	if (f->ranks_known)
		cpl_format(f->rank_phrase, sizeof(f->rank_phrase), "%ld %s",
			 f->ranks.n, f->ranks.n == 1 ? "rank" : "ranks");
	else
		cpl_format(f->rank_phrase, sizeof(f->rank_phrase),
			 "at least 1 rank");
	if (f->cpu >= 0)
		cpl_budget_split(&f->per_rank, &f->t, &f->w, f->cpu,
				 f->ranks.n > 0 ? f->ranks.n : 1,
				 f->loader);
	if (!f->no_workers)
		workers_floor(f, c);
	if (f->cpu >= 0 && f->w < f->w_min) {
		f->w_raised = f->w_min - f->w;
		f->w = f->w_min;
	}
	if (f->no_workers)
		cpl_format(f->share, sizeof(f->share), "all of it for %ld "
			 "intra-op thread(s), as no loader workers run", f->t);
	else if (f->cpu >= 0 &&
		 cpl_budget_loader_busy(f->loader, f->per_rank))
		cpl_format(f->share, sizeof(f->share), "split into %ld "
			 "thread(s) and %ld loader worker(s), the larger share "
			 "to the workers as the loader %s (%s)", f->t, f->w,
			 cpl_budget_loader_phrase(f->loader), f->decodes);
	else if (f->w_raised > 0)
		cpl_format(f->share, sizeof(f->share), "split into %ld "
			 "thread(s) and %ld loader worker(s), the least the "
			 "DataLoader's %s takes", f->t, f->w, f->w_min_how);
	else
		cpl_format(f->share, sizeof(f->share), "split into %ld "
			 "thread(s) and %ld loader worker(s)", f->t, f->w);
}

void
cpl_facts_gather(struct cpl_facts *f, const struct cpl_workload *w,
		 const struct cpl_container *c)
{
	if (c->facts != NULL)
		*f = *c->facts;
	else
		gather(f, w, c);
}

void
cpl_facts_keep(const struct cpl_workload *w, struct cpl_container *c)
{
	/* The budget entry and every container rule ask for the same
	 * facts: the run keeps them in c while it judges c.  Nothing a run
	 * does after linking changes what c is made of. */
	if (c->facts == NULL) {
		c->facts = cpl_xmalloc(sizeof(*c->facts));
		gather(c->facts, w, c);
	}
}

void
cpl_facts_forget(struct cpl_container *c)
{
	free(c->facts);
	c->facts = NULL;
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
	char text[256];

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
	b->min_workers = f.w_min;
	b->loader = f.loader != CPL_LOADER_NONE;
	b->busy_loader = f.cpu >= 1000 &&
			 cpl_budget_loader_busy(f.loader, f.per_rank) ?
			 cpl_budget_loader_phrase(f.loader) : "";
	if (f.cpu >= 0) {
		cpl_format(text, sizeof(text), "resources.%s.cpu %s%s%s",
			 c->cpu_limit >= 0 ? "limits" : "requests", f.cpus,
			 c->cpu_note ? " " : "", c->cpu_note ? c->cpu_note : "");
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
		b->window_clamped = c->window_clamped;
		b->measure_notes = cpl_xstrdup(c->measure_notes);
		b->m_threads = c->threads_now;
		b->cpu_used = c->cpu_used;
		b->throttled_pct = c->throttled_pct;
		b->measured_pod = cpl_xstrdup(c->measured_pod);
	}
	b->pods = w->pods > 1 ? w->pods : 0;
}
