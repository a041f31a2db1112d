/*
 * checkctx.h — the context a rule's check runs in, and the table through
 * which rules reach the run.
 *
 * The run fills the table (run/checkrun.c) and hands a struct cpl_check
 * to each rule; the functions of rule.h call through it.  So the rules
 * know nothing of the run that calls them, and no file below the run
 * calls into it.  The edits of fixes are not made here: a rule records
 * them as data (model/fixreq.h) and fix/ makes them after the run.
 *
 * Ownership: findings a report makes, and sources handed out, stay the
 * run's.
 */
#ifndef CPL_CHECKCTX_H
#define CPL_CHECKCTX_H

#include <stdbool.h>
#include <stddef.h>

#include "model/rule.h"
#include "model/workload.h"

struct cpl_engine;	/* the run's: never looked into below the run */

/* What a check asks of the run.  Messages handed in are taken. */
struct cpl_check_ops {
	struct cpl_finding *(*report)(struct cpl_check *ck,
				      const struct cpl_workload *w,
				      const struct cpl_container *c,
				      const struct cpl_pos *pos,
				      char *message);
	void (*note)(struct cpl_check *ck, const struct cpl_workload *w,
		     char *message);
	size_t (*codes_of)(const struct cpl_check *ck, const char *path,
			   const struct cpl_code_ref **out);
	bool (*rule_on)(const struct cpl_check *ck, const char *id);
	double (*throttle_threshold)(const struct cpl_check *ck);
	/* The text of the file read at path (read again if it was let
	 * go), its length and whether it is YAML or JSON, or NULL;
	 * borrowed while the run lasts. */
	const char *(*text)(struct cpl_check *ck, const char *path,
			    size_t *len, bool *yaml);
};

struct cpl_check {
	const struct cpl_check_ops *ops;
	struct cpl_engine *e;
	const struct cpl_rule *rule;
	size_t index;		/* rule's place in cpl_rules_all(): its
				 * configured severity */
};

#endif
