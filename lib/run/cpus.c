/*
 * cpus.c — the CPUs this process may use (see cpus_int.h).
 *
 * Reads /proc/self/cgroup for the process's cgroup in each hierarchy: the
 * v2 one ("0::/path") and a v1 one whose controllers include "cpu".  From
 * that cgroup's directory up to the mount point, each level's quota is
 * read (cpu.max, or cpu.cfs_quota_us over cpu.cfs_period_us) and the
 * smallest wins, as the kernel enforces every level.  A level that is
 * missing is passed over: in a container the mount point is often the
 * process's own cgroup, whatever path /proc names.
 *
 * Owns nothing past a call.
 */
#include "run/cpus_int.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* The v1 directories the cpu controller is mounted at, by convention. */
static const char *const v1_mounts[] = {
	"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct",
	"/sys/fs/cgroup/cpuacct,cpu",
};

/* Reads at most cap - 1 bytes of a small file into buf, NUL-terminated;
 * -1 when it cannot be read. */
static int
read_small(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (got + 1 < cap &&
	       (n = read(fd, buf + got, cap - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	return 0;
}

/* Parses a decimal number at *p (advanced); -1 when there is none. */
static long long
parse_num(const char **p)
{
	char *end;
	long long v;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (**p < '0' || **p > '9')
		return -1;
	v = strtoll(*p, &end, 10);
	*p = end;
	return v;
}

/* ceil(quota / period) as CPUs, at least 1; 0 for no quota. */
static int
ceil_cpus(long long quota, long long period)
{
	long long n;

	if (quota <= 0 || period <= 0)
		return 0;
	n = (quota + period - 1) / period;
	return n > 4096 ? 4096 : (int)(n < 1 ? 1 : n);
}

/* The quota set in one cgroup directory, 0 when none. */
static int
dir_quota(const char *dir, bool v2)
{
	char buf[128];
	char *path;
	const char *p = buf;
	long long quota;

	if (v2) {
		path = cpl_xasprintf("%s/cpu.max", dir);
		if (read_small(path, buf, sizeof(buf)) < 0) {
			free(path);
			return 0;
		}
		free(path);
		if ((quota = parse_num(&p)) < 0)	/* "max" */
			return 0;
		return ceil_cpus(quota, parse_num(&p));
	}
	path = cpl_xasprintf("%s/cpu.cfs_quota_us", dir);
	if (read_small(path, buf, sizeof(buf)) < 0) {
		free(path);
		return 0;
	}
	free(path);
	quota = parse_num(&p);	/* -1: none */
	path = cpl_xasprintf("%s/cpu.cfs_period_us", dir);
	p = buf;
	if (read_small(path, buf, sizeof(buf)) < 0) {
		free(path);
		return 0;
	}
	free(path);
	return ceil_cpus(quota, parse_num(&p));
}

/* The tightest quota from mount + cg up to mount itself, 0 when none. */
static int
walk_up(const char *mount, const char *cg, bool v2)
{
	char *dir = cpl_xasprintf("%s%s", mount, cg);
	size_t base = strlen(mount);
	int best = 0;

	for (;;) {
		size_t n = strlen(dir);
		int q;

		while (n > base && dir[n - 1] == '/')
			dir[--n] = '\0';
		q = dir_quota(dir, v2);
		if (q > 0 && (best == 0 || q < best))
			best = q;
		if (n <= base)
			break;
		while (n > base && dir[n - 1] != '/')
			n--;
		dir[n] = '\0';
	}
	free(dir);
	return best;
}

/* Whether a comma-separated controller list names "cpu". */
static bool
has_cpu(const char *list, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t n = 0;

		while (i + n < len && list[i + n] != ',')
			n++;
		if (n == 3 && memcmp(list + i, "cpu", 3) == 0)
			return true;
		i += n + 1;
	}
	return false;
}

/* The smaller of two quotas, 0 meaning none. */
static int
tighter(int a, int b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	return a < b ? a : b;
}

int
cpl_cpus_quota(const char *root)
{
	char buf[4096];
	char *path, *line, *next;
	int best = 0;
	size_t i;

	if (root == NULL)
		root = "";
	path = cpl_xasprintf("%s/proc/self/cgroup", root);
	if (read_small(path, buf, sizeof(buf)) < 0) {
		free(path);
		return 0;
	}
	free(path);
	for (line = buf; *line; line = next) {
		char *c1, *c2, *mount;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if ((c1 = strchr(line, ':')) == NULL ||
		    (c2 = strchr(c1 + 1, ':')) == NULL || c2[1] != '/')
			continue;
		if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1) {
			mount = cpl_xasprintf("%s/sys/fs/cgroup", root);
			best = tighter(best, walk_up(mount, c2 + 1, true));
			free(mount);
			continue;
		}
		if (!has_cpu(c1 + 1, (size_t)(c2 - c1 - 1)))
			continue;
		for (i = 0; i < CPL_ARRAY_LEN(v1_mounts); i++) {
			mount = cpl_xasprintf("%s%s", root, v1_mounts[i]);
			best = tighter(best, walk_up(mount, c2 + 1, false));
			free(mount);
		}
	}
	return best;
}

int
cpl_cpus_available(void)
{
	cpu_set_t set;
	int n = 0, quota;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	if (n <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		n = c > 0 ? (int)(c > 4096 ? 4096 : c) : 1;
	}
	quota = cpl_cpus_quota(NULL);
	if (quota > 0 && quota < n)
		n = quota;
	return n < 1 ? 1 : n;
}
