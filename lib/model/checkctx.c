/*
 * checkctx.c — what a rule calls, passed on through the run's table
 * (checkctx.h): the rules' interface of rule.h without a call into the run.
 *
 * Owns nothing: a message formatted here is handed to the run, which
 * takes it.
 */
#include "model/checkctx.h"

#include <stdarg.h>

#include "model/tinput.h"
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

bool
cpl_check_template_input(struct cpl_check *ck, const struct cpl_pos *pos,
			 struct cpl_tinput *out)
{
	const char *text;
	size_t len = 0;
	bool yaml = false;

	if (pos == NULL || pos->file == NULL)
		return false;
	text = ck->ops->text(ck, pos->file, &len, &yaml);
	return text != NULL && yaml &&
	       cpl_tinput_find(out, text, len, NULL, NULL, pos);
}
