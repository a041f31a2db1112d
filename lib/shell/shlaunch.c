/*
 * shlaunch.c — the programs the shell scanner knows by name (shlaunch.h):
 * the launchers (torchrun, python -m torch.distributed.run|launch,
 * accelerate launch, deepspeed) with their flag tables, python's own
 * interpreter options (-m MODULE, -c CODE, script.py), and the commands
 * that read the host's CPU count (nproc, getconf, lscpu, /proc/cpuinfo,
 * python ... cpu_count()).
 *
 * Options are read as the launchers' own argument parsers read them: long
 * options with '-' or '_' alike, "--flag value" and "--flag=value", the
 * options that take no value listed so that the script is found after
 * them.  What it owns: those tables and cpl_launcher_name().  May include
 * shell/shlaunch.h, shell/shlex.h, shell/launch.h, shell/shscan.h and
 * util.h; it never sees a scan (shstate.h).
 */
#include "shell/shlaunch.h"

#include <string.h>

#include "shell/shscan.h"
#include "util.h"

/* ---- names ------------------------------------------------------------ */

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
cpl_shlaunch_reads_host(const struct cmd *c)
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

/* ---- launchers -------------------------------------------------------- */

/* The options of one launcher's command line. */
struct lspec {
	const char *const *ranks;	/* the rank-count flag's names */
	const char *const *bools;	/* long options without a value */
	const char *short_values;	/* short options taking a value */
	bool short_module;		/* -m means --module */
};

static const char *const torch_ranks[] = { "nproc_per_node", NULL };
static const char *const torch_bools[] = {
	"standalone", "run_path", "use_env", "virtual_local_rank", "help",
	NULL,
};
static const struct lspec torch_spec = {
	torch_ranks, torch_bools, "rt", true,
};

static const char *const accel_ranks[] = { "num_processes", NULL };
static const char *const accel_bools[] = {
	"multi_gpu", "cpu", "use_cpu", "use_deepspeed", "use_fsdp",
	"use_megatron_lm", "use_xpu", "tpu", "ipex", "debug", "quiet", "help",
	"same_network", "downcast_bf16", "tpu_use_cluster", "tpu_use_sudo",
	"no_tpu_cluster", "enable_cpu_affinity", "dynamo_use_fullgraph",
	"dynamo_use_dynamic", "dynamo_use_regional_compilation",
	"use_parallelism_config", NULL,
};
static const struct lspec accel_spec = {
	accel_ranks, accel_bools, "t", true,
};

static const char *const ds_ranks[] = {
	"num_gpus", "num_accelerators", NULL,
};
static const char *const ds_bools[] = {
	"no_local_rank", "no_ssh", "no_ssh_check", "force_multi", "save_pid",
	"elastic_training", "bind_cores_to_rank", "help", NULL,
};
static const struct lspec ds_spec = {
	ds_ranks, ds_bools, "Hie", false,
};

/* python -m modules that set up rather than train. */
static const char *const setup_modules[] = {
	"pip", "ensurepip", "venv", "virtualenv", "site", "compileall",
	"py_compile", "json.tool", "http.server", "pydoc", "nltk.downloader",
	"spacy", NULL,
};

static void python_args(const struct sword *w, size_t n, size_t j,
			struct launchrec *r);

/* Reads a launcher's options from word j: the rank count, then the
 * script (or module, or executable with --no-python) and its arguments. */
static void
launcher_opts(const struct sword *w, size_t n, size_t j,
	      const struct lspec *spec, struct launchrec *r)
{
	bool module = false, nopy = false;

	for (; j < n; j++) {
		const char *t = wtext(&w[j]);

		if (strcmp(t, "--") == 0) {
			j++;
			break;
		}
		if (t[0] != '-' || t[1] == '\0')
			break;
		if (t[1] == '-') {
			const char *name = t + 2, *eq = strchr(name, '=');
			size_t nl = eq ? (size_t)(eq - name) : strlen(name);

			if (opt_in(name, nl, spec->ranks)) {
				if (eq != NULL) {
					r->has_nproc = true;
					r->nw = j;
					r->nfrom = (size_t)(eq - t) + 1;
				} else if (j + 1 < n) {
					r->has_nproc = true;
					r->nw = ++j;
					r->nfrom = 0;
				}
			} else if (opt_eq(name, nl, "module")) {
				module = true;
			} else if (opt_eq(name, nl, "no_python")) {
				nopy = true;
			} else if (eq == NULL &&
				   !opt_in(name, nl, spec->bools)) {
				j++;	/* an option with a value */
			}
		} else if (t[1] == 'm' && t[2] == '\0' && spec->short_module) {
			module = true;
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
		if (!cpl_shlaunch_is_python(cpl_shlex_base(wtext(&w[j]))))
			return;
		memset(&sub, 0, sizeof(sub));
		sub.l = CPL_LAUNCH_PYTHON;
		python_args(w, n, j + 1, &sub);
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
	      struct launchrec *r)
{
	const char *m = wtext(&w[vw]) + vfrom;
	const struct lspec *spec = NULL;

	if (strcmp(m, "torch.distributed.run") == 0) {
		r->l = CPL_LAUNCH_TORCHRUN;
		spec = &torch_spec;
	} else if (strcmp(m, "torch.distributed.launch") == 0) {
		r->l = CPL_LAUNCH_TORCH_LAUNCH;
		spec = &torch_spec;
	} else if (strcmp(m, "accelerate.commands.launch") == 0) {
		r->l = CPL_LAUNCH_ACCELERATE;
		spec = &accel_spec;
	} else if (strcmp(m, "deepspeed.launcher.runner") == 0) {
		r->l = CPL_LAUNCH_DEEPSPEED;
		spec = &ds_spec;
	}
	if (spec != NULL) {
		r->lw = vw;
		r->lfrom = vfrom;
		launcher_opts(w, n, vw + 1, spec, r);
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

/* Reads python's interpreter options from word j, then the script. */
static void
python_args(const struct sword *w, size_t n, size_t j, struct launchrec *r)
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
				python_module(w, n, vw, vfrom, r);
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
	const char *base = cpl_shlex_base(wtext(&w[ci]));

	memset(r, 0, sizeof(*r));
	r->lw = ci;
	r->a0 = n;
	if (strcmp(base, "torchrun") == 0) {
		r->l = CPL_LAUNCH_TORCHRUN;
		launcher_opts(w, n, ci + 1, &torch_spec, r);
	} else if (strcmp(base, "deepspeed") == 0) {
		r->l = CPL_LAUNCH_DEEPSPEED;
		launcher_opts(w, n, ci + 1, &ds_spec, r);
	} else if (strcmp(base, "accelerate") == 0 && ci + 1 < n &&
		   strcmp(wtext(&w[ci + 1]), "launch") == 0) {
		r->l = CPL_LAUNCH_ACCELERATE;
		launcher_opts(w, n, ci + 2, &accel_spec, r);
	} else if (strcmp(base, "accelerate-launch") == 0) {
		r->l = CPL_LAUNCH_ACCELERATE;
		launcher_opts(w, n, ci + 1, &accel_spec, r);
	} else if (cpl_shlaunch_is_python(base)) {
		r->l = CPL_LAUNCH_PYTHON;
		python_args(w, n, ci + 1, r);
	} else {
		return false;
	}
	return true;
}

/* Human name of a launcher (shscan.h). */
const char *
cpl_launcher_name(enum cpl_launcher l)
{
	switch (l) {
	case CPL_LAUNCH_NONE:
		return "none";
	case CPL_LAUNCH_PYTHON:
		return "python";
	case CPL_LAUNCH_TORCHRUN:
		return "torchrun";
	case CPL_LAUNCH_TORCH_LAUNCH:
		return "torch.distributed.launch";
	case CPL_LAUNCH_ACCELERATE:
		return "accelerate launch";
	case CPL_LAUNCH_DEEPSPEED:
		return "deepspeed";
	}
	return "?";
}
