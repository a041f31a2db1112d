/*
 * flagset.c — stores a flag's value where the flag table (flags.c) says:
 * the one place a value given on the command line is checked and put
 * into struct options.  Apart from flags.c so that tools/genman.c, which
 * links the table, need not link the command's messages (say.c).  The
 * strings stored are argv's, borrowed, except a tagged one (--helm-set),
 * which the options own.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The member of o at offset at. */
#define MEMBER(type, o, at) ((type *)(void *)((char *)(o) + (at)))

int
cpl_cli_flag_set(struct options *o, const struct cli_flag *f,
		 const char *arg)
{
	const char *const *c;
	double *d;
	char *end;
	long n;

	switch (f->kind) {
	case CLI_OWN:
		return -1;
	case CLI_BOOL:
		*MEMBER(bool, o, f->dest) = true;
		break;
	case CLI_STR:
		*MEMBER(const char *, o, f->dest) = arg;
		break;
	case CLI_STRS: {
		const char **v = *MEMBER(const char **, o, f->dest);
		size_t *count = MEMBER(size_t, o, f->count);

		v[(*count)++] = f->tag ? cpl_xasprintf("%c%s", f->tag, arg) :
					 arg;
		break;
	}
	case CLI_INT:
		n = strtol(arg, &end, 10);
		if (end == arg || *end != '\0' || n < f->min || n > f->max) {
			cpl_cli_say("kubectl-cpulint: --%s takes %s, not "
				    "\"%s\"", f->name, f->takes, arg);
			return -1;
		}
		*MEMBER(int, o, f->dest) = (int)n;
		break;
	case CLI_SEV:
		if (cpl_severity_parse(MEMBER(enum cpl_severity, o, f->dest),
				       arg) < 0) {
			cpl_cli_say("kubectl-cpulint: --%s takes error, "
				    "warning, note or none, not \"%s\"",
				    f->name, arg);
			return -1;
		}
		break;
	case CLI_ENUM:
		for (c = f->choices; *c && strcmp(*c, arg) != 0; c++)
			;
		if (*c == NULL) {
			cpl_cli_say("kubectl-cpulint: --%s takes %s", f->name,
				    f->takes);
			return -1;
		}
		*MEMBER(const char *, o, f->dest) = arg;
		break;
	case CLI_DUR:
		d = MEMBER(double, o, f->dest);
		if (cpl_live_parse_duration(d, arg) < 0 || *d < f->min ||
		    (f->max > 0 && *d > f->max)) {
			cpl_cli_say("kubectl-cpulint: --%s takes %s, not "
				    "\"%s\"", f->name, f->takes, arg);
			return -1;
		}
		break;
	}
	if (f->also != 0)
		*MEMBER(bool, o, f->also) = true;
	if (f->mark == CLI_MARK_LIVE)
		o->live_flags = true;
	else if (f->mark == CLI_MARK_SERVE)
		o->serve_flags = true;
	return 0;
}
