/*
 * checkctx.c — what a rule calls, passed on through the run's table
 * (checkctx.h): the rules' interface of rule.h without a call into the run.
 *
 * Owns nothing: a message formatted here is handed to the run, which
 * takes it.
 */
#include "model/checkctx.h"

#include <stdarg.h>

#include "python/pyscan.h"
#include "util.h"

struct cpl_finding *
cpl_check_report(struct cpl_check *ck, const struct cpl_workload *w,
		 const struct cpl_container *c, const struct cpl_pos *pos,
		 const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	return ck->ops->report(ck, w, c, pos, msg);
}

void
cpl_check_note(struct cpl_check *ck, const struct cpl_workload *w,
	       const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	ck->ops->note(ck, w, msg);
}

size_t
cpl_check_codes_of(const struct cpl_check *ck, const struct cpl_pyfile *f,
		   const struct cpl_code_ref **out)
{
	return ck->ops->codes_of(ck, f->path, out);
}

bool
cpl_check_rule_on(const struct cpl_check *ck, const char *id)
{
	return ck->ops->rule_on(ck, id);
}

double
cpl_check_throttle_threshold(const struct cpl_check *ck)
{
	return ck->ops->throttle_threshold(ck);
}

struct source *
cpl_check_source(struct cpl_check *ck, const char *path)
{
	return ck->ops->source(ck, path);
}

void
cpl_check_edit_parsed(struct cpl_check *ck, struct source *src)
{
	ck->ops->edit_parsed(ck, src);
}
