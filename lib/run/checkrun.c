/*
 * checkrun.c — the run's side of the check table (checkctx.h): a rule's
 * report becomes one of the run's findings with its configured severity
 * and order key; notes, linked processes, the rules turned on, the
 * throttling threshold and source texts come from the run's state.
 * The edits of the findings' fixes are made after the run, and only
 * when asked for (cpl_engine_resolve_fixes(), fixrun.c).
 * Then each finding is marked suppressed where a comment, an annotation
 * or the configuration says so (cpl_engine_suppress).
 *
 * Ownership: findings are the engine's (cpl_engine_free); a message
 * handed in is taken.
 */
#include "run/engine_int.h"

#include <stdlib.h>
#include <string.h>

#include "model/rule.h"
#include "run/suppress_int.h"

static struct cpl_finding *
run_report(struct cpl_check *ck, const struct cpl_workload *w,
	   const struct cpl_container *c, const struct cpl_pos *pos,
	   char *message)
{
	struct cpl_engine *e = ck->e;
	struct cpl_finding *f;

	CPL_GROW(e->res.findings, e->res.findings_cap, e->res.nfindings + 1);
	f = &e->res.findings[e->res.nfindings++];
	memset(f, 0, sizeof(*f));
	f->rule = ck->rule;
	f->severity = cpl_config_severity(e->set.config, ck->index);
	f->order = e->res.order++;	/* group.c keys each part of the run */
	if (pos && pos->file) {
		f->file = cpl_xstrdup(pos->file);
		f->line = pos->line;
		f->column = pos->column;
	}
	if (w) {
		f->object = cpl_engine_object_name(w);
		if (f->file == NULL && w->file) {
			f->file = cpl_xstrdup(w->file);
			f->line = w->pos.line;
			f->column = w->pos.column;
		}
	}
	if (c && c->name)
		f->container = cpl_xstrdup(c->name);
	f->origin = c;
	f->workload = w;
	f->message = message;
	return f;
}

static void
run_note(struct cpl_check *ck, const struct cpl_workload *w, char *message)
{
	cpl_engine_note(ck->e, w && w->file ? w->file : "-", "%s: %s",
			ck->rule->id, message);
	free(message);
}

static size_t
run_codes_of(const struct cpl_check *ck, const char *path,
	     const struct cpl_code_ref **out)
{
	size_t n;

	*out = cpl_engine_codes_of(ck->e, path, &n);
	return n;
}

static bool
run_rule_on(const struct cpl_check *ck, const char *id)
{
	const struct cpl_rule *const *rules;
	size_t n, i;

	rules = cpl_rules_all(&n);
	for (i = 0; i < n; i++)
		if (strcmp(rules[i]->id, id) == 0)
			return cpl_config_severity(ck->e->set.config, i) !=
			       CPL_SEV_OFF;
	return false;
}

static double
run_throttle_threshold(const struct cpl_check *ck)
{
	return cpl_config_threshold(ck->e->set.config);
}

static const char *
run_text(struct cpl_check *ck, const char *path, size_t *len, bool *yaml)
{
	const struct source *src = cpl_engine_text_source(ck->e, path);

	*len = src ? src->len : 0;
	*yaml = src && src->kind == FILE_YAML;
	return src ? src->text : NULL;
}

static const struct cpl_check_ops run_ops = {
	.report = run_report,
	.note = run_note,
	.codes_of = run_codes_of,
	.rule_on = run_rule_on,
	.throttle_threshold = run_throttle_threshold,
	.text = run_text,
};

void
cpl_engine_check(struct cpl_check *ck, struct cpl_engine *e,
		 const struct cpl_rule *rule, size_t index)
{
	ck->ops = &run_ops;
	ck->e = e;
	ck->rule = rule;
	ck->index = index;
}

/*
 * Marks a finding suppressed by, in order: an inline comment at its place,
 * an ignore-check annotation of its workload, a configured ignore that
 * matches its workload.
 */
void
cpl_engine_suppress(struct cpl_engine *e, struct cpl_finding *f)
{
	const struct source *src = cpl_engine_find_source(e, f->file);
	const struct cpl_workload *w = f->workload;
	const char *why = NULL, *reason = NULL;
	size_t i;
	int at;

	at = src ? cpl_suppress_match_why(src->sup, f->rule->id, f->line,
					  &reason) : 0;
	if (at != 0) {
		f->suppressed = true;
		f->suppression = reason ? cpl_xstrdup(reason) : at < 0 ?
			cpl_xstrdup("cpulint: disable-file comment") :
			cpl_xasprintf("cpulint: disable comment at line %d",
				      at);
		return;
	}
	if (w == NULL)
		return;
	for (i = 0; i < w->nignores; i++) {
		const struct cpl_wignore *ig = &w->ignores[i];

		if (cpl_rule_find(ig->rule) != f->rule)
			continue;
		f->suppressed = true;
		f->suppression = *ig->reason ? cpl_xstrdup(ig->reason) :
				 cpl_xasprintf("annotation %s%s",
					       CPL_IGNORE_ANNOTATION,
					       ig->rule);
		return;
	}
	if (cpl_config_ignored(e->set.config, f->rule->id, w->kind, w->name,
			       w->namespace, &why)) {
		f->suppressed = true;
		f->suppressed_external = true;
		f->suppression = cpl_xstrdup(why);
	}
}
