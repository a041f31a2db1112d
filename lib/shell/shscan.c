/*
 * shscan.c — reads what a container's command line launches (shscan.h).
 *
 * The argv is either a shell script (sh -c SCRIPT, or a single word
 * holding blanks), which the lexer (shlex.c) splits into simple commands,
 * or one simple command already split.  Each finished command comes back
 * through cpl_shscan_finish(): at the top level top_command() updates the
 * shell variables, the exports, the host-count reads and the launch; inside
 * a substitution cpl_shlaunch_reads_host() only says whether it reads the
 * host's CPU count.  Which programs are launchers, and how their options
 * read, is shlaunch.c's; this file knows the shell: assignments, export
 * and its kin, wrappers (exec, env, nohup ...), reserved words, tests.
 *
 * Invariants: variables are hashed and resolved values capped, host-count
 * reads and exports are capped, so time is linear in the input.
 * Ownership: struct sh_scan (shstate_int.h) owns all scratch state and
 * scan_free() frees it before cpl_shscan() returns; everything stored in
 * the caller's struct cpl_launch is an owned copy (released with
 * cpl_launch_clear()); argv, nodes and the stream are borrowed.
 *
 * May include shell/shscan.h, shell/shstate_int.h, shell/shlex_int.h,
 * shell/shlaunch_int.h, shell/launch.h, text/ and util.h.
 */
#include "shell/shscan.h"

#include <stdlib.h>
#include <string.h>

#include "shell/shlaunch_int.h"
#include "shell/shlex_int.h"
#include "shell/shstate_int.h"
#include "util.h"

#define MAX_HOSTCOUNTS 256	/* host-count reads reported */
#define MAX_PENDING 1024	/* host-count reads held for one command */
#define MAX_EXPORTS 1024	/* distinct exported names */
#define MAX_VARS 65536		/* shell variables tracked */
#define MAX_VALUE 1024		/* a longer resolved value is unknown */

/* A host-count read found while parsing the current top-level command. */
struct hc {
	char *expr;		/* as written; owned until emitted */
	struct cpl_pos pos;
	bool derived;		/* a use of a variable holding a host count */
};

/* A shell variable assigned (or exported) by the script. */
struct sh_var {
	char *name;
	size_t namelen;
	char *value;		/* NULL when unknown */
	bool set;		/* assigned in the script */
	bool host;		/* computed from the host's CPU count */
	bool exported;
	size_t export_idx;	/* in out->exports, or NO_IDX */
	struct cpl_pos pos;	/* its last assignment */
};

/* ---- small helpers ---------------------------------------------------- */

/* argv word i's text, "" when it has none. */
static const char *
argtext(const struct sh_scan *sc, size_t i)
{
	return sc->argv[i].text ? sc->argv[i].text : "";
}

/* ---- variables -------------------------------------------------------- */

/* The slot where name lives or would be inserted. */
static size_t
var_slot(const struct sh_scan *sc, const char *name, size_t n)
{
	size_t mask = sc->nslots - 1, h = (size_t)cpl_hash(name, n) & mask;

	while (sc->slots[h] != NULL) {
		const struct sh_var *v = sc->slots[h];

		if (v->namelen == n && memcmp(v->name, name, n) == 0)
			break;
		h = (h + 1) & mask;
	}
	return h;
}

/* Doubles the variable table. */
static void
var_grow(struct sh_scan *sc)
{
	struct sh_var **old = sc->slots;
	size_t nold = sc->nslots, k;

	sc->nslots = nold ? nold * 2 : 64;
	sc->slots = cpl_xcalloc(sc->nslots, sizeof(*sc->slots));
	for (k = 0; k < nold; k++)
		if (old[k] != NULL)
			sc->slots[var_slot(sc, old[k]->name,
					   old[k]->namelen)] = old[k];
	free(old);
}

/* The variable called by the n bytes at name; created when asked (NULL
 * when absent, or when the table is full). */
static struct sh_var *
var_get(struct sh_scan *sc, const char *name, size_t n, bool create)
{
	struct sh_var *v;
	size_t h;

	if (sc->nslots == 0) {
		if (!create)
			return NULL;
		var_grow(sc);
	}
	h = var_slot(sc, name, n);
	if (sc->slots[h] != NULL)
		return sc->slots[h];
	if (!create || sc->nvars >= MAX_VARS)
		return NULL;
	if ((sc->nvars + 1) * 2 > sc->nslots) {
		var_grow(sc);
		h = var_slot(sc, name, n);
	}
	v = cpl_xcalloc(1, sizeof(*v));
	v->name = cpl_xstrndup(name, n);
	v->namelen = n;
	v->export_idx = NO_IDX;
	sc->slots[h] = v;
	sc->nvars++;
	return v;
}

/*
 * The text of w from byte from with its $NAME references replaced by the
 * values assigned earlier; NULL when some part is unknown (a substitution,
 * a variable not assigned or unknown, a result over MAX_VALUE).
 */
static char *
resolve(struct sh_scan *sc, const struct sword *w, size_t from)
{
	const char *t = wtext(w);
	struct cpl_buf b;
	size_t at = from, k;

	if (w->unknown)
		return NULL;
	cpl_buf_init(&b, MAX_VALUE);
	for (k = 0; k < w->nrefs; k++) {
		const struct ref *r = &w->refs[k];
		const struct sh_var *v;

		if (r->at < from)
			continue;
		v = var_get(sc, t + r->name, r->namelen, false);
		if (v == NULL || !v->set || v->value == NULL)
			goto unknown;
		cpl_buf_add(&b, t + at, r->at - at);
		cpl_buf_adds(&b, v->value);
		at = r->at + r->len;
	}
	cpl_buf_add(&b, t + at, w->text.len - at);
	if (b.overflow)
		goto unknown;
	return cpl_buf_detach(&b);
unknown:
	cpl_buf_free(&b);
	return NULL;
}

/* ---- host-count reads ------------------------------------------------- */

/* Records the host-count read src[start, end) for the current command. */
void
cpl_shscan_hostread(struct sh_scan *sc, const struct src *src, size_t start,
		    size_t end, bool derived)
{
	void *p = sc->hcs;
	struct hc *h;

	sc->hostseen++;
	if (sc->nhcs >= MAX_PENDING)
		return;
	p = cpl_xgrow_to(p, &sc->caphcs, sc->nhcs + 1, sizeof(*sc->hcs));
	sc->hcs = p;
	h = &sc->hcs[sc->nhcs++];
	h->expr = cpl_xstrndup(src->p + start, end - start);
	h->pos = cpl_shlex_pos(sc, src, start);
	h->derived = derived;
}

/* Notes a use (src[start, end)) of variable name: when it holds a host
 * count, the use may size something too. */
void
cpl_shscan_varuse(struct sh_scan *sc, const struct src *src, size_t start,
		  size_t end, const char *name, size_t n)
{
	const struct sh_var *v = var_get(sc, name, n, false);

	if (v != NULL && v->host)
		cpl_shscan_hostread(sc, src, start, end, true);
}

/* Forgets the host-count reads of the finished command. */
static void
drop_pending(struct sh_scan *sc)
{
	size_t k;

	for (k = 0; k < sc->nhcs; k++)
		free(sc->hcs[k].expr);
	sc->nhcs = 0;
}

/* Moves w's host-count reads to the output, sized by w's role. */
static void
emit_word(struct sh_scan *sc, const struct sword *w)
{
	struct cpl_launch *out = sc->out;
	size_t k;

	for (k = w->hc0; k < w->hc1 && k < sc->nhcs; k++) {
		struct hc *h = &sc->hcs[k];
		struct cpl_hostcount *o;
		void *p = out->hostcounts;

		if (h->expr == NULL || (h->derived && !(w->sink && w->sizes)))
			continue;
		if (out->nhostcounts >= MAX_HOSTCOUNTS)
			return;
		p = cpl_xgrow_to(p, &sc->caphc_out, out->nhostcounts + 1,
			  sizeof(*out->hostcounts));
		out->hostcounts = p;
		o = &out->hostcounts[out->nhostcounts++];
		o->expr.text = h->expr;
		o->expr.pos = h->pos;
		o->sizes = w->sizes ? cpl_xstrndup(w->sizes, w->sizeslen)
				    : NULL;
		o->pool = w->sizes != NULL && w->pool;
		h->expr = NULL;
	}
}

/* ---- top-level commands ----------------------------------------------- */

/* Position of byte from of word w. */
static struct cpl_pos
word_pos(const struct sh_scan *sc, const struct sword *w, size_t from)
{
	if (w->from_argv || sc->top == NULL)
		return sc->argv[w->argi].pos;
	return cpl_shlex_pos(sc, sc->top,
			     w->off + (from <= w->plain ? from : 0));
}

/* An owned output word: w's text from byte from, resolved when it can be,
 * else as written. */
static struct cpl_word
word_out(struct sh_scan *sc, const struct sword *w, size_t from)
{
	struct cpl_word o;
	char *r = resolve(sc, w, from);

	o.text = r ? r : cpl_xstrdup(wtext(w) + from);
	o.pos = word_pos(sc, w, from);
	return o;
}

/* Sets (or replaces) an export of the name's n bytes; takes value. */
static void
add_export(struct sh_scan *sc, const char *name, size_t n, char *value,
	   struct cpl_pos pos)
{
	struct cpl_launch *out = sc->out;
	struct sh_var *v = var_get(sc, name, n, true);
	struct cpl_env *e;
	void *p = out->exports;

	if (v != NULL && v->export_idx != NO_IDX) {
		e = &out->exports[v->export_idx];
		free(e->value);
		e->value = value;
		e->pos = pos;
		return;
	}
	if (v == NULL || out->nexports >= MAX_EXPORTS) {
		free(value);
		return;
	}
	p = cpl_xgrow_to(p, &sc->capexp_out, out->nexports + 1,
		  sizeof(*out->exports));
	out->exports = p;
	e = &out->exports[out->nexports];
	e->name = cpl_xstrndup(name, n);
	e->value = value;
	e->pos = pos;
	v->export_idx = out->nexports++;
}

/* Assigns the variable of assignment word w (NAME is len bytes); a
 * conditional assignment leaves the value unknown. */
static struct sh_var *
set_var(struct sh_scan *sc, struct sword *w, size_t len, bool cond)
{
	struct sh_var *v = var_get(sc, wtext(w), len, true);
	bool host = w->hs1 > w->hs0;
	char *value;

	w->sizes = wtext(w);
	w->sizeslen = len;
	if (v == NULL)
		return NULL;
	value = cond ? NULL : resolve(sc, w, len + 1);
	free(v->value);
	v->value = value;
	v->host = cond ? (v->host || host) : host;
	v->set = true;
	v->pos = word_pos(sc, w, 0);
	return v;
}

/* export/declare/typeset/readonly/local at word ci. */
static void
decl_command(struct sh_scan *sc, struct sh_cmd *c, size_t ci, bool cond)
{
	bool exp = strcmp(wtext(&c->w[ci]), "export") == 0;
	size_t k;

	for (k = ci + 1; k < c->n; k++) {
		struct sword *w = &c->w[k];
		const char *t = wtext(w);
		size_t len = cpl_shlex_assign_name(w, false);
		struct sh_var *v;

		if ((t[0] == '-' || t[0] == '+') && len == 0) {
			if (t[0] == '-' && strchr(t, 'x') != NULL)
				exp = true;
			continue;
		}
		if (len > 0) {
			v = set_var(sc, w, len, cond);
			w->sink = exp;
			if (v == NULL || !exp)
				continue;
			v->exported = true;
			if (sc->launched < 2)
				add_export(sc, t, len, cpl_xstrdup(v->value),
					   v->pos);
			continue;
		}
		if (!exp || !name_start(t[0]))
			continue;
		v = var_get(sc, t, w->text.len, true);
		if (v == NULL)
			continue;
		v->exported = true;
		if (v->set && sc->launched < 2)
			add_export(sc, t, w->text.len, cpl_xstrdup(v->value),
				   v->pos);
	}
}

/* Fills dst's launcher fields from r over words w[0, n). */
static void
fill_launch(struct sh_scan *sc, struct cpl_launch *dst, const struct sword *w,
	    size_t n, const struct launchrec *r)
{
	size_t k;

	dst->launcher = r->l;
	dst->launcher_word = word_out(sc, &w[r->lw], r->lfrom);
	if (r->has_nproc) {
		dst->has_nproc = true;
		dst->nproc = word_out(sc, &w[r->nw], r->nfrom);
	}
	for (k = 0; k < CPL_LOPT_COUNT; k++)
		if (r->has_opt[k])
			dst->opt[k] = word_out(sc, &w[r->ow[k]], r->ofrom[k]);
	dst->flags = r->flags;
	if (r->has_script) {
		dst->has_script = true;
		dst->script = word_out(sc, &w[r->sw], r->sfrom);
		dst->is_module = r->module;
	}
	if (r->a0 < n) {
		dst->args = cpl_xcalloc(n - r->a0, sizeof(*dst->args));
		for (k = r->a0; k < n; k++)
			dst->args[dst->nargs++] = word_out(sc, &w[k], 0);
	}
}

/* Appends an export to a tentative launch (no de-duplication needed: the
 * prefix of one command). */
static void
tent_export(struct cpl_launch *t, const char *name, size_t n, char *value,
	    struct cpl_pos pos)
{
	t->exports = cpl_xrealloc(t->exports,
				  (t->nexports + 1) * sizeof(*t->exports));
	t->exports[t->nexports].name = cpl_xstrndup(name, n);
	t->exports[t->nexports].value = value;
	t->exports[t->nexports].pos = pos;
	t->nexports++;
}

/*
 * The command at word ci, when it is a launcher, becomes the launch with
 * its prefix assignments as exports.  A setup command (python -c, pip,
 * setup.py) is only kept as a fallback in case nothing else launches.
 */
static void
launch_command(struct sh_scan *sc, struct sh_cmd *c, size_t ci)
{
	struct launchrec r;
	bool tentative;
	struct cpl_launch *dst;
	size_t k;

	if (!cpl_shlaunch_recognise(&r, c->w, c->n, ci))
		return;
	tentative = r.l == CPL_LAUNCH_PYTHON && r.setup;
	if (tentative && sc->launched == 1)
		return;
	cpl_launch_clear(&sc->tent);
	dst = tentative ? &sc->tent : sc->out;
	fill_launch(sc, dst, c->w, c->n, &r);
	for (k = 0; k < ci; k++) {
		struct sword *w = &c->w[k];
		size_t len = w->prefix ? cpl_shlex_assign_len(w) : 0;
		char *value;

		if (len == 0)
			continue;
		value = resolve(sc, w, len + 1);
		if (tentative)
			tent_export(dst, wtext(w), len, value,
				    word_pos(sc, w, 0));
		else
			add_export(sc, wtext(w), len, value,
				   word_pos(sc, w, 0));
	}
	sc->launched = tentative ? 1 : 2;
}

/* True for a word that reads like a command-line flag. */
static bool
is_flag(const char *t)
{
	return t[0] == '-' && t[1] != '\0' && strcmp(t, "--") != 0 &&
	       (t[1] < '0' || t[1] > '9');
}

/*
 * The flags by which a program sizes a pool of worker processes or
 * threads though their names do not say so (a flag named for threads or
 * workers is a pool whatever the program: CPU204 reads the name).  A
 * build's job count (make -j, ninja -j) is no pool of the workload.
 */
static const struct {
	const char *program;
	const char *flags[3];
} pool_flags[] = {
	{ "gunicorn", { "-w", NULL, NULL } },
	{ "hypercorn", { "-w", NULL, NULL } },
	{ "celery", { "-c", "--concurrency", NULL } },
	{ "uwsgi", { "-p", "--processes", NULL } },
	{ "xargs", { "-P", "--max-procs", NULL } },
	{ "parallel", { "-j", "-P", "--jobs" } },
	{ "ray", { "--num-cpus", NULL, NULL } },
};

/* The program command word ci runs: its base name, or the module of
 * `python -m MODULE`; "" when there is none. */
static const char *
program_of(const struct sh_cmd *c, size_t ci)
{
	const char *t = cpl_shlex_base(wtext(&c->w[ci]));

	if (strncmp(t, "python", 6) == 0 && ci + 2 < c->n &&
	    strcmp(wtext(&c->w[ci + 1]), "-m") == 0)
		return wtext(&c->w[ci + 2]);
	return t;
}

/* Whether flag (len bytes) sizes a pool of program's (pool_flags). */
static bool
pool_flag(const char *program, const char *flag, size_t len)
{
	size_t i, j;

	for (i = 0; i < CPL_ARRAY_LEN(pool_flags); i++) {
		if (strcmp(program, pool_flags[i].program) != 0)
			continue;
		for (j = 0; j < CPL_ARRAY_LEN(pool_flags[i].flags) &&
			    pool_flags[i].flags[j] != NULL; j++)
			if (strlen(pool_flags[i].flags[j]) == len &&
			    memcmp(pool_flags[i].flags[j], flag, len) == 0)
				return true;
	}
	return false;
}

/* What the host-count reads in word k (after command word ci, running
 * program) size: the flag of --flag=V or -jV, or the flag word before it
 * when that flag carries no value of its own. */
static void
flag_sizes(struct sword *w, size_t k, size_t ci, const char *program)
{
	const char *t = wtext(&w[k]), *e;

	if (is_flag(t)) {
		e = strchr(t, '=');
		if (e == NULL)
			e = strpbrk(t, "$`");
		if (e != NULL && e > t + 1) {
			w[k].sizes = t;
			w[k].sizeslen = (size_t)(e - t);
			w[k].sink = true;
			w[k].pool = pool_flag(program, t, w[k].sizeslen);
		}
		return;
	}
	if (k > ci + 1) {
		const char *f = wtext(&w[k - 1]);

		if (is_flag(f) && strpbrk(f, "=$`") == NULL &&
		    !w[k - 1].unknown) {
			w[k].sizes = f;
			w[k].sizeslen = w[k - 1].text.len;
			w[k].sink = true;
			w[k].pool = pool_flag(program, f, w[k].sizeslen);
		}
	}
}

/* Strips reserved words from the front of c and tracks the nesting of
 * conditionals; returns the first word after them, or c->n when the whole
 * command is a for/case/function header. */
static size_t
reserved_words(struct sh_scan *sc, const struct sh_cmd *c)
{
	static const char *const opening[] = {
		"if", "while", "until", NULL,
	};
	static const char *const closing[] = { "fi", "done", "esac", NULL };
	static const char *const header[] = {
		"for", "case", "select", NULL,
	};
	static const char *const other[] = {
		"then", "else", "elif", "do", "!", "{", "}", NULL,
	};
	size_t i;

	for (i = 0; i < c->n; i++) {
		const char *t = wtext(&c->w[i]);

		if (c->w[i].plain < c->w[i].text.len)
			break;
		if (cpl_shlex_oneof(t, header)) {
			sc->cond_depth++;
			return c->n;
		}
		if (strcmp(t, "function") == 0)
			return c->n;
		if (cpl_shlex_oneof(t, opening))
			sc->cond_depth++;
		else if (cpl_shlex_oneof(t, closing))
			sc->cond_depth -= sc->cond_depth > 0;
		else if (!cpl_shlex_oneof(t, other))
			break;
	}
	return i;
}

/* Skips the wrappers exec, nohup, time, command and env (with env's own
 * assignments) from word i; returns the wrapped command's word, c->n when
 * none, and sets *quiet for `command -v`. */
static size_t
wrappers(struct sh_cmd *c, size_t i, bool *quiet)
{
	while (i < c->n) {
		const char *t = wtext(&c->w[i]);

		if (strcmp(t, "exec") == 0) {
			for (i++; i < c->n && wtext(&c->w[i])[0] == '-'; i++)
				i += strcmp(wtext(&c->w[i]), "-a") == 0;
		} else if (strcmp(t, "nohup") == 0 ||
			   strcmp(t, "time") == 0) {
			for (i++; i < c->n && wtext(&c->w[i])[0] == '-'; i++)
				;
		} else if (strcmp(t, "command") == 0) {
			for (i++; i < c->n && wtext(&c->w[i])[0] == '-'; i++)
				if (strcmp(wtext(&c->w[i]), "-p") != 0)
					*quiet = true;
		} else if (strcmp(t, "env") == 0) {
			for (i++; i < c->n; i++) {
				const char *a = wtext(&c->w[i]);

				if (strcmp(a, "--") == 0) {
					i++;
					break;
				}
				if (strcmp(a, "-u") == 0 ||
				    strcmp(a, "-C") == 0 ||
				    strcmp(a, "-S") == 0) {
					i++;
				} else if (cpl_shlex_assign_len(&c->w[i]) > 0) {
					c->w[i].prefix = true;
					c->w[i].sizes = a;
					c->w[i].sizeslen =
						cpl_shlex_assign_len(&c->w[i]);
					c->w[i].sink = true;
				} else if (a[0] != '-') {
					break;
				}
			}
		} else {
			break;
		}
	}
	return i;
}

/* ---- CPU pinning (taskset, numactl) ---------------------------------- */

#define MAX_PINS 64		/* pinning commands reported */

/* Whether t is a list of absolute CPU ids or a hex mask as taskset and
 * numactl read them ("0-3", "0,2,4-7:2", "0xf", "ff"): digits, hex
 * digits, ',', '-', ':' only.  A variable, "all" or numactl's relative
 * "+0-3" is not. */
static bool
cpu_ids(const char *t)
{
	size_t i;

	if (t == NULL || *t == '\0')
		return false;
	if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
		t += 2;
	for (i = 0; t[i]; i++)
		if (!strchr("0123456789abcdefABCDEF,-:", t[i]))
			return false;
	return i > 0 && strcmp(t, "all") != 0;
}

/* Records that the command pins to the ids in word w (from byte from):
 * how names the option (static). */
static void
add_pin(struct sh_scan *sc, const struct sword *w, size_t from, const char *how)
{
	struct cpl_launch *out = sc->out;
	struct cpl_word list;

	if (out->npins >= MAX_PINS)
		return;
	/* Resolved when the script assigns it (cpus=24-47; -C $cpus). */
	list = word_out(sc, w, from);
	if (!cpu_ids(list.text)) {
		free(list.text);
		return;
	}
	out->pins = cpl_xrealloc(out->pins,
				 (out->npins + 1) * sizeof(*out->pins));
	out->pins[out->npins].how = how;
	out->pins[out->npins].list = list;
	out->npins++;
}

/* taskset [-a] [-c] MASK|LIST CMD..., taskset -p [-c] IDS PID: records
 * the ids; returns the word of the command it runs (c->n: none). */
static size_t
taskset_command(struct sh_scan *sc, struct sh_cmd *c, size_t ci)
{
	bool list = false, pid = false;
	size_t k;

	for (k = ci + 1; k < c->n; k++) {
		const char *t = wtext(&c->w[k]);

		if (t[0] != '-')
			break;
		if (strcmp(t, "--cpu-list") == 0)
			list = true;
		else if (strcmp(t, "--pid") == 0)
			pid = true;
		else if (t[1] != '-') {
			list = list || strchr(t, 'c') != NULL;
			pid = pid || strchr(t, 'p') != NULL;
		}
	}
	if (k >= c->n)
		return c->n;
	add_pin(sc, &c->w[k], 0, list ? "taskset -c" : "taskset");
	return pid ? c->n : k + 1;
}

/* numactl [options] CMD...: records the ids of -C/--physcpubind (not
 * --cpunodebind or --membind, which name NUMA nodes); returns the word
 * of the command it runs (c->n: none). */
static size_t
numactl_command(struct sh_scan *sc, struct sh_cmd *c, size_t ci)
{
	static const char *const valued[] = {
		"--interleave", "--membind", "--preferred", "--cpunodebind",
		"--physcpubind", "--cpubind", "--weighted-interleave",
		"--preferred-many", NULL,
	};
	size_t k;

	for (k = ci + 1; k < c->n; k++) {
		const char *t = wtext(&c->w[k]), *eq;
		bool phys;

		if (strcmp(t, "--") == 0)
			return k + 1;
		if (t[0] != '-')
			return k;
		if (t[1] != '-') {
			/* -C LIST, -CLIST, -N 0, -m0, -l ... */
			if (t[1] == '\0' || !strchr("impNCwP", t[1]))
				continue;
			if (t[2] != '\0') {
				if (t[1] == 'C')
					add_pin(sc, &c->w[k], 2, "numactl -C");
				continue;
			}
			if (k + 1 < c->n && t[1] == 'C')
				add_pin(sc, &c->w[k + 1], 0, "numactl -C");
			k++;
			continue;
		}
		eq = strchr(t, '=');
		phys = strncmp(t, "--physcpubind", 13) == 0 &&
		       (t[13] == '\0' || t[13] == '=');
		if (eq != NULL) {
			if (phys)
				add_pin(sc, &c->w[k], (size_t)(eq + 1 - t),
					"numactl --physcpubind");
			continue;
		}
		if (!cpl_shlex_oneof(t, valued))
			continue;
		if (phys && k + 1 < c->n)
			add_pin(sc, &c->w[k + 1], 0, "numactl --physcpubind");
		k++;
	}
	return c->n;
}

/*
 * Notes the shell script file command c (its command word at ci) runs:
 * `bash [-opts] FILE`, `sh FILE` (not -c), or `./FILE.sh` itself; the
 * first such command is kept (cpl_launch.wrapper), for the engine to read
 * when nothing else launches (entrypoint.c).
 */
static void
wrapper_command(struct sh_scan *sc, struct sh_cmd *c, size_t ci)
{
	static const char *const shells[] = {
		"sh", "bash", "dash", "ash", "zsh", "ksh", NULL,
	};
	const char *t = wtext(&c->w[ci]);
	size_t k = ci;

	if (cpl_shlex_oneof(cpl_shlex_base(t), shells)) {
		for (k = ci + 1; k < c->n && wtext(&c->w[k])[0] == '-'; k++)
			if (wtext(&c->w[k])[1] != '-' &&
			    strchr(wtext(&c->w[k]), 'c') != NULL)
				return;		/* sh -c SCRIPT */
		if (k >= c->n)
			return;
	} else if (!cpl_str_ends(t, ".sh")) {
		return;
	}
	t = wtext(&c->w[k]);
	if (*t == '\0' || strchr(t, '$') != NULL || c->w[k].unknown)
		return;
	sc->out->has_wrapper = true;
	sc->out->wrapper = word_out(sc, &c->w[k], 0);
}

/*
 * A finished top-level command: assignments and exports update the
 * variables, a launcher becomes the launch, and every host-count read in
 * it is reported with what it sizes.
 */
static void
top_command(struct sh_scan *sc, struct sh_cmd *c)
{
	static const char *const decl[] = {
		"export", "declare", "typeset", "readonly", "local", NULL,
	};
	static const char *const tests[] = { "[", "[[", "test", NULL };
	static const char *const prints[] = { "echo", "printf", NULL };
	size_t i, k, ci;
	bool cond, quiet = false;
	const char *t, *prog;

	i = reserved_words(sc, c);
	cond = sc->next_cond || sc->cond_depth > 0;
	sc->chain_cond = sc->next_cond;
	if (i >= c->n)
		goto emit;
	for (; i < c->n && cpl_shlex_assign_len(&c->w[i]) > 0; i++) {
		c->w[i].prefix = true;
		c->w[i].sizes = wtext(&c->w[i]);
		c->w[i].sizeslen = cpl_shlex_assign_len(&c->w[i]);
		c->w[i].sink = true;
	}
	if (i == c->n) {
		for (k = 0; k < c->n; k++) {
			struct sword *w = &c->w[k];
			size_t len = cpl_shlex_assign_len(w);
			struct sh_var *v;

			if (!w->prefix)
				continue;
			w->prefix = false;
			v = set_var(sc, w, len, cond);
			w->sink = v != NULL && v->exported;
			if (w->sink && sc->launched < 2)
				add_export(sc, wtext(w), len,
					   cpl_xstrdup(v->value), v->pos);
		}
		goto emit;
	}
	ci = wrappers(c, i, &quiet);
	while (ci < c->n) {
		t = cpl_shlex_base(wtext(&c->w[ci]));
		if (strcmp(t, "taskset") == 0)
			ci = taskset_command(sc, c, ci);
		else if (strcmp(t, "numactl") == 0)
			ci = numactl_command(sc, c, ci);
		else
			break;
		ci = wrappers(c, ci, &quiet);
	}
	if (ci >= c->n)
		goto emit;
	t = wtext(&c->w[ci]);
	if (cpl_shlex_oneof(t, decl)) {
		decl_command(sc, c, ci, cond);
		goto emit;
	}
	if (cpl_shlex_oneof(t, tests)) {
		quiet = true;
		sc->chain_cond = true;
	}
	if (cpl_shlex_oneof(t, prints))
		quiet = true;
	if (!quiet && sc->launched < 2)
		launch_command(sc, c, ci);
	if (!quiet && !sc->out->has_wrapper)
		wrapper_command(sc, c, ci);
	prog = program_of(c, ci);
	for (k = ci + 1; k < c->n && !quiet; k++)
		flag_sizes(c->w, k, ci, prog);
emit:
	for (k = 0; k < c->n; k++)
		emit_word(sc, &c->w[k]);
}

/* Hands a finished command to its handler and clears it. */
void
cpl_shscan_finish(struct sh_scan *sc, struct sh_frame *fr, struct sh_cmd *c,
		  enum conn conn)
{
	if (fr->depth > 0) {
		if (c->n > 0 && cpl_shlaunch_reads_host(c))
			fr->host = true;
	} else {
		if (c->n > 0) {
			top_command(sc, c);
			sc->next_cond = conn == CONN_OR ||
					(conn == CONN_AND && sc->chain_cond);
		}
		drop_pending(sc);
	}
	cpl_shlex_clear(c);
}

/* ---- entry points ----------------------------------------------------- */

/*
 * True when argv runs a shell script: sh|bash|dash|ash|zsh with options
 * and -c, or a single word holding blanks.  *si is the script's word.
 */
static bool
shell_script(const struct sh_scan *sc, size_t *si)
{
	static const char *const shells[] = {
		"sh", "bash", "dash", "ash", "zsh", NULL,
	};
	const char *t0 = argtext(sc, 0);
	bool cflag = false;
	size_t j;

	if (sc->argc == 1 && strpbrk(t0, " \t\n") != NULL) {
		*si = 0;
		return true;
	}
	if (!cpl_shlex_oneof(cpl_shlex_base(t0), shells))
		return false;
	for (j = 1; j < sc->argc; j++) {
		const char *t = argtext(sc, j);
		size_t k, skip = 0;

		if (strcmp(t, "--") == 0 || strcmp(t, "-") == 0) {
			j++;
			break;
		}
		if ((t[0] != '-' && t[0] != '+') || t[1] == '\0')
			break;
		if (t[0] == '-' && t[1] == '-') {
			if (strcmp(t, "--rcfile") == 0 ||
			    strcmp(t, "--init-file") == 0)
				j++;
			continue;
		}
		for (k = 1; t[k] != '\0'; k++) {
			if (t[k] == 'c' && t[0] == '-')
				cflag = true;
			else if (t[k] == 'o' || t[k] == 'O')
				skip++;
		}
		j += skip;
	}
	if (!cflag || j >= sc->argc)
		return false;
	*si = j;
	return true;
}

/* Parses the script in argv word si. */
static void
scan_script(struct sh_scan *sc, size_t si)
{
	const char *t = argtext(sc, si);
	size_t len = strlen(t), i = 0;
	const struct cpl_ynode *node = sc->nodes ? sc->nodes[si] : NULL;
	struct src src = { t, len, si, false, NO_IDX };
	struct sh_frame fr = { 0, false };

	if (sc->file ||
	    (node != NULL && sc->ys != NULL && node->kind == CPL_Y_SCALAR &&
	     node->value != NULL && node->len == len &&
	     memcmp(node->value, t, len) == 0))
		src.exact = cpl_shlex_index_lines(sc, sc->file ? NULL : node,
						  t, len);
	sc->top = &src;
	cpl_shlex_list(sc, &src, &i, &fr, false);
	if (sc->nheredocs > 0)
		cpl_shlex_skip_heredocs(sc, &src, &i);
	sc->top = NULL;
}

/* Notes the substitutions written inside argv word k (not a shell word:
 * only $(...) and backticks are looked for). */
static void
scan_argv_word(struct sh_scan *sc, size_t k, struct sword *w)
{
	const char *t = argtext(sc, k);
	struct src src = { t, strlen(t), k, false, NO_IDX };
	struct sh_frame fr = { 0, false };
	struct sword scratch;
	size_t i = 0;

	cpl_shlex_word_init(&scratch);
	while (i < src.len) {
		if (t[i] == '$' && t[i + 1] == '(') {
			cpl_shlex_dollar(sc, &src, &i, &fr, &scratch, false);
			w->unknown = true;
		} else if (t[i] == '`') {
			cpl_shlex_backtick(sc, &src, &i, &fr, &scratch);
			w->unknown = true;
		} else {
			i++;
		}
	}
	cpl_shlex_word_free(&scratch);
}

/* True for -c and option clusters ending in it (-uc). */
static bool
dash_c(const char *t)
{
	size_t k;

	if (t[0] != '-' || t[1] == '-' || t[1] == '\0')
		return false;
	for (k = 1; t[k + 1] != '\0'; k++)
		if (!name_start(t[k]))
			return false;
	return t[k] == 'c';
}

/* Treats argv as one simple command, already split. */
static void
scan_argv(struct sh_scan *sc)
{
	struct sh_cmd c = { 0 };
	size_t k, py = NO_IDX;

	for (k = 0; k < sc->argc; k++) {
		struct sword *w = cpl_shlex_push(&c);
		const char *t = argtext(sc, k);

		cpl_buf_adds(&w->text, t);
		w->plain = w->text.len;
		w->from_argv = true;
		w->argi = k;
		w->hc0 = sc->nhcs;
		w->hs0 = sc->hostseen;
		/* python -c CODE: the code is Python, not shell. */
		if (!(py != NO_IDX && k >= 2 && py < k - 1 &&
		      dash_c(argtext(sc, k - 1))))
			scan_argv_word(sc, k, w);
		w->hc1 = sc->nhcs;
		w->hs1 = sc->hostseen;
		if (py == NO_IDX &&
		    cpl_shlaunch_is_python(cpl_shlex_base(t)))
			py = k;
	}
	top_command(sc, &c);
	drop_pending(sc);
	cpl_shlex_free(&c);
}

/* Moves a fallback (setup) launch into out when nothing else launched. */
static void
settle(struct sh_scan *sc)
{
	struct cpl_launch *out = sc->out, *t = &sc->tent;
	size_t k;

	if (sc->launched != 1)
		return;
	out->launcher = t->launcher;
	out->launcher_word = t->launcher_word;
	out->has_nproc = t->has_nproc;
	out->nproc = t->nproc;
	out->flags = t->flags;
	for (k = 0; k < CPL_LOPT_COUNT; k++) {
		out->opt[k] = t->opt[k];
		t->opt[k].text = NULL;
	}
	out->has_script = t->has_script;
	out->script = t->script;
	out->is_module = t->is_module;
	out->args = t->args;
	out->nargs = t->nargs;
	t->launcher_word.text = NULL;
	t->nproc.text = NULL;
	t->script.text = NULL;
	t->args = NULL;
	t->nargs = 0;
	for (k = 0; k < t->nexports; k++) {
		struct cpl_env *e = &t->exports[k];

		add_export(sc, e->name, strlen(e->name), e->value, e->pos);
		e->value = NULL;
	}
}

/* Frees the scan's scratch state. */
static void
scan_free(struct sh_scan *sc)
{
	size_t k;

	drop_pending(sc);
	free(sc->hcs);
	for (k = 0; k < sc->nslots; k++) {
		if (sc->slots[k] == NULL)
			continue;
		free(sc->slots[k]->name);
		free(sc->slots[k]->value);
		free(sc->slots[k]);
	}
	free(sc->slots);
	for (k = 0; k < sc->nheredocs; k++)
		free(sc->heredocs[k].delim);
	free(sc->lines);
	cpl_launch_clear(&sc->tent);
}

void
cpl_shscan(struct cpl_launch *out, const struct cpl_word *argv, size_t argc,
	   const struct cpl_ynode *const *nodes, const struct cpl_ystream *s)
{
	struct sh_scan sc;
	size_t si;

	memset(out, 0, sizeof(*out));
	if (argv == NULL || argc == 0)
		return;
	memset(&sc, 0, sizeof(sc));
	sc.out = out;
	sc.argv = argv;
	sc.argc = argc;
	sc.nodes = nodes;
	sc.ys = s;
	if (shell_script(&sc, &si)) {
		out->is_shell = true;
		scan_script(&sc, si);
	} else {
		scan_argv(&sc);
	}
	settle(&sc);
	scan_free(&sc);
}

void
cpl_shscan_file(struct cpl_launch *out, const char *path, const char *text)
{
	struct cpl_word w;
	struct sh_scan sc;

	memset(out, 0, sizeof(*out));
	if (text == NULL || *text == '\0')
		return;
	w.text = (char *)text;	/* read only */
	w.pos.file = path;
	w.pos.line = 1;
	w.pos.column = 1;
	memset(&sc, 0, sizeof(sc));
	sc.out = out;
	sc.argv = &w;
	sc.argc = 1;
	sc.file = true;
	out->is_shell = true;
	scan_script(&sc, 0);
	settle(&sc);
	scan_free(&sc);
}
