/*
 * flagset.c — reads a command's flags with getopt_long and stores each
 * value where the flag table (flags.c) says: the one place a value given
 * on the command line is checked and put into struct options, for the
 * main command, serve, plan and compare alike.  The strings stored are
 * argv's, borrowed, except a tagged one (--helm-set), which the options
 * own.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The member of o at offset at. */
#define MEMBER(type, o, at) ((type *)(void *)((char *)(o) + (at)))

int
cpl_cli_flag_set(struct options *o, const struct cli_flag *f,
		 const char *arg, const char *who)
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
			cpl_cli_say("%s: --%s takes %s, not \"%s\"", who,
				    f->name, f->takes, arg);
			return -1;
		}
		*MEMBER(int, o, f->dest) = (int)n;
		break;
	case CLI_SEV:
		if (cpl_severity_parse(MEMBER(enum cpl_severity, o, f->dest),
				       arg) < 0) {
			cpl_cli_say("%s: --%s takes error, warning, note or "
				    "none, not \"%s\"", who, f->name, arg);
			return -1;
		}
		break;
	case CLI_ENUM:
		for (c = f->choices; *c && strcmp(*c, arg) != 0; c++)
			;
		if (*c == NULL) {
			cpl_cli_say("%s: --%s takes %s", who, f->name,
				    f->takes);
			return -1;
		}
		*MEMBER(const char *, o, f->dest) = arg;
		break;
	case CLI_DUR:
		d = MEMBER(double, o, f->dest);
		if (cpl_live_parse_duration(d, arg) < 0 || *d < f->min ||
		    (f->max > 0 && *d > f->max)) {
			cpl_cli_say("%s: --%s takes %s, not \"%s\"", who,
				    f->name, f->takes, arg);
			return -1;
		}
		break;
	case CLI_KV:
		if (strchr(arg, '=') == NULL || arg[0] == '=') {
			cpl_cli_say("%s: --%s takes %s, not \"%s\"", who,
				    f->name, f->takes, arg);
			return -1;
		}
		*MEMBER(const char *, o, f->dest) = arg;
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

/* Adds flag f to getopt's tables (*k of lo filled, b the short ones). */
static void
add_getopt(struct option *lo, size_t *k, struct cpl_buf *b,
	   const struct cli_flag *f)
{
	lo[*k].name = f->name;
	lo[*k].has_arg = f->arg ? required_argument : no_argument;
	lo[*k].val = f->id;
	(*k)++;
	if (f->letter) {
		cpl_buf_addc(b, f->letter);
		if (f->arg)
			cpl_buf_addc(b, ':');
	}
}

void
cpl_cli_walk_begin(struct cli_walk *w, const struct cli_sub *sub)
{
	size_t n, i, k = 0;
	const struct cli_flag *all = cpl_cli_flags(&n);
	struct cpl_buf b;

	w->sub = sub;
	w->who = sub ? cpl_xasprintf("kubectl-cpulint %s", sub->name) :
		 cpl_xstrdup("kubectl-cpulint");
	w->longopts = cpl_xcalloc((sub ? sub->nflags : 0) + n + 1,
				  sizeof(*w->longopts));
	cpl_buf_init(&b, 0);
	for (i = 0; sub && i < sub->nflags; i++)
		add_getopt(w->longopts, &k, &b, &sub->flags[i]);
	for (i = 0; i < n; i++)
		if (sub == NULL || cpl_cli_sub_shares(sub, &all[i]))
			add_getopt(w->longopts, &k, &b, &all[i]);
	w->shortopts = cpl_buf_detach(&b);
	if (w->shortopts == NULL)
		w->shortopts = cpl_xstrdup("");
	optind = 1;
	opterr = 0;	/* the caller says it, escaped (cpl_cli_say) */
}

void
cpl_cli_walk_end(struct cli_walk *w)
{
	free(w->who);
	free(w->longopts);
	free(w->shortopts);
	w->who = NULL;
	w->longopts = NULL;
	w->shortopts = NULL;
}

/* The row of w's tables whose getopt value is id, or NULL. */
static const struct cli_flag *
walk_flag(const struct cli_walk *w, int id)
{
	size_t i;

	for (i = 0; w->sub && i < w->sub->nflags; i++)
		if (w->sub->flags[i].id == id)
			return &w->sub->flags[i];
	return cpl_cli_flag_id(id);
}

enum cli_next
cpl_cli_flag_next(struct cli_walk *w, struct options *o, int argc,
		  char **argv, const struct cli_flag **f)
{
	int c = getopt_long(argc, argv, w->shortopts, w->longopts, NULL);

	*f = NULL;
	if (c == -1)
		return CLI_END;
	if (c == '?' || c == ':' || (*f = walk_flag(w, c)) == NULL)
		return CLI_UNKNOWN;
	/* kubectl (pflag) reads "-o=json" as "-o json". */
	if (optarg && optarg == argv[optind - 1] + 2 && optarg[0] == '=')
		optarg++;
	if ((*f)->kind != CLI_OWN &&
	    cpl_cli_flag_set(o, *f, optarg, w->who) < 0)
		return CLI_BAD_VALUE;
	return CLI_FLAG;
}
