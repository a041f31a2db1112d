/* report_sarif.c — STUB until the sarif reporter lands (see report.h). */
#include "report.h"

static void *
begin(FILE *out, const struct cpl_report_meta *meta)
{
	(void)meta;
	return out;
}

static void
emit(void *state, const struct cpl_finding *f)
{
	(void)state; (void)f;
}

static int
end(void *state)
{
	(void)state;
	return 0;
}

const struct cpl_reporter cpl_report_sarif = {
	.name = "sarif", .begin = begin, .emit = emit, .end = end,
};
