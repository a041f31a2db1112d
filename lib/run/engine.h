/*
 * engine.h — runs a lint: collects sources, builds workloads, runs the
 * rules, applies configuration and suppressions, keeps the findings.
 *
 * Data flows one way: sources → workloads → rules → findings.  Each file is
 * read once and parsed once.  A bad file never stops the others: its
 * problem is kept as an error (cpl_engine_errors) and the run goes on.
 *
 * Ownership: the engine owns everything it returns; pointers are borrowed
 * until cpl_engine_free().
 */
#ifndef CPL_ENGINE_H
#define CPL_ENGINE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <stddef.h>

#include "model/workload.h"
#include "util.h"

struct cpl_engine;

/* The largest file (or standard input) read, in bytes. */
#define CPL_ENGINE_MAX_FILE_BYTES ((size_t)16 << 20)
/*
 * The bytes of input read and parsed at once, over all the -j threads: a
 * file waits for its turn while the files being parsed hold this much (a
 * larger one is parsed alone).  Parsing a file takes about 10-20 times its
 * size at the peak (block YAML about 10, dense flow YAML up to 20), so the
 * transient memory of a run stays near 0.5 GiB whatever -j is, while a
 * tree of ordinary files (a few KiB each) is never held back.
 */
#define CPL_ENGINE_PARSE_BUDGET ((size_t)32 << 20)

struct cpl_engine *cpl_engine_new(void);
void cpl_engine_free(struct cpl_engine *e);	/* NULL-safe */

/*
 * Loads .cpulint.yaml from path.  -1 with err (file, line, column) when it
 * cannot be read or holds an unknown rule or severity.
 */
int cpl_engine_load_config(struct cpl_engine *e, const char *path,
			   struct cpl_error *err);
/*
 * Looks for .cpulint.yaml in dir and its parents up to the first that
 * holds .git; loads it when found.  0 when none was found.
 */
int cpl_engine_find_config(struct cpl_engine *e, const char *dir,
			   struct cpl_error *err);

/*
 * Adds a file or directory.  A directory is walked for Polyaxonfiles,
 * YAML/JSON manifests and Python by the rule set of walk_int.h (the same with
 * or without git).  explicit: named on the command line, so a file that
 * is not a workload (or is a template) is an error rather than skipped.
 */
void cpl_engine_add_path(struct cpl_engine *e, const char *path,
			 bool explicit);
/*
 * Reads, parses and scans files on n threads (-j); n <= 0: as many as the
 * CPUs this process may use (cpus_int.h).  The run is the same for any n.
 */
void cpl_engine_set_jobs(struct cpl_engine *e, int n);
/*
 * Frees each file's text once it is judged rather than at
 * cpl_engine_free(), so that a run's memory follows its report and not
 * the tree: for a run that fixes nothing and quotes no source
 * (cpl_engine_source_text() is then NULL for a file judged).  A text
 * needed again after all is read again.
 */
void cpl_engine_drop_texts(struct cpl_engine *e);

struct cpl_repo;

/*
 * Inside a git repository (repo borrowed, may be NULL): directories are
 * walked the way git lists them (tracked plus untracked-not-ignored), and
 * with staged true every file is read from the index instead of the
 * working tree.  Call before adding paths.
 */
void cpl_engine_set_repo(struct cpl_engine *e, struct cpl_repo *repo,
			 bool staged);
/*
 * Keeps only findings on lines changed since the merge base of HEAD and
 * ref, plus findings whose related places changed (a budget finding whose
 * rank flag or worker count changed).  Needs cpl_engine_set_repo(); -1
 * with err when ref does not resolve.  Call before cpl_engine_run().
 */
int cpl_engine_set_diff_base(struct cpl_engine *e, const char *ref,
			     struct cpl_error *err);

/*
 * Reads text (copied) wherever path is read from now on, instead of the
 * file: --fix and --diff lint their fixed text again before writing it.
 * Call before adding paths.
 */
void cpl_engine_set_text(struct cpl_engine *e, const char *path,
			 const char *text, size_t len);
/* Adds a file's contents from memory (a staged blob); buf is copied. */
/* A Helm option for the charts a walk meets, in the order given:
 * --helm-set K=V (set) or --helm-values FILE. */
void cpl_engine_helm_option(struct cpl_engine *e, bool set,
			    const char *value);
/* How the run rendered Helm charts: "rendered with helm template",
 * "rendered without helm", or NULL when it rendered none. */
const char *cpl_engine_chart_how(const struct cpl_engine *e);
void cpl_engine_add_buffer(struct cpl_engine *e, const char *path,
			   const char *buf, size_t len, bool explicit);
/* Adds a workload built elsewhere (live mode); the engine takes it. */
void cpl_engine_add_workload(struct cpl_engine *e, struct cpl_workload *w);
/* Records an input problem (copied): the run exits 2. */
void cpl_engine_add_error(struct cpl_engine *e, const struct cpl_error *err);
/* Records a problem that does not fail the run (copied), such as a
 * duplicate YAML key or an unknown rule id in a suppression. */
void cpl_engine_add_warning(struct cpl_engine *e, const struct cpl_error *w);

/* Runs every enabled rule once.  Findings are then sorted. */
void cpl_engine_run(struct cpl_engine *e);
/*
 * Makes the edits of the findings' fixes (struct cpl_finding's edits)
 * from what their rules asked for (model/fixreq.h), each file parsed
 * for edits once.  Call after cpl_engine_run() when the findings' edits
 * are used (--fix, --diff, JSON, SARIF, an admission patch); a run that
 * does not call it makes no edit.  Calling it again does nothing.
 */
void cpl_engine_resolve_fixes(struct cpl_engine *e);
/*
 * Says before cpl_engine_run() that the edits will be used: the run then
 * makes them group by group, while each file's text is still held (a
 * text let go is not read again for them), and
 * cpl_engine_resolve_fixes() has only what is left to make.
 */
void cpl_engine_want_edits(struct cpl_engine *e);

const struct cpl_finding *cpl_engine_findings(const struct cpl_engine *e,
					      size_t *n);
/* The threads work on n items may use, the calling one included (-j,
 * else the CPUs this process may use; pipeline.c). */
size_t cpl_engine_threads(struct cpl_engine *e, size_t n);
/* The budget of every training container (cpl_budget_entry), sorted by
 * file, line, object and container; built by cpl_engine_run(). */
const struct cpl_budget_entry *cpl_engine_budgets(const struct cpl_engine *e,
						  size_t *n);
const struct cpl_error *cpl_engine_errors(const struct cpl_engine *e,
					  size_t *n);
const struct cpl_error *cpl_engine_warnings(const struct cpl_engine *e,
					    size_t *n);
/* What the run skipped and why, for -v: a Helm chart's templates, a
 * template met in a walk (path and message; no position). */
const struct cpl_error *cpl_engine_notes(const struct cpl_engine *e,
					 size_t *n);
/* How many files were read as targets (not only as linked code). */
size_t cpl_engine_ntargets(const struct cpl_engine *e);
/* The workloads loaded and the documents skipped (for tests and
 * --verbose); after cpl_engine_run() also the TrainJobs merged with their
 * runtimes, the parts they were made of flagged merged. */
const struct cpl_wlist *cpl_engine_workloads(const struct cpl_engine *e);

/* The text of a file the engine read, or NULL; borrowed. */
const char *cpl_engine_source_text(const struct cpl_engine *e,
				   const char *path, size_t *len);

/* Whether the file the engine read at path is YAML or JSON (not
 * Python). */
bool cpl_engine_source_is_yaml(const struct cpl_engine *e, const char *path);

/*
 * Whether the regular file st names (an existing --output-file) is one
 * this run read and judged: Python, YAML that held a workload, a wrapper
 * script or Dockerfile a container runs, or the configuration loaded.
 * A report written there would replace it.  path: the file as named (its
 * base name narrows the sources compared).
 */
bool cpl_engine_judged_file(const struct cpl_engine *e, const char *path,
			    const struct stat *st);

/* The configured throttling threshold in percent (default 10). */

#endif
