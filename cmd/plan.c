/*
 * plan.c — `kubectl cpulint plan [flags] FILE...`: lints the files, then
 * writes one sweep per document with training containers (lib/plan/planrun.h)
 * as YAML on standard output (or --output-file), and says on standard
 * error what each plan is.  Exit status: 0 when every document with a
 * training container got its plan, 2 otherwise (usage, unreadable input,
 * a document no plan can be written for).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli.h"
#include "plan/planrun.h"
#include "run/engine.h"

/* Reads the flags into o (flags.c's plan row and the shared ones); -1
 * (status set) to stop. */
static int
parse(struct options *o, int argc, char **argv, int *status)
{
	struct cli_walk w;
	const struct cli_flag *f;
	enum cli_next next;
	int rc = 0;

	*status = EXIT_TROUBLE;
	cpl_cli_walk_begin(&w, cpl_cli_sub_find("plan"));
	while ((next = cpl_cli_flag_next(&w, o, argc, argv, &f)) ==
	       CLI_FLAG) {
		if (f->id == 'h') {
			cpl_cli_sub_usage(stdout, w.sub);
			*status = EXIT_CLEAN;
			rc = -1;
			break;
		}
	}
	if (next == CLI_UNKNOWN)
		cpl_cli_say("kubectl-cpulint plan: unknown or incomplete "
			    "option \"%s\" (see plan --help)",
			    argv[optind - 1]);
	if (next != CLI_END)
		rc = -1;
	cpl_cli_walk_end(&w);
	return rc;
}

int
cpl_cli_plan(int argc, char **argv)
{
	struct options o = { 0 };
	struct cpl_planrun_opts p = { 0 };
	struct cpl_planrun r = { 0 };
	struct cli_output out = { 0 };
	struct cpl_engine *e = NULL;
	struct cpl_error err = { 0 };
	struct cpl_buf yaml;
	struct stat ost;
	const char *const *paths;
	size_t i, nerr;
	int status;

	cpl_buf_init(&yaml, 0);
	if (parse(&o, argc, argv, &status) < 0)
		return status;
	p.max = o.max;
	p.segment = o.segment;
	p.jobs = o.plan_jobs;
	p.repeat = o.repeat;
	status = EXIT_TROUBLE;
	if (optind >= argc) {
		cpl_cli_say("kubectl-cpulint plan: name the Polyaxonfiles or "
			    "manifests to plan (see plan --help)");
		return status;
	}
	paths = (const char *const *)argv + optind;
	if (o.output_file &&
	    (cpl_cli_output_guard("output-file", o.output_file, paths,
				  (size_t)(argc - optind)) < 0 ||
	     cpl_cli_output_guard("output-file", o.output_file, &o.config,
				  1) < 0))
		return status;
	e = cpl_engine_new();
	if (o.config) {
		if (cpl_engine_load_config(e, o.config, &err) < 0)
			cpl_engine_add_error(e, &err);
	} else if (!o.no_config) {
		if (cpl_engine_find_config(e, paths[0], &err) < 0)
			cpl_engine_add_error(e, &err);
	}
	cpl_error_clear(&err);
	for (i = 0; paths[i]; i++)
		cpl_engine_add_path(e, paths[i], true);
	cpl_engine_run(e);
	cpl_cli_print_errors(e);
	/* A file the run read (a wrapper script, a Dockerfile, the
	 * configuration) is an input too. */
	if (o.output_file && stat(o.output_file, &ost) == 0 &&
	    S_ISREG(ost.st_mode) &&
	    cpl_engine_judged_file(e, o.output_file, &ost)) {
		cpl_cli_say("kubectl-cpulint: --output-file %s is a file this "
			    "run read: the plan would replace it (write the "
			    "plan elsewhere)", o.output_file);
		goto out;
	}
	cpl_engine_errors(e, &nerr);
	cpl_planrun(&r, &yaml, e, &p);
	for (i = 0; i < r.nerrors; i++) {
		char *m = cpl_error_format(&r.errors[i]);

		cpl_cli_say("%s", m);
		free(m);
	}
	for (i = 0; i < r.ndone; i++)
		cpl_cli_say("kubectl-cpulint plan: %s: %s, %zu settings "
			    "(%s%s%s)%s%.0ld%s for %s (%s:%d)", r.done[i].id,
			    r.done[i].engine, r.done[i].settings,
			    r.done[i].workers ? "threads, then workers" :
			    "threads", r.done[i].current[0] ?
			    ", then the job as written, " : "",
			    r.done[i].current, r.done[i].repeat > 1 ?
			    ", each run " : "", r.done[i].repeat > 1 ?
			    r.done[i].repeat : 0L, r.done[i].repeat > 1 ?
			    " times" : "",
			    r.done[i].object, r.done[i].file, r.done[i].line);
	if (r.ndone == 0 && r.nerrors == 0 && nerr == 0)
		cpl_cli_say("kubectl-cpulint plan: no training container in "
			    "the files named: nothing to plan");
	if (r.ndone > 0) {
		if (cpl_cli_output_open(&out, o.output_file, stdout) < 0)
			goto out;
		fputs(cpl_buf_str(&yaml), out.fp);
		if (cpl_cli_output_close(&out, ferror(out.fp) != 0) < 0)
			goto out;
	}
	if (r.ndone > 0 && r.nerrors == 0 && nerr == 0)
		status = EXIT_CLEAN;
out:
	cpl_planrun_free(&r);
	cpl_buf_free(&yaml);
	cpl_engine_free(e);
	return status;
}
