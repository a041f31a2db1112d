/*
 * shlaunch.c — the programs the shell scanner knows by name (shlaunch_int.h):
 * the launchers (torchrun, python -m torch.distributed.run|launch,
 * accelerate launch, deepspeed, tune run) with their flag tables, python's own
 * interpreter options (-m MODULE, -c CODE, script.py), and the commands
 * that read the host's CPU count (nproc, getconf, lscpu, /proc/cpuinfo,
 * python ... cpu_count()).
 *
 * Options are read as the launchers' own argument parsers read them: long
 * options with '-' or '_' alike, "--flag value" and "--flag=value", the
 * options that take no value listed so that the script is found after
 * them.  What it owns: those tables and cpl_launcher_name().  May include
 * shell/shlaunch_int.h, shell/shlex_int.h, shell/launch.h, shell/shscan.h and
 * util.h; it never sees a scan (shstate_int.h).
 */
#include "shell/shlaunch_int.h"

#include <string.h>

#include "shell/shscan.h"
#include "util.h"

/* Launchers run by launchers (torchrun --no-python python -m
 * torch.distributed.run ...) followed at most this deep: past it the
 * script is not looked for, so no command line makes the reading recurse
 * without bound. */
#define MAX_NESTED_LAUNCH 4

/* ---- names and option spellings -------------------------------------- */

/* python, python3, python3.11 ...: "python" then digits and dots. */
bool
cpl_shlaunch_is_python(const char *base)
{
	const char *p;

	if (strncmp(base, "python", 6) != 0)
		return false;
	for (p = base + 6; *p != '\0'; p++)
		if ((*p < '0' || *p > '9') && *p != '.')
			return false;
	return true;
}

/* True when the n bytes at name spell canon, '-' standing for '_'. */
static bool
opt_eq(const char *name, size_t n, const char *canon)
{
	size_t k;

	if (strlen(canon) != n)
		return false;
	for (k = 0; k < n; k++) {
		char a = name[k] == '-' ? '_' : name[k];

		if (a != canon[k])
			return false;
	}
	return true;
}

/* True when the n bytes at name spell one of the canonical names. */
static bool
opt_in(const char *name, size_t n, const char *const *list)
{
	for (; *list != NULL; list++)
		if (opt_eq(name, n, *list))
			return true;
	return false;
}

/* ---- commands that read the host's CPU count -------------------------- */

/* True when the command reads the host's CPU count: nproc, getconf
 * _NPROCESSORS_*, /proc/cpuinfo, lscpu, python ... cpu_count().  Used on
 * the commands inside a substitution. */
bool
cpl_shlaunch_reads_host(const struct sh_cmd *c)
{
	static const char *const getconf[] = {
		"_NPROCESSORS_ONLN", "_NPROCESSORS_CONF", "NPROCESSORS_ONLN",
		"NPROCESSORS_CONF", NULL,
	};
	const char *base;
	size_t k = 0, j;

	while (k < c->n && cpl_shlex_assign_len(&c->w[k]) > 0)
		k++;
	if (k >= c->n)
		return false;
	base = cpl_shlex_base(wtext(&c->w[k]));
	if (strcmp(base, "nproc") == 0 || strcmp(base, "lscpu") == 0)
		return true;
	for (j = k + 1; j < c->n; j++) {
		const char *t = wtext(&c->w[j]);

		if (strcmp(base, "getconf") == 0 &&
		    cpl_shlex_oneof(t, getconf))
			return true;
		if (cpl_str_ends(t, "/proc/cpuinfo"))
			return true;
		if (cpl_shlaunch_is_python(base) &&
		    (strstr(t, "cpu_count(") != NULL ||
		     strstr(t, "sched_getaffinity(") != NULL))
			return true;
	}
	return false;
}

/* ---- the launchers ---------------------------------------------------- */

/*
 * Adding a launcher is done here: a value in enum cpl_launcher (launch.h),
 * its option tables, and one row in launchers[].  The scanner then finds
 * it as a command and as python -m MODULE, reads its rank-count flag, the
 * other options and switches its values[] and flags[] keep, and its
 * script, and cpl_launcher_name() names it.  What the options mean for
 * ranks and threads is the budget's (lib/model/budget.c).
 */

#define SLOT_RANKS CPL_LOPT_COUNT	/* lvalue.slot of the rank count */

/* A launcher option with a value that the record keeps. */
struct lvalue {
	const char *name;	/* canonical long name, '_' for '-' */
	char short_name;	/* its one-letter spelling, or 0 */
	int slot;		/* enum cpl_lopt, or SLOT_RANKS */
};

/* A launcher switch that the record keeps. */
struct lflag {
	const char *name;
	unsigned flag;		/* CPL_LFLAG_* */
};

/* The options of one launcher's command line. */
struct lspec {
	const struct lvalue *values;	/* kept, ending with a NULL name */
	const struct lflag *flags;	/* kept, ending with a NULL name */
	const char *const *bools;	/* other long options without a value */
	const char *short_values;	/* other short options taking a value */
	bool short_module;		/* -m means --module */
};

static const struct lvalue torch_values[] = {
	{ "nproc_per_node", 0, SLOT_RANKS },
	{ "nnodes", 0, CPL_LOPT_NODES },
	{ NULL, 0, 0 },
};
static const struct lflag no_flags[] = { { NULL, 0 } };
static const char *const torch_bools[] = {
	"standalone", "run_path", "use_env", "virtual_local_rank", "help",
	"no_python", "module", NULL,
};
static const struct lspec torch_spec = {
	torch_values, no_flags, torch_bools, "rt", true,
};

static const struct lvalue accel_values[] = {
	{ "num_processes", 0, SLOT_RANKS },
	{ "num_machines", 0, CPL_LOPT_NODES },
	{ "num_cpu_threads_per_process", 0, CPL_LOPT_THREADS },
	{ "config_file", 0, CPL_LOPT_CONFIG },
	{ "mpirun_hostfile", 0, CPL_LOPT_HOSTFILE },
	{ NULL, 0, 0 },
};
static const struct lflag accel_flags[] = {
	{ "cpu", CPL_LFLAG_CPU },
	{ "use_cpu", CPL_LFLAG_CPU },
	{ "multi_gpu", CPL_LFLAG_MULTI },
	{ "use_fsdp", CPL_LFLAG_MULTI },
	{ "use_megatron_lm", CPL_LFLAG_MULTI },
	{ "use_deepspeed", CPL_LFLAG_DEEPSPEED },
	{ NULL, 0 },
};
static const char *const accel_bools[] = {
	"use_xpu", "tpu", "ipex", "debug", "quiet", "help",
	"same_network", "downcast_bf16", "tpu_use_cluster", "tpu_use_sudo",
	"no_tpu_cluster", "enable_cpu_affinity", "dynamo_use_fullgraph",
	"dynamo_use_dynamic", "dynamo_use_regional_compilation",
	"use_parallelism_config", "no_python", "module", NULL,
};
static const struct lspec accel_spec = {
	accel_values, accel_flags, accel_bools, "t", true,
};

static const struct lvalue ds_values[] = {
	{ "num_gpus", 0, SLOT_RANKS },
	{ "num_accelerators", 0, SLOT_RANKS },
	{ "num_nodes", 0, CPL_LOPT_NODES },
	{ "include", 'i', CPL_LOPT_INCLUDE },
	{ "exclude", 'e', CPL_LOPT_EXCLUDE },
	{ "hostfile", 'H', CPL_LOPT_HOSTFILE },
	{ "bind_core_list", 0, CPL_LOPT_CORES },
	{ NULL, 0, 0 },
};
static const struct lflag ds_flags[] = {
	{ "bind_cores_to_rank", CPL_LFLAG_BIND_CORES },
	{ NULL, 0 },
};
static const char *const ds_bools[] = {
	"no_local_rank", "no_ssh", "no_ssh_check", "force_multi", "save_pid",
	"elastic_training", "help", "no_python", "module", NULL,
};
static const struct lspec ds_spec = {
	ds_values, ds_flags, ds_bools, "", false,
};

/* paddle.distributed.launch: each option takes a value (2.2 and 2.3+). */
static const struct lvalue paddle_values[] = {
	{ "nproc_per_node", 0, SLOT_RANKS },
	{ "nnodes", 0, CPL_LOPT_NODES },
	{ "devices", 0, CPL_LOPT_DEVICES },
	{ "gpus", 0, CPL_LOPT_DEVICES },
	{ "selected_gpus", 0, CPL_LOPT_DEVICES },
	{ "xpus", 0, CPL_LOPT_DEVICES },
	{ "selected_xpus", 0, CPL_LOPT_DEVICES },
	{ NULL, 0, 0 },
};
static const char *const paddle_bools[] = { "help", NULL };
static const struct lspec paddle_spec = {
	paddle_values, no_flags, paddle_bools, "", false,
};

/* One launcher: its name and how a command line spells it. */
struct launcher {
	enum cpl_launcher l;
	const char *name;		/* cpl_launcher_name() */
	const char *commands[2];	/* its executables' base names, NULL
					 * when fewer; "accelerate launch" is a
					 * command then its subcommand */
	const char *module;		/* python -m MODULE, or NULL */
	const struct lspec *spec;	/* its options */
};

/* The launchers other than python itself, whose name is a pattern
 * (cpl_shlaunch_is_python()) and whose options python_args() reads. */
static const struct launcher launchers[] = {
	{
		.l = CPL_LAUNCH_TORCHRUN,
		.name = "torchrun",
		.commands = { "torchrun" },
		.module = "torch.distributed.run",
		.spec = &torch_spec,
	},
	{
		/* SageMaker HyperPod's torchrun: its options, its OpenMP
		 * default (hyperpodrun runs torch.distributed.run's agent). */
		.l = CPL_LAUNCH_TORCHRUN,
		.name = "hyperpodrun",
		.commands = { "hyperpodrun" },
		.spec = &torch_spec,
	},
	{
		/* DLRover's torchrun (an ElasticJob's worker): it reads
		 * torch.distributed.run's options and config_from_args()
		 * sets its OpenMP default. */
		.l = CPL_LAUNCH_TORCHRUN,
		.name = "dlrover-run",
		.commands = { "dlrover-run" },
		.module = "dlrover.trainer.torch.elastic_run",
		.spec = &torch_spec,
	},
	{
		/* TorchElastic's launcher, which torchrun grew from. */
		.l = CPL_LAUNCH_TORCHRUN,
		.name = "torchelastic.distributed.launch",
		.module = "torchelastic.distributed.launch",
		.spec = &torch_spec,
	},
	{
		.l = CPL_LAUNCH_TORCH_LAUNCH,
		.name = "torch.distributed.launch",
		.module = "torch.distributed.launch",
		.spec = &torch_spec,
	},
	{
		.l = CPL_LAUNCH_ACCELERATE,
		.name = "accelerate launch",
		.commands = { "accelerate launch", "accelerate-launch" },
		.module = "accelerate.commands.launch",
		.spec = &accel_spec,
	},
	{
		.l = CPL_LAUNCH_DEEPSPEED,
		.name = "deepspeed",
		.commands = { "deepspeed" },
		.module = "deepspeed.launcher.runner",
		.spec = &ds_spec,
	},
	{
		/* torchtune: torchrun's own options, then the recipe. */
		.l = CPL_LAUNCH_TUNE,
		.name = "tune run",
		.commands = { "tune run" },
		.spec = &torch_spec,
	},
	{
		/* PaddlePaddle's launcher: a process per device. */
		.l = CPL_LAUNCH_PADDLE,
		.name = "paddle.distributed.launch",
		.module = "paddle.distributed.launch",
		.spec = &paddle_spec,
	},
	{
		/* Its fleet entry point, and that one's console script. */
		.l = CPL_LAUNCH_PADDLE,
		.name = "paddle.distributed.fleet.launch",
		.commands = { "fleetrun" },
		.module = "paddle.distributed.fleet.launch",
		.spec = &paddle_spec,
	},
};

/* python -m modules that set up rather than train. */
static const char *const setup_modules[] = {
	"pip", "ensurepip", "venv", "virtualenv", "site", "compileall",
	"py_compile", "json.tool", "http.server", "pydoc", "nltk.downloader",
	"spacy", NULL,
};

static void python_args(const struct sword *w, size_t n, size_t j,
			struct launchrec *r, int depth);

/* True when the words from ci, whose first has base name base, spell cmd
 * ("accelerate launch" is two words); *next is the word after them. */
static bool
spells(const struct sword *w, size_t n, size_t ci, const char *base,
       const char *cmd, size_t *next)
{
	const char *sp = strchr(cmd, ' ');
	size_t len = sp ? (size_t)(sp - cmd) : strlen(cmd);

	if (strlen(base) != len || memcmp(base, cmd, len) != 0)
		return false;
	if (sp == NULL) {
		*next = ci + 1;
		return true;
	}
	if (ci + 1 >= n || strcmp(wtext(&w[ci + 1]), sp + 1) != 0)
		return false;
	*next = ci + 2;
	return true;
}

/* The launcher whose command starts at word ci, NULL when none; *next is
 * the word after the command. */
static const struct launcher *
by_command(const struct sword *w, size_t n, size_t ci, size_t *next)
{
	const char *base = cpl_shlex_base(wtext(&w[ci]));
	size_t k, j;

	for (k = 0; k < CPL_ARRAY_LEN(launchers); k++) {
		const struct launcher *la = &launchers[k];

		for (j = 0; j < CPL_ARRAY_LEN(la->commands); j++)
			if (la->commands[j] != NULL &&
			    spells(w, n, ci, base, la->commands[j], next))
				return la;
	}
	return NULL;
}

/* The launcher run as python -m m, NULL when none. */
static const struct launcher *
by_module(const char *m)
{
	size_t k;

	for (k = 0; k < CPL_ARRAY_LEN(launchers); k++)
		if (launchers[k].module != NULL &&
		    strcmp(launchers[k].module, m) == 0)
			return &launchers[k];
	return NULL;
}

/* Keeps the value of option o at word vw, from byte vfrom. */
static void
keep_value(struct launchrec *r, const struct lvalue *o, size_t vw,
	   size_t vfrom)
{
	if (o->slot == SLOT_RANKS) {
		r->has_nproc = true;
		r->nw = vw;
		r->nfrom = vfrom;
		return;
	}
	r->has_opt[o->slot] = true;
	r->ow[o->slot] = vw;
	r->ofrom[o->slot] = vfrom;
}

/* The kept option called by the nl bytes at name, NULL when none. */
static const struct lvalue *
long_value(const struct lspec *spec, const char *name, size_t nl)
{
	const struct lvalue *o;

	for (o = spec->values; o->name != NULL; o++)
		if (opt_eq(name, nl, o->name))
			return o;
	return NULL;
}

/* The kept option spelled -c, NULL when none. */
static const struct lvalue *
short_value(const struct lspec *spec, char c)
{
	const struct lvalue *o;

	for (o = spec->values; o->name != NULL; o++)
		if (o->short_name != 0 && o->short_name == c)
			return o;
	return NULL;
}

/* The switch called by the nl bytes at name; 0 when it is not kept. */
static unsigned
long_flag(const struct lspec *spec, const char *name, size_t nl)
{
	const struct lflag *f;

	for (f = spec->flags; f->name != NULL; f++)
		if (opt_eq(name, nl, f->name))
			return f->flag;
	return 0;
}

/* Reads one long option at word *j of n (t is its text) into r; *module
 * and *nopy note --module and --no_python. */
static void
long_opt(size_t n, size_t *j, const char *t, const struct lspec *spec,
	 struct launchrec *r, bool *module, bool *nopy)
{
	const char *name = t + 2, *eq = strchr(name, '=');
	size_t nl = eq ? (size_t)(eq - name) : strlen(name);
	const struct lvalue *o = long_value(spec, name, nl);
	unsigned flag;

	if (o != NULL) {
		if (eq != NULL)
			keep_value(r, o, *j, (size_t)(eq - t) + 1);
		else if (*j + 1 < n)
			keep_value(r, o, ++*j, 0);
	} else if (opt_eq(name, nl, "module")) {
		*module = true;
	} else if (opt_eq(name, nl, "no_python")) {
		*nopy = true;
	} else if ((flag = long_flag(spec, name, nl)) != 0) {
		r->flags |= flag;
	} else if (eq == NULL && !opt_in(name, nl, spec->bools)) {
		++*j;	/* an option with a value */
	}
}

/* Reads a launcher's options from word j: the rank count and the other
 * options kept, then the script (or module, or executable with
 * --no-python) and its arguments; depth: launchers around this one. */
static void
launcher_opts(const struct sword *w, size_t n, size_t j,
	      const struct lspec *spec, struct launchrec *r, int depth)
{
	bool module = false, nopy = false;

	for (; j < n; j++) {
		const char *t = wtext(&w[j]);
		const struct lvalue *o;

		if (strcmp(t, "--") == 0) {
			j++;
			break;
		}
		if (t[0] != '-' || t[1] == '\0')
			break;
		r->flags |= CPL_LFLAG_OPTIONS;
		if (t[1] == '-') {
			long_opt(n, &j, t, spec, r, &module, &nopy);
		} else if (t[1] == 'm' && t[2] == '\0' && spec->short_module) {
			module = true;
		} else if ((o = short_value(spec, t[1])) != NULL) {
			if (t[2] != '\0')
				keep_value(r, o, j, 2);
			else if (j + 1 < n)
				keep_value(r, o, ++j, 0);
		} else if (t[2] == '\0' && strchr(spec->short_values, t[1])) {
			j++;
		}
	}
	r->a0 = n;
	if (j >= n)
		return;
	if (nopy) {
		struct launchrec sub;

		r->a0 = j + 1;
		if (!cpl_shlaunch_is_python(cpl_shlex_base(wtext(&w[j]))) ||
		    depth >= MAX_NESTED_LAUNCH)
			return;
		memset(&sub, 0, sizeof(sub));
		sub.l = CPL_LAUNCH_PYTHON;
		python_args(w, n, j + 1, &sub, depth + 1);
		if (sub.l != CPL_LAUNCH_PYTHON)
			return;
		r->has_script = sub.has_script;
		r->module = sub.module;
		r->sw = sub.sw;
		r->sfrom = sub.sfrom;
		r->a0 = sub.a0;
		return;
	}
	r->has_script = true;
	r->module = module;
	r->sw = j;
	r->sfrom = 0;
	r->a0 = j + 1;
}

/* python -m MODULE (at word vw, from byte vfrom): a launcher module or
 * the script itself. */
static void
python_module(const struct sword *w, size_t n, size_t vw, size_t vfrom,
	      struct launchrec *r, int depth)
{
	const char *m = wtext(&w[vw]) + vfrom;
	const struct launcher *la = by_module(m);

	if (la != NULL) {
		r->l = la->l;
		r->lw = vw;
		r->lfrom = vfrom;
		launcher_opts(w, n, vw + 1, la->spec, r, depth);
		return;
	}
	r->has_script = true;
	r->module = true;
	r->sw = vw;
	r->sfrom = vfrom;
	r->a0 = vw + 1;
	r->setup = cpl_shlex_oneof(m, setup_modules) ||
		   cpl_str_starts(m, "pip.");
}

/* Reads python's interpreter options from word j, then the script;
 * depth: launchers around it. */
static void
python_args(const struct sword *w, size_t n, size_t j, struct launchrec *r,
	    int depth)
{
	r->a0 = n;
	for (; j < n; j++) {
		const char *t = wtext(&w[j]);
		size_t k;

		if (strcmp(t, "--") == 0) {
			j++;
			break;
		}
		if (strcmp(t, "-") == 0) {
			r->setup = true;
			r->a0 = j + 1;
			return;
		}
		if (t[0] != '-')
			break;
		if (t[1] == '-') {
			if (strcmp(t, "--check-hash-based-pycs") == 0)
				j++;
			continue;
		}
		for (k = 1; t[k] != '\0'; k++) {
			size_t vw = j, vfrom = k + 1;

			if (strchr("cmWX", t[k]) == NULL)
				continue;
			if (t[k + 1] == '\0') {
				vw = j + 1;
				vfrom = 0;
			}
			if (vw >= n) {
				r->setup = true;
				return;
			}
			if (t[k] == 'c') {
				r->setup = true;
				r->a0 = vw + 1;
				return;
			}
			if (t[k] == 'm') {
				python_module(w, n, vw, vfrom, r, depth);
				return;
			}
			j = vw;
			break;
		}
	}
	if (j >= n) {
		r->setup = true;
		return;
	}
	r->has_script = true;
	r->sw = j;
	r->sfrom = 0;
	r->a0 = j + 1;
	r->setup = strcmp(cpl_shlex_base(wtext(&w[j])), "setup.py") == 0;
}

/* Recognises the launcher starting at word ci; false when it is none. */
bool
cpl_shlaunch_recognise(struct launchrec *r, const struct sword *w, size_t n,
		       size_t ci)
{
	const struct launcher *la;
	size_t next;

	memset(r, 0, sizeof(*r));
	r->lw = ci;
	r->a0 = n;
	la = by_command(w, n, ci, &next);
	if (la != NULL) {
		r->l = la->l;
		launcher_opts(w, n, next, la->spec, r, 0);
		return true;
	}
	if (!cpl_shlaunch_is_python(cpl_shlex_base(wtext(&w[ci]))))
		return false;
	r->l = CPL_LAUNCH_PYTHON;
	python_args(w, n, ci + 1, r, 0);
	return true;
}

/* Whether l starts ranks of its own (launch.h): a row of launchers[]. */
bool
cpl_launcher_starts_ranks(enum cpl_launcher l)
{
	size_t k;

	for (k = 0; k < CPL_ARRAY_LEN(launchers); k++)
		if (launchers[k].l == l)
			return true;
	return false;
}

/* Human name of a launcher (shscan.h). */
const char *
cpl_launcher_name(enum cpl_launcher l)
{
	size_t k;

	if (l == CPL_LAUNCH_NONE)
		return "none";
	if (l == CPL_LAUNCH_PYTHON)
		return "python";
	for (k = 0; k < CPL_ARRAY_LEN(launchers); k++)
		if (launchers[k].l == l)
			return launchers[k].name;
	return "?";
}
