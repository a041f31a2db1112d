"""cgroups.py: one CFS-quota cgroup per lab run, and its counters.

Owns: the cgroups it makes under the lab's parent (cpulint-lab-PID) on
cgroup v1 (the cpu and cpuacct hierarchies: cpu.cfs_quota_us,
cpu.cfs_period_us, cpu.shares, cpu.stat, cpuacct.usage, tasks) or v2
(cpu.max, cpu.weight, cpu.stat, cgroup.threads), and removes them.  The
lab's cgroups get a high weight so that on a shared machine the quota,
not the neighbours, is what binds.  The lab's own process (the exporter
thread) and what it starts before the runs (Prometheus) move into a
group of the same weight beside the runs, with no quota (Parent.enter):
left at the default weight they starved whenever a run held every core,
and missed scrapes.

available() says why cgroups cannot be made here (or None); Group(name,
cpus) makes one; join() is called in the child between fork and exec;
counters() reads usage seconds, periods, throttled periods and threads.
"""
import os
import time

V1_CPU = "/sys/fs/cgroup/cpu"
V1_ACCT = "/sys/fs/cgroup/cpuacct"
V2 = "/sys/fs/cgroup"
PERIOD_US = 100000
SHARES = 262144         # v1 cpu.shares (default 1024; the most v1 allows)
WEIGHT = 10000          # v2 cpu.weight (default 100, max 10000)


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _read(path):
    with open(path) as f:
        return f.read()


def mode():
    """'v1', 'v2' or None."""
    if os.path.exists(os.path.join(V1_CPU, "cpu.cfs_quota_us")) and \
            os.path.exists(os.path.join(V1_ACCT, "cpuacct.usage")):
        return "v1"
    ctl = os.path.join(V2, "cgroup.controllers")
    if os.path.exists(ctl) and "cpu" in _read(ctl).split():
        return "v2"
    return None


class Parent:
    """The lab's own parent cgroup(s), made once per lab process."""

    def __init__(self):
        self.mode = mode()
        self.name = "cpulint-lab-%d" % os.getpid()
        if self.mode == "v1":
            self.dirs = [os.path.join(V1_CPU, self.name),
                         os.path.join(V1_ACCT, self.name)]
            for d in self.dirs:
                os.mkdir(d)
            _write(os.path.join(self.dirs[0], "cpu.shares"), str(SHARES))
        elif self.mode == "v2":
            self.dirs = [os.path.join(V2, self.name)]
            os.mkdir(self.dirs[0])
            _write(os.path.join(self.dirs[0], "cpu.weight"), str(WEIGHT))
            _write(os.path.join(self.dirs[0], "cgroup.subtree_control"), "+cpu")
        else:
            raise OSError("no cgroup cpu controller mounted")
        self.tools = None
        self.home = None

    def enter(self):
        """Move this process into the lab's tools group (beside the runs,
        the same weight, no quota); what it starts from now on starts
        there (a run's child leaves it in join())."""
        self.tools = [os.path.join(d, "tools") for d in self.dirs]
        for d in self.tools:
            os.mkdir(d)
        if self.mode == "v1":
            _write(os.path.join(self.tools[0], "cpu.shares"), str(SHARES))
        else:
            _write(os.path.join(self.tools[0], "cpu.weight"), str(WEIGHT))
        self.home = []
        for line in _read("/proc/self/cgroup").splitlines():
            _, ctl, path = line.split(":", 2)
            for d in self.dirs:
                root = os.path.dirname(d)
                if (self.mode == "v2" and ctl == "") or \
                        (self.mode == "v1" and os.path.basename(root) in ctl.split(",")):
                    self.home.append(os.path.join(root, path.lstrip("/")))
        for d in self.tools:
            _write(os.path.join(d, "cgroup.procs"), str(os.getpid()))

    def remove(self):
        if self.tools:
            for d in self.home or []:
                try:
                    _write(os.path.join(d, "cgroup.procs"), str(os.getpid()))
                except OSError:
                    pass
            for d in self.tools:
                for _ in range(50):
                    try:
                        os.rmdir(d)
                        break
                    except OSError:
                        time.sleep(0.1)
        for d in reversed(self.dirs):
            try:
                os.rmdir(d)
            except OSError:
                pass


def available():
    """None when a quota cgroup can be made here, else why not."""
    m = mode()
    if m is None:
        return "no cgroup cpu controller at /sys/fs/cgroup (v1 cpu,cpuacct or v2 cpu)"
    try:
        p = Parent()
    except OSError as e:
        return "cannot make a cgroup (%s): the lab needs root and a writable cgroup fs" % e
    p.remove()
    return None


class Group:
    def __init__(self, parent, name, cpus):
        self.parent = parent
        self.mode = parent.mode
        self.dirs = [os.path.join(d, name) for d in parent.dirs]
        for d in self.dirs:
            os.mkdir(d)
        quota = int(round(cpus * PERIOD_US))
        if self.mode == "v1":
            cpu = self.dirs[0]
            _write(os.path.join(cpu, "cpu.cfs_period_us"), str(PERIOD_US))
            _write(os.path.join(cpu, "cpu.cfs_quota_us"), str(quota))
            _write(os.path.join(cpu, "cpu.shares"), str(SHARES))
        else:
            _write(os.path.join(self.dirs[0], "cpu.max"), "%d %d" % (quota, PERIOD_US))
            _write(os.path.join(self.dirs[0], "cpu.weight"), str(WEIGHT))
        self.last = (0.0, 0, 0, 0)

    def join(self):
        """Move the calling process (a child before exec) into the group."""
        pid = str(os.getpid())
        for d in self.dirs:
            _write(os.path.join(d, "cgroup.procs"), pid)

    def counters(self):
        """(usage seconds, periods, throttled periods, threads); the last
        values read once the group is gone."""
        try:
            if self.mode == "v1":
                stat = dict(l.split() for l in _read(os.path.join(self.dirs[0], "cpu.stat")).splitlines())
                usage = int(_read(os.path.join(self.dirs[1], "cpuacct.usage"))) / 1e9
                threads = len(_read(os.path.join(self.dirs[0], "tasks")).split())
            else:
                stat = dict(l.split() for l in _read(os.path.join(self.dirs[0], "cpu.stat")).splitlines())
                usage = int(stat["usage_usec"]) / 1e6
                threads = len(_read(os.path.join(self.dirs[0], "cgroup.threads")).split())
            self.last = (usage, int(stat["nr_periods"]), int(stat["nr_throttled"]), threads)
        except (OSError, KeyError, ValueError):
            pass
        return self.last

    def remove(self):
        """Read the counters a last time, then remove the (empty) group."""
        self.counters()
        u, p, t, _ = self.last
        self.last = (u, p, t, 0)
        for d in self.dirs:
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except OSError:
                    time.sleep(0.1)
