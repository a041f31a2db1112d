/*
 * main.c — the program's entry: sends the command line to shell
 * completion (started as kubectl_complete-cpulint), to the subcommand
 * its first word names (flags.c's table: serve, plan, compare,
 * __complete), or else to the main command (kubectl-cpulint.c).  Apart
 * from the rest of cmd/ so that tools/genman.c links the tables without
 * a second main.
 */
#include <string.h>

#include "cli.h"

/* The word a program was started as, without its directory. */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int
main(int argc, char **argv)
{
	const struct cli_sub *sub;

	/* kubectl runs kubectl_complete-cpulint (a link to this program)
	 * for `kubectl cpulint <TAB>`; the shell scripts run __complete. */
	if (argc > 0 && strncmp(base_name(argv[0]), "kubectl_complete-",
				17) == 0)
		return cpl_cli_complete(argc - 1, argv + 1);
	/* A subcommand is the first word (a file called "plan" is
	 * ./plan); the words after it are its own. */
	sub = argc > 1 ? cpl_cli_sub_find(argv[1]) : NULL;
	if (sub != NULL)
		return sub->run(argc - sub->skip, argv + sub->skip);
	return cpl_cli_lint_main(argc, argv);
}
