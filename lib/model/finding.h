/*
 * finding.h — a finding (what a rule reports) and its severity.
 *
 * Plain data: rules fill findings through the check context (rule.h),
 * the engine applies configuration and suppressions, reporters render.
 * Ownership: every string and array is owned by the finding; the engine
 * frees them.  rule is borrowed from the static registry.
 */
#ifndef CPL_FINDING_H
#define CPL_FINDING_H

#include <stdbool.h>
#include <stddef.h>

#include "model/workload.h"

enum cpl_severity {
	CPL_SEV_OFF = 0,	/* disabled (config); never reported */
	CPL_SEV_NOTE,
	CPL_SEV_WARNING,
	CPL_SEV_ERROR,
};

/* "note", "warning", "error", "off". */
const char *cpl_severity_name(enum cpl_severity s);
/* -1 when the name is none of the above ("none" parses as OFF). */
int cpl_severity_parse(enum cpl_severity *out, const char *name);

/* Another place that explains the finding (a rank flag, num_workers). */
struct cpl_related {
	char *file;
	int line;
	int column;
	char *message;
};

/*
 * A concrete edit: replace [line:column, end_line:end_column) of file with
 * text; an insertion when the range is empty.  Columns are 1-based.
 */
struct cpl_edit {
	char *file;
	int line;
	int column;
	int end_line;
	int end_column;
	char *text;
};

struct cpl_rule;
struct cpl_fixreq;

/*
 * How safe a finding's edits are to apply unattended (ruff's
 * applicability): --fix applies safe edits, --unsafe-fixes unsafe ones
 * too.  Safe edits change only thread variables and add what is missing
 * (env entries, the /dev/shm volume); unsafe ones change what the job is
 * given or does (CPU requests and limits, rank counts, code).
 */
enum cpl_fix_safety {
	CPL_FIX_SAFE = 0,
	CPL_FIX_UNSAFE,
};

/* "safe", "unsafe". */
const char *cpl_fix_safety_name(enum cpl_fix_safety s);

struct cpl_finding {
	const struct cpl_rule *rule;
	enum cpl_severity severity;	/* after configuration */
	char *file;			/* NULL for live objects: the
					 * one mark of a live finding */
	int line;
	int column;
	char *object;			/* "PyTorchJob/resnet" or
					 * "pod/ml/train-0" */
	char *container;		/* NULL for code findings */
	char *message;
	char *fix;			/* one or more sentences */
	struct cpl_related *related;
	size_t nrelated;
	struct cpl_edit *edits;
	size_t nedits;
	enum cpl_fix_safety fix_safety;	/* of the edits, all or none */
	/* What the fix asks to change (model/fixreq.h), until fix/
	 * resolves it into edits (fix/resolve.h); then none. */
	struct cpl_fixreq *reqs;
	size_t nreqs;
	/* Live: how many Pods of one owner show this same finding (the
	 * object then names the owner); 0 or 1 for one object. */
	unsigned long pods;
	bool suppressed;		/* inline cpulint: disable, an
					 * ignore-check annotation or a
					 * configured ignore */
	char *suppression;		/* why: "inline comment at line 4",
					 * or the reason given */
	bool suppressed_external;	/* by the configuration, outside
					 * the source (SARIF "external") */
	/* The container the finding judges (borrowed from the engine's
	 * workloads; NULL for code findings).  Lets the engine relate a
	 * budget finding to the code its container runs. */
	const struct cpl_container *origin;
	/* The workload of origin (borrowed likewise; NULL for code
	 * findings): its annotations and identity for ignores. */
	const struct cpl_workload *workload;
	/* The engine's last sort key: the order it was reported in, so
	 * that findings equal in every other key keep that order. */
	uint64_t order;
	/* What identifies it across runs (report/fingerprint.h), set by
	 * the command on the copy it hands the reporters; borrowed, never
	 * freed with the finding.  NULL: the reporter computes it. */
	const char *fingerprint;
};

void cpl_finding_free(struct cpl_finding *f);	/* frees members, not f */

/* Where one number of a budget came from: text NULL when nothing sets it. */
struct cpl_budget_how {
	char *text;			/* "torchrun --nproc_per_node 4" */
	char *file;			/* NULL: no position */
	int line;
	int column;
};

/* The most pool variables a budget entry lists for `plan`. */
#define CPL_BUDGET_POOL_VARS 4

/* A native pool beside the intra-op threads (model/pools.h), for the
 * budget entry: those that count, that size to the node, or that run with
 * a size cpulint cannot read. */
struct cpl_budget_pool {
	char *name;			/* "OpenBLAS" */
	long threads;			/* its size; -1 unknown or unset */
	long counted;			/* busy threads it adds per rank or
					 * per worker (n - 1; 0 when not
					 * counted) */
	bool in_workers;		/* it runs in the loader workers */
	bool node_default;		/* unset: the library sizes it to the
					 * node's cores (CPU306) */
	bool unread;			/* used, its size not read here */
	struct cpl_budget_how how;	/* what sizes it */
	struct cpl_budget_how use;	/* the call that uses it */
};

/*
 * The CPU budget of one training container (DESIGN.md's arithmetic), for
 * every training container whether or not a rule fires: the JSON
 * "budgets", SARIF run properties and the text --budget table.  Counts
 * are -1 and CPUs negative when unknown.  Live containers may carry what
 * was measured (measured true).
 */
struct cpl_budget_entry {
	char *object;			/* "PyTorchJob/resnet[Worker]" */
	char *container;
	char *file;			/* NULL for live objects */
	int line;
	double cpu_request;		/* CPUs; < 0 unknown */
	double cpu_limit;
	long ranks;
	long threads;			/* intra-op threads per rank */
	long workers;			/* loader workers per rank */
	long busy;			/* ranks x (threads + workers + what
					 * the other pools add) */
	long per_rank;			/* B = floor(C / ranks) */
	long suggested_threads;
	long suggested_workers;
	long min_workers;		/* the least the code takes: 1 when a
					 * DataLoader needs workers
					 * (persistent_workers=True), else 0 */
	bool loader;			/* the split is for a loader: not known
					 * to run no workers */
	const char *busy_loader;	/* why the workers get the larger
					 * share: "decodes images", "computes
					 * per sample"; "" none (static) */
	struct cpl_budget_how how_cpu;
	struct cpl_budget_how how_ranks;
	struct cpl_budget_how how_threads;
	struct cpl_budget_how how_workers;
	bool measured;
	const char *source;		/* "cadvisor", "prometheus" (static) */
	double window_s;		/* seconds measured over (0 unknown) */
	bool since_start;		/* the window is the container's life */
	bool window_clamped;		/* the window is the time it has run,
					 * shorter than the one asked for */
	char *measure_notes;		/* what was not measured or is out of
					 * range, and why: one per line */
	double m_threads;		/* measured; < 0 unknown */
	double cpu_used;		/* CPUs over the window; < 0 unknown */
	double throttled_pct;		/* < 0 unknown */
	uint64_t seq;			/* the engine's order of making
					 * (workload, container): the sort's
					 * last key */
	char *measured_pod;		/* live, several Pods: whose figures
					 * (the most throttled); else NULL */
	unsigned long pods;		/* live: Pods of one owner with this
					 * spec (object names the owner); 0 */
	struct cpl_budget_pool *pools;	/* other native pools; owned */
	size_t npools;
	/* What `plan` sets beside threads and workers: the pools whose
	 * size is a count written in the env (model/pools.h,
	 * cpl_pools_env_sized), their variables (static), sizes as
	 * written and whether they run in the loader workers; and how
	 * many pools a share is split between (cpl_pools_share_n), of the
	 * rank and of the workers.  Not reported. */
	const char *pool_vars[CPL_BUDGET_POOL_VARS];
	long pool_written[CPL_BUDGET_POOL_VARS];
	bool pool_in_workers[CPL_BUDGET_POOL_VARS];
	size_t npool_vars;
	long pools_rank;
	long pools_workers;
};

void cpl_finding_budget_free(struct cpl_budget_entry *b); /* members */

/* A finding's fix line (printf-formatted), replacing any before. */
void cpl_finding_set_fix(struct cpl_finding *f, const char *fmt, ...)
	CPL_PRINTF(2, 3);
void cpl_finding_add_related(struct cpl_finding *f, const struct cpl_pos *pos,
			     const char *fmt, ...) CPL_PRINTF(3, 4);
/* Edit replacing [pos, end_line:end_column) with text (see cpl_edit). */
void cpl_finding_add_edit(struct cpl_finding *f, const struct cpl_pos *pos,
			  int end_line, int end_column, const char *text);

#endif
