/*
 * mpi.c — MPI launchers in a container's command: does the container run
 * the ranks, or only start them in other Pods?
 *
 * mpirun, mpiexec (Open MPI, MPICH/Hydra, Intel MPI spellings), orterun,
 * prterun and horovodrun are read from the argv or from the text of a
 * `sh -c` script (split on blanks and shell operators, quotes removed:
 * enough to find a command and its options, not a shell).  The options
 * before the program say where the ranks go: a hostfile or a host list
 * that is not only localhost sends them to other Pods; a rank count
 * (-np, -n, -c, --num-proc) says how many.
 *
 * The decision (cpl_loader_mpi) is the loaders': only they know whether
 * an operator (MPIJob, Volcano, Trainer's MPI plugin, Polyaxon mpijob)
 * hands mpirun a default hostfile of worker Pods.
 */
#include "load/loader.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 4096

/* Where an MPI launch puts its ranks. */
enum mpi_hosts {
	MPI_NONE,	/* no MPI launcher in the command */
	MPI_DEFAULT,	/* no hosts named: the operator's, or this Pod */
	MPI_LOCAL,	/* only localhost named */
	MPI_REMOTE,	/* a hostfile or other hosts */
};

/* One token of a command line; op marks a shell operator. */
struct mpi_tok {
	char *text;
	bool op;
	struct cpl_pos pos;
};

struct toks {
	struct mpi_tok *v;
	size_t n;
	size_t cap;
};

static void
tok_add(struct toks *t, char *text, bool op, struct cpl_pos pos)
{
	if (t->n >= MAX_TOKENS) {
		free(text);
		return;
	}
	CPL_GROW(t->v, t->cap, t->n + 1);
	t->v[t->n].text = text;
	t->v[t->n].op = op;
	t->v[t->n].pos = pos;
	t->n++;
}

static void
toks_free(struct toks *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].text);
	free(t->v);
}

/* Splits shell text into words and operators; every token gets pos. */
static void
split_script(struct toks *t, const char *s, struct cpl_pos pos)
{
	struct cpl_buf b;
	bool in_word = false;

	cpl_buf_init(&b, 1 << 16);
	for (;;) {
		char c = *s;

		if (c == '\0' || c == ' ' || c == '\t' || c == '\n' ||
		    c == ';' || c == '&' || c == '|' || c == '(' ||
		    c == ')') {
			if (in_word) {
				tok_add(t, cpl_xstrdup(cpl_buf_str(&b)), false,
					pos);
				cpl_buf_reset(&b);
				in_word = false;
			}
			if (c == '\0')
				break;
			if (c != ' ' && c != '\t')
				tok_add(t, cpl_xstrndup(s, 1), true, pos);
			s++;
			continue;
		}
		if (c == '\\' && s[1] == '\n') {
			s += 2;		/* a line continued: no word of its own */
			continue;
		}
		in_word = true;
		if (c == '\'' || c == '"') {
			const char *end = strchr(s + 1, c);

			if (end == NULL)
				end = s + strlen(s);
			cpl_buf_add(&b, s + 1, (size_t)(end - s - 1));
			s = *end ? end + 1 : end;
			continue;
		}
		if (c == '\\' && s[1] != '\0') {
			cpl_buf_addc(&b, s[1]);
			s += 2;
			continue;
		}
		cpl_buf_addc(&b, c);
		s++;
	}
	cpl_buf_free(&b);
}

static const char *
base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

static bool
is_shell(const char *s)
{
	static const char *const shells[] = { "sh", "bash", "dash", "ash",
					      "zsh", "ksh" };
	const char *b = base_name(s);
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(shells); i++)
		if (strcmp(b, shells[i]) == 0)
			return true;
	return false;
}

/* The container's command as tokens: the argv, or the script a shell
 * runs with -c, or a one-word command holding blanks. */
static void
command_tokens(struct toks *t, const struct cpl_container *c)
{
	size_t i;

	if (c->argc == 1 && strpbrk(c->argv[0].text, " \t\n") != NULL) {
		split_script(t, c->argv[0].text, c->argv[0].pos);
		return;
	}
	if (c->argc >= 3 && is_shell(c->argv[0].text)) {
		for (i = 1; i + 1 < c->argc; i++) {
			const char *a = c->argv[i].text;

			if (a[0] != '-')
				break;
			if (strchr(a, 'c') != NULL && a[1] != '-') {
				split_script(t, c->argv[i + 1].text,
					     c->argv[i + 1].pos);
				return;
			}
		}
	}
	for (i = 0; i < c->argc; i++)
		tok_add(t, cpl_xstrdup(c->argv[i].text), false,
			c->argv[i].pos);
}

static bool
is_mpi_launcher(const char *s)
{
	static const char *const names[] = {
		"mpirun", "mpiexec", "orterun", "prterun", "prun",
		"horovodrun", "mpirun.openmpi", "mpiexec.openmpi",
		"mpirun.mpich", "mpiexec.mpich", "mpiexec.hydra",
	};
	const char *b = base_name(s);
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(names); i++)
		if (strcmp(b, names[i]) == 0)
			return true;
	return false;
}

/* The program that follows the launcher's options: where options end. */
static bool
is_program(const char *s)
{
	const char *b = base_name(s);

	return strncmp(b, "python", 6) == 0 || cpl_str_ends(b, ".py") ||
	       cpl_str_ends(b, ".sh") || is_shell(b) ||
	       strcmp(b, "torchrun") == 0 || strcmp(s, "--") == 0;
}

/* An option name, dashes and any "=value" stripped, in the list. */
static bool
opt_is(const char *t, const char *const *names)
{
	size_t n;

	while (*t == '-')
		t++;
	n = strcspn(t, "=");
	for (; *names; names++)
		if (strlen(*names) == n && strncmp(t, *names, n) == 0)
			return true;
	return false;
}

/* Every host of a list ("localhost:4,127.0.0.1") is this Pod. */
static bool
all_local(const char *list)
{
	const char *p = list;

	if (*p == '\0')
		return false;
	while (*p) {
		size_t n = strcspn(p, ",:");

		if (!((n == 9 && strncmp(p, "localhost", 9) == 0) ||
		      (n == 9 && strncmp(p, "127.0.0.1", 9) == 0)))
			return false;
		p += n;
		if (*p == ':')
			p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	return true;
}

/* A variable of the environment that hands mpirun a hostfile. */
static bool
env_hostfile(const struct cpl_container *c)
{
	static const char *const vars[] = {
		"OMPI_MCA_orte_default_hostfile",
		"OMPI_MCA_prte_default_hostfile", "HYDRA_HOST_FILE",
		"I_MPI_HYDRA_HOST_FILE",
	};
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(vars); i++)
		if (cpl_container_env(c, vars[i]) != NULL)
			return true;
	return false;
}

/* How many words follow launcher option t as its values (t with its
 * dashes; "=value" carries its own): 0 for a flag, -1 when the option is
 * not one of these. */
static int
opt_values(const char *t)
{
	static const char *const one[] = {
		"hostfile", "machinefile", "default-hostfile", "f",
		"host-discovery-script", "H", "host", "hosts", "np", "n", "c",
		"num-proc", "x", "bind-to", "map-by", "rank-by", "npernode",
		"npersocket", "N", "ppn", "wdir", "wd", "prefix", "rankfile",
		"output-filename", "timeout", "cpus-per-proc", "cpus-per-rank",
		"genvlist", "envlist", "launcher", "launcher-exec",
		"bootstrap", "iface", "p", "ssh-port", "start-timeout",
		"network-interface", "output", "pe", NULL };
	static const char *const two[] = { "mca", "gmca", "env", "genv",
					   NULL };
	static const char *const none[] = {
		"allow-run-as-root", "oversubscribe", "nooversubscribe",
		"tag-output", "timestamp-output", "report-bindings",
		"display-map", "display-allocation", "verbose", "v", "q",
		"quiet", "bind-to-core", "bind-to-socket", "use-hwthread-cpus",
		"merge-stderr-to-stdout", "l", "prepend-rank", "enable-recovery",
		"noprefix", "gloo", "mpi", "log-with-timestamp", NULL };

	if (strchr(t, '=') != NULL || opt_is(t, none))
		return 0;
	if (opt_is(t, one))
		return 1;
	if (opt_is(t, two))
		return 2;
	return -1;
}

/*
 * Reads the MPI launch of tokens [i, n) (the launcher at i): where its
 * ranks go, its rank count in *np (text NULL when not given) and, with
 * prog, where the program it starts as its ranks is in *prog (an index
 * of t; SIZE_MAX when the words do not say which word it is).
 */
static enum mpi_hosts
read_launch(const struct toks *t, size_t i, struct cpl_word *np,
	    size_t *prog)
{
	static const char *const hostfiles[] = {
		"hostfile", "machinefile", "default-hostfile", "f",
		"host-discovery-script", NULL,
	};
	static const char *const hosts[] = { "H", "host", "hosts", NULL };
	static const char *const counts[] = { "np", "n", "c", "num-proc",
					      NULL };
	enum mpi_hosts where = MPI_DEFAULT;
	int values = 0;		/* words still to come as option values;
				 * -1: maybe one (an unknown option) */
	size_t j;

	if (prog != NULL)
		*prog = SIZE_MAX;
	for (j = i + 1; j < t->n && !t->v[j].op; j++) {
		const char *a = t->v[j].text, *eq = strchr(a, '=');
		const char *val = eq ? eq + 1 :
				  (j + 1 < t->n && !t->v[j + 1].op ?
				   t->v[j + 1].text : NULL);

		if (is_program(a)) {
			if (prog != NULL)
				*prog = j;
			break;
		}
		if (a[0] != '-') {
			/* An option's value, else the program: a word after
			 * an unknown option is its value unless it names a
			 * path. */
			if (values > 0 || (values < 0 && !strchr(a, '/'))) {
				values = values > 0 ? values - 1 : 0;
				continue;
			}
			if (prog != NULL)
				*prog = j;
			break;
		}
		values = opt_values(a);
		if (opt_is(a, hostfiles)) {
			where = MPI_REMOTE;
		} else if (opt_is(a, hosts) && val != NULL) {
			if (!all_local(val))
				where = MPI_REMOTE;
			else if (where == MPI_DEFAULT)
				where = MPI_LOCAL;
		} else if (opt_is(a, counts) && val != NULL &&
			   np->text == NULL) {
			np->text = cpl_xstrdup(val);
			np->pos = t->v[eq ? j : j + 1].pos;
		}
	}
	return where;
}

/* How messages name the rank count of launcher a. */
static const char *
np_label(const char *a)
{
	const char *b = base_name(a);

	if (strcmp(b, "horovodrun") == 0)
		return "horovodrun -np";
	if (strncmp(b, "mpiexec", 7) == 0)
		return "mpiexec -np";
	return "mpirun -np";
}

/*
 * The program of tokens[at], which mpirun starts as its ranks, when
 * nothing in the text shows it starting an OpenMP pool (owned), else
 * NULL: a native program (an MPI pi, a C solver), or a shell running a
 * `-c` script that starts no Python ("echo ...; df -h").  Python, a
 * shell script file, torchrun or a variable ($CMD) are NULL: those are
 * judged as the launch reads them.
 */
static char *
unseen_ranks(const struct toks *t, size_t at)
{
	static const char *const py[] = { "python", ".py", "torchrun",
					  "accelerate", "deepspeed", NULL };
	const char *a = t->v[at].text;
	size_t j, k;

	if (a[0] == '$' || strcmp(a, "--") == 0)
		return NULL;
	if (!is_shell(a))
		return is_program(a) ? NULL : cpl_xstrdup(a);
	for (j = at + 1; j + 1 < t->n && !t->v[j].op; j++) {
		const char *o = t->v[j].text;

		if (o[0] != '-')
			return NULL;	/* a script file: not read here */
		if (o[1] == '-' || strchr(o, 'c') == NULL)
			continue;
		for (k = 0; py[k]; k++)
			if (strstr(t->v[j + 1].text, py[k]) != NULL)
				return NULL;
		return cpl_xstrdup(a);
	}
	return NULL;
}

/*
 * The first MPI launch of c's command: MPI_NONE when there is none.
 * *np receives its rank count (owned; text NULL when not written) and
 * *label (may be NULL) how messages name it.
 */
static enum mpi_hosts
mpi_launch(const struct cpl_container *c, struct cpl_word *np,
	   const char **label, char **prog)
{
	struct toks t = { NULL, 0, 0 };
	enum mpi_hosts where = MPI_NONE;
	bool start = true;
	size_t i;

	np->text = NULL;
	if (prog != NULL)
		*prog = NULL;
	command_tokens(&t, c);
	for (i = 0; i < t.n; i++) {
		const char *a = t.v[i].text;

		if (t.v[i].op) {
			start = true;
			continue;
		}
		if (!start)
			continue;
		if (strchr(a, '=') != NULL && (isalpha((unsigned char)a[0]) ||
					       a[0] == '_'))
			continue;	/* NAME=value before a command */
		if (strcmp(a, "exec") == 0 || strcmp(a, "nohup") == 0 ||
		    strcmp(a, "time") == 0 || strcmp(a, "env") == 0 ||
		    strcmp(a, "then") == 0 || strcmp(a, "do") == 0 ||
		    strcmp(a, "else") == 0)
			continue;
		start = false;
		if (is_mpi_launcher(a)) {
			size_t at = SIZE_MAX;

			where = read_launch(&t, i, np, prog ? &at : NULL);
			if (prog != NULL && at != SIZE_MAX)
				*prog = unseen_ranks(&t, at);
			if (label)
				*label = np_label(a);
			break;
		}
	}
	toks_free(&t);
	if (where == MPI_DEFAULT && env_hostfile(c))
		where = MPI_REMOTE;
	return where;
}

void
cpl_loader_mpi(struct cpl_workload *w, bool orchestrated)
{
	size_t i;

	for (i = 0; i < w->ncontainers; i++) {
		struct cpl_container *c = &w->containers[i];
		struct cpl_word np;
		const char *label = "mpirun -np";
		enum mpi_hosts where;

		if (c->role != CPL_CROLE_MAIN || c->has_slots)
			continue;
		where = mpi_launch(c, &np, &label, NULL);
		if (where == MPI_NONE) {
			continue;
		} else if (where == MPI_REMOTE ||
			   (where == MPI_DEFAULT && orchestrated)) {
			/* Starts ranks elsewhere; a command that launches
			 * something else too is judged on that. */
			if (c->launch.launcher == CPL_LAUNCH_NONE) {
				c->not_training = true;
				c->run_container = false;
			}
			free(np.text);
		} else if (np.text != NULL) {
			c->has_slots = true;
			c->slots = np;
			c->slots_from = label;
		}
	}
}

void
cpl_loader_mpi_slots(struct cpl_workload *w, const char *text,
		     const struct cpl_pos *pos, const char *from)
{
	size_t i;

	for (i = 0; i < w->ncontainers; i++) {
		struct cpl_container *c = &w->containers[i];

		if (!c->run_container || c->has_slots)
			continue;
		c->has_slots = true;
		c->slots.text = text ? cpl_xstrdup(text) : NULL;
		if (pos != NULL)
			c->slots.pos = *pos;
		c->slots_from = from;
	}
}

/*
 * The program the job's mpirun starts as its ranks, when the text shows
 * no OpenMP pool in it (unseen_ranks()): each container whose ranks it
 * is (slots) runs it, whatever its own command (sshd) is.
 */
static void
ranks_native(struct cpl_wlist *l, size_t first)
{
	struct cpl_word np;
	char *prog = NULL;
	size_t i, j;

	for (i = first; i < l->count && prog == NULL; i++) {
		const struct cpl_workload *w = l->items[i];

		for (j = 0; j < w->ncontainers && prog == NULL; j++) {
			if (w->containers[j].role == CPL_CROLE_MAIN)
				(void)mpi_launch(&w->containers[j], &np, NULL,
						 &prog);
			free(np.text);
		}
	}
	if (prog == NULL)
		return;
	for (i = first; i < l->count; i++) {
		struct cpl_workload *w = l->items[i];

		for (j = 0; j < w->ncontainers; j++) {
			struct cpl_container *c = &w->containers[j];

			if (!c->has_slots || c->ranks_native != NULL)
				continue;
			c->ranks_native = cpl_xstrdup(prog);
		}
	}
	free(prog);
}

void
cpl_loader_mpi_cap(struct cpl_wlist *l, size_t first)
{
	struct cpl_word np = { NULL, { NULL, 0, 0 } };
	const char *label = "mpirun -np";
	long n = -1, slots;
	size_t i, j;

	ranks_native(l, first);
	for (i = first; i < l->count && np.text == NULL; i++) {
		const struct cpl_workload *w = l->items[i];

		for (j = 0; j < w->ncontainers && np.text == NULL; j++)
			if (w->containers[j].role == CPL_CROLE_MAIN &&
			    mpi_launch(&w->containers[j], &np,
				       &label, NULL) == MPI_NONE) {
				free(np.text);
				np.text = NULL;
			}
	}
	if (np.text == NULL || cpl_parse_long(&n, np.text) < 0 || n < 1) {
		free(np.text);
		return;
	}
	for (i = first; i < l->count; i++) {
		struct cpl_workload *w = l->items[i];

		for (j = 0; j < w->ncontainers; j++) {
			struct cpl_container *c = &w->containers[j];

			if (!c->has_slots ||
			    cpl_parse_long(&slots, c->slots.text) < 0 ||
			    slots <= n)
				continue;
			free(c->slots.text);
			c->slots = cpl_word_dup(&np);
			c->slots_from = label;
		}
	}
	free(np.text);
}
