/*
 * say.c — the one way the command writes a line on standard error:
 * errors, warnings, notes, -v lines and the summaries of --fix and
 * --diff.  A message is the tool's own words with values from inputs in
 * them (file names, object names, server answers, flag values); the
 * whole line is escaped as report/escape.h says (every control character
 * shown as \n, \x1b..., no ':' first on the line, no "##["), so no value
 * can end the line, drive a terminal or command a CI runner that reads
 * standard error.  `make lint` keeps every other cmd/ file from writing
 * to stderr directly.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "report/escape.h"
#include "util.h"

void
cpl_cli_say(const char *fmt, ...)
{
	struct cpl_buf msg, line;
	va_list ap;

	cpl_buf_init(&msg, 0);
	cpl_buf_init(&line, 0);
	va_start(ap, fmt);
	cpl_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	cpl_escape(&line, cpl_buf_str(&msg), msg.len, CPL_ESC_RUNNER);
	cpl_buf_addc(&line, '\n');
	fwrite(cpl_buf_str(&line), 1, line.len, stderr);
	cpl_buf_free(&msg);
	cpl_buf_free(&line);
}
