/*
 * run.c — the command's two runs (static paths, live objects): opens
 * the repository, reads standard input ("-") once, runs the lint (lint.c)
 * and, with --fix or --diff, the fix passes (fix.c).  Flag parsing stays
 * in kubectl-cpulint.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "git/repo.h"
#include "kube/curlso.h"
#include "run/engine.h"
#include "util.h"


static void
log_line(void *ctx, const char *line)
{
	(void)ctx;
	cpl_cli_say("kubectl-cpulint: %s", line);
}

/* Lints live objects; returns the exit status. */
int
cpl_cli_run_live(struct options *o, int argc, char **argv)
{
	const struct cpl_curlso *cu;
	struct cpl_error err = { 0 };
	struct cpl_engine *e;
	struct cpl_buf notes;
	const char *p, *nl;
	int status;

	/* libcurl is loaded only now; without it, one line says so before
	 * anything else (kubeconfig, cluster) can fail. */
	if (cpl_curlso_load(&cu, &err) < 0) {
		cpl_cli_say("kubectl-cpulint: error: %s", err.message);
		cpl_error_clear(&err);
		return EXIT_TROUBLE;
	}
	e = cpl_engine_new();
	cpl_buf_init(&notes, 1 << 20);
	cpl_cli_load_config(o, e, ".");
	/* Exec plugins' stderr stays closed even with -v: their output may
	 * hold credentials. */
	if (o->verbose)
		o->lo.log = log_line;
	cpl_live_collect(e, o->live, o->nlive, &o->lo, &notes);
	cpl_engine_run(e);
	if (strcmp(o->format, "json") == 0 || strcmp(o->format, "sarif") == 0)
		cpl_engine_resolve_fixes(e);
	status = cpl_cli_report(o, e, NULL, argc, argv, stdout);
	for (p = cpl_buf_str(&notes); *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			break;
		cpl_cli_say("kubectl-cpulint: note: %.*s", (int)(nl - p), p);
	}
	cpl_buf_free(&notes);
	cpl_engine_free(e);
	return status;
}

/*
 * Reads standard input once, at most the engine's file limit (*buf NULL
 * and err set when it cannot): a stream of YAML/JSON documents (helm
 * template, kustomize build, kubectl get -o yaml), linted as one source
 * named <stdin>.
 */
static void
read_stdin(char **out, size_t *outlen, struct cpl_error *err)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = cpl_xmalloc(cap);
	ssize_t got;

	*out = NULL;
	*outlen = 0;
	for (;;) {
		if (len == cap) {
			if (cap > CPL_ENGINE_MAX_FILE_BYTES) {
				cpl_error_set(err, CLI_STDIN_NAME, 0, 0,
					      "standard input is larger than "
					      "the limit of %zu bytes",
					      CPL_ENGINE_MAX_FILE_BYTES);
				goto out;
			}
			cap *= 2;
			if (cap > CPL_ENGINE_MAX_FILE_BYTES)
				cap = CPL_ENGINE_MAX_FILE_BYTES + 1;
			buf = cpl_xrealloc(buf, cap);
		}
		got = read(STDIN_FILENO, buf + len, cap - len);
		if (got == 0)
			break;
		if (got < 0) {
			if (errno == EINTR)
				continue;
			cpl_error_set(err, CLI_STDIN_NAME, 0, 0, "cannot "
				      "read standard input: %s",
				      strerror(errno));
			goto out;
		}
		len += (size_t)got;
	}
	*out = buf;
	*outlen = len;
	buf = NULL;
out:
	free(buf);
}

/*
 * Opens the repository and reads standard input, once for every pass.
 * -1 after a message when the run cannot start.
 */
static int
static_open(struct cli_static *st, struct options *o, int argc,
	    char **argv)
{
	struct cpl_error err = { 0 };
	struct cpl_engine *probe;
	size_t i;

	memset(st, 0, sizeof(*st));
	st->o = o;
	st->argc = argc;
	st->argv = argv;
	/* Standard input has no directory: look from the current one. */
	st->first = strcmp(o->paths[0], CLI_STDIN) == 0 ? "." : o->paths[0];
	switch (cpl_repo_open(&st->repo, st->first, &err)) {
	case 0:
		break;
	case 1:
		if (o->staged || o->diff_base) {
			cpl_cli_say("kubectl-cpulint: %s: not in a git "
				    "repository, so %s cannot be used",
				    st->first, o->staged ? "--staged" :
				    "--diff-base");
			return -1;
		}
		break;
	default:
		if (o->staged || o->diff_base) {
			cpl_cli_print_problem(&err, "error");
			cpl_error_clear(&err);
			return -1;
		}
		st->repo_err = err;
		memset(&err, 0, sizeof(err));
	}
	if (o->diff_base) {
		probe = cpl_engine_new();
		cpl_engine_set_repo(probe, st->repo, o->staged);
		if (cpl_engine_set_diff_base(probe, o->diff_base,
					     &err) < 0) {
			cpl_cli_say("kubectl-cpulint: --diff-base %s: %s",
				    o->diff_base, err.message);
			cpl_error_clear(&err);
			cpl_engine_free(probe);
			return -1;
		}
		cpl_engine_free(probe);
	}
	for (i = 0; i < o->npaths; i++) {
		if (strcmp(o->paths[i], CLI_STDIN) == 0) {
			read_stdin(&st->stdin_text, &st->stdin_len,
				   &st->stdin_err);
			break;
		}
	}
	return 0;
}

void
cpl_cli_static_close(struct cli_static *st)
{
	cpl_repo_free(st->repo);
	cpl_error_clear(&st->repo_err);
	cpl_error_clear(&st->stdin_err);
	free(st->stdin_text);
	memset(st, 0, sizeof(*st));
}

/*
 * The engine of a static run once its report is out: the process ends
 * next and its memory goes with it, so it is not freed block by block (a
 * twentieth of a run over a large tree).  It stays reachable from here,
 * so a leak checker counts it as held, not lost.  Sanitizer builds
 * (CPL_FREE_AT_EXIT: make asan, make tsan) free it, and the free path
 * stays checked; --fix and live runs always free theirs.
 */
#ifndef CPL_FREE_AT_EXIT
/* The engine held to the end (volatile: the compiler may not drop the
 * store as never read, so a leak checker still sees it). */
static struct cpl_engine *volatile held_engine;
#endif

static void
engine_done(struct cpl_engine *e)
{
#ifdef CPL_FREE_AT_EXIT
	cpl_engine_free(e);
#else
	held_engine = e;
#endif
}

/* Runs the static lint and reports; returns the exit status. */
int
cpl_cli_run_static(struct options *o, int argc, char **argv)
{
	struct cli_static st;
	struct cpl_engine *e;
	int status;

	if (cpl_cli_output_guard("output-file", o->output_file, o->paths,
				 o->npaths) < 0 ||
	    cpl_cli_output_guard("write-baseline", o->write_baseline,
				 o->paths, o->npaths) < 0)
		return EXIT_TROUBLE;
	if (static_open(&st, o, argc, argv) < 0) {
		cpl_cli_static_close(&st);
		return EXIT_TROUBLE;
	}
	if (o->fix || o->diff) {
		status = cpl_cli_run_fix(&st);
		cpl_cli_static_close(&st);
		return status;
	}
	e = cpl_cli_lint(&st, NULL, 0);
	if (o->verbose)
		cpl_cli_verbose(e);
	status = cpl_cli_report(o, e, st.repo ? cpl_repo_root(st.repo) :
				NULL, argc, argv, stdout);
	if (o->unsafe_fixes)
		cpl_cli_fix_hint(e);
	cpl_cli_no_files(e);
	engine_done(e);
	cpl_cli_static_close(&st);
	return status;
}
