/*
 * shlaunch_int.h — the shell wing's models of the programs it knows by name
 * (shlaunch.c): the launchers with their flag tables, python's own
 * options, and the commands that read the host's CPU count.
 *
 * Private to lib/shell/: only shlaunch.c and shscan.c include it.  It may
 * include shell/launch.h and shell/shlex_int.h, never a higher wing or the
 * core's model.
 *
 * Everything here reads words the lexer has split (struct sword) and
 * answers with indexes into them; nothing is allocated or kept.
 */
#ifndef CPL_SHELL_SHLAUNCH_H
#define CPL_SHELL_SHLAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "shell/launch.h"
#include "shell/shlex_int.h"

/* What a launching command was found to be, as indexes into its words. */
struct launchrec {
	enum cpl_launcher l;
	size_t lw, lfrom;	/* launcher word, where its name starts */
	bool has_nproc;
	size_t nw, nfrom;	/* rank-count value word, where it starts */
	bool has_opt[CPL_LOPT_COUNT];	/* the other options kept */
	size_t ow[CPL_LOPT_COUNT], ofrom[CPL_LOPT_COUNT];
	unsigned flags;		/* CPL_LFLAG_* */
	bool has_script;
	bool module;
	bool setup;		/* python running no script, pip, setup.py */
	size_t sw, sfrom;	/* script word, where it starts */
	size_t a0;		/* first script argument */
};

/* Recognises the launcher starting at word ci of w[0, n) into r; false
 * when it is none. */
bool cpl_shlaunch_recognise(struct launchrec *r, const struct sword *w,
			    size_t n, size_t ci);

/* True when the command reads the host's CPU count: nproc, getconf
 * _NPROCESSORS_*, /proc/cpuinfo, lscpu, python ... cpu_count(). */
bool cpl_shlaunch_reads_host(const struct sh_cmd *c);

/* python, python3, python3.11 ...: "python" then digits and dots. */
bool cpl_shlaunch_is_python(const char *base);

#endif
