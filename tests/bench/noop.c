/*
 * noop.c — the start-up floor of make bench's pre-commit row: a process
 * that does nothing.  The Makefile builds it three ways (static, dynamic
 * with the C library only, and dynamic with every library the dev binary
 * links), so the row shows what exec, the dynamic loader and the
 * libraries' constructors cost before the linter runs a line of its own.
 * Includes nothing.
 */
int
main(void)
{
	return 0;
}
