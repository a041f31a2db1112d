#!/usr/bin/env python3
"""bench.py — the measurements behind make bench (tests/bench/run.sh).

Prints each row of issue 11's table from one run: the figure, the floor or
peer measured in the same run, their ratio and whether the goal is met;
then the same rows as a Markdown table for the README's Performance
section.  It asserts nothing and exits 0 whatever the figures are (1 only
when it cannot measure at all, e.g. the binary is missing).

Every process is run by FLOORS/measure (tests/bench/measure.c), which
forks, execs and reaps it with wait4, so wall time and peak memory
(ru_maxrss) are those of that one process (plus measure's own peak, under
1 MiB: what noop-static shows).  Times
are the best of several runs (median for the pre-commit row) because six
jobs may share this machine; where a figure is a ratio of two programs'
times (row 1, the scaling line), their runs alternate in rounds.  Peak
memory is the largest seen.

Environment (run.sh sets the first three):
  BIN           the dev binary (./kubectl-cpulint)
  RELEASE_BIN   the release binary (make dist), when it exists
  FLOORS        the directory of measure, yaml-parse-floor and the noop
                builds
  BENCH_QUICK=1 a small run (about a tenth of the sizes): checks the
                instrument, its figures are not the table's
  BENCH_ROWS    the rows to run, e.g. "1,2,scale" (default: all of
                1,2,3,4,5,scale,shapes,mem,big,real,repos)
  CPULINT_BENCH_REPOS  a folder of local snapshots of the repositories
                tests/bench/repos.txt lists (git directories): the
                real-repository rows lay their commits out from it; unset,
                those rows are skipped with a message
  BENCH_PROJECTS  projects in the tree of rows 1-3 (default 2000)
  BENCH_PODS    Pods in rows 4 and 5 (default 10000)
  BENCH_INSTR=0 no instruction counts beside the scaling line (they
                take valgrind about a minute)
"""

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MIB = 1024 * 1024


def env_int(name, default):
    v = os.environ.get(name, "")
    return int(v) if v.isdigit() else default


QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
PROJECTS = env_int("BENCH_PROJECTS", 200 if QUICK else 2000)
SCALE = [PROJECTS // 4, PROJECTS // 2, PROJECTS, PROJECTS * 2]
PODS = env_int("BENCH_PODS", 1000 if QUICK else 10000)
CONTAINERS = 100
REPEAT = 1 if QUICK else 3
PRECOMMIT_RUNS = 5 if QUICK else 20
GOAL_TIME_RATIO = 1.5
GOAL_MEM = 64 * MIB
GOAL_PRECOMMIT = 0.010
STRETCH_PRECOMMIT = 0.005
GOAL_LIVE_RATIO = 0.3
GOAL_SCALE = 1.2
SCALE_ROUNDS = 2 if QUICK else 5
TREE_ROUNDS = 1 if QUICK else 5

ROWS = [r.strip() for r in os.environ.get(
    "BENCH_ROWS", "1,2,3,4,5,scale,shapes,mem,big,real,repos").split(",")
    if r.strip()]
REPOS = os.environ.get("CPULINT_BENCH_REPOS", "")
GOAL_REPOS = 3.0        # public repositories over the floors (issue 28)
GOAL_AST = 0.25         # the Python-heavy one over CPython's ast.parse
PAD = 20                # gen-monorepo.py --pad: files of a real size
GOAL_DOUBLING = 2.2     # time per doubling of one file's shapes: linear
GOAL_MEM_SHARED = 1.5   # peak memory at -j 8 over -j 1 (issue 27)
TABLE = []      # (what, now, floor, ratio, goal, verdict) for the summary


MEASURE = None  # FLOORS/measure, set by main


def runs(argv, n=1, out=None, cwd=None, env=None):
    """Runs argv n times under measure; returns [(seconds, peak KiB,
    exit status, CPU seconds)].  out: a file for standard output (default
    /dev/null); cwd: the working directory."""
    cmd = [MEASURE, "-n", str(n)]
    if out:
        cmd += ["-o", out]
    if cwd:
        cmd += ["-C", cwd]
    res = subprocess.run(cmd + ["--"] + argv, env=env, check=True,
                         capture_output=True, text=True).stdout
    return [(float(a), int(b), int(c), float(d)) for a, b, c, d in
            (line.split() for line in res.splitlines())]


def run(argv, **kw):
    return runs(argv, 1, **kw)[0]


def best(argv, n=REPEAT, **kw):
    """The fastest of n runs, the largest peak memory, the last status,
    the least CPU time."""
    r = runs(argv, n, **kw)
    return (min(x[0] for x in r), max(x[1] for x in r), r[-1][2],
            min(x[3] for x in r))


def median(argv, n, **kw):
    ts = sorted(x[0] for x in runs(argv, n, **kw))
    return ts[n // 2] if n % 2 else (ts[n // 2 - 1] + ts[n // 2]) / 2


def secs(t):
    return "%.0f ms" % (t * 1000) if t < 0.1 else "%.2f s" % t


def ms(t):
    return "%.1f ms" % (t * 1000)


def mib(kib):
    return "%.0f MiB" % (kib / 1024)


def verdict(ok):
    return "goal met" if ok else "goal missed"


def row(key, what, now, floor, ratio, goal, ok, md):
    """Prints one row in full; md holds its short cells (what, now,
    floor / peer, ratio, goal) for the Markdown table at the end."""
    print("row %-5s %s" % (key, what))
    print("          now:   %s" % now)
    print("          floor: %s" % floor)
    print("          ratio: %s   goal: %s   %s" % (ratio, goal,
                                                   verdict(ok)))
    sys.stdout.flush()
    TABLE.append(tuple(md) + ("met" if ok else "missed",))


def note(text):
    print("          " + text)
    sys.stdout.flush()


def generate(tree, projects, pad=0):
    out = subprocess.run([sys.executable, os.path.join(HERE,
                                                       "gen-monorepo.py"),
                          tree, str(projects), "--pad", str(pad)],
                         check=True,
                         capture_output=True, text=True).stdout.split()
    return int(out[2]), int(out[4])      # files, bytes


def yaml_files(tree, exts=(".yaml",)):
    found = []
    for d, _, names in os.walk(tree):
        found += [os.path.join(d, n) for n in names if n.endswith(exts)]
    return sorted(found)


OWNER = re.compile(r'(gen-[abc])/(gen-train-[0-9]+)')
CHUNK = 1 << 22         # bytes read at a time from a report


def findings(report):
    """Yields each finding object of a -o json report, read in pieces and
    decoded one object at a time (a report of millions of findings is
    larger than this script's memory should be; any spacing and key order
    will do)."""
    dec = json.JSONDecoder()
    with open(report, encoding="utf-8", errors="replace") as f:
        buf, pos, eof = "", -1, False

        def more():
            chunk = f.read(CHUNK)
            return chunk, not chunk
        while pos < 0:
            chunk, eof = more()
            buf += chunk
            m = re.search(r'"findings"\s*:\s*\[', buf)
            if m:
                pos = m.end()
            elif eof:
                return
        while True:
            while pos < len(buf) and buf[pos] in " \t\r\n,":
                pos += 1
            if pos < len(buf) and buf[pos] == "]":
                return
            try:
                obj, end = dec.raw_decode(buf, pos)
            except ValueError:
                if eof:
                    return
                chunk, eof = more()
                buf, pos = buf[pos:] + chunk, 0
                continue
            yield obj
            pos = end


def count_findings(report):
    """Returns the findings of a -o json report, those on the fake
    server's generated Pods or their owners, and the distinct problems
    among those: (rule, container, owning Deployment), as the Pods of one
    owner share a spec."""
    total, gen, distinct = 0, 0, set()
    for f in findings(report):
        total += 1
        o = OWNER.search(str(f.get("object", "")))
        if o:
            gen += 1
            distinct.add((f.get("rule"), f.get("container"), o.groups()))
    return total, gen, len(distinct)


# ---- rows 1, 2 and the scaling line: the tree ------------------------------

def rows_tree(binary, floors, tmp):
    tree = os.path.join(tmp, "tree-%d" % PROJECTS)
    files, size = generate(tree, PROJECTS)
    print("tree: %d projects, %d files, %.1f MiB (tests/bench/"
          "gen-monorepo.py)" % (PROJECTS, files, size / MIB))
    report = os.path.join(tmp, "tree.json")
    yamls = yaml_files(tree)
    rg = shutil.which("rg")
    # The tool, the libyaml floor and ripgrep are run in rounds, one run
    # of each per round, so that a slow spell of the machine (wall times
    # here swing by a third within minutes) slows all three and not the
    # tool's runs alone; each figure is the best of its TREE_ROUNDS.
    got = {}
    cmds = [("tool", [binary, "--no-config", "-o", "json", tree], report),
            ("yaml", [os.path.join(floors, "yaml-parse-floor")] + yamls,
             None)]
    if rg:
        cmds.append(("rg", [rg, "-c", "torch", tree], None))
    for _ in range(TREE_ROUNDS):
        for key, argv, out in cmds:
            r = run(argv, out=out)
            w0, m0, _, c0 = got.get(key, r)
            got[key] = (min(w0, r[0]), max(m0, r[1]), r[2], min(c0, r[3]))
    t, rss, rc, cpu = got["tool"]
    if rc not in (0, 1):
        print("bench: %s exited %d on the tree" % (binary, rc))
    rsize = os.path.getsize(report)
    nfind = count_findings(report)[0]
    ty, rss_y, rc_y, cpu_y = got["yaml"]
    if rc_y != 0:
        print("bench: yaml-parse-floor failed on the tree")
    if rg:
        trg, rss_rg, _, cpu_rg = got["rg"]
    else:
        trg, rss_rg, cpu_rg = 0.0, 0, 0.0
    floor = ty + trg
    if "1" in ROWS:
        row("1", "whole tree, `-o json` (%d files, %.0f MiB)" % (
                files, size / MIB),
            "%s, CPU %s (%d findings)" % (secs(t), secs(cpu), nfind),
            "libyaml parse of the %d YAML files %s + %s %s = %s" % (
                len(yamls), secs(ty), "ripgrep over the tree" if rg else
                "no ripgrep (install it for the full floor)", secs(trg),
                secs(floor)),
            "%.2f x (on CPU time: %.2f x)" % (
                t / floor, cpu / max(cpu_y + cpu_rg, 1e-6)),
            "<= %.1f x the floor" %
            GOAL_TIME_RATIO, t / floor <= GOAL_TIME_RATIO,
            ("whole tree, `-o json`", secs(t), "libyaml %s + ripgrep %s" % (
                secs(ty), secs(trg) if rg else "(not installed)"),
             "%.1f x" % (t / floor), "<= 1.5 x"))
    if "2" in ROWS:
        limit = GOAL_MEM + rsize
        row("2", "whole tree, peak memory",
            "%s (the JSON report is %.1f MiB)" % (mib(rss), rsize / MIB),
            "ripgrep %s%s; libyaml floor %s" % (
                mib(rss_rg), "" if rg else " (not installed)", mib(rss_y)),
            "%.2f x the limit, %.1f x ripgrep" % (
                rss * 1024 / limit, rss / max(rss_rg, 1)),
            "<= 64 MiB + the report = %s" % mib(limit / 1024),
            rss * 1024 <= limit,
            ("whole tree, peak memory", "%s (report %.0f MiB)" % (
                mib(rss), rsize / MIB), "ripgrep %s" % mib(rss_rg),
             "%.1f x (64 MiB + report)" % (rss * 1024 / limit),
             "<= 1 x"))
    return tree, files


def row_scale(binary, floors, tmp, have):
    """Time per file at four sizes.  The ratio is taken on CPU time (user
    + system) at -j 1: it measures the work per file, which threads and
    other jobs on the machine would blur; wall time is printed beside
    it.  The trees are made first and measured in rounds, one run of each
    size per round, so a slow spell of the machine hits every size; each
    figure is the least of SCALE_ROUNDS.  The CPU time of starting a
    process with the dev binary's libraries (noop-libs, the least of as
    many runs, in the same rounds) is no work per file: it is taken off
    each size's time before dividing (on a machine where loading the
    libraries costs 17 ms, it is 8 us a file of the smallest tree and 1 us
    of the largest).  The raw figures are printed too."""
    noop = os.path.join(floors, "noop-libs")
    start = None
    trees = []
    for n in SCALE:
        if have and have[0] == n:
            trees.append((n, have[1], have[2], False))
        else:
            tree = os.path.join(tmp, "scale-%d" % n)
            files, _ = generate(tree, n)
            trees.append((n, files, tree, True))
    least = {}
    for _ in range(SCALE_ROUNDS):
        for n, files, tree, _ in trees:
            t, _, _, cpu = run([binary, "--no-config", "-j", "1", "-o",
                                "json", tree],
                               out=os.path.join(tmp, "scale.json"))
            w0, c0 = least.get(n, (t, cpu))
            least[n] = (min(w0, t), min(c0, cpu))
            if os.path.exists(noop):
                c = run([noop])[3]
                start = c if start is None else min(start, c)
    instr = instructions(binary, trees)
    per = []
    if start is not None:
        print("          starting a process with the dev binary's "
              "libraries: %s CPU (taken off each size)" % ms(start))
    for n, files, tree, made in trees:
        if made:
            shutil.rmtree(tree)
        t, cpu = least[n]
        net = cpu - (start or 0.0)
        per.append((n, files, t, net / files))
        print("          %5d projects, %5d files: %s wall, %s CPU, %.0f us "
              "CPU per file (%.0f us with the start)" % (
                  n, files, secs(t), secs(cpu), net / files * 1e6,
                  cpu / files * 1e6))
    sys.stdout.flush()
    cpus = [p[3] for p in per]
    ratio = max(cpus) / min(cpus)
    walls = [p[2] / p[1] for p in per]
    print("          wall time per file: max/min %.2f (for information)" %
          (max(walls) / min(walls)))
    row("scale", "scaling, %s projects" % " -> ".join(
            "{:,}".format(p[0]) for p in per),
        "CPU time per file %s us" % " / ".join("%.0f" % (x * 1e6)
                                               for x in cpus),
        "the same at the other sizes",
        "max/min %.2f" % ratio, "<= %.2f (within 20%%)" % GOAL_SCALE,
        ratio <= GOAL_SCALE,
        ("time per file, %s projects" % " -> ".join(
            "{:,}".format(p[0]) for p in per),
         " / ".join("%.0f us" % (x * 1e6) for x in cpus), "-",
         "max/min %.2f" % ratio, "<= 1.2"))
    if instr:
        ks = [instr[n] / files / 1000 for n, files, _, _ in trees]
        print("          instructions per file (valgrind, -j 1; the same on "
              "every run, which the machine's noise does not touch): %s "
              "thousand, max/min %.2f" % (
                  " / ".join("%.0f" % k for k in ks), max(ks) / min(ks)))
        TABLE.append(("instructions per file, the same sizes (information)",
                      " / ".join("%.0f k" % k for k in ks), "-",
                      "max/min %.2f" % (max(ks) / min(ks)), "-", "-"))
    sys.stdout.flush()


def instructions(binary, trees):
    """Instructions of one -j 1 run on each tree, counted by valgrind's
    cachegrind without its cache simulation: {projects: count}, or {}
    without valgrind (BENCH_INSTR=0 skips it).  A count does not depend
    on what else the machine is doing, so it shows whether the work per
    file is constant when the times are too noisy to tell."""
    vg = shutil.which("valgrind")
    if vg is None or os.environ.get("BENCH_INSTR", "") == "0":
        return {}
    got = {}
    for n, _, tree, _ in trees:
        r = subprocess.run([vg, "--tool=cachegrind", "--cache-sim=no",
                            "--cachegrind-out-file=/dev/null", binary,
                            "--no-config", "-j", "1", "-o", "json", tree],
                           stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        m = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
        if m is None:
            print("bench: valgrind counted nothing on %s" % tree)
            return {}
        got[n] = int(m.group(1).replace(",", ""))
    return got


# ---- the shapes of one file, and memory that -j shares (issue 27) ---------

POD_HEAD = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
            "  containers:\n  - name: t\n    image: pytorch\n"
            "    command: [torchrun, --nproc_per_node, '2', train.py]\n"
            "    resources: {limits: {cpu: '4'}}\n")


def gen_shape(kind, n, path):
    """One input of n items of a shape once quadratic (the shapes of
    tests/e2e/scaling.sh): a kind: List of one-line Pods whose findings
    carry edits (a file), or a Pod running a script of n
    torch.set_num_threads calls or of n DataLoaders sized by
    os.cpu_count() (a directory)."""
    if kind == "list":
        with open(path, "w") as f:
            f.write("apiVersion: v1\nkind: List\nitems:\n")
            for i in range(n):
                f.write("- {apiVersion: v1, kind: Pod, metadata: {name: "
                        "p%d}, spec: {containers: [{name: t, image: "
                        "pytorch, command: [torchrun, --nproc_per_node, "
                        "'2', t.py], resources: {requests: {cpu: '2'}}}]}}"
                        "\n" % i)
        return
    os.makedirs(path)
    with open(os.path.join(path, "pod.yaml"), "w") as f:
        f.write(POD_HEAD)
    with open(os.path.join(path, "train.py"), "w") as f:
        f.write("import os\nimport torch\n"
                "from torch.utils.data import DataLoader\n")
        for i in range(n):
            f.write("torch.set_num_threads(%d)\n" % (i % 8 + 1)
                    if kind == "threads" else
                    "d%d = DataLoader(ds, num_workers=os.cpu_count())\n" % i)


def row_shapes(binary, tmp):
    """CPU time at -j 1 of one input at n, 2n and 4n items, for each shape
    (in rounds, the least of SCALE_ROUNDS): linear is x2 per doubling."""
    shapes = [("list", "kind: List of one-line Pods", 4000),
              ("threads", "set_num_threads calls", 40000),
              ("loaders", "DataLoader(num_workers=os.cpu_count())", 40000)]
    cells = []
    worst = 0.0
    for kind, what, n in shapes:
        n = n // 10 if QUICK else n
        sizes = [n, 2 * n, 4 * n]
        paths = []
        for k in sizes:
            path = os.path.join(tmp, "%s-%d" % (kind, k))
            gen_shape(kind, k, path)
            paths.append(path)
        least = {}
        for _ in range(SCALE_ROUNDS):
            for k, path in zip(sizes, paths):
                cpu = run([binary, "--no-config", "-j", "1", "-o", "json",
                           path])[3]
                least[k] = min(least.get(k, cpu), cpu)
        for path in paths:
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        per = math.sqrt(least[sizes[2]] / max(least[sizes[0]], 1e-6))
        worst = max(worst, per)
        print("          %s: %s items: %s CPU (x%.2f per doubling)" % (
            what, " -> ".join("{:,}".format(k) for k in sizes),
            " -> ".join(secs(least[k]) for k in sizes), per))
        cells.append("x%.2f" % per)
    row("shapes", "one file, CPU time per doubling: List items / "
        "set_num_threads calls / DataLoaders",
        " / ".join(cells), "x2 (linear)", "worst x%.2f" % worst,
        "<= x%.1f" % GOAL_DOUBLING, worst <= GOAL_DOUBLING,
        ("one file's List items / set_num_threads / DataLoaders, per "
         "doubling", " / ".join(cells), "x2 (linear)", "x%.2f" % worst,
         "<= x2.2"))


def gen_manifests(path, size):
    """Block-style Jobs, multi-document, to size bytes."""
    job = ("---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: "
           "train-%d\n  labels: {app: train}\nspec:\n  template:\n"
           "    spec:\n      restartPolicy: Never\n      containers:\n"
           "      - name: train\n        image: pytorch/pytorch:2.3.0\n"
           "        command: [torchrun, --nproc_per_node, '4', train.py]\n"
           "        env:\n        - name: OMP_NUM_THREADS\n"
           "          value: '8'\n        resources:\n          requests:"
           "\n            cpu: '4'\n          limits:\n            cpu: "
           "'8'\n")
    with open(path, "w") as f:
        i = done = 0
        while done < size:
            text = job % i
            f.write(text)
            done += len(text)
            i += 1


def row_memory(binary, tmp):
    """Peak memory of eight 11 MB manifests in a directory at -j 1 and -j
    8 (the pipeline's budget, engine.h: one budget that -j shares), and
    of one file per byte."""
    size = (11 << 20) // (10 if QUICK else 1)
    d = os.path.join(tmp, "mem")
    os.makedirs(d)
    for i in range(8):
        gen_manifests(os.path.join(d, "jobs%d.yaml" % i), size)
    one = best([binary, "--no-config", "-j", "1", os.path.join(d,
                                                              "jobs0.yaml")])
    j1 = best([binary, "--no-config", "-j", "1", d])
    j8 = best([binary, "--no-config", "-j", "8", d])
    shutil.rmtree(d)
    ratio = j8[1] / max(j1[1], 1)
    note("one %.0f MiB file: %s peak (%.1f x its size); eight: -j 1 %s "
         "(%s), -j 8 %s (%s)" % (size / MIB, mib(one[1]),
                                 one[1] * 1024 / size, mib(j1[1]),
                                 secs(j1[0]), mib(j8[1]), secs(j8[0])))
    row("mem", "peak memory, eight %.0f MiB manifests, -j 8 over -j 1" % (
            size / MIB),
        "%s at -j 8, %s at -j 1" % (mib(j8[1]), mib(j1[1])),
        "-j 1", "%.2f x" % ratio, "<= %.1f x" % GOAL_MEM_SHARED,
        ratio <= GOAL_MEM_SHARED,
        ("peak memory, eight 11 MiB manifests, -j 8 / -j 1",
         "%s / %s" % (mib(j8[1]), mib(j1[1])), "-j 1", "%.2f x" % ratio,
         "<= 1.5 x"))


# ---- row 3: pre-commit -----------------------------------------------------

def row_precommit(binaries, floors, tree):
    git = ["git", "-c", "user.name=bench", "-c",
           "user.email=bench@example.com"]
    if not os.path.isdir(os.path.join(tree, ".git")):
        for argv in (["git", "init", "-q", "."], ["git", "add", "-A"],
                     git + ["commit", "-q", "-m", "bench tree"]):
            subprocess.run(argv, cwd=tree, check=True,
                           stdout=subprocess.DEVNULL)
    target = os.path.join("teams", "team00", "proj0000", "polyaxonfile.yaml")
    with open(os.path.join(tree, target), "a") as f:
        f.write("# touched by make bench\n")
    figures = []
    for label, b in binaries:
        argv = [b, "--ignore-unknown", target]
        run(argv, cwd=tree)     # warm the page cache
        figures.append((label, median(argv, PRECOMMIT_RUNS, cwd=tree)))
    starts = []
    for label, name in (("static", "noop-static"),
                        ("dynamic, libc", "noop-dynamic"),
                        ("the dev binary's %d libraries" % nlibs(binaries),
                         "noop-libs")):
        p = os.path.join(floors, name)
        run([p])
        starts.append((label, median([p], PRECOMMIT_RUNS)))
    best_t = figures[0][1]
    row("3", "one Polyaxonfile in that tree as a git repo (pre-commit), "
        "median of %d" % PRECOMMIT_RUNS,
        ", ".join("%s %s" % (label, ms(t)) for label, t in figures),
        "an empty process: " + ", ".join("%s %s" % (label, ms(t))
                                         for label, t in starts),
        "%.2f x the goal, %.1f x the dynamic empty process" % (
            best_t / GOAL_PRECOMMIT, best_t / starts[1][1]),
        "<= 10 ms (stretch 5 ms): %s" % (
            "stretch met" if best_t <= STRETCH_PRECOMMIT else
            "stretch not met"), best_t <= GOAL_PRECOMMIT,
        ("pre-commit: one Polyaxonfile, the tree as a git repo",
         ", ".join("%s %s" % (ms(t), label) for label, t in figures),
         "empty process %s; with the dev binary's libraries %s" % (
             ms(starts[1][1]), ms(starts[2][1])),
         "%.1f x the goal" % (best_t / GOAL_PRECOMMIT),
         "<= 10 ms (5 ms)"))


def nlibs(binaries):
    b = binaries[-1][1]
    try:
        out = subprocess.run(["ldd", b], capture_output=True, text=True,
                             check=False).stdout
    except OSError:
        return 0
    return sum(1 for line in out.splitlines() if "=>" in line or
               line.strip().startswith("/"))


# ---- rows 4 and 5: live ----------------------------------------------------

class Server:
    """testdata/apiserver/server.py, started as tests/live/apiserver.sh
    starts it: a fresh directory, loopback only, ready when its port file
    is written."""

    def __init__(self, tmp, args):
        self.dir = tempfile.mkdtemp(prefix="apiserver-", dir=tmp)
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "testdata", "apiserver",
                                          "server.py"),
             "--dir", self.dir, "--timeout", "1800"] + args,
            stdout=self.log, stderr=subprocess.STDOUT)
        port = os.path.join(self.dir, "port")
        while not os.path.exists(port):
            if self.proc.poll() is not None:
                raise RuntimeError("the fake API server exited at start")
            if time.perf_counter() - t0 > 600:
                raise RuntimeError("the fake API server did not start")
            time.sleep(0.1)
        self.started = time.perf_counter() - t0
        self.env = dict(os.environ,
                        KUBECONFIG=os.path.join(self.dir, "kubeconfig"))

    def pages(self):
        """The list requests for Pods it answered."""
        n = 0
        with open(os.path.join(self.dir, "requests.jsonl")) as f:
            for line in f:
                if "/pods" in line and "limit=" in line:
                    n += 1
        return n

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def row_live(binary, tmp):
    srv = Server(tmp, ["--generate-pods", str(PODS), "--training"])
    try:
        print("live: fake API server with %d Pods up in %.1f s" % (
            PODS, srv.started))
        report = os.path.join(tmp, "live.json")
        t, rss, rc, cpu = best([binary, "--no-config", "-A", "-o",
                                "json"], out=report, env=srv.env)
        if rc not in (0, 1):
            print("bench: %s -A exited %d" % (binary, rc))
        nfind = count_findings(report)[0]
        kubectl = shutil.which("kubectl")
        if kubectl:
            tk, rss_k, rc_k, cpu_k = best([kubectl, "get", "pods", "-A",
                                           "-o", "json"], env=srv.env)
            if rc_k != 0:
                print("bench: kubectl exited %d" % rc_k)
            ratio = t / tk
            peer = "`kubectl get pods -A -o json`: %s, CPU %s, %s" % (
                secs(tk), secs(cpu_k), mib(rss_k))
            rtext = "%.2f x kubectl's time, %.2f x its memory" % (
                ratio, rss / max(rss_k, 1))
        else:
            ratio, peer, rtext = math.inf, "no kubectl installed", "-"
            tk, rss_k = 0.0, 0
        row("4", "live `-A` over %s Pods (fake API server, pages of 500)" %
            "{:,}".format(PODS),
            "%s, CPU %s, %s peak (%d findings)" % (secs(t), secs(cpu),
                                                    mib(rss), nfind),
            peer, rtext, "<= %.1f x kubectl, < 64 MiB" % GOAL_LIVE_RATIO,
            ratio <= GOAL_LIVE_RATIO and rss * 1024 < GOAL_MEM,
            ("live `-A`, %s Pods" % "{:,}".format(PODS),
             "%s, %s" % (secs(t), mib(rss)),
             "kubectl %s, %s" % (secs(tk), mib(rss_k)) if kubectl else "-",
             "%.2f x" % ratio, "<= 0.3 x, < 64 MiB"))
    finally:
        srv.stop()


def owners(pods):
    """Deployments server.py --training makes for this many Pods: every
    100 Pods of a namespace (gen-a/b/c, round robin) share one."""
    return len({(i % 3, (i // 3) // 100) for i in range(pods)})


def row_live_wide(binary, tmp):
    srv = Server(tmp, ["--generate-pods", str(PODS), "--training",
                       "--containers-per-pod", str(CONTAINERS)])
    try:
        print("live: fake API server with %d Pods x %d containers up in "
              "%.1f s" % (PODS, CONTAINERS, srv.started))
        report = os.path.join(tmp, "live-wide.json")
        t, rss, rc, cpu = run([binary, "--no-config", "-A", "-o",
                               "json"], out=report, env=srv.env)
        if rc not in (0, 1):
            print("bench: %s -A exited %d" % (binary, rc))
        rsize = os.path.getsize(report)
        nfind, gen, distinct = count_findings(report)
        os.unlink(report)
        pages = srv.pages()
    finally:
        srv.stop()
    limit = GOAL_MEM + rsize
    dup = gen / max(distinct, 1)
    row("5", "live `-A`, %s Pods x %d containers" % (
            "{:,}".format(PODS), CONTAINERS),
        "%s, CPU %s, %s peak (one run), %s findings, %s of them on the "
        "generated Pods (report %.1f MiB, %d pages)" % (
            secs(t), secs(cpu), mib(rss), "{:,}".format(nfind),
            "{:,}".format(gen), rsize / MIB, pages),
        "%s distinct problems (rule, container, owner) among those: "
        "the Pods of one of the %d owners share a spec" % (
            "{:,}".format(distinct), owners(PODS)),
        "%.2f x the memory limit, %.1f findings per distinct problem" % (
            rss * 1024 / limit, dup),
        "memory <= 64 MiB + the report = %s; one finding per distinct "
        "problem" % mib(limit / 1024),
        rss * 1024 <= limit and dup <= 1.0,
        ("live `-A`, %s Pods x %d containers" % ("{:,}".format(PODS),
                                                 CONTAINERS),
         "%s, %s, %s findings" % (secs(t), mib(rss), "{:,}".format(nfind)),
         "%s distinct problems" % "{:,}".format(distinct),
         "%.1f x (64 MiB + report); %.0f findings per problem" % (
             rss * 1024 / limit, dup), "<= 1 x; 1"))


# ---- the summary ---------------------------------------------------------

# -- issue 28: trees of a real size, public repositories ---------------------


def in_rounds(cmds, n):
    """Runs each (key, argv, out) of cmds once a round for n rounds (a slow
    spell of the machine then slows them all); returns, per key, the least
    wall time, the largest peak, the last status, the least CPU time."""
    got = {}
    for _ in range(n):
        for key, argv, out in cmds:
            r = run(argv, out=out)
            w0, m0, _, c0 = got.get(key, r)
            got[key] = (min(w0, r[0]), max(m0, r[1]), r[2], min(c0, r[3]))
    return got


def tree_size(tree):
    files = py = size = 0
    for d, _, names in os.walk(tree):
        for n in names:
            files += 1
            py += n.endswith(".py")
            size += os.path.getsize(os.path.join(d, n))
    return files, py, size


def vs_floors(binary, floors, tree, report, exts):
    """The tool on tree (-o json, -j as it comes) and its floors (libyaml
    over its YAML files, ripgrep over the tree), in rounds; returns
    (tool, yaml, ripgrep or None, number of YAML files)."""
    yamls = yaml_files(tree, exts)
    rg = shutil.which("rg")
    cmds = [("tool", [binary, "--no-config", "-o", "json", tree], report),
            ("yaml", [os.path.join(floors, "yaml-parse-floor")] + yamls,
             None)]
    if rg:
        cmds.append(("rg", [rg, "-c", "torch", tree], None))
    got = in_rounds(cmds, TREE_ROUNDS)
    if got["tool"][2] not in (0, 1):
        print("bench: %s exited %d on %s" % (binary, got["tool"][2], tree))
    return got["tool"], got["yaml"], got.get("rg"), len(yamls)


def cpu_ratio(tool, ty, trg):
    """The tool's CPU time over its floors' (for information: on a busy
    machine wall times of a threaded run suffer most)."""
    return tool[3] / max(ty[3] + (trg[3] if trg else 0.0), 1e-6)


def floor_cells(ty, trg, nyaml):
    total = ty[0] + (trg[0] if trg else 0.0)
    text = "libyaml parse of the %d YAML files %s + %s = %s" % (
        nyaml, secs(ty[0]), "ripgrep %s" % secs(trg[0]) if trg else
        "no ripgrep", secs(total))
    return total, text, "libyaml %s + ripgrep %s" % (
        secs(ty[0]), secs(trg[0]) if trg else "-")


def row_big(binary, floors, tmp):
    """Row 1's tree with files of a real repository's size (about 5.5 KB,
    gen-monorepo.py --pad): the floors grow with the bytes, so this is
    where per-byte work shows."""
    tree = os.path.join(tmp, "big-%d" % PROJECTS)
    files, size = generate(tree, PROJECTS, PAD)
    report = os.path.join(tmp, "big.json")
    tool, ty, trg, nyaml = vs_floors(binary, floors, tree, report,
                                     (".yaml",))
    floor, ftext, fcell = floor_cells(ty, trg, nyaml)
    ratio = tool[0] / floor
    row("big", "realistic-size tree, `-o json` (%d files, %.0f MiB, "
        "--pad %d)" % (files, size / MIB, PAD),
        "%s, CPU %s, %s (%d findings)" % (
            secs(tool[0]), secs(tool[3]), mib(tool[1]),
            count_findings(report)[0]),
        ftext, "%.2f x (on CPU time: %.2f x)" % (
            ratio, cpu_ratio(tool, ty, trg)),
        "<= %.1f x the floor" % GOAL_TIME_RATIO,
        ratio <= GOAL_TIME_RATIO,
        ("realistic-size tree (%d files, %.0f MiB)" % (files, size / MIB),
         secs(tool[0]), fcell, "%.1f x" % ratio, "<= 1.5 x"))
    shutil.rmtree(tree)


def row_real(binary, floors, tmp):
    """Issue 39: a tree shaped like real repositories (gen-realtree.py:
    manifests of several kinds, Polyaxonfiles, training scripts that
    import a local package, shell wrappers, READMEs, noise, a large file
    in one project of fifty), against the same floors as row 1."""
    tree = os.path.join(tmp, "real-%d" % PROJECTS)
    out = subprocess.run([sys.executable, os.path.join(HERE,
                                                       "gen-realtree.py"),
                          tree, str(PROJECTS)], check=True,
                         capture_output=True, text=True).stdout.split()
    files, size = int(out[2]), int(out[4])
    report = os.path.join(tmp, "real.json")
    tool, ty, trg, nyaml = vs_floors(binary, floors, tree, report,
                                     (".yaml", ".yml"))
    floor, ftext, fcell = floor_cells(ty, trg, nyaml)
    ratio = tool[0] / floor
    row("real", "tree shaped like real repositories, `-o json` (%d files, "
        "%.0f MiB, gen-realtree.py)" % (files, size / MIB),
        "%s, CPU %s, %s (%d findings)" % (
            secs(tool[0]), secs(tool[3]), mib(tool[1]),
            count_findings(report)[0]),
        ftext, "%.2f x (on CPU time: %.2f x)" % (
            ratio, cpu_ratio(tool, ty, trg)),
        "<= %.1f x the floor" % GOAL_TIME_RATIO,
        ratio <= GOAL_TIME_RATIO,
        ("tree shaped like real repositories (%d files, %.0f MiB)" % (
            files, size / MIB), secs(tool[0]), fcell, "%.1f x" % ratio,
         "<= 1.5 x"))
    shutil.rmtree(tree)


def read_repos():
    """[(owner/name, commit, package or None)] from repos.txt."""
    out = []
    with open(os.path.join(HERE, "repos.txt")) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if len(w) >= 2:
                out.append((w[0], w[1], w[2] if len(w) > 2 else None))
    return out


def snapshot(folder, repo, commit):
    """The git directory of repo in the snapshot folder that holds
    commit, or None."""
    owner, name = repo.split("/")
    for c in (os.path.join(folder, owner + "+" + name, "repo"),
              os.path.join(folder, owner + "+" + name),
              os.path.join(folder, owner, name, ".git"),
              os.path.join(folder, owner, name)):
        if os.path.isdir(c) and subprocess.run(
                ["git", "--git-dir", c, "cat-file", "-e",
                 commit + "^{commit}"], capture_output=True).returncode == 0:
            return c
    return None


def lay_out(gitdir, commit, dest):
    """Writes commit's regular files under dest; returns how many blobs
    the snapshot lacks (left out)."""
    ls = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", "-z",
                         commit], capture_output=True, check=True).stdout
    want = []
    for rec in ls.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755"):
            want.append((mode, sha, path.decode("utf-8", "replace")))
    cat = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file",
                            "--batch"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    import threading

    def feed():
        for _, sha, _ in want:
            cat.stdin.write(sha + b"\n")
        cat.stdin.close()
    t = threading.Thread(target=feed)
    t.start()
    lacking = 0
    for mode, sha, path in want:
        head = cat.stdout.readline().split()
        if len(head) < 3 or head[1] != b"blob":
            lacking += 1
            continue
        data = cat.stdout.read(int(head[2]))
        cat.stdout.read(1)
        out = os.path.join(dest, path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(data)
        if mode == b"100755":
            os.chmod(out, 0o755)
    t.join()
    cat.wait()
    return lacking


def copy_package(src, dest, k):
    """Package src copied k times under dest as NAME, NAME_2, ... (each
    copy's text naming NAME renamed to its own name, so each imports
    itself): the package-size line's trees."""
    name = os.path.basename(src)
    for i in range(k):
        new = name if i == 0 else "%s_%d" % (name, i + 1)
        for d, _, names in os.walk(src):
            out = os.path.join(dest, new, os.path.relpath(d, src))
            os.makedirs(out, exist_ok=True)
            for n in names:
                with open(os.path.join(d, n), "rb") as f:
                    data = f.read()
                if i and n.endswith(".py"):
                    data = data.replace(name.encode(), new.encode())
                with open(os.path.join(out, n), "wb") as f:
                    f.write(data)


def rows_repos(binary, floors, tmp):
    """The public repositories of repos.txt together against the floors;
    the first (Python-heavy) alone against CPython's ast.parse of its
    files; its package copied 1, 2 and 4 times: CPU time per file."""
    if not REPOS:
        print("row repos: skipped: CPULINT_BENCH_REPOS is not set (a folder "
              "of local snapshots of the repositories in tests/bench/"
              "repos.txt)")
        return
    tree = os.path.join(tmp, "repos")
    laid = []
    for repo, commit, pkg in read_repos():
        gitdir = snapshot(REPOS, repo, commit)
        if gitdir is None:
            print("row repos: %s at %s is not in %s: left out" % (
                repo, commit[:12], REPOS))
            continue
        dest = os.path.join(tree, repo.replace("/", "+"))
        lacking = lay_out(gitdir, commit, dest)
        if lacking:
            note("%s: %d blobs not in the snapshot, left out" % (
                repo, lacking))
        laid.append((repo, dest, pkg))
    if not laid:
        print("row repos: skipped: none of the repositories is in %s" %
              REPOS)
        return
    files, py, size = tree_size(tree)
    print("repositories: %s (%d files, %d Python, %.0f MiB)" % (
        ", ".join(r for r, _, _ in laid), files, py, size / MIB))
    report = os.path.join(tmp, "repos.json")
    tool, ty, trg, nyaml = vs_floors(binary, floors, tree, report,
                                     (".yaml", ".yml"))
    floor, ftext, fcell = floor_cells(ty, trg, nyaml)
    ratio = tool[0] / floor
    row("repos", "%d public repositories, `-o json` (%d files, %.0f MiB)" %
        (len(laid), files, size / MIB),
        "%s, CPU %s, %s (%d findings)" % (
            secs(tool[0]), secs(tool[3]), mib(tool[1]),
            count_findings(report)[0]),
        ftext, "%.2f x (on CPU time: %.2f x)" % (
            ratio, cpu_ratio(tool, ty, trg)),
        "<= %.1f x the floor" % GOAL_REPOS,
        ratio <= GOAL_REPOS,
        ("%d public repositories (%d files)" % (len(laid), files),
         secs(tool[0]), fcell, "%.1f x" % ratio, "<= 3 x"))
    repo, heavy, pkg = laid[0]
    hfiles, hpy, hsize = tree_size(heavy)
    got = in_rounds([
        ("tool", [binary, "--no-config", "-o", "json", heavy],
         os.path.join(tmp, "heavy.json")),
        ("ast", [sys.executable, os.path.join(HERE, "ast-parse-floor.py"),
                 heavy], None)], TREE_ROUNDS)
    t, ta = got["tool"][0], got["ast"][0]
    row("py", "%s alone (%d Python files, %.0f MiB)" % (
            repo, hpy, hsize / MIB),
        "%s, CPU %s, %s" % (secs(t), secs(got["tool"][3]),
                            mib(got["tool"][1])),
        "CPython's ast.parse of its %d Python files %s" % (hpy, secs(ta)),
        "%.2f x" % (t / ta), "<= %.2f x ast.parse" % GOAL_AST,
        t / ta <= GOAL_AST,
        ("%s (%d Python files)" % (repo.split("/")[1], hpy), secs(t),
         "ast.parse %s" % secs(ta), "%.2f x" % (t / ta), "<= 0.25 x"))
    if pkg is None or not os.path.isdir(os.path.join(heavy, pkg)):
        return
    trees = []
    for k in (1, 2, 4):
        d = os.path.join(tmp, "pkg-%d" % k)
        copy_package(os.path.join(heavy, pkg), d, k)
        trees.append((k, tree_size(d)[1], d))
    least = in_rounds([(k, [binary, "--no-config", "-j", "1", "-o", "json",
                            d], os.path.join(tmp, "pkg.json"))
                       for k, _, d in trees], SCALE_ROUNDS)
    per = []
    for k, n, d in trees:
        w, _, _, cpu = least[k]
        per.append(cpu / n)
        print("          %s x %d, %5d Python files: %s wall, %s CPU, %.0f "
              "us CPU per file" % (pkg, k, n, secs(w), secs(cpu),
                                   cpu / n * 1e6))
        shutil.rmtree(d)
    # The goal is on growth (x4 over x1: a walk per script over the whole
    # package grew with it); a process's fixed start, spread over fewer
    # files, makes the smallest tree's figure the largest, so max/min is
    # printed beside it for information.
    r = per[-1] / per[0]
    print("          per file, max/min %.2f (for information)" % (
        max(per) / min(per)))
    row("pkg", "package size, %s copied 1, 2, 4 times (-j 1)" % pkg,
        "CPU time per file %s us" % " / ".join("%.0f" % (x * 1e6)
                                               for x in per),
        "the same at x1", "x4 / x1 %.2f" % r,
        "<= %.2f (flat)" % GOAL_SCALE, r <= GOAL_SCALE,
        ("time per file, %s x1 -> x4" % pkg,
         " / ".join("%.0f us" % (x * 1e6) for x in per), "-",
         "x4/x1 %.2f" % r, "<= 1.2"))


def machine():
    cpus = os.cpu_count()
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    osname = ""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return "%s, %d CPUs (nproc: %s), %s, %.0f GiB" % (
        osname, cpus, len(os.sched_getaffinity(0)), model, mem / 2 ** 30)


def main():
    binary = os.path.abspath(os.environ.get("BIN", "kubectl-cpulint"))
    release = os.environ.get("RELEASE_BIN", "")
    floors = os.path.abspath(os.environ.get("FLOORS", "build/bench"))
    if not os.access(binary, os.X_OK):
        print("bench: no binary %s (make first)" % binary)
        return 1
    global MEASURE
    for name in ("measure", "yaml-parse-floor", "noop-static",
                 "noop-dynamic", "noop-libs"):
        if not os.access(os.path.join(floors, name), os.X_OK):
            print("bench: no %s/%s (make bench builds it)" % (floors, name))
            return 1
    MEASURE = os.path.join(floors, "measure")
    binaries = []
    if release and os.access(release, os.X_OK):
        binaries.append(("release", os.path.abspath(release)))
    binaries.append(("dev", binary))
    print("machine: %s" % machine())
    print("binary: %s%s%s" % (binary, ", release " + binaries[0][1]
                              if len(binaries) > 1 else "",
                              " (BENCH_QUICK: sizes cut, figures not the "
                              "table's)" if QUICK else ""))
    print("load average at the start: %.2f (other jobs make times noisy; "
          "compare ratios)" % os.getloadavg()[0])
    print("times: best of %d runs (row 1: of %d rounds of the tool, "
          "libyaml and ripgrep in turn; pre-commit: median of %d); memory: "
          "peak RSS (wait4, tests/bench/measure.c)" % (
              REPEAT, TREE_ROUNDS, PRECOMMIT_RUNS))
    sys.stdout.flush()
    tmp = tempfile.mkdtemp(prefix="cpl-bench-")
    try:
        have = None
        tree = None
        if {"1", "2", "3", "scale"} & set(ROWS):
            tree, files = rows_tree(binary, floors, tmp)
            have = (PROJECTS, files, tree)
        if "scale" in ROWS:
            row_scale(binary, floors, tmp, have)
        if "3" in ROWS:
            row_precommit(binaries, floors, tree)
        if "4" in ROWS:
            row_live(binary, tmp)
        if "5" in ROWS:
            row_live_wide(binary, tmp)
        if "shapes" in ROWS:
            row_shapes(binary, tmp)
        if "mem" in ROWS:
            row_memory(binary, tmp)
        if "big" in ROWS:
            row_big(binary, floors, tmp)
        if "real" in ROWS:
            row_real(binary, floors, tmp)
        if "repos" in ROWS:
            rows_repos(binary, floors, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("load average at the end: %.2f" % os.getloadavg()[0])
    print()
    print("For the README (Performance):")
    print()
    print("| what | now | floor / peer | ratio | goal | goal met |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in TABLE:
        print("| %s |" % " | ".join(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
