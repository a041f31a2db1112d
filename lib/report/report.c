/*
 * report.c — the table of reporters (one file per format: text.c, json.c,
 * sarif.c, github.c, junit.c, gitlab.c, markdown.c).
 */
#include "report/report.h"

#include <string.h>

extern const struct cpl_reporter cpl_report_text;
extern const struct cpl_reporter cpl_report_json;
extern const struct cpl_reporter cpl_report_sarif;
extern const struct cpl_reporter cpl_report_github;
extern const struct cpl_reporter cpl_report_junit;
extern const struct cpl_reporter cpl_report_gitlab;
extern const struct cpl_reporter cpl_report_markdown;

static const struct cpl_reporter *const reporters[] = {
	&cpl_report_text,
	&cpl_report_json,
	&cpl_report_sarif,
	&cpl_report_github,
	&cpl_report_junit,
	&cpl_report_gitlab,
	&cpl_report_markdown,
};

const struct cpl_reporter *
cpl_reporter_find(const char *name)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(reporters); i++)
		if (strcmp(reporters[i]->name, name) == 0)
			return reporters[i];
	return NULL;
}

const char *
cpl_reporter_names(void)
{
	return "text|json|sarif|github|junit|gitlab|markdown";
}

const struct cpl_reporter *
cpl_reporter_at(size_t i)
{
	return i < CPL_ARRAY_LEN(reporters) ? reporters[i] : NULL;
}
