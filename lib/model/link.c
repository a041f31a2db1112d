/*
 * link.c — workload ↔ Python linking (see link.h).
 *
 * Invariant: every file of a linked process appears once, entry first,
 * then the local modules in breadth-first import order; the walk visits
 * each file at most once (the loader hands out one file per path), so
 * cyclic imports terminate and the cost is linear in the imports read.
 * The pool sizes are then resolved, and the files joined, by pyvalue
 * with the container's command-line arguments and environment (none for
 * a script linted on its own).
 *
 * What an import resolves to depends only on the importing file, the
 * walk's sys.path[0] and its package root: the memo keeps, per such
 * pair, the files each file's imports led to (so a package a hundred
 * scripts import is resolved once, and walked by pointers after), and a
 * batch of files-only walks (the run's graph) resolves each file once
 * per package root where the directories allow (cpl_link_batch_run()).
 * The sections: joining paths, finding entry scripts, the walk and its
 * memo, linking a process, batches.
 */
#include "model/link.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "python/pyvalue.h"
#include "util.h"

#define MAX_FILES 4096
#define MAX_PARENTS 4

/* A path being joined: out has room for every byte of the input. */
struct joined {
	char *out;
	size_t len;
	size_t ncomp;	/* components in out that a ".." may take back */
};

/* Appends the components of s to j: skips "" and ".", and a ".." takes
 * back the component before it (a leading ".." stays). */
static void
join_add(struct joined *j, const char *s)
{
	while (*s) {
		size_t n = (size_t)(strchrnul(s, '/') - s);

		if (n == 0 || (n == 1 && s[0] == '.')) {
			/* skip "" and "." */
		} else if (n == 2 && s[0] == '.' && s[1] == '.' &&
			   j->ncomp > 0) {
			/* back to before the last component and the '/'
			 * that joined it; a root '/' (len 1) stays */
			while (j->len > 0 && j->out[j->len - 1] != '/')
				j->len--;
			if (j->len > 1)
				j->len--;
			j->ncomp--;
		} else {
			if (j->len > 0 && j->out[j->len - 1] != '/')
				j->out[j->len++] = '/';
			memcpy(j->out + j->len, s, n);
			j->len += n;
			/* A leading ".." is not one a later ".." takes
			 * back: "../.." stays. */
			if (!(n == 2 && s[0] == '.' && s[1] == '.'))
				j->ncomp++;
		}
		s += n;
		while (*s == '/')
			s++;
	}
}

bool
cpl_link_is_joined(const char *p)
{
	const char *c = p, *end;
	bool lead = true;	/* in the leading run of ".." */

	if (*c == '/' && *++c == '\0')
		return true;	/* "/" */
	if (*c == '\0')
		return false;
	if (strcmp(c, ".") == 0)
		return c == p;	/* "." alone */
	for (;; c = end + 1) {
		size_t n;

		end = strchrnul(c, '/');
		n = (size_t)(end - c);
		if (n == 0 || (n == 1 && c[0] == '.'))
			return false;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (!lead)
				return false;
		} else {
			lead = false;
		}
		if (*end == '\0')
			return true;
	}
}

char *
cpl_link_join(const char *dir, const char *rel)
{
	bool use_dir = !(rel[0] == '/' || dir == NULL || *dir == '\0' ||
			 strcmp(dir, ".") == 0);
	size_t cap = strlen(rel) + (use_dir ? strlen(dir) + 1 : 0) + 2;
	struct joined j = { .out = cpl_xmalloc(cap) };

	if ((use_dir ? dir : rel)[0] == '/')
		j.out[j.len++] = '/';
	if (use_dir)
		join_add(&j, dir);
	join_add(&j, rel);
	if (j.len == 0)
		j.out[j.len++] = '.';
	j.out[j.len] = '\0';
	return j.out;
}

/* The directory part of path ("." when there is none); caller frees. */
static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return cpl_xstrdup(".");
	if (slash == path)
		return cpl_xstrdup("/");
	return cpl_xstrndup(path, (size_t)(slash - path));
}

/* Whether dir lies at or above root (lexically). */
static bool
at_root(const char *dir, const char *root)
{
	return root && strcmp(dir, root) == 0;
}

const void *
cpl_link_find_up(const char *start, const char *rel, const char *root,
		 cpl_link_try_fn try, void *ctx)
{
	char *dir = cpl_xstrdup(start);
	const void *found = NULL;
	int up;

	for (up = 0; found == NULL; up++) {
		char *path = cpl_link_join(dir, rel);
		char *parent;

		found = try(ctx, path);
		free(path);
		if (found || at_root(dir, root) ||
		    (root == NULL && up >= MAX_PARENTS) ||
		    strcmp(dir, ".") == 0 || strcmp(dir, "/") == 0)
			break;
		parent = cpl_link_join(dir, "..");
		free(dir);
		dir = parent;
		if (strncmp(dir, "..", 2) == 0)
			break;	/* never above where we started from "." */
	}
	free(dir);
	return found;
}

/* The linker's loader as a cpl_link_find_up() attempt. */
static const void *
try_load(void *ctx, const char *path)
{
	const struct cpl_linker *lk = ctx;

	return lk->load(lk->ctx, path);
}

/* Tries rel against dir and its parents; the first file found wins. */
static const struct cpl_pyfile *
find_up(const struct cpl_linker *lk, const char *start, const char *rel)
{
	return cpl_link_find_up(start, rel, lk->root, try_load, (void *)lk);
}

/* The entry script a launch names, as a path relative to some base. */
static const struct cpl_pyfile *
find_entry(const struct cpl_linker *lk, const char *start,
	   const struct cpl_launch *l)
{
	const char *s = l->script.text, *end;
	const struct cpl_pyfile *f = NULL;
	char *rel;

	if (!l->has_script || s == NULL)
		return NULL;
	if (l->is_module) {
		char *mod = cpl_xstrdup(s), *p, *init;

		for (p = mod; *p; p++)
			if (*p == '.')
				*p = '/';
		rel = cpl_xasprintf("%s.py", mod);
		init = cpl_xasprintf("%s/__main__.py", mod);
		f = find_up(lk, start, rel);
		if (f == NULL)
			f = find_up(lk, start, init);
		free(rel);
		free(init);
		free(mod);
		return f;
	}
	/* A templated prefix ("{{ globals.artifacts_path }}/repo/x.py") or
	 * an absolute image path ("/app/src/train.py"): try every suffix
	 * after a '/', longest first. */
	if ((end = strstr(s, "}}")) != NULL)
		s = end + 2;
	while (*s == '/')
		s++;
	if (!cpl_str_ends(s, ".py"))
		return NULL;
	while (f == NULL && *s) {
		const char *slash;

		f = find_up(lk, start, s);
		slash = strchr(s, '/');
		if (slash == NULL)
			break;
		s = slash + 1;
	}
	return f;
}

/* A map from pointers (files) to indices, open addressing: what a walk
 * asks per import, so no string is hashed. */
struct ptrmap {
	struct ptrslot {
		const void *key;
		size_t value;
	} *slots;
	size_t cap, count;
};

static size_t
ptr_hash(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p;

	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDULL;
	h ^= h >> 29;
	return (size_t)h;
}

/* The slot of key: where it is, or the empty slot where it would go. */
static struct ptrslot *
ptr_slot(const struct ptrmap *m, const void *key)
{
	size_t i;

	for (i = ptr_hash(key) & (m->cap - 1); m->slots[i].key;
	     i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key)
			break;
	return &m->slots[i];
}

/* key's value, or SIZE_MAX when it has none. */
static size_t
ptr_get(const struct ptrmap *m, const void *key)
{
	const struct ptrslot *s;

	if (m->cap == 0)
		return SIZE_MAX;
	s = ptr_slot(m, key);
	return s->key ? s->value : SIZE_MAX;
}

/* Sets key (not there yet) to value. */
static void
ptr_put(struct ptrmap *m, const void *key, size_t value)
{
	struct ptrslot *s;

	if ((m->count + 1) * 2 > m->cap) {
		struct ptrmap n = { .cap = m->cap ? m->cap * 2 : 16 };
		size_t i;

		n.slots = cpl_xcalloc(n.cap, sizeof(*n.slots));
		for (i = 0; i < m->cap; i++)
			if (m->slots[i].key)
				*ptr_slot(&n, m->slots[i].key) = m->slots[i];
		n.count = m->count;
		free(m->slots);
		*m = n;
	}
	s = ptr_slot(m, key);
	s->key = key;
	s->value = value;
	m->count++;
}

static void
ptr_free(struct ptrmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

struct walk {
	const struct cpl_linker *lk;
	const struct cpl_pyfile **files;	/* entry first */
	size_t nfiles, files_cap;
	struct ptrmap seen;		/* file → its index in files */
	const char *entry_dir;		/* sys.path[0] */
	char *pkg_root;			/* the directory above the package
					 * the entry script is in (what
					 * `python -m pkg.script` from there
					 * puts first), NULL when none */
	const struct cpl_container *c;	/* NULL: a script on its own */
	bool files_only;		/* cpl_link_*_files(): no cap, no
					 * ready hook */
	bool record;			/* a batch's walk: keep the edges */
	size_t *adj;			/* the edges from files[i]: targets
					 * adj[adj_at[i], adj_at[i + 1]),
					 * indices into files */
	size_t nadj, adj_cap;
	size_t *adj_at;			/* [file], filled as it is walked */
	size_t adj_at_cap;
	struct cpl_strmap *firsts;	/* NULL, or every first component
					 * of an absolute import walked */
	struct follow_ctx *fc;		/* the memo's lists for this walk's
					 * (sys.path[0], root), or NULL */
	const struct cpl_pyfile **got;	/* what a file's imports led to */
	size_t ngot, got_cap;
	bool getting;			/* keep them in got */
};

/* Adds f to the walk (once); its index in wk->files, or SIZE_MAX when it
 * is NULL or past the cap.  (The loader hands out one file per path.) */
static size_t
add_file(struct walk *wk, const struct cpl_pyfile *f)
{
	size_t at;

	if (f == NULL)
		return SIZE_MAX;
	if ((at = ptr_get(&wk->seen, f)) != SIZE_MAX)
		return at;
	if (wk->nfiles >= MAX_FILES && !wk->files_only)
		return SIZE_MAX;
	if (wk->lk->ready && !wk->files_only)
		wk->lk->ready(wk->lk->ctx, f);
	ptr_put(&wk->seen, f, wk->nfiles);
	CPL_GROW(wk->files, wk->files_cap, wk->nfiles + 1);
	wk->files[wk->nfiles++] = f;
	return wk->nfiles - 1;
}

/* add_file(), and in a batch's walk the edge to the file from the one
 * being walked. */
static void
add_edge(struct walk *wk, const struct cpl_pyfile *f)
{
	size_t to;

	if (wk->getting && f != NULL) {
		CPL_GROW(wk->got, wk->got_cap, wk->ngot + 1);
		wk->got[wk->ngot++] = f;
	}
	to = add_file(wk, f);
	if (!wk->record || to == SIZE_MAX)
		return;
	CPL_GROW(wk->adj, wk->adj_cap, wk->nadj + 1);
	wk->adj[wk->nadj++] = to;
}

/* The files one file's imports lead to, in the order a walk takes them,
 * under one (sys.path[0], package root). */
struct follows {
	size_t n;
	const struct cpl_pyfile *to[];
};

/* The imports resolved under one (sys.path[0], package root). */
struct follow_ctx {
	char *key;		/* memo_key(sys.path[0], root) */
	struct ptrmap of;	/* file → index in lists */
	struct follows **lists;
	size_t n, cap;
};

struct cpl_link_memo {
	struct cpl_strmap map;	/* key (owned) → file, or &memo_none */
	struct cpl_buf scratch;	/* the key being looked up */
	struct cpl_strmap ctx_of;	/* key → its follow_ctx */
	struct follow_ctx **ctxs;	/* owned */
	size_t nctxs, ctxs_cap;
	size_t nfollows;	/* lists in all of them */
};

/* Forgets every context's lists. */
static void
follows_clear(struct cpl_link_memo *m)
{
	size_t i, k;

	for (i = 0; i < m->nctxs; i++) {
		struct follow_ctx *c = m->ctxs[i];

		for (k = 0; k < c->n; k++)
			free(c->lists[k]);
		free(c->lists);
		ptr_free(&c->of);
		free(c->key);
		free(c);
	}
	free(m->ctxs);
	m->ctxs = NULL;
	m->nctxs = m->ctxs_cap = m->nfollows = 0;
	cpl_strmap_free(&m->ctx_of);
}

/* The memo's value for "no such module". */
static char memo_none;

struct cpl_link_memo *
cpl_link_memo_new(void)
{
	struct cpl_link_memo *m = cpl_xcalloc(1, sizeof(*m));

	m->map.own_keys = true;
	return m;
}

void
cpl_link_memo_free(struct cpl_link_memo *m)
{
	if (m == NULL)
		return;
	cpl_strmap_free(&m->map);
	cpl_buf_free(&m->scratch);
	follows_clear(m);
	free(m);
}

void
cpl_link_memo_bound(struct cpl_link_memo *m, size_t max)
{
	if (m == NULL || m->map.count + m->nfollows <= max)
		return;
	follows_clear(m);
	cpl_strmap_free(&m->map);
}

/* Loads base/mod.py, else base/mod/__init__.py (mod '/'-separated),
 * asking the loader; no memo. */
static const struct cpl_pyfile *
load_module_now(const struct walk *wk, const char *base, const char *mod)
{
	static const char *const tails[] = { ".py", "/__init__.py" };
	const struct cpl_pyfile *f = NULL;
	size_t n = strlen(mod), k;
	char *rel = cpl_xmalloc(n + sizeof("/__init__.py")), *p;

	memcpy(rel, mod, n);
	for (k = 0; k < CPL_ARRAY_LEN(tails) && f == NULL; k++) {
		memcpy(rel + n, tails[k], strlen(tails[k]) + 1);
		p = cpl_link_join(base, rel);
		f = wk->lk->load(wk->lk->ctx, p);
		free(p);
	}
	free(rel);
	return f;
}

/* Appends "<length of base>:<base><mod>" to b (no printf: it is hot). */
static void
memo_key(struct cpl_buf *b, const char *base, const char *mod)
{
	char digits[24];
	size_t n = strlen(base), i = sizeof(digits);

	do {
		digits[--i] = (char)('0' + n % 10);
		n /= 10;
	} while (n > 0);
	cpl_buf_add(b, digits + i, sizeof(digits) - i);
	cpl_buf_addc(b, ':');
	cpl_buf_adds(b, base);
	cpl_buf_adds(b, mod);
}

/* Whether the linker's missing hook shows that base holds no module mod
 * ('/'-separated): no mod.py and no mod/ for a name, no directory for
 * the first part of a dotted one. */
static bool
module_missing(const struct walk *wk, const char *base, const char *mod)
{
	const struct cpl_linker *lk = wk->lk;
	const char *slash = strchr(mod, '/');
	size_t n = slash ? (size_t)(slash - mod) : strlen(mod);
	char dir[256], file[256];
	const char *names[2] = { dir, file };

	if (lk->missing == NULL || n == 0 || n + sizeof(".py") > sizeof(dir))
		return false;
	memcpy(dir, mod, n);
	dir[n] = '\0';
	memcpy(file, mod, n);
	memcpy(file + n, ".py", sizeof(".py"));
	return lk->missing(lk->ctx, base, names, slash != NULL ? 1 : 2);
}

/* Loads base/mod.py, else base/mod/__init__.py, through the memo when
 * the linker has one.  The key is "<length of base>:<base><mod>", so no
 * two (base, mod) pairs share it. */
static const struct cpl_pyfile *
load_module(const struct walk *wk, const char *base, const char *mod)
{
	struct cpl_link_memo *m = wk->lk->memo;
	const struct cpl_pyfile *f;
	const void *v;

	if (module_missing(wk, base, mod))
		return NULL;
	if (m == NULL)
		return load_module_now(wk, base, mod);
	cpl_buf_reset(&m->scratch);
	memo_key(&m->scratch, base, mod);
	v = cpl_strmap_get(&m->map, cpl_buf_str(&m->scratch));
	if (v != NULL)
		return v == &memo_none ? NULL : v;
	f = load_module_now(wk, base, mod);
	cpl_strmap_put(&m->map, cpl_buf_str(&m->scratch),
		       f ? (void *)f : &memo_none);
	return f;
}

/* Loads an absolute module (mod '/'-separated): from sys.path[0], else
 * from above the entry script's package. */
static const struct cpl_pyfile *
load_absolute(const struct walk *wk, const char *mod)
{
	/* A batch's walk without sys.path[0]: the directory is known to
	 * hold none of the modules (cpl_link_batch_run()). */
	const struct cpl_pyfile *f = wk->entry_dir == NULL ? NULL :
				     load_module(wk, wk->entry_dir, mod);

	if (f == NULL && wk->pkg_root)
		f = load_module(wk, wk->pkg_root, mod);
	return f;
}

/* The directory above the package that holds dir: up while a directory
 * has an __init__.py, never above the root; NULL when dir is no package.
 * Caller frees. */
static char *
package_root(const struct walk *wk, const char *dir)
{
	char *d = cpl_xstrdup(dir);
	int up = 0;

	for (;;) {
		char *init = cpl_link_join(d, "__init__.py"), *parent;
		bool pkg = wk->lk->load(wk->lk->ctx, init) != NULL;

		free(init);
		if (!pkg || at_root(d, wk->lk->root) || strcmp(d, ".") == 0 ||
		    strcmp(d, "/") == 0 || up++ >= 16)
			break;
		parent = cpl_link_join(d, "..");
		free(d);
		d = parent;
		if (strncmp(d, "..", 2) == 0)
			break;
	}
	if (up == 0 || strcmp(d, dir) == 0) {
		free(d);
		return NULL;
	}
	return d;
}

/* Where an import of level dots from file `from` starts looking: the
 * importing file's package for relative imports, else the entry script's
 * directory (sys.path[0]).  Caller frees. */
static char *
import_base(const struct walk *wk, const struct cpl_pyfile *from, int level)
{
	char *base;
	int i;

	if (level <= 0)
		return cpl_xstrdup(wk->entry_dir);
	base = dir_of(from->path);
	for (i = 1; i < level; i++) {
		char *up = cpl_link_join(base, "..");

		free(base);
		base = up;
	}
	return base;
}

/* A dotted module name as a '/'-separated path; caller frees. */
static char *
module_path(const char *module)
{
	char *mod = cpl_xstrdup(module ? module : ""), *p;

	for (p = mod; *p; p++)
		if (*p == '.')
			*p = '/';
	return mod;
}

/* Notes the first component of mod ('/'-separated, absolute) in the
 * walk's firsts, when it keeps them (a map that owns its keys). */
static void
note_first(struct walk *wk, const char *mod)
{
	size_t n = strcspn(mod, "/");
	char *key;

	if (wk->firsts == NULL)
		return;
	key = cpl_xstrndup(mod, n);
	cpl_strmap_put(wk->firsts, key, wk->firsts);
	free(key);
}

/* The local module an import names (and, for `from pkg import mod`, the
 * submodule it may name). */
static void
follow_import(struct walk *wk, const struct cpl_pyfile *from,
	      const struct cpl_pyimport *imp)
{
	/* An absolute import looks from sys.path (load_absolute()). */
	char *base = imp->level > 0 ? import_base(wk, from, imp->level) :
				      NULL;
	char *mod = module_path(imp->module);

	if (imp->name && strcmp(imp->name, "*") != 0) {
		char *sub = cpl_xasprintf("%s%s%s", mod, *mod ? "/" : "",
					  imp->name);

		if (imp->level <= 0)
			note_first(wk, sub);
		add_edge(wk, imp->level > 0 ? load_module(wk, base, sub) :
					      load_absolute(wk, sub));
		free(sub);
	}
	if (*mod) {
		if (imp->level <= 0)
			note_first(wk, mod);
		add_edge(wk, imp->level > 0 ? load_module(wk, base, mod) :
					      load_absolute(wk, mod));
	} else if (imp->level > 0) {
		/* `from . import name`: the package's own __init__.py,
		 * which may define or re-export name. */
		add_edge(wk, load_module(wk, base, "__init__"));
	}
	free(mod);
	free(base);
}

/* pyvalue's module callback: the linked file of an imported module. */
static const struct cpl_pyfile *
module_cb(void *ctx, const struct cpl_pyfile *from, const char *module,
	  int level)
{
	struct walk *wk = ctx;
	char *base = level > 0 ? import_base(wk, from, level) : NULL;
	char *mod = module_path(module);
	const struct cpl_pyfile *f = NULL;

	if (*mod)
		f = level > 0 ? load_module(wk, base, mod) :
				load_absolute(wk, mod);
	else if (level > 0)	/* from . import name: the package */
		f = load_module(wk, base, "__init__");
	free(mod);
	free(base);
	if (f != NULL && wk->lk->ready)
		wk->lk->ready(wk->lk->ctx, f);
	return f;
}

/* pyvalue's environment callback: the container's effective env. */
static int
getenv_cb(void *ctx, const char *name, const char **value,
	  struct cpl_pos *pos)
{
	struct walk *wk = ctx;
	const struct cpl_env *e;

	if (wk->c == NULL)
		return -1;	/* a script on its own: env unknown */
	e = cpl_container_env_effective(wk->c, name);
	if (e == NULL)
		return wk->c->env_from ? -1 : 0;
	if (e->value == NULL)
		return -1;
	*value = e->value;
	*pos = e->pos;
	return 1;
}

/* Whether a command word may stand for more words or an unknown value. */
static bool
partial_args(const struct cpl_launch *l)
{
	size_t i;

	for (i = 0; i < l->nargs; i++)
		if (strstr(l->args[i].text, "{{") || strchr(l->args[i].text,
							    '$'))
			return true;
	return false;
}

/*
 * The directory Python puts first on sys.path: the script's own, or for
 * `python -m pkg.mod` the directory holding the top-level package.
 * Caller frees.
 */
static char *
import_root(const struct cpl_pyfile *entry, const struct cpl_launch *l)
{
	char *dir = dir_of(entry->path);
	const char *p;
	int up = 0;

	if (l->is_module) {
		for (p = l->script.text; *p; p++)
			up += *p == '.';
		if (cpl_str_ends(entry->path, "/__main__.py"))
			up++;
	}
	while (up-- > 0) {
		char *parent = cpl_link_join(dir, "..");

		free(dir);
		dir = parent;
	}
	return dir;
}

/* The memo's lists for wk's (sys.path[0], root), made when new. */
static struct follow_ctx *
follow_ctx(struct walk *wk)
{
	struct cpl_link_memo *m = wk->lk->memo;
	struct follow_ctx *c;

	cpl_buf_reset(&m->scratch);
	memo_key(&m->scratch, wk->entry_dir ? wk->entry_dir : "", "");
	memo_key(&m->scratch, wk->pkg_root ? wk->pkg_root : "", "");
	/* (a NULL directory is no "": joined paths are never empty) */
	c = cpl_strmap_get(&m->ctx_of, cpl_buf_str(&m->scratch));
	if (c != NULL)
		return c;
	c = cpl_xcalloc(1, sizeof(*c));
	c->key = cpl_xstrdup(cpl_buf_str(&m->scratch));
	CPL_GROW(m->ctxs, m->ctxs_cap, m->nctxs + 1);
	m->ctxs[m->nctxs++] = c;
	cpl_strmap_put(&m->ctx_of, c->key, c);
	return c;
}

/* walk_on() through the memo: each file's imports are resolved once per
 * (sys.path[0], root), and the walks after the first take the files they
 * led to, in the same order, without a string looked up.  (What the
 * loader answers for a path does not change while the memo lives.) */
static void
walk_on_memo(struct walk *wk, size_t i)
{
	struct cpl_link_memo *m = wk->lk->memo;
	size_t j, at;

	if (wk->fc == NULL)
		wk->fc = follow_ctx(wk);
	for (; i < wk->nfiles; i++) {
		const struct cpl_pyfile *f = wk->files[i];
		struct follow_ctx *c = wk->fc;
		struct follows *fl;

		if ((at = ptr_get(&c->of, f)) != SIZE_MAX) {
			fl = c->lists[at];
			for (j = 0; j < fl->n; j++)
				add_file(wk, fl->to[j]);
			continue;
		}
		wk->getting = true;
		wk->ngot = 0;
		for (j = 0; j < f->nimports; j++)
			follow_import(wk, f, &f->imports[j]);
		wk->getting = false;
		fl = cpl_xmalloc(sizeof(*fl) + wk->ngot * sizeof(fl->to[0]));
		fl->n = wk->ngot;
		if (wk->ngot > 0)
			memcpy(fl->to, wk->got, wk->ngot * sizeof(fl->to[0]));
		CPL_GROW(c->lists, c->cap, c->n + 1);
		ptr_put(&c->of, f, c->n);
		c->lists[c->n++] = fl;
		m->nfollows++;
	}
	free(wk->got);
	wk->got = NULL;
	wk->ngot = wk->got_cap = 0;
}

/* Walks the imports of wk->files from the i-th on (breadth-first:
 * wk->files grows while it is walked); a batch's walk keeps the edges of
 * each file. */
static void
walk_on(struct walk *wk, size_t i)
{
	size_t j;

	if (!wk->record && wk->lk->memo != NULL) {
		walk_on_memo(wk, i);
		return;
	}
	for (; i < wk->nfiles; i++) {
		const struct cpl_pyfile *f = wk->files[i];

		if (wk->record) {
			CPL_GROW(wk->adj_at, wk->adj_at_cap, i + 2);
			wk->adj_at[i] = wk->nadj;
		}
		for (j = 0; j < f->nimports; j++)
			follow_import(wk, f, &f->imports[j]);
		if (wk->record)
			wk->adj_at[i + 1] = wk->nadj;
	}
}

/* Walks the local imports from entry (breadth-first: wk->files grows
 * while it is walked). */
static void
walk_imports(struct walk *wk, const struct cpl_pyfile *entry)
{
	wk->pkg_root = package_root(wk, wk->entry_dir);
	add_file(wk, entry);
	walk_on(wk, 0);
}

/*
 * Walks the local imports from entry and resolves the process with env
 * (argv set by the caller).  Frees the walk.
 */
static struct cpl_code *
link_process(struct walk *wk, const struct cpl_pyfile *entry,
	     struct cpl_pyenv *env)
{
	struct cpl_code *code = NULL;

	walk_imports(wk, entry);
	env->files = wk->files;
	env->nfiles = wk->nfiles;
	env->module = module_cb;
	env->getenv = getenv_cb;
	env->ctx = wk;
	cpl_pyvalue_code(&code, wk->files, wk->nfiles, env);
	ptr_free(&wk->seen);
	free(wk->files);
	free(wk->pkg_root);
	return code;
}

/* The entry script container c of w runs, or NULL. */
static const struct cpl_pyfile *
container_entry(const struct cpl_linker *lk, const struct cpl_workload *w,
		const struct cpl_container *c)
{
	const struct cpl_pyfile *entry;
	char *start;

	if (w->file == NULL || !c->launch.has_script)
		return NULL;
	start = dir_of(w->file);
	entry = find_entry(lk, start, &c->launch);
	free(start);
	return entry;
}

struct cpl_code *
cpl_link_code(const struct cpl_linker *lk, const struct cpl_workload *w,
	      const struct cpl_container *c)
{
	struct walk wk = { .lk = lk, .c = c };
	struct cpl_pyenv env = { 0 };
	struct cpl_code *code;
	const struct cpl_pyfile *entry = container_entry(lk, w, c);
	char *edir;

	if (entry == NULL)
		return NULL;
	edir = import_root(entry, &c->launch);
	wk.entry_dir = edir;
	env.argv = c->launch.args;
	env.argc = c->launch.nargs;
	env.argv_partial = partial_args(&c->launch);
	/* Kubernetes sets the request to the limit when only that is
	 * given; the node has at least the requested CPUs. */
	if (c->cpu_request >= 0)
		env.host_min = (long)(c->cpu_request / 1000);
	else if (c->cpu_request == CPL_CPU_ABSENT && c->cpu_limit >= 0)
		env.host_min = (long)(c->cpu_limit / 1000);
	code = link_process(&wk, entry, &env);
	free(edir);
	return code;
}

struct cpl_code *
cpl_link_script(const struct cpl_linker *lk, const struct cpl_pyfile *entry)
{
	struct walk wk = { .lk = lk, .c = NULL };
	struct cpl_pyenv env = { 0 };
	struct cpl_code *code;
	char *edir;

	if (entry == NULL)
		return NULL;
	edir = dir_of(entry->path);
	wk.entry_dir = edir;
	code = link_process(&wk, entry, &env);
	free(edir);
	return code;
}

/* The files a walk from entry reaches, sys.path[0] at edir (taken). */
static size_t
walk_files(const struct cpl_linker *lk, const struct cpl_container *c,
	   const struct cpl_pyfile *entry, char *edir,
	   const struct cpl_pyfile ***files)
{
	struct walk wk = { .lk = lk, .c = c, .files_only = true };

	wk.entry_dir = edir;
	walk_imports(&wk, entry);
	ptr_free(&wk.seen);
	free(wk.pkg_root);
	free(edir);
	*files = wk.files;
	return wk.nfiles;
}

size_t
cpl_link_code_files(const struct cpl_linker *lk,
		    const struct cpl_workload *w,
		    const struct cpl_container *c,
		    const struct cpl_pyfile ***files)
{
	const struct cpl_pyfile *entry = container_entry(lk, w, c);

	*files = NULL;
	if (entry == NULL)
		return 0;
	return walk_files(lk, c, entry, import_root(entry, &c->launch),
			  files);
}

size_t
cpl_link_script_files(const struct cpl_linker *lk,
		      const struct cpl_pyfile *entry,
		      const struct cpl_pyfile ***files)
{
	*files = NULL;
	if (entry == NULL)
		return 0;
	return walk_files(lk, NULL, entry, dir_of(entry->path), files);
}

/* ---- batches: the files-only walks of a run, for what they join ---- */

/* One walk asked for: from entry, with sys.path[0] at dirs[dir]. */
struct breq {
	const struct cpl_pyfile *entry;
	size_t dir;
};

/* A sys.path[0] of the batch, with the package root above it. */
struct bdir {
	char *path;
	char *root;		/* package_root(), or NULL */
};

struct cpl_link_batch {
	const struct cpl_linker *lk;
	struct breq *reqs;
	size_t nreqs, reqs_cap;
	struct bdir *dirs;
	size_t ndirs, dirs_cap;
	struct cpl_strmap dir_index;	/* path → its index + 1 */
};

struct cpl_link_batch *
cpl_link_batch_new(const struct cpl_linker *lk)
{
	struct cpl_link_batch *b = cpl_xcalloc(1, sizeof(*b));

	b->lk = lk;
	return b;
}

void
cpl_link_batch_free(struct cpl_link_batch *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < b->ndirs; i++) {
		free(b->dirs[i].path);
		free(b->dirs[i].root);
	}
	free(b->dirs);
	free(b->reqs);
	cpl_strmap_free(&b->dir_index);
	free(b);
}

/* Asks for the walk from entry with sys.path[0] at edir (taken). */
static void
batch_add(struct cpl_link_batch *b, const struct cpl_pyfile *entry,
	  char *edir)
{
	void *v = cpl_strmap_get(&b->dir_index, edir);
	size_t d;

	if (v != NULL) {
		d = (size_t)((uintptr_t)v - 1);
		free(edir);
	} else {
		struct walk wk = { .lk = b->lk };

		CPL_GROW(b->dirs, b->dirs_cap, b->ndirs + 1);
		d = b->ndirs++;
		b->dirs[d].path = edir;
		b->dirs[d].root = package_root(&wk, edir);
		cpl_strmap_put(&b->dir_index, edir, (void *)(uintptr_t)(d + 1));
	}
	CPL_GROW(b->reqs, b->reqs_cap, b->nreqs + 1);
	b->reqs[b->nreqs].entry = entry;
	b->reqs[b->nreqs++].dir = d;
}

const struct cpl_pyfile *
cpl_link_batch_code(struct cpl_link_batch *b, const struct cpl_workload *w,
		    const struct cpl_container *c)
{
	const struct cpl_pyfile *entry = container_entry(b->lk, w, c);

	if (entry != NULL)
		batch_add(b, entry, import_root(entry, &c->launch));
	return entry;
}

void
cpl_link_batch_script(struct cpl_link_batch *b,
		      const struct cpl_pyfile *entry)
{
	if (entry != NULL)
		batch_add(b, entry, dir_of(entry->path));
}

/* Whether directory dir may hold a module whose first component is
 * name[0, n) (a directory name or name.py): unknown counts as may. */
static bool
may_hold(const struct cpl_linker *lk, const char *dir, const char *name,
	 size_t n)
{
	char first[256], file[256];
	const char *names[2] = { first, file };

	if (lk->missing == NULL || n == 0 ||
	    n + sizeof(".py") > sizeof(file))
		return true;
	memcpy(first, name, n);
	first[n] = '\0';
	memcpy(file, name, n);
	memcpy(file + n, ".py", sizeof(".py"));
	return !lk->missing(lk->ctx, dir, names, 2);
}

/* Whether directory dir may hold a module that an absolute import of
 * one of firsts' names would find there first (so that the walks from it
 * are not those of its package root alone). */
static bool
dir_may_hold(const struct cpl_linker *lk, const char *dir,
	     const struct cpl_strmap *firsts)
{
	size_t i;

	if (lk->missing == NULL)
		return true;
	for (i = 0; i < firsts->cap; i++) {
		const char *name = firsts->slots[i].key;

		if (name != NULL && may_hold(lk, dir, name, strlen(name)))
			return true;
	}
	return false;
}

/* Whether directory dir may hold a module that one of f's own absolute
 * imports names: then the walks from f in dir are not those of its
 * package root alone, which need not be walked for them first. */
static bool
imports_from(const struct cpl_linker *lk, const char *dir,
	     const struct cpl_pyfile *f)
{
	size_t j;

	for (j = 0; j < f->nimports; j++) {
		const struct cpl_pyimport *imp = &f->imports[j];
		const char *mod = imp->module ? imp->module : "";

		if (imp->level > 0)
			continue;
		if (*mod == '\0')
			mod = imp->name ? imp->name : "";
		if (*mod != '\0' &&
		    may_hold(lk, dir, mod, strcspn(mod, ".")))
			return true;
	}
	return false;
}

/* Reports the edges of wk's files reachable from files[from[0, n)]
 * (integers only: the walk has resolved them). */
static void
report_from(const struct walk *wk, const size_t *from, size_t n,
	    cpl_link_edge_fn edge, void *ctx)
{
	bool *seen = cpl_xcalloc(wk->nfiles + 1, sizeof(*seen));
	size_t *queue = cpl_xmalloc((wk->nfiles + 1) * sizeof(*queue));
	size_t head = 0, tail = 0, i, k;

	for (i = 0; i < n; i++)
		if (!seen[from[i]]) {
			seen[from[i]] = true;
			queue[tail++] = from[i];
		}
	while (head < tail) {
		i = queue[head++];
		for (k = wk->adj_at[i]; k < wk->adj_at[i + 1]; k++) {
			size_t t = wk->adj[k];

			edge(ctx, wk->files[i], wk->files[t]);
			if (!seen[t]) {
				seen[t] = true;
				queue[tail++] = t;
			}
		}
	}
	free(queue);
	free(seen);
}

/* Frees what a batch's walk holds. */
static void
walk_done(struct walk *wk)
{
	ptr_free(&wk->seen);
	free(wk->files);
	free(wk->adj);
	free(wk->adj_at);
}

/* The batch's walks whose package root is root (NULL: none): walked once
 * without sys.path[0] for every directory that provably adds nothing to
 * it, once with it for each of the others. */
static void
batch_class(struct cpl_link_batch *b, const char *root, bool *done,
	    cpl_link_edge_fn edge, void *ctx)
{
	struct cpl_strmap firsts = { .own_keys = true };
	struct walk wk = { .lk = b->lk, .files_only = true, .record = true,
			   .pkg_root = (char *)root, .firsts = &firsts };
	bool *plain = cpl_xcalloc(b->ndirs + 1, sizeof(*plain));
	size_t *from = cpl_xmalloc((b->nreqs + 1) * sizeof(*from));
	size_t i, d, n = 0;

	for (d = 0; d < b->ndirs; d++) {
		plain[d] = !done[d] && cpl_str_eq(b->dirs[d].root, root);
		done[d] = done[d] || plain[d];
	}
	/* A directory that holds what its own scripts import (a project's
	 * train.py and data.py) is walked on its own, not first with the
	 * others too. */
	for (i = 0; i < b->nreqs; i++)
		if (plain[b->reqs[i].dir] &&
		    imports_from(b->lk, b->dirs[b->reqs[i].dir].path,
				 b->reqs[i].entry))
			plain[b->reqs[i].dir] = false;
	for (i = 0; i < b->nreqs; i++)
		if (plain[b->reqs[i].dir])
			add_file(&wk, b->reqs[i].entry);
	walk_on(&wk, 0);
	for (d = 0; d < b->ndirs; d++)
		if (plain[d])
			plain[d] = !dir_may_hold(b->lk, b->dirs[d].path,
						 &firsts);
	for (i = 0; i < b->nreqs; i++)
		if (plain[b->reqs[i].dir])
			from[n++] = add_file(&wk, b->reqs[i].entry);
	report_from(&wk, from, n, edge, ctx);
	walk_done(&wk);
	cpl_strmap_free(&firsts);
	/* The others: each directory walked as linking walks it. */
	for (d = 0; d < b->ndirs; d++) {
		struct walk one = { .lk = b->lk, .files_only = true,
				    .record = true,
				    .entry_dir = b->dirs[d].path,
				    .pkg_root = (char *)root };

		if (plain[d] || !cpl_str_eq(b->dirs[d].root, root))
			continue;
		n = 0;
		for (i = 0; i < b->nreqs; i++)
			if (b->reqs[i].dir == d)
				from[n++] = add_file(&one, b->reqs[i].entry);
		walk_on(&one, 0);
		report_from(&one, from, n, edge, ctx);
		walk_done(&one);
	}
	free(from);
	free(plain);
}

void
cpl_link_batch_run(struct cpl_link_batch *b, cpl_link_edge_fn edge,
		   void *ctx)
{
	bool *done = cpl_xcalloc(b->ndirs + 1, sizeof(*done));
	size_t d;

	for (d = 0; d < b->ndirs; d++)
		if (!done[d])
			batch_class(b, b->dirs[d].root, done, edge, ctx);
	free(done);
}

bool
cpl_link_is_entry(const struct cpl_pyfile *f)
{
	return f != NULL && f->entry;
}

bool
cpl_code_imports_torch(const struct cpl_code *code)
{
	return code != NULL && code->imports_torch;
}
