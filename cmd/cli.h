/*
 * cli.h — what the command's files share: the flag table (the one list of
 * flags: getopt, --help, completion and the manual page all read it), the
 * parsed options, and the ways to run (static paths, live objects, shell
 * completion).  Private to cmd/ (and tools/genman.c, which writes the
 * manual page from the same table).
 */
#ifndef CPL_CLI_H
#define CPL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "live/live.h"
#include "model/finding.h"
#include "report/jsonw.h"
#include "report/report.h"
#include "report/wbuf.h"
#include "text/atomic.h"

#define EXIT_CLEAN 0
#define EXIT_FINDINGS 1
#define EXIT_TROUBLE 2

/* The path that names standard input (-f -), and its name in reports. */
#define CLI_STDIN "-"
#define CLI_STDIN_NAME CPL_REPORT_STDIN

/* getopt's values for flags without a short letter. */
enum cli_opt {
	OPT_FORMAT = 256, OPT_OUTPUT_FILE, OPT_FAIL_ON, OPT_CONFIG,
	OPT_NO_CONFIG, OPT_EXPLAIN, OPT_LIST_RULES, OPT_VERSION, OPT_COLOR,
	OPT_STAGED, OPT_DIFF_BASE, OPT_IGNORE_UNKNOWN, OPT_KUBECONFIG,
	OPT_CONTEXT, OPT_CLUSTER, OPT_USER, OPT_REQUEST_TIMEOUT,
	OPT_INSECURE, OPT_SAMPLE, OPT_LIVE_TIMEOUT, OPT_BUDGET,
	OPT_PROMETHEUS, OPT_WINDOW, OPT_PROM_TOKEN, OPT_PROM_CA,
	OPT_PROM_INSECURE, OPT_FIX, OPT_UNSAFE_FIXES, OPT_DIFF, OPT_JOBS,
	OPT_FORCE, OPT_LISTEN, OPT_TLS_CERT, OPT_TLS_KEY, OPT_DENY_ON,
	OPT_NO_AUDIT, OPT_AUDIT_INTERVAL, OPT_NODE_PROXY, OPT_BASELINE, OPT_WRITE_BASELINE,
	OPT_MAX, OPT_SEGMENT, OPT_PLAN_JOBS, OPT_REPEAT, OPT_THROUGHPUT, OPT_WAIT,
	OPT_KEEP_FIX, OPT_KEEP_DIFF, OPT_HELM_VALUES, OPT_HELM_SET, OPT_PLOT,
	OPT_MUTATE, OPT_MUTATE_DRY_RUN,
	OPT_LEADER_ELECT, OPT_LEASE_DURATION,
};

/* What a flag's value is: how completion offers it. */
enum cli_value {
	CLI_NONE,		/* the flag takes no value */
	CLI_TEXT,		/* free text: nothing to offer */
	CLI_FILE,		/* a file or directory name */
	CLI_FORMAT,		/* an output format */
	CLI_RULE,		/* a rule id or name */
	CLI_SEVERITY,		/* error, warning, note, none */
	CLI_COLOR,		/* auto, always, never */
	CLI_NAMESPACE,		/* a namespace of the cluster */
};

/*
 * What a flag of the main table stores in struct options, at its dest
 * (git's OPT_BOOL(..., &opt.x)); cpl_cli_flag_set() does it.
 */
enum cli_kind {
	CLI_OWN,	/* read by its own code: an action (--help,
			 * --version, --explain, --list-rules, compare's
			 * --fix/--diff FILE) */
	CLI_BOOL,	/* sets the bool at dest */
	CLI_STR,	/* sets the const char * at dest (the last wins) */
	CLI_STRS,	/* appends to the const char * array at dest, its
			 * size_t count at count; with a tag, a copy of the
			 * value after the tag letter (the options own it) */
	CLI_INT,	/* a decimal in [min, max] into the int at dest */
	CLI_SEV,	/* error, warning, note or none into the enum
			 * cpl_severity at dest */
	CLI_ENUM,	/* one of choices into the const char * at dest */
	CLI_DUR,	/* a duration (30s, 5m) of at least min and, when
			 * max > 0, at most max seconds into the double at
			 * dest */
	CLI_KV,		/* NAME=VALUE (a '=', not first) into the const
			 * char * at dest */
};

/* The subcommands that take a flag of the main table too (subs). */
enum cli_sub_bit {
	CLI_PLAN = 1 << 0,
	CLI_COMPARE = 1 << 1,
};

/* Which of the options' marks a flag sets when given (mark). */
enum cli_mark {
	CLI_MARK_NONE,
	CLI_MARK_LIVE,		/* live_flags: a flag of live mode */
	CLI_MARK_SERVE,		/* serve_flags: a flag of serve */
};

/* One flag.  The table is in --help order; group opens a new heading. */
struct cli_flag {
	int id;			/* getopt's value: the letter or an OPT_ */
	char letter;		/* short form; 0: none */
	const char *name;	/* long form, without "--" */
	const char *arg;	/* the value's name ("FILE"); NULL: none */
	enum cli_value value;	/* what the value is */
	const char *group;	/* heading this flag opens, or NULL */
	const char *help;	/* what it does; '\n' breaks --help's lines */
	enum cli_kind kind;	/* what it stores (CLI_OWN: nothing) */
	size_t dest;		/* offsetof(struct options, ...) */
	size_t count;		/* CLI_STRS: offsetof its count */
	size_t also;		/* offsetof a bool it sets too; 0: none */
	char tag;		/* CLI_STRS: the letter before each value */
	double min, max;	/* CLI_INT, CLI_DUR: the bounds */
	const char *takes;	/* CLI_INT, CLI_ENUM, CLI_DUR: what the
				 * value must be, for the message */
	const char *const *choices;	/* CLI_ENUM: NULL-terminated */
	enum cli_mark mark;	/* the mark it sets in the options */
	unsigned subs;		/* enum cli_sub: who else takes it */
};

/* The flags, in --help order; *n is set to their number. */
const struct cli_flag *cpl_cli_flags(size_t *n);
/* The flag called name ("output") or with letter c; NULL: none. */
const struct cli_flag *cpl_cli_flag_long(const char *name, size_t len);
const struct cli_flag *cpl_cli_flag_short(char c);
/*
 * One subcommand, the first word of a command line (as tmux's struct
 * cmd_entry is one command): its words for --help and the manual, its
 * own flags and which of the main table's it takes too, and what runs
 * it.  The table (flags.c) is the one list: main() dispatches from it,
 * --help, the manual and sub --help print from it.
 */
struct cli_sub {
	const char *name;	/* the word: "plan" */
	const char *usage;	/* its line in --help's usage; NULL: not
				 * listed (__complete) */
	const char *what;	/* beside it, what it does */
	const char *synopsis;	/* sub --help's usage line and the
				 * manual's heading; NULL: no page of its
				 * own (serve reads the main table) */
	const struct cli_flag *flags;	/* its own flags, in --help order
					 * (the first opens its heading) */
	size_t nflags;
	unsigned bit;		/* enum cli_sub_bit: the main table's
				 * flags it takes too (their subs) */
	int (*run)(int argc, char **argv);	/* the exit status */
	int skip;		/* the words run does not get: 1 leaves
				 * the word as argv[0], as getopt_long
				 * expects */
};

/* The subcommands, in --help order; *n is set to their number. */
const struct cli_sub *cpl_cli_subs(size_t *n);
/* The subcommand whose word is word, or NULL. */
const struct cli_sub *cpl_cli_sub_find(const char *word);
/* Whether the main table's flag f is one sub takes too. */
bool cpl_cli_sub_shares(const struct cli_sub *sub, const struct cli_flag *f);
/* Prints sub's usage (sub --help): its flags, then the shared ones. */
void cpl_cli_sub_usage(FILE *out, const struct cli_sub *sub);
struct options;
/*
 * Stores flag f's value arg (NULL for a flag without one) in o as its
 * kind says, with its mark and also; -1 after saying what the flag
 * takes (one line, cpl_cli_say(), who first: "kubectl-cpulint plan")
 * when arg is not such a value.  f is not CLI_OWN.
 */
int cpl_cli_flag_set(struct options *o, const struct cli_flag *f,
		     const char *arg, const char *who);
/* The main table's flag whose getopt value is id, or NULL. */
const struct cli_flag *cpl_cli_flag_id(int id);

/* A walk over one command's flags (cpl_cli_flag_next()). */
struct cli_walk {
	const struct cli_sub *sub;	/* NULL: the main table */
	char *who;		/* messages' first words */
	struct option *longopts;	/* getopt's, from the table */
	char *shortopts;
};

/* What cpl_cli_flag_next() found. */
enum cli_next {
	CLI_END,		/* no flag left: optind is the first operand */
	CLI_FLAG,		/* a flag, *f, its value stored */
	CLI_BAD_VALUE,		/* a value its flag refuses: said */
	CLI_UNKNOWN,		/* not a flag of the table, or one without
				 * its value: nothing said (optopt, and
				 * argv[optind - 1], name it) */
};

/* Starts a walk over the flags of sub (NULL: the main command, lint and
 * serve) from argv[1]; cpl_cli_walk_end() frees it. */
void cpl_cli_walk_begin(struct cli_walk *w, const struct cli_sub *sub);
void cpl_cli_walk_end(struct cli_walk *w);
/*
 * Reads the next flag of argv with getopt_long (optind, optarg as
 * getopt leaves them; kubectl's "-o=json" read as "-o json"), stores
 * its value in o where its row says (cpl_cli_flag_set()) and returns
 * CLI_FLAG with *f its row: a CLI_OWN flag is the caller's to act on,
 * and the caller may check a stored one further.
 */
enum cli_next cpl_cli_flag_next(struct cli_walk *w, struct options *o,
				int argc, char **argv,
				const struct cli_flag **f);
/* Prints the usage (--help) from the table. */
void cpl_cli_usage(FILE *out);
/* The main command's synopsis lines (each with what it does) and the
 * exit status text --help and the manual share. */
extern const char *const cpl_cli_synopsis[];
extern const char cpl_cli_exit_status[];

/*
 * Prints one line on standard error: fmt (the tool's words: no control
 * character, no final newline) with its arguments, the whole line
 * escaped (report/escape.h) so that no value from an input ends it,
 * drives a terminal or commands a CI runner; then '\n'.  The only way
 * cmd/ writes to stderr (say.c; make lint checks).
 */
void cpl_cli_say(const char *fmt, ...) CPL_PRINTF(1, 2);

/* Options, as documented in the flag table and README.md. */
struct options {
	const char *format;	/* -o, --output, --format */
	const char *output_file;	/* --output-file */
	enum cpl_severity fail_on;	/* --fail-on */
	const char *config;	/* --config */
	bool no_config;		/* --no-config */
	const char *color;	/* --color auto|always|never */
	bool verbose;		/* -v */
	bool quiet;		/* -q: text, the finding lines only */
	const char *baseline;	/* --baseline FILE */
	const char *write_baseline;	/* --write-baseline FILE */
	struct cli_baseline *known;	/* --baseline's fingerprints */
	int jobs;		/* -j, --jobs: threads; 0 = the CPUs we may
				 * use */
	bool budget;		/* --budget: the budget table (text) */
	bool staged;		/* --staged: lint the index */
	bool ignore_unknown;	/* --ignore-unknown: named non-workloads
				 * are skipped, as in a directory walk */
	const char *diff_base;	/* --diff-base REF */
	bool fix;		/* --fix: apply fixes in place */
	bool unsafe_fixes;	/* --unsafe-fixes: unsafe ones too */
	bool force;		/* --force: --fix rewrites read-only,
				 * hard-linked and others' files too */
	bool diff;		/* --diff: print what --fix would do */
	const char **helm;	/* 'f'FILE (--helm-values), 's'K=V
				 * (--helm-set); xcalloc'd, strings owned */
	size_t nhelm;
	const char **paths;	/* positional paths and -f ("-": stdin) */
	size_t npaths;
	const char **live;	/* TYPE/NAME targets */
	size_t nlive;
	char **owned;		/* TYPE/NAME strings made from TYPE NAME */
	size_t nowned;
	struct cpl_live_opts lo;	/* live flags (kubectl's) */
	bool live_flags;	/* one of them was given */
	bool serve;		/* the serve subcommand (serve.c) */
	bool serve_flags;	/* one of its flags was given */
	const char *listen;	/* --listen ADDR:PORT */
	const char *tls_cert;	/* --tls-cert-file */
	const char *tls_key;	/* --tls-private-key-file */
	enum cpl_severity deny_on;	/* --deny-on; OFF: never deny */
	bool no_audit;		/* --no-audit */
	bool mutate;		/* --mutate: serve /mutate */
	bool mutate_dry_run;	/* --mutate-dry-run: /mutate only
				 * annotates */
	bool node_proxy;	/* --node-proxy: the audit reads cAdvisor */
	double audit_interval;	/* --audit-interval seconds; 0: 60 */
	bool leader_elect;	/* --leader-elect: audit in the Lease's
				 * holder only (live/lease.h) */
	double lease_duration;	/* --leader-elect-lease-duration s; 0: 15 */
	int max;		/* plan --max N; 0: none */
	const char *segment;	/* plan --segment NAME=VALUE */
	bool plan_jobs;		/* plan --jobs: plain manifests */
	int repeat;		/* plan --repeat N; 0: once */
	const char *throughput;	/* compare --throughput EXPR */
	const char *wait;	/* compare --wait EXPR */
	const char *keep;	/* compare --fix FILE or --diff FILE */
	bool keep_diff;		/* it was --diff FILE */
	const char *plot;	/* compare --plot FILE */
};

/* Where the report goes (output.c): stdout or --output-file. */
struct cli_output {
	FILE *fp;		/* write the report here */
	const char *shown;	/* FILE as given, for messages */
	struct cpl_atomic file;	/* FILE being replaced (atomic.h) */
};

/*
 * Opens where the report goes: std (stdout, or stderr when --fix writes
 * standard input's fixed text to stdout) when path is NULL, else a
 * temporary file beside path.  -1 after printing one message.
 */
int cpl_cli_output_open(struct cli_output *o, const char *path, FILE *std);
/*
 * Refuses (-1, with the message printed) a file to write (flag: its
 * flag without "--", "output-file" or "write-baseline") that is one of
 * the paths given (the same file, by device and inode, also through
 * another name or a link) or the file standard input reads: the report
 * would replace the input.  A NULL path is skipped.  Run before
 * anything is read.
 */
int cpl_cli_output_guard(const char *flag, const char *output,
			 const char *const *paths, size_t n);
/*
 * Finishes the report: with failed false, flushes, syncs and renames the
 * temporary file over FILE.  failed (writing the report failed, errno
 * says why) or any failure here: removes the temporary file, prints one
 * message and returns -1.
 */
int cpl_cli_output_close(struct cli_output *o, bool failed);
/* Drops an unfinished report: FILE is left as it was. */
void cpl_cli_output_abort(struct cli_output *o);
/* "SERVER/OWNER/REPO/blob/SHA/" from GITHUB_SERVER_URL (http or https,
 * host and port only), GITHUB_REPOSITORY (OWNER/REPO of [A-Za-z0-9._-])
 * and GITHUB_SHA (40 or 64 hex digits), for -o markdown's links; NULL
 * when one is unset or not of that form.  Caller frees. */
char *cpl_cli_link_base(void);
struct cpl_report_ado;
/* In Azure Pipelines (TF_BUILD true and every variable below set and
 * well-formed: SYSTEM_COLLECTIONURI, SYSTEM_TEAMPROJECTID,
 * BUILD_DEFINITIONID, BUILD_DEFINITIONNAME, SYSTEM_PHASEID or
 * SYSTEM_JOBID, SYSTEM_PHASENAME or SYSTEM_JOBNAME, BUILD_SOURCEBRANCH,
 * BUILD_BUILDID), fills a (strings borrowed from the environment; the
 * organisation copied into org, n bytes) and returns true. */
bool cpl_cli_ado(struct cpl_report_ado *a, char *org, size_t n);

/* The fingerprints of a --baseline file (baseline.c). */
struct cli_baseline;

/*
 * Reads path (our baseline JSON, or a SARIF log the tool wrote); -1
 * after one message naming the file (and line:col when it is not JSON).
 */
int cpl_cli_baseline_load(struct cli_baseline **out, const char *path);
/* Whether the baseline holds fingerprint; false for a NULL baseline. */
bool cpl_cli_baseline_has(const struct cli_baseline *b,
			  const char *fingerprint);
size_t cpl_cli_baseline_size(const struct cli_baseline *b);
void cpl_cli_baseline_free(struct cli_baseline *b);	/* NULL-safe */

/* A --write-baseline file being written (complete or absent). */
struct cli_baseline_out {
	const char *path;	/* NULL: not writing */
	struct cli_output out;
	struct cpl_wbuf w;
	struct cpl_jsonw j;
	size_t n;		/* findings written */
};

/* Starts writing path; -1 after a message. */
int cpl_cli_baseline_begin(struct cli_baseline_out *b, const char *path);
/* Adds one finding (nothing when b is not writing). */
void cpl_cli_baseline_add(struct cli_baseline_out *b, const char *rule,
			  const char *file, int line,
			  const char *fingerprint, const char *message);
/* Finishes (abort: drops it, the old file stays); -1 after a message. */
int cpl_cli_baseline_end(struct cli_baseline_out *b, bool abort);

/* Lints the paths in o; returns the exit status. */
int cpl_cli_run_static(struct options *o, int argc, char **argv);

struct cpl_engine;
struct cpl_repo;

/* What every pass of a static run shares (run.c): read once. */
struct cli_static {
	struct options *o;
	int argc;
	char **argv;
	const char *first;	/* where the configuration is looked for */
	struct cpl_repo *repo;	/* NULL outside git; owned */
	struct cpl_error repo_err;	/* a repository that would not open */
	char *stdin_text;	/* standard input (-), read once; owned */
	size_t stdin_len;
	struct cpl_error stdin_err;	/* it could not be read */
};

/* A file --fix or --diff changes (fix.c): its text as linted, and now. */
struct cli_fixfile {
	char *path;		/* as the engine names it */
	char *orig;		/* the bytes first linted */
	size_t olen;
	char *text;		/* after the fixes so far */
	size_t len;
	size_t passes;		/* passes that changed it */
	struct cpl_patch_region *regions;	/* of the one pass */
	size_t nregions;
};

/*
 * Lints afresh (a new engine, the caller frees it), reading the texts of
 * fx (n of them) instead of their files (standard input's too).
 */
struct cpl_engine *cpl_cli_lint(const struct cli_static *st,
				const struct cli_fixfile *fx, size_t n);
/* Frees what static_open read. */
void cpl_cli_static_close(struct cli_static *st);
/* Renders the findings (to std or --output-file); the exit status. */
int cpl_cli_report(const struct options *o, struct cpl_engine *e,
		   const char *srcroot, int argc, char **argv, FILE *std);
/* Prints the run's warnings and input errors to stderr. */
void cpl_cli_print_errors(const struct cpl_engine *e);
/* Prints one input problem p as "file:line:col: what: message". */
void cpl_cli_print_problem(const struct cpl_error *p, const char *what);
/* Loads .cpulint.yaml into e (--config, or found from dir upwards). */
void cpl_cli_load_config(const struct options *o, struct cpl_engine *e,
			 const char *dir);
/* -v: what the run skipped, loaded and merged (stderr). */
void cpl_cli_verbose(const struct cpl_engine *e);
/* Says on stderr when no file was read at all. */
void cpl_cli_no_files(const struct cpl_engine *e);
/* --fix and --diff (fix.c); returns the exit status. */
int cpl_cli_run_fix(struct cli_static *st);
/* --unsafe-fixes without --fix: how many fixes --fix would apply. */
void cpl_cli_fix_hint(const struct cpl_engine *e);
/* Runs `serve` with o (serve.c); returns the exit status. */
int cpl_cli_serve(struct options *o);
/* Lints the live targets in o; returns the exit status. */
int cpl_cli_run_live(struct options *o, int argc, char **argv);

/* The subcommands' runs (cpl_cli_subs()): argv[0] is the subcommand's
 * word; the exit status.  serve reads the main command's flags
 * (kubectl-cpulint.c), plan and compare their own (plan.c,
 * compare.c). */
int cpl_cli_serve_main(int argc, char **argv);
/* The main command: lint paths or live targets, or an action (--help,
 * --explain ...); main() runs it when no subcommand is named. */
int cpl_cli_lint_main(int argc, char **argv);
int cpl_cli_plan(int argc, char **argv);
int cpl_cli_compare(int argc, char **argv);
struct cpl_compare;
struct cpl_verdict;
/* compare --fix FILE / --diff FILE (keep.c): writes the verdict's best
 * setting into file (diff: prints the diff instead); the exit status. */
int cpl_cli_compare_keep(const char *file, bool diff,
			 const struct cpl_compare *c,
			 const struct cpl_verdict *v);

/*
 * compare's table drawn (comparechart.c), appended to b: text bars of
 * each setting's examples/s (CPU used without a throughput figure) and
 * throttled share (color: the best in green, for a terminal); an SVG of
 * the same; an HTML page with the SVG, the table and the verdict.
 */
void cpl_cli_compare_chart(struct cpl_buf *b, const struct cpl_compare *c,
			   const struct cpl_verdict *v, bool color);
void cpl_cli_compare_svg(struct cpl_buf *b, const struct cpl_compare *c,
			 const struct cpl_verdict *v);
void cpl_cli_compare_html(struct cpl_buf *b, const struct cpl_compare *c,
			  const struct cpl_verdict *v);

/*
 * Shell completion: words are the arguments typed so far, the last one
 * being the word under the cursor ("" for a new word), as kubectl gives
 * them to kubectl_complete-cpulint.  Prints one candidate per line, then
 * ":DIRECTIVE" (cobra's), and returns 0.  Never prints to stderr.
 */
int cpl_cli_complete(int nwords, char **words);

#endif
