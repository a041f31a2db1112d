/*
 * pyscan.h — the facts about one Python file that the code rules need.
 *
 * A file is tokenized once (pytoken.h) and read in one pass over its
 * tokens, statement by statement, with a scope per module, class and
 * function.  What comes out is plain data: arrays of facts with positions
 * (file, 1-based line and column) and token ranges for expressions, which
 * pyvalue.h resolves to numbers.  Nothing here judges; rules do.
 *
 * Recorded:
 *   imports     every import and from-import with what its name binds to
 *               ("mp" → "torch.multiprocessing", "cc" → "os.cpu_count"),
 *               relative levels kept, so a linker can find local modules
 *   scopes      [0] is the module; then each class and def with its
 *               parameters and their defaults, its roles in the data
 *               pipeline, and whether it does tensor work
 *   calls       every call: callee as written and as imports make it
 *               ("mp.cpu_count" → "multiprocessing.cpu_count"), a kind,
 *               keyword and positional arguments, the enclosing call, the
 *               local function it reaches, or the import it goes through
 *   assigns     NAME = ..., a, b = ..., self.x = ..., x: T = ..., +=,
 *               walrus, return values (name "return"), and opaque
 *               bindings (for/with/except targets) that end a value
 *   argdefs     argparse add_argument: flags, dest, default, type, action
 *   loaders     DataLoader calls: num_workers and worker_init_fn
 *   threads     torch.set_num_threads / set_num_interop_threads and
 *               cv2.setNumThreads with their argument, the tensor work that
 *               ran before them, whether they run in a worker_init_fn
 *   pools       multiprocessing Pool, Process/ThreadPoolExecutor sizes
 *   cpucounts   os.cpu_count() & co., and whether the value sizes
 *               something or is only printed or logged
 *   envsets     os.environ[...] = ..., setdefault, putenv, update(K=...)
 *   sinks       the places whose value sizes a pool (where the CPU-count
 *               flow starts), for resolving across files
 *   refs        names in data-pipeline positions that come from imports,
 *               for resolving across files
 *   cv2         whether cv2 is imported; its calls are calls of kind CV2
 *               with the scope they are in
 *   main_guard  `if __name__ == "__main__":` at module level
 * Text inside strings, docstrings and comments never counts.
 *
 * Ownership: cpl_pyscan_file() returns a cpl_pyfile that owns a copy of
 * the text and every fact; free it with cpl_pyfile_free().  Every pointer
 * inside it (including struct cpl_pos.file, which points at the file's
 * path) is borrowed from it until then.
 *
 * Tokens are not kept: the facts name tokens by index, and the array is
 * freed once the facts are read (it was a fifth of a run's memory).
 * cpl_pyfile_toks() makes it again from the text when asked, the same
 * tokens; a cache (python/pytokcache.h) bounds how many files keep theirs.
 */
#ifndef CPL_PYSCAN_H
#define CPL_PYSCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "python/pytoken.h"
#include "text/pos.h"
#include "util.h"

struct cpl_pyindex;	/* private lookup tables (pyscan_int.h) */

/* An expression: tokens [first, last) of the file, read in scope. */
struct cpl_pyexpr {
	size_t first;
	size_t last;		/* first == last: absent */
	int scope;		/* index into scopes */
	int block;		/* the indented block it is in, -1 unknown */
	struct cpl_pos pos;	/* its first token */
};

/* One import binding: `import a.b as c`, `from .m import n as c`. */
struct cpl_pyimport {
	char *module;		/* as written, no leading dots: "os",
				 * "torch.multiprocessing", "" for
				 * "from . import x" */
	int level;		/* leading dots (relative import) */
	char *name;		/* from-import: the name imported ("*" for a
				 * star import); NULL for import */
	char *bound;		/* the name it binds: "mp", "os", "cc" */
	char *target;		/* what bound stands for, dotted, dots of
				 * level in front: "multiprocessing",
				 * "os.cpu_count", ".data.make_loader" */
	int scope;
	struct cpl_pos pos;	/* the module name */
};

enum cpl_pyscope_kind {
	CPL_PYSCOPE_MODULE,
	CPL_PYSCOPE_CLASS,
	CPL_PYSCOPE_FUNC,	/* def and async def */
};

/* Roles a scope plays for DataLoader workers (flags). */
#define CPL_PYROLE_GETITEM	0x01	/* __getitem__, __getitems__ or
					 * __iter__ of a dataset class */
#define CPL_PYROLE_TRANSFORM	0x02	/* passed as transform=, collate_fn=
					 * or to Compose/Lambda/with_transform
					 * (a class: its __call__/forward) */
#define CPL_PYROLE_WORKER_INIT	0x04	/* passed as worker_init_fn= */
#define CPL_PYROLE_PIPELINE	0x08	/* runs in loader workers: one of
					 * the above or a local function
					 * they call */

/* A parameter of a def. */
struct cpl_pyparam {
	char *name;
	struct cpl_pyexpr def;	/* default value; absent when none */
	int star;		/* 1 for *args, 2 for **kwargs, else 0 */
	bool kwonly;		/* after * or *args */
	size_t tok;		/* its name token */
	struct cpl_pos pos;
};

/* A scope: the module, a class body or a function body. */
struct cpl_pyscope {
	enum cpl_pyscope_kind kind;
	char *name;		/* "<module>", "Net", "create_dataloaders" */
	char *qualname;		/* "MyDataset.__getitem__" */
	int parent;		/* enclosing scope; -1 for the module */
	int cls;		/* the class scope a method belongs to, -1 */
	struct cpl_pos pos;	/* the name after def/class */
	struct cpl_pyparam *params;
	size_t nparams;
	char *bases;		/* class: its bases as written, "" if none */
	bool dataset;		/* class: a base ends in "Dataset", it has
				 * __getitem__ and __len__, or an instance
				 * is given to a DataLoader of this file */
	unsigned roles;		/* CPL_PYROLE_* */
	int work;		/* first tensor-work call in its body, -1 */
	bool does_work;		/* def: tensor work here or in a local
				 * def it calls */
	bool uses_cv2;		/* a cv2 call in its body */
	bool quota_reader;	/* def: reads a cgroup CPU quota file
				 * (cpu.max, cpu.cfs_quota_us), itself or
				 * in a local def it calls, so a CPU count
				 * in it is the fallback where no quota is
				 * set: set only for defs holding a count */
	size_t body_first;	/* tokens of the body (after the ':') */
	size_t body_last;
	int block;		/* the block of its body (module: 0) */
	size_t *calls;		/* indices of the calls in its body, in
				 * order (nested defs excluded) */
	size_t ncalls;
};

enum cpl_pycall_kind {
	CPL_PYCALL_OTHER,
	CPL_PYCALL_CPU_COUNT,	/* os.cpu_count, multiprocessing.cpu_count,
				 * psutil.cpu_count, os.process_cpu_count,
				 * len(os.sched_getaffinity(...)) */
	CPL_PYCALL_SET_THREADS,	/* torch.set_num_threads */
	CPL_PYCALL_SET_INTEROP,	/* torch.set_num_interop_threads */
	CPL_PYCALL_CV2_THREADS,	/* cv2.setNumThreads */
	CPL_PYCALL_CV2,		/* any other cv2.X(...) */
	CPL_PYCALL_DATALOADER,	/* [torch.utils.data.]DataLoader(...) */
	CPL_PYCALL_POOL,	/* multiprocessing Pool / ThreadPool */
	CPL_PYCALL_PROCESS_POOL,	/* ProcessPoolExecutor */
	CPL_PYCALL_THREAD_POOL,	/* ThreadPoolExecutor */
	CPL_PYCALL_ADD_ARGUMENT,	/* X.add_argument(...) */
	CPL_PYCALL_PARSE_ARGS,	/* X.parse_args() / parse_known_args() */
	CPL_PYCALL_TENSOR,	/* work that starts the intra-op pool:
				 * model(x), .backward(, matmul/conv/
				 * nn.functional, factories of >= 32768
				 * elements, torch.load, from_pretrained,
				 * load_state_dict, pretrained weights; not
				 * nn.X( construction, .to(, .cuda(,
				 * torch.tensor(x), manual_seed, compile */
	CPL_PYCALL_PRINT,	/* print, logging, warnings.warn, .write */
};

/* An argument at a call site. */
struct cpl_pyarg {
	char *keyword;		/* NULL for a positional argument */
	int star;		/* 1 for *x, 2 for **x */
	struct cpl_pyexpr value;
};

/* A call. */
struct cpl_pycall {
	char *callee;		/* dotted as written: "mp.cpu_count",
				 * "self.load"; ".to" when the receiver is
				 * not a name ("x[0].to") */
	char *target;		/* through the imports:
				 * "multiprocessing.cpu_count" */
	enum cpl_pycall_kind kind;
	int scope;
	struct cpl_pos pos;	/* the callee's first token */
	struct cpl_pos end;	/* just past ')' */
	size_t first;		/* the callee's first token */
	size_t open;		/* the '(' token */
	size_t close;		/* the ')' token */
	struct cpl_pyarg *args;
	size_t nargs;
	int parent;		/* the call whose argument holds this one,
				 * -1 */
	int parent_arg;		/* which argument of it (as written, from 0) */
	int assign;		/* the assignment whose value holds it, -1 */
	int func;		/* the def of this file it calls (a class:
				 * constructs), -1 */
	int import;		/* the import its first name goes through,
				 * -1 (a local def or a builtin) */
	char *remote;		/* with import: the callee's path inside the
				 * import's module: "create_dataloaders",
				 * "data.make_loader" */
};

/* An assignment or binding of a name in a scope. */
struct cpl_pyassign {
	char *name;		/* "n", "self.workers", "return" */
	struct cpl_pyexpr value;	/* the right-hand side */
	int index;		/* -1, or the position in a tuple target */
	char op[4];		/* "=", or an augmented assignment's
				 * operator: "+=", "//=" ... */
	bool opaque;		/* for/with/except target, *rest, nested
				 * tuple: no value we can read */
	int scope;
	int block;		/* the indented block it is in */
	size_t tok;		/* its target token */
	int prev;		/* the previous assignment of the same name in
				 * the same scope (self.X: the same class),
				 * -1 */
	struct cpl_pos pos;
};

/* An argparse option definition. */
struct cpl_pyargdef {
	char **flags;		/* "-j", "--workers"; a positional's name */
	size_t nflags;
	char *dest;		/* dest=, else derived as argparse does */
	struct cpl_pyexpr def;	/* default=; absent when none */
	char *type;		/* "int", "float", "str" ... as written */
	char *action;		/* "store_true" ...; NULL for store */
	int call;
	struct cpl_pos pos;
};

/* A DataLoader call. */
struct cpl_pyloader {
	int call;
	bool has_workers;
	struct cpl_pyexpr workers;	/* num_workers= (or 6th positional) */
	bool unknown_kwargs;	/* **kw passed: num_workers may hide there */
	bool has_init;
	struct cpl_pyexpr init;	/* worker_init_fn= */
	int init_func;		/* the def of this file it names, -1 */
	struct cpl_pos pos;
	/* An argument that needs workers (torch raises ValueError with
	 * num_workers=0): persistent_workers=True, or prefetch_factor
	 * given as a number (torch 2 takes it with workers only; 1.13
	 * any value but 2).  needs[0] == '\0': none. */
	char needs[40];		/* as written: "persistent_workers=True" */
	struct cpl_pos needs_pos;
};

enum cpl_pythreads_kind {
	CPL_PYTHREADS_INTRA,	/* torch.set_num_threads */
	CPL_PYTHREADS_INTEROP,	/* torch.set_num_interop_threads */
	CPL_PYTHREADS_CV2,	/* cv2.setNumThreads */
};

/* A call that sizes a thread pool. */
struct cpl_pythreads {
	enum cpl_pythreads_kind kind;
	int call;
	bool has_arg;
	struct cpl_pyexpr arg;
	int prior_work;		/* tensor-work call that ran before it in the
				 * same process, -1 (see cpl_pyscan_file) */
	bool in_worker_init;	/* in a worker_init_fn (def or lambda) */
	struct cpl_pos pos;
};

enum cpl_pypool_kind {
	CPL_PYPOOL_MP,		/* multiprocessing Pool(processes) */
	CPL_PYPOOL_PROCESS,	/* ProcessPoolExecutor(max_workers) */
	CPL_PYPOOL_THREAD,	/* ThreadPoolExecutor(max_workers) */
};

/* A pool creation and its size argument. */
struct cpl_pypool {
	enum cpl_pypool_kind kind;
	int call;
	bool has_size;
	struct cpl_pyexpr size;
	struct cpl_pos pos;
};

enum cpl_pyuse {
	CPL_PYUSE_OTHER,	/* neither: compared, returned, unused */
	CPL_PYUSE_SIZING,	/* its value sizes workers, pools, threads */
	CPL_PYUSE_PRINTED,	/* it is only printed or logged */
};

/*
 * A place whose value sizes a pool: DataLoader num_workers, a thread
 * setting, a pool size, a *THREADS / *WORKERS environment variable, and a
 * keyword, variable, parameter or argparse option whose name says it
 * holds a worker or thread count.  The starts of the CPU-count flow, kept
 * so that a process (cpl_pyvalue_code) can resolve them across files.
 */
struct cpl_pysink {
	const char *what;	/* "num_workers", "torch.set_num_threads",
				 * "Pool", "OMP_NUM_THREADS", "n_workers" */
	struct cpl_pyexpr value;	/* what sizes it (a parameter: its
					 * name, read in the def's body) */
	struct cpl_pos pos;
};

/*
 * A name in a data-pipeline position that no def or class of the file
 * answers, but an import may: a transform (transform=, Compose([...])), a
 * worker_init_fn, the class a DataLoader's dataset is built from.  A
 * process (cpl_pyvalue_code) resolves it in the module it comes from.
 */
struct cpl_pyref {
	unsigned role;		/* CPL_PYROLE_TRANSFORM, CPL_PYROLE_WORKER_INIT,
				 * or CPL_PYROLE_GETITEM: a dataset class */
	const char *name;	/* dotted as written: "T.Letterbox" */
	int scope;		/* where it is read */
	bool called;		/* called right there (outside a lambda):
				 * a function so called builds the transform
				 * rather than being it */
	struct cpl_pos pos;
};

/* A CPU-count call and where its value goes. */
struct cpl_pycpucount {
	int call;
	enum cpl_pyuse use;
	char *sink;		/* SIZING: what it sizes: "num_workers",
				 * "torch.set_num_threads", "Pool",
				 * "OMP_NUM_THREADS", "NUM_WORKERS" */
	struct cpl_pos sink_pos;	/* SIZING: where */
	int sink_index;		/* SIZING: the first sink it reaches, in
				 * sinks; -1 */
	struct cpl_pos pos;
};

/* Code that sets an environment variable. */
struct cpl_pyenvset {
	char *name;		/* "OMP_NUM_THREADS" */
	struct cpl_pyexpr value;
	bool setdefault;	/* os.environ.setdefault: keeps a set value */
	int scope;
	struct cpl_pos pos;
};

/* One scanned Python file. */
struct cpl_pyfile {
	char *path;
	char *text;		/* NUL-terminated: a copy, or borrowed */
	size_t len;
	bool text_borrowed;	/* cpl_pyscan_file_borrowed(): never freed
				 * here */
	int first_line;		/* the text's first line in path (1; an
				 * inline script's line there) */
	size_t ntoks;		/* its tokens: cpl_pyfile_toks() */
	bool imports_torch;
	struct cpl_pos torch_pos;	/* the first torch import */
	bool imports_cv2;
	struct cpl_pos cv2_pos;		/* the first cv2 import */
	bool main_guard;		/* `if __name__ == "__main__":` at
					 * module level */
	struct cpl_pos main_pos;	/* its `if` */
	bool entry;			/* an entry script: main_guard, or a
					 * DataLoader built at module level
					 * (cpl_link_is_entry()) */
	bool bare;			/* set by the light scan: the text
					 * holds none of the words a CPU fact
					 * is made from (cpu_count,
					 * sched_getaffinity, set_num_,
					 * setNumThreads, cv2, DataLoader,
					 * __main__), so its facts have no
					 * CPU counts, thread calls, cv2
					 * calls or loaders, and it is no
					 * entry script */
	struct cpl_pyimport *imports;
	size_t nimports;
	struct cpl_pyscope *scopes;	/* [0] is the module */
	size_t nscopes;
	struct cpl_pycall *calls;	/* in order of their '(' */
	size_t ncalls;
	struct cpl_pyassign *assigns;
	size_t nassigns;
	struct cpl_pyargdef *argdefs;
	size_t nargdefs;
	struct cpl_pyloader *loaders;
	size_t nloaders;
	struct cpl_pythreads *threads;
	size_t nthreads;
	struct cpl_pypool *pools;
	size_t npools;
	struct cpl_pycpucount *cpucounts;
	size_t ncpucounts;
	struct cpl_pyenvset *envsets;
	size_t nenvsets;
	struct cpl_pysink *sinks;	/* in the order the flow starts */
	size_t nsinks;
	struct cpl_pyref *refs;		/* pipeline names from imports */
	size_t nrefs;
	struct cpl_pyindex *index;	/* private lookup tables; NULL
					 * while unloaded */
	char *light;			/* unloaded: the strings of imports */
	void *owner;			/* the holder's (the engine's source);
					 * never read here */
};

/*
 * Scans one file: tokenizes text[0, len) (copied) and reads its facts.
 * Returns 0, or 1 when the text holds a tokenizer error (err says where:
 * path, line, column); in both cases *out is set to the facts of all that
 * was read and the caller frees it.  Never fails otherwise: odd but valid
 * Python yields fewer facts, not an error.
 *
 * prior_work of a set_num_threads call is the first tensor-work call
 * before it in its scope, else a call before it in its scope to a local
 * def that does tensor work, else (in a def) tensor work at module level
 * before the first module-level call of that def.
 */
int cpl_pyscan_file(struct cpl_pyfile **out, const char *path,
		    const char *text, size_t len, struct cpl_error *err);
/*
 * cpl_pyscan_file() without the copy: *out borrows text, which must hold
 * a NUL at text[len], never change, and outlive *out (the engine's
 * sources keep their text as long as their scanned file).
 */
int cpl_pyscan_file_borrowed(struct cpl_pyfile **out, const char *path,
			     const char *text, size_t len,
			     struct cpl_error *err);
/*
 * cpl_pyscan_file() of a text that is part of path starting at line
 * first_line (an inline script of a manifest, laid at its lines): every
 * position is path's, and nothing pads the text to reach them.
 */
int cpl_pyscan_file_at(struct cpl_pyfile **out, const char *path,
		       const char *text, size_t len, int first_line,
		       struct cpl_error *err);
void cpl_pyfile_free(struct cpl_pyfile *f);	/* NULL-safe */

/*
 * A scanned file held light while it waits (the engine judges a run
 * group by group: lib/run/group.c).  cpl_pyfile_unload() frees every fact
 * but path, text and the scalar facts above imports (main_guard, entry,
 * imports_torch ...), and keeps of each import only module, name and
 * level (bound and target NULL, pos and scope as they were): what the
 * linker's walk reads.  cpl_pyfile_reload() scans the text again into
 * the same file (the same address: the linker's memo keeps pointers),
 * giving the same facts as the first scan; its tokenizer error, reported
 * by the first scan, is not reported again.  With keep_toks the tokens
 * stay with the file (cpl_pyfile_toks() makes none) until it is freed,
 * unloaded or a cache it joins trims them.  Both touch only f: files
 * may be reloaded on several threads at once.
 */
void cpl_pyfile_unload(struct cpl_pyfile *f);
/*
 * A file scanned light, born unloaded: tokenized (its tokenizer error
 * returned as cpl_pyscan_file_borrowed() returns it) and its import
 * statements read, nothing else; entry is "may be" (true unless the
 * text lacks both "__main__" and "DataLoader", the words is_entry()
 * needs; known once loaded), bare is set (see above), the other scalar
 * facts unset.  text is borrowed as there.  Its first
 * cpl_pyfile_reload() makes the facts a full scan makes.
 */
int cpl_pyscan_file_light(struct cpl_pyfile **out, const char *path,
			  const char *text, size_t len,
			  struct cpl_error *err);
void cpl_pyfile_reload(struct cpl_pyfile *f, bool keep_toks);
/*
 * The light scan's screens of text[0, len): *entry whether it
 * holds "__main__" or "DataLoader", and, when it does not, *cpu whether
 * it holds a word of bare (above); each as memmem() of those words
 * would say.
 */
void cpl_pyscan_screen(const char *text, size_t len, bool *entry,
		       bool *cpu);

/* Whether f holds its facts (not unloaded). */
bool cpl_pyfile_loaded(const struct cpl_pyfile *f);

/*
 * The tokens of f (f->ntoks of them), those its facts index: during the
 * scan the scan's own, afterwards made again from the text on first use
 * (pytokcache.c), exactly as the scan saw them, a tokenizer error
 * included.  Borrowed: valid until the file is freed or, for a file
 * attached to a cache, until the next cpl_pytokcache_trim(); a caller
 * may keep the pointer for the length of one evaluation.  Not thread-
 * safe for a file attached to a cache (main thread only).
 */
const struct cpl_pytoken *cpl_pyfile_toks(const struct cpl_pyfile *f);

/* "cpu-count", "dataloader", ... for messages and tests. */
const char *cpl_pyscan_kind_name(enum cpl_pycall_kind k);

/* The position of token tok (file set). */
struct cpl_pos cpl_pyscan_pos(const struct cpl_pyfile *f, size_t tok);

/*
 * The def named name ("create_dataloaders" at module level, or
 * "Class.method"), -1 when there is none.
 */
int cpl_pyscan_func_find(const struct cpl_pyfile *f, const char *name);

/* The last assignment of name in scope (follow ->prev), -1 if none. */
int cpl_pyscan_assign_last(const struct cpl_pyfile *f, int scope,
			   const char *name);

/* The import that binds name in scope or the module, -1 if none. */
int cpl_pyscan_binding(const struct cpl_pyfile *f, int scope,
		       const char *name);

/* The call whose '(' is token open, -1 if none. */
int cpl_pyscan_call_at(const struct cpl_pyfile *f, size_t open);

/* The first call whose '(' is at or after token tok (ncalls if none). */
size_t cpl_pyscan_call_from(const struct cpl_pyfile *f, size_t tok);

/*
 * The calls of this file that reach def or class func (a class: its
 * constructions), in order; *out borrowed.  Returns how many.
 */
size_t cpl_pyscan_callers(const struct cpl_pyfile *f, int func,
			  const size_t **out);

/* The parameter of scope named name, -1 if none. */
int cpl_pyscan_param(const struct cpl_pyfile *f, int scope,
		     const char *name);

/* The last argdef whose dest is dest, -1 if none. */
int cpl_pyscan_argdef_find(const struct cpl_pyfile *f, const char *dest);

/*
 * The arguments of call that bind parameter param of def func (keyword by
 * name, else positional, skipping self for a method called through an
 * attribute); NULL when the call does not pass it.  *spread is set when
 * the call passes *args or **kwargs that might hold it.
 */
const struct cpl_pyarg *cpl_pyscan_call_arg(const struct cpl_pyfile *f,
					    const struct cpl_pycall *call,
					    const struct cpl_pyfile *callee,
					    int func, size_t param,
					    bool *spread);

/* Block b is block a or nested in it. */
bool cpl_pyscan_block_within(const struct cpl_pyfile *f, int b, int a);

enum cpl_pyval_kind {
	CPL_PYVAL_UNKNOWN,	/* not fixed by the text: never a guess */
	CPL_PYVAL_KNOWN,	/* a number */
	CPL_PYVAL_HOST,		/* depends on a CPU-count call: it tracks
				 * the node */
};

enum cpl_pyval_origin {
	CPL_PYORIG_NONE,	/* UNKNOWN */
	CPL_PYORIG_CODE,	/* a literal or arithmetic in the code */
	CPL_PYORIG_DEFAULT,	/* a parameter's or argparse option's default */
	CPL_PYORIG_COMMAND,	/* a command-line word overrode the default */
	CPL_PYORIG_ENV,		/* an environment variable (env callback) */
	CPL_PYORIG_IMPLICIT,	/* not written: DataLoader's num_workers=0 */
	CPL_PYORIG_HOST,	/* a CPU-count call */
};

/*
 * A resolved value (pyvalue.h).  pos is where the deciding value is
 * written (the literal, the default, the command-line word, the call for
 * an implicit default); host is the CPU-count call of a HOST value.
 */
struct cpl_pyval {
	enum cpl_pyval_kind kind;
	long value;		/* KNOWN */
	enum cpl_pyval_origin origin;
	struct cpl_pos pos;
	struct cpl_pos host;
	bool capped;		/* HOST: bounded above by what is not a CPU
				 * count: min(8, os.cpu_count()),
				 * min(args.workers, os.cpu_count()) */
	long cap;		/* capped: the bound when the text fixes it,
				 * else -1 */
	long lo;		/* HOST: at least this (0: no more known),
				 * with the CPU count at least the env's
				 * host_min */
};

/*
 * The linked code of one process: the Python a container's command runs,
 * or an entry script linted on its own (the script and the local modules
 * it imports), and the pool sizes of that process, resolved with its
 * command-line arguments.  Built by the linker (cpl_pyvalue_code() does
 * the resolving and joins the files); read by the code and budget rules
 * (CPU301-305, CPU401, CPU402).
 */
struct cpl_code_size {
	const struct cpl_pyfile *file;	/* where the call is */
	size_t index;			/* into file->loaders or ->threads */
	struct cpl_pos pos;		/* the call */
	struct cpl_pyval value;
};

/* A CPU count in one file of a process that sizes a pool in another
 * (passed as an argument, returned, or imported as a name). */
struct cpl_code_count {
	const struct cpl_pyfile *file;	/* where the CPU-count call is */
	size_t index;			/* into file->cpucounts */
	const char *what;		/* what it sizes: "num_workers" */
	struct cpl_pos sink;		/* where, in another file */
	long cap;			/* 0, or the bound the text puts on
					 * it: min(8, os.cpu_count()) is 8 */
	size_t at;			/* file's index in the process */
	size_t order;			/* the order it was found in */
};

struct cpl_code {
	const struct cpl_pyfile *entry;		/* borrowed */
	const struct cpl_pyfile **files;	/* entry first; array owned,
						 * files borrowed */
	size_t nfiles;
	bool imports_torch;			/* any of the files */
	struct cpl_code_size *loaders;		/* every DataLoader */
	size_t nloaders;
	struct cpl_code_size *threads;		/* torch.set_num_threads
						 * outside worker_init_fn */
	size_t nthreads;
	unsigned **roles;			/* [file][scope]: CPL_PYROLE_*
						 * in this process: the file's
						 * own, and those that other
						 * files give it (a transform
						 * or worker_init_fn passed
						 * from another module, a
						 * Dataset a DataLoader
						 * elsewhere is built with,
						 * what pipeline code calls
						 * across modules) */
	struct cpl_code_count *counts;		/* CPU counts that size a pool
						 * in another file, which the
						 * file alone does not show;
						 * by file: files[i]'s are
						 * counts[count_at[i],
						 * count_at[i + 1]) */
	size_t ncounts;
	size_t *count_at;
	long cv2_file;				/* the first cv2 call pipeline
						 * code runs, in file order:
						 * files[cv2_file]->calls
						 * [cv2_call]; -1 none */
	size_t cv2_call;
};

void cpl_pyscan_code_free(struct cpl_code *c);	/* NULL-safe */

#endif
