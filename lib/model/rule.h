/*
 * rule.h — the rule descriptor and the context a rule's check runs in.
 *
 * Each rules/<id>_<name>.c defines one `const struct cpl_rule` with
 * designated initialisers and keeps everything else static.  The registry
 * (rules/rules.def, an X-macro) lists them once; cpl_rules_all() returns
 * that table in id order.
 *
 * A rule reports through cpl_check_report() and decorates the returned
 * finding with a fix sentence, related locations and what the fix asks
 * to change (model/fixreq.h: plain data, made into edits by fix/ only
 * when an edit is asked for); it never prints and never parses.  The engine owns every finding.
 */
#ifndef CPL_RULE_H
#define CPL_RULE_H

#include <stddef.h>

#include "model/finding.h"
#include "model/workload.h"
#include "util.h"

struct cpl_check;	/* opaque: the engine's per-run context */
struct cpl_pyfile;	/* one scanned Python file (pyscan.h) */
struct cpl_tinput;	/* a Polyaxon input a template reads (tinput.h) */

struct cpl_rule {
	const char *id;		/* "CPU101": stable */
	const char *name;	/* "cpu-request-missing": kebab-case */
	enum cpl_severity severity;	/* default */
	const char *summary;	/* one sentence: when it fires */
	const char *precision;	/* SARIF precision: very-high|high|medium */
	bool live_only;		/* needs a running Pod (CPU501) */
	/* Runs once per container of each workload (NULL: none). */
	void (*check_container)(struct cpl_check *ck,
				const struct cpl_workload *w,
				const struct cpl_container *c);
	/* Runs once per Python file (NULL: none). */
	void (*check_code)(struct cpl_check *ck, const struct cpl_pyfile *f);
};

/* The registry, sorted by id; *n receives the count. */
const struct cpl_rule *const *cpl_rules_all(size_t *n);
const struct cpl_rule *cpl_rule_find(const char *id_or_name);
/* The rule's documentation (rules/ID.md), or NULL. */
const char *cpl_rule_doc(const struct cpl_rule *r);

/*
 * Reports a finding of the running rule at pos (file NULL: the workload's
 * live object).  w and c may be NULL for code findings.  The message is
 * printf-formatted.  Returns the finding to decorate; it stays owned by
 * the engine.
 */
struct cpl_finding *cpl_check_report(struct cpl_check *ck,
				     const struct cpl_workload *w,
				     const struct cpl_container *c,
				     const struct cpl_pos *pos,
				     const char *fmt, ...) CPL_PRINTF(5, 6);
/*
 * The Polyaxon input whose value the template {{ NAME }} written at pos
 * (or later on its line) reads, when its value is a plain count
 * (model/tinput.h); false otherwise.  The file is parsed only when the
 * line holds a template.
 */
bool cpl_check_template_input(struct cpl_check *ck, const struct cpl_pos *pos,
			      struct cpl_tinput *out);

/* A process that runs a Python file, and the file's place in it. */
struct cpl_code_ref {
	const struct cpl_code *code;
	size_t file;		/* code->files[file] is the file */
	const struct cpl_workload *w;	/* the container that runs the */
	const struct cpl_container *c;	/* process; NULL: a script linted
					 * on its own */
};

/*
 * The linked processes that run Python file f: the containers whose
 * command runs it or a module that imports it, and the entry scripts
 * linted on their own that import it (cpl_link_is_entry()), in the order
 * linked; *out is borrowed.  Returns how many; 0 when f runs in none (it
 * is then judged alone).  A rule that judges per process reports a
 * finding once, at the first process that shows it.
 */
size_t cpl_check_codes_of(const struct cpl_check *ck,
			  const struct cpl_pyfile *f,
			  const struct cpl_code_ref **out);

/* Says why the running rule is silent where a reader would expect it
 * (shown with -v, after the workload's file and the rule's id). */
void cpl_check_note(struct cpl_check *ck, const struct cpl_workload *w,
		    const char *fmt, ...) CPL_PRINTF(3, 4);

/* Whether rule id runs in this lint (not turned off in the
 * configuration): a rule leaves a problem to another only when that one
 * runs. */
bool cpl_check_rule_on(const struct cpl_check *ck, const char *id);

/* Configuration the rules may read: the throttling threshold (percent). */
double cpl_check_throttle_threshold(const struct cpl_check *ck);

#endif
