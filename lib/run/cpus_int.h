/*
 * cpus_int.h — how many CPUs this process may use: the default of -j.
 *
 * The count is the smaller of the affinity mask (sched_getaffinity) and
 * the CPU quota of the process's own cgroup rounded up (cgroup v2
 * cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us, the tightest of the
 * cgroup and its ancestors), and at least 1.  A linter run in a CI
 * container with a 2-CPU quota on a 64-core host must not start 64
 * threads.
 */
#ifndef CPL_CPUS_H
#define CPL_CPUS_H

/*
 * The cgroup CPU quota, rounded up to whole CPUs, read below root ("" or
 * NULL for the real "/": root + "/proc/self/cgroup", root +
 * "/sys/fs/cgroup/..."; tests point it at fixture files).  0 when there
 * is no quota or it cannot be read.
 */
int cpl_cpus_quota(const char *root);

/* The CPUs this process may use: min(affinity, quota), at least 1. */
int cpl_cpus_available(void);

#endif
