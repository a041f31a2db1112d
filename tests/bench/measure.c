/*
 * measure.c — runs one command N times for make bench and prints, per run,
 * its wall time, its peak memory, its exit status and its CPU time (user +
 * system):
 *
 *   measure [-n N] [-o FILE] [-C DIR] -- PROGRAM [ARG...]
 *   prints N lines "SECONDS MAXRSS_KIB STATUS CPU_SECONDS"
 *
 * Standard input is /dev/null, standard output goes to FILE (default
 * /dev/null), standard error to /dev/null; DIR is the working directory.
 *
 * Why not Python's own spawn: Linux carries the parent's peak resident
 * set over into a child's ru_maxrss at exec, so a child of the Python
 * driver never reports less than the interpreter's ~17 MiB.  This program
 * is linked statically and allocates nothing, so the floor it adds is what
 * noop-static reports (well under 1 MiB), and the time it measures is fork
 * to wait4, without an interpreter in between.  Includes only libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Seconds since an arbitrary start, from the monotonic clock. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A struct timeval in seconds. */
static double
seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* Points fd at path (opened with flags), or exits the child. */
static void
redirect(int fd, const char *path, int flags)
{
	int f = open(path, flags, 0644);

	if (f < 0 || dup2(f, fd) < 0)
		_exit(126);
	if (f != fd)
		close(f);
}

int
main(int argc, char **argv)
{
	const char *out = "/dev/null", *dir = NULL;
	long runs = 1;
	int i, opt;

	while ((opt = getopt(argc, argv, "n:o:C:")) != -1) {
		char *end;

		switch (opt) {
		case 'n':
			errno = 0;
			runs = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || runs < 1) {
				fprintf(stderr, "measure: bad -n %s\n", optarg);
				return 2;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case 'C':
			dir = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: measure [-n N] [-o FILE] [-C DIR] -- "
		    "PROGRAM [ARG...]\n");
		return 2;
	}
	for (i = 0; i < runs; i++) {
		struct rusage ru;
		double t0, t1;
		int status;
		pid_t pid;

		t0 = now();
		pid = fork();
		if (pid < 0) {
			perror("measure: fork");
			return 1;
		}
		if (pid == 0) {
			if (dir != NULL && chdir(dir) != 0)
				_exit(126);
			redirect(0, "/dev/null", O_RDONLY);
			redirect(1, out, O_WRONLY | O_CREAT | O_TRUNC);
			redirect(2, "/dev/null", O_WRONLY);
			execvp(argv[optind], argv + optind);
			_exit(127);
		}
		if (wait4(pid, &status, 0, &ru) < 0) {
			perror("measure: wait4");
			return 1;
		}
		t1 = now();
		printf("%.6f %ld %d %.6f\n", t1 - t0, ru.ru_maxrss,
		    WIFEXITED(status) ? WEXITSTATUS(status) :
		    128 + WTERMSIG(status), seconds(&ru.ru_utime) +
		    seconds(&ru.ru_stime));
		fflush(stdout);
	}
	return 0;
}
