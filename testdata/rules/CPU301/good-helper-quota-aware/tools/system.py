"""What the machine gives this process."""
import os
from pathlib import Path


def available_cpus() -> int:
    """CPUs this process may use: the container's CPU limit (cgroup quota) when there is one, else the CPU count."""
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 4)
    quota = None
    try:
        q, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]  # cgroup v2: "400000 100000"
        if q != "max":
            quota = int(q) / int(period)
    except (OSError, ValueError):
        try:  # cgroup v1
            q = int(Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").read_text())
            if q > 0:
                quota = q / int(Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            pass
    return max(1, min(n, int(quota)) if quota else n)
