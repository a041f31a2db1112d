/*
 * engine_int.h — what the files of the run (lib/run/) share and nothing
 * else may see: the run's state and the functions one file calls in
 * another.  The public interface is engine.h; only files of lib/run/
 * include this one (the rules and the edits of fixes reach the run
 * through the check context, model/checkctx.h).
 *
 * The files, top down (calls run down this list, never up):
 *   engine.c     the public entry points, the run's order, the final
 *                filter and order of findings;
 *   keep.c       compare --fix's run over a file;
 *   reach.c      Python files named on their own (pre-commit's changed
 *                files): the repository's workloads that run them,
 *                loaded as context, and their findings kept only where
 *                they involve a named file, placed there;
 *   group.c      the run linked, budgeted and judged a group of files
 *                at a time, the next groups' Python loaded on other
 *                threads;
 *   kustomize.c, entrypoint.c  what a run reads beside its workloads
 *                before the group graph;
 *   pipeline.c   files met by walks and named: read, parsed and scanned
 *                on a few threads (-j), their results taken in the order
 *                the files were met;
 *   checkrun.c   the rules' side of the run: reports become findings,
 *                which are then marked suppressed where that applies;
 *   changed.c    what --diff-base keeps: the findings a change caused;
 *   sources.c    the run's files, read once, their texts, errors and
 *                notes, the linker's loader and hooks;
 *   overlay.c    texts given for paths (--fix and --diff passes over
 *                fixed text), read instead of the files.
 */
#ifndef CPL_ENGINE_INT_H
#define CPL_ENGINE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/checkctx.h"
#include "model/link.h"
#include "model/source.h"
#include "python/pyscan.h"
#include "python/pytokcache.h"
#include "run/config_int.h"
#include "run/engine.h"
#include "run/suppress_int.h"
#include "text/lines.h"
#include "text/yamledit.h"

#define MAX_FILE_BYTES CPL_ENGINE_MAX_FILE_BYTES

struct pjob;	/* a queued file (pipeline.c) */
struct pbatch;	/* queued files being read (pipeline.c) */

/* The linked processes that run one Python file. */
struct coderefs {
	struct cpl_code_ref *v;
	size_t n, cap;
};

/*
 * The user's settings: set once from the flags, through engine.h's
 * setters, before the first path is added (engine.c: config, repo,
 * staged, diff, drop_texts, want_edits; pipeline.c: threads; helm.c:
 * helm_args;
 * overlay.c: overlay); read-only after.
 */
struct engine_set {
	struct cpl_config *config;	/* owned */
	struct cpl_repo *repo;		/* borrowed; NULL outside git */
	bool staged;			/* read files from the index */
	bool diff;			/* keep only changed lines */
	bool drop_texts;		/* texts let go once judged
					 * (cpl_engine_drop_texts()) */
	bool want_edits;		/* fixes' edits made group by group
					 * (cpl_engine_want_edits()) */
	int threads;			/* -j; 0: the CPUs we may use */
	char **helm_args;		/* 'f'FILE (--helm-values) or 's'K=V
					 * (--helm-set), in order; owned */
	size_t nhelm_args, helm_args_cap;
	struct cpl_strmap overlay;	/* normalised path → struct
					 * overlay_text (overlay.c) */
	struct overlay_text **overlays;	/* owned, with their keys */
	size_t noverlays, overlays_cap;
};

/*
 * Loading: what the run reads, each file once.  Owners: sources.c the
 * files, their maps, the kept strings, the auxiliary inputs and the
 * caches; engine.c the walks' roots and listings (dir_listed()),
 * sources.c its missing hook's last answer; helm.c the charts; reach.c
 * the named Python files.
 */
struct engine_load {
	struct source **files;		/* owned, in the order read */
	size_t nfiles;
	size_t files_cap;
	struct cpl_strmap by_path;	/* normalised path → struct source *
					 * (keys owned, as in every map of
					 * the engine) */
	char **kept;			/* owned: cpl_engine_keep_str()'s */
	size_t nkept, kept_cap;
	struct cpl_strmap absent;	/* paths the linker found missing */
	struct cpl_strmap listed;	/* directories a plain walk listed,
					 * normalised → their entries' map
					 * (names that may matter to the
					 * linker: see dir_listed()) */
	struct cpl_strmap **listings;	/* the values of listed, owned */
	size_t nlistings, listings_cap;
	/* The last directory the linker's missing hook asked about and
	 * its listing (NULL: not listed), while listed held missing_count
	 * directories: a walk asks about one directory for every import
	 * of a file.  Only the engine's thread links. */
	char missing_dir[256];
	const struct cpl_strmap *missing_listing;
	size_t missing_count;
	char **roots;			/* the directories the run walks, as
					 * given (builds.c's Dockerfile
					 * search starts there); owned */
	size_t nroots, roots_cap;
	char **seeds;			/* Python files named (pre-commit's
					 * changed files), caller paths */
	size_t nseeds;
	size_t seeds_cap;
	struct cpl_strmap seed_rel;	/* their rel paths → the caller
					 * path (reach.c) */
	struct cpl_strmap is_seed;	/* a spelling of a path → its seed's
					 * caller path, or a "none" mark
					 * (reach.c memo) */
	struct cpl_strmap charts;	/* Helm charts already met */
	struct cpl_helm *helm;		/* charts rendered (helm.c) */
	struct cpl_pytokcache *tokcache;	/* bounds the tokens Python
						 * files make again (trimmed
						 * between workloads, files
						 * and containers) */
	struct cpl_link_memo *memo;	/* the run's module look-ups */
	struct cpl_fileid *aux;		/* files read beside the targets
					 * (wrapper scripts, Dockerfiles):
					 * inputs no output may replace */
	size_t naux, aux_cap;
};

/* Loading too: the files queued to be read, parsed and scanned on a few
 * threads.  Owner: pipeline.c, the only file that touches it. */
struct engine_queue {
	struct pjob *jobs;		/* files waiting */
	size_t njobs, jobs_cap;
	struct cpl_strmap queued;	/* their normalised paths → job */
	struct pbatch *inflight;	/* files read on other threads while
					 * this one walks on, or NULL */
	int cpus;			/* the CPUs we may use, 0 until
					 * needed */
	bool seeded;			/* jansson's hash seed is set */
};

/*
 * Checking: the code linked and the groups being judged.  Owners:
 * sources.c the linked code (codes, code_of, refs) and the edit parses
 * made (yedits); group.c the inline scripts and the crew loading the
 * next batch; changed.c its --diff-base memo.
 */
struct engine_check {
	struct cpl_code **codes;	/* linked code, owned */
	size_t ncodes, codes_cap;
	struct cpl_strmap code_of;	/* pyfile path → struct coderefs */
	struct coderefs **refs;		/* the values of code_of, owned */
	size_t nrefs, refs_cap;
	struct cpl_pyfile **inline_py;	/* inline scripts containers run
					 * (group.c), scanned; owned */
	size_t ninline, inline_cap;
	struct crew *crew;		/* loading the next batch (group.c;
					 * cpl_engine_crew_wait waits) */
	struct source **yedits;		/* sources holding an edit parse */
	size_t nyedits, yedits_cap;
	struct cpl_strmap code_changed;	/* --diff-base: Python path → 2
					 * when its code changed, 1 not */
};

/*
 * The results, what engine.h's getters return.  Owners: sources.c the
 * errors, warnings and notes (cpl_engine_add_*; pipeline.c takes a
 * worker's in the order files were queued) and the workloads;
 * checkrun.c the findings, their order key and the budgets.  A
 * worker's engine (pipeline.c) uses only these.
 */
struct engine_res {
	struct cpl_wlist workloads;
	struct cpl_finding *findings;
	size_t nfindings;
	size_t findings_cap;
	uint64_t order;			/* the next finding's order key */
	struct cpl_budget_entry *budgets;	/* every training container */
	size_t nbudgets;
	size_t budgets_cap;
	struct cpl_error *errors;
	size_t nerrors;
	size_t errors_cap;
	struct cpl_error *warnings;	/* problems that do not fail the run */
	size_t nwarnings;
	size_t warnings_cap;
	struct cpl_error *notes;	/* what was skipped and why (-v) */
	size_t nnotes;
	size_t notes_cap;
};

/* One run, in parts (as curl's Curl_easy has set, state and req): the
 * settings, the state of the loading (load, queue) and checking phases,
 * the results.
 * The output phase (suppressions, relocations, the final filter and
 * order in cpl_engine_run()) reads the parts and rewrites res. */
struct cpl_engine {
	struct engine_set set;
	struct engine_load load;
	struct engine_queue queue;
	struct engine_check check;
	struct engine_res res;
};

/* ---- sources.c ---------------------------------------------------------- */

/* A file by device and inode. */
struct cpl_fileid {
	unsigned long long dev, ino;
};

/* Records path (read beside the targets) as an input of the run. */
void cpl_engine_read_aux(struct cpl_engine *e, const char *path);
/* Whether st is such a file. */
bool cpl_engine_is_aux(const struct cpl_engine *e, const struct stat *st);

/* Records an input problem at path:line:col (the run exits 2). */
void cpl_engine_add_errorf(struct cpl_engine *e, const char *path, int line,
			   int col, const char *fmt, ...) CPL_PRINTF(5, 6);
/* The repository-relative path of a caller path; NULL outside the
 * repository.  Caller frees. */
char *cpl_engine_rel_of(const struct cpl_engine *e, const char *path);
/* The named Python file path is (as a finding or the linker spells
 * it), as the caller named it; NULL when it is none.  Answered once per
 * spelling. */
const char *cpl_engine_seed_of(struct cpl_engine *e, const char *path);
/* The source of the named Python file that path names under another
 * spelling, or NULL. */
struct source *cpl_engine_seed_source(struct cpl_engine *e,
				      const char *path);

/* Keeps a string (taken) alive as long as the engine, for what borrows
 * it past the pass that made it (texts and paths entrypoint.c's
 * positions name); returns it.  Map keys are not kept here: the maps
 * own them. */
const char *cpl_engine_keep_str(struct cpl_engine *e, char *key);
/* A source (text taken), marked as a target (linted), not yet part of
 * the run: touches nothing shared, so a worker may make it. */
struct source *cpl_engine_source_new(const char *path, enum file_kind kind,
				     char *text, size_t len);
/* Makes src (taken) one of the run's sources. */
void cpl_engine_source_add(struct cpl_engine *e, struct source *src);
/* Parses a YAML/JSON source and loads its documents: workloads, errors,
 * warnings and notes go to out (the run's engine, or a worker's, which
 * uses nothing else). */
void cpl_engine_load_yaml(struct cpl_engine *out, const struct source *src,
			  bool explicit);
/* Adds a source (text taken), marked as a target (linted). */
struct source *cpl_engine_add_source(struct cpl_engine *e, const char *path,
				     enum file_kind kind, char *text,
				     size_t len);
/* Reads path from the working tree, or from the index with --staged. */
int cpl_engine_read_source(struct cpl_engine *e, const char *path,
			   char **text, size_t *len, struct cpl_error *err);
/* The source at path, however the path is spelled ("./a/../b.py");
 * the second for the run's own changes to it (its text read again). */
const struct source *cpl_engine_find_source(const struct cpl_engine *e,
					    const char *path);
struct source *cpl_engine_source_of(struct cpl_engine *e, const char *path);
/* Applies the Container CPU defaults of the run's LimitRanges to the
 * containers of their namespace that set none (limitrange.c). */
void cpl_engine_limitranges(struct cpl_engine *e);
/* Records what the run skipped or read and why (shown with -v). */
void cpl_engine_note(struct cpl_engine *e, const char *path,
		     const char *fmt, ...) CPL_PRINTF(3, 4);
/* The linker's loader over the engine's sources (ctx: the engine),
 * PY_LOADED. */
const struct cpl_pyfile *cpl_engine_link_load(void *ctx, const char *path);
/* The linker's missing hook: a walk's listing of dir lacks every one of
 * names[0, n). */
bool cpl_engine_link_missing(void *ctx, const char *dir,
			     const char *const *names, size_t n);
/* Keeps a linked process (the engine takes code); container c of w, NULL
 * for a script linted on its own, runs it. */
void cpl_engine_keep_code(struct cpl_engine *e, const struct cpl_workload *w,
			  struct cpl_container *c, struct cpl_code *code);
/* Whether a line of a file (as a finding names it) changed since the
 * diff base (every line until one is set; live findings always). */
bool cpl_engine_line_changed(const struct cpl_engine *e, const char *file,
			     int line);
/* Whether a file (as the engine names it) changed at all since the diff
 * base (false outside the repository). */
bool cpl_engine_file_changed(const struct cpl_engine *e, const char *file);
/* --diff-base: whether f is one the change caused (changed.c). */
bool cpl_engine_finding_changed(struct cpl_engine *e,
				const struct cpl_finding *f);
/* What the caller of cpl_engine_python() needs of a Python file. */
enum py_need {
	PY_SCANNED,	/* its light scan (imports, entry): a file asked
			 * for stays unloaded (engine.c's first scan,
			 * group.c's graph) */
	PY_LOADED,	/* its facts: loaded again when it was unloaded */
};
/* The Python of a source, scanned the first time (a tokenizer error of a
 * target is an input error, reported once) and, when need is PY_LOADED,
 * loaded again when it was unloaded (after the thread loading it, if one
 * is, has finished); NULL for other files. */
const struct cpl_pyfile *cpl_engine_python(struct cpl_engine *e,
					   struct source *src,
					   enum py_need need);
/* The run's linker: the engine's loader (its files as need says), the
 * repository root, the run's memo and, for PY_LOADED, a ready hook that
 * loads unloaded files again. */
void cpl_engine_linker(struct cpl_engine *e, struct cpl_linker *lk,
		       enum py_need need);
/* The processes that run the Python file at path (as the linker names
 * it), in the order they were linked. */
const struct cpl_code_ref *cpl_engine_codes_of(const struct cpl_engine *e,
					       const char *path, size_t *n);
/* "Kind/name" of a workload (with "[replica]"); caller frees. */
char *cpl_engine_object_name(const struct cpl_workload *w);
/* Reads the config files the launchers of w's containers name
 * (accelerate launch --config_file), each file once per run. */
void cpl_engine_launch_configs(struct cpl_engine *e, struct cpl_workload *w);
/*
 * With cpl_engine_drop_texts(), frees the text of a source read from a
 * path once nothing in its group needs it (group.c: a Python file's group
 * judged and the file unloaded, a YAML file's last workload judged), with
 * what was made from it (line index, edit parse).  Otherwise, and for a
 * source still loaded, does nothing.  Main thread only.
 */
void cpl_engine_let_text_go(struct cpl_engine *e, struct source *src);
/*
 * The source at path (NULL when none) with its text: read again, once,
 * if it was let go (a later group's fix or dynamic import, a launcher's
 * config file).  A file that cannot be read again, or that is no longer
 * as long as the text linted, is an error of the run and an empty text.
 * Main thread only.
 */
struct source *cpl_engine_text_source(struct cpl_engine *e,
				      const char *path);
/* src's text, read again if it was let go (as above). */
void cpl_engine_text_back(struct cpl_engine *e, struct source *src);

/* ---- checkrun.c --------------------------------------------------------- */

/* A check context over the run for rule (its index in cpl_rules_all(),
 * for its configured severity; rule NULL until a rule is set). */
void cpl_engine_check(struct cpl_check *ck, struct cpl_engine *e,
		      const struct cpl_rule *rule, size_t index);
/* Marks f suppressed by a comment at its place, an annotation of its
 * workload or a configured ignore, when one applies. */
void cpl_engine_suppress(struct cpl_engine *e, struct cpl_finding *f);

/* ---- kustomize.c -------------------------------------------------------- */

/* Takes the documents of kustomize patch files out of the run, recorded as
 * skipped (before the group graph). */
void cpl_engine_kustomize(struct cpl_engine *e);

/* ---- entrypoint.c ------------------------------------------------------- */

/* Reads the wrapper script or the Dockerfile command each static container
 * runs when its own command launches nothing (before the group graph). */
void cpl_engine_entrypoints(struct cpl_engine *e);

/* ---- group.c ------------------------------------------------------------ */

/* Links, budgets and judges the run's workloads and Python files, group
 * by group (see group.c). */
void cpl_engine_judge(struct cpl_engine *e);
/* Waits until the files being loaded on other threads are (then none
 * is in flight). */
void cpl_engine_crew_wait(struct cpl_engine *e);

/* ---- pipeline.c --------------------------------------------------------- */

/* Whether path (however spelt) is read already or waits to be. */
bool cpl_engine_known(const struct cpl_engine *e, const char *path);
/* Queues a file to read, parse and scan; with --staged its blob is read
 * now (libgit2 stays on this thread).  May flush. */
void cpl_engine_queue(struct cpl_engine *e, const char *path, bool explicit);
/* Reads, parses and scans the queued files, on threads when there are
 * several, then takes their sources, workloads, errors, warnings and
 * notes in the order they were queued: the same run for any -j. */
void cpl_engine_flush(struct cpl_engine *e);
/* The queue a walk handed to other threads while it walked on, finished
 * and taken (a flush does this first); nothing when there is none. */
void cpl_engine_land(struct cpl_engine *e);
/* Frees what pipeline.c keeps in the engine. */
void cpl_engine_pipeline_free(struct cpl_engine *e);

/* ---- reach.c ------------------------------------------------------------ */

/*
 * For the Python files named on their own: loads the repository's
 * workloads whose commands reach one of them (as entry script or through
 * local imports) as context workloads, linked.  No-op outside git or
 * without such files.  Call before linking.
 */
void cpl_engine_reach(struct cpl_engine *e);
/*
 * Keeps a context workload's finding only when it or a related place
 * lies in a named file, and then puts it there (a changed line first);
 * the workload's own place becomes a related one.  Call after the rules
 * and suppressions, before sorting.
 */
void cpl_engine_relocate(struct cpl_engine *e);
/* Frees what reach.c keeps in the engine. */
void cpl_engine_reach_free(struct cpl_engine *e);

/* ---- fixrun.c ----------------------------------------------------------- */

struct cpl_fixres;

/* A resolver of fixes (fix/resolve.h) over the run's texts; the caller
 * frees it (cpl_fixres_free). */
struct cpl_fixres *cpl_engine_fixres(struct cpl_engine *e);
/* Makes f's requests into its edits now (none that name a rendered
 * chart); true when every request was made. */
bool cpl_engine_fix_finding(struct cpl_engine *e, struct cpl_fixres *r,
			    struct cpl_finding *f);
/* Makes the edits of findings [from, to) with r, which keeps the texts
 * it parsed until the run lets them go (group.c). */
void cpl_engine_fix_range(struct cpl_engine *e, struct cpl_fixres *r,
			  size_t from, size_t to);

/* ---- helm.c ------------------------------------------------------------- */

/* Renders the Helm chart in directory chart (met in a walk) once, with
 * helm when it is on PATH, else the built-in subset; adds each rendered
 * template as a source under its own path. */
void cpl_engine_chart(struct cpl_engine *e, const char *chart);
/* Moves findings (and budgets) on rendered sources to the template
 * lines they came from, with values.yaml's line as related (their
 * edits, made later, are dropped by fixrun.c: a rendered text is no
 * file).  Call after suppressions, before sorting. */
void cpl_engine_chart_relocate(struct cpl_engine *e);
/* The chart a walk renders for the chart directory chart: the outermost
 * parent whose charts/ holds it (a subchart renders with its parent).
 * Caller frees. */
char *cpl_engine_chart_root(const char *chart);
/* Whether path names a rendered template. */
bool cpl_engine_chart_rendered(const struct cpl_engine *e,
			       const char *path);
/* Frees what helm.c keeps in the engine. */
void cpl_engine_helm_free(struct cpl_engine *e);

/* ---- overlay.c ---------------------------------------------------------- */

/* A copy of the text given for path, or -1 when none was given. */
int cpl_engine_overlay_read(const struct cpl_engine *e, const char *path,
			    char **text, size_t *len);
/* Frees the texts given (cpl_engine_free). */
void cpl_engine_overlay_free(struct cpl_engine *e);

#endif
