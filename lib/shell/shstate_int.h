/*
 * shstate_int.h — the state of one cpl_shscan() call, shared by the lexer
 * (shlex.c) and the scanner (shscan.c), and the scanner's functions the
 * lexer reports to (the two call each other: the scanner runs the lexer,
 * which hands each command back).
 *
 * Private to lib/shell/: only shlex.c and shscan.c include it (shlaunch.c
 * needs words, not a scan).  It may include shell/launch.h, shell/shlex_int.h,
 * text/ and util.h, never a higher wing or the core's model.
 *
 * Ownership: struct sh_scan lives on cpl_shscan()'s stack.  The lexer owns
 * the line index and the pending here-documents in it; the scanner owns
 * everything else and frees all of it (scan_free() in shscan.c) before
 * cpl_shscan() returns.  argv, nodes and the stream are borrowed.
 */
#ifndef CPL_SHELL_SHSTATE_H
#define CPL_SHELL_SHSTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "shell/launch.h"
#include "shell/shlex_int.h"

#define MAX_HEREDOCS 16		/* here-documents pending on one line */

struct hc;			/* shscan.c: a pending host-count read */
struct sh_var;			/* shscan.c: a shell variable */

/* A here-document whose body starts after the current line. */
struct heredoc {
	char *delim;
	bool strip_tabs;	/* <<- */
};

/* Everything one cpl_shscan() call works with. */
struct sh_scan {
	struct cpl_launch *out;
	const struct cpl_word *argv;
	size_t argc;
	const struct cpl_ynode *const *nodes;
	const struct cpl_ystream *ys;
	const struct src *top;	/* the script, when there is one */
	bool file;		/* argv[0] is a whole script file's text,
				 * at line 1, column 1 */
	/* Line index of the script word (exact positions); the lexer's. */
	size_t *lines;
	size_t nlines;
	int line0;
	int col0;
	/* Host-count reads of the current top-level command. */
	struct hc *hcs;
	size_t nhcs;
	size_t caphcs;
	size_t hostseen;	/* host-count reads seen, capped or not */
	size_t caphc_out;
	size_t capexp_out;
	/* Shell variables: open addressing, power-of-two slots. */
	struct sh_var **slots;
	size_t nslots;
	size_t nvars;
	/* Here-documents opened on the current line; the lexer's. */
	struct heredoc heredocs[MAX_HEREDOCS];
	size_t nheredocs;
	/* Control flow seen so far at the top level. */
	int cond_depth;		/* inside if/while/until/for/case */
	bool next_cond;		/* the next command runs conditionally */
	bool chain_cond;	/* the current one did, or was a test */
	int launched;		/* 0 none, 1 tentative, 2 found */
	struct cpl_launch tent;	/* a setup command, kept as a fallback */
};

/* ---- shscan.c: what the lexer reports to the scanner ------------------ */

/* The host-count read src[start, end) of the current command; derived
 * when it is a use of a variable holding a host count. */
void cpl_shscan_hostread(struct sh_scan *sc, const struct src *src,
			 size_t start, size_t end, bool derived);
/* A use (src[start, end)) of the variable called by the n bytes at name:
 * when it holds a host count, it may size too. */
void cpl_shscan_varuse(struct sh_scan *sc, const struct src *src,
		       size_t start, size_t end, const char *name, size_t n);
/* A finished command, to its handler (the top level, or the check for
 * host-count reads inside a substitution); c is cleared. */
void cpl_shscan_finish(struct sh_scan *sc, struct sh_frame *fr,
		       struct sh_cmd *c, enum conn conn);

#endif
