#!/usr/bin/env python3
"""lab.py: real PyTorch under real CFS quotas, measured by a real
Prometheus, run through kubectl-cpulint end to end (issue 34, section 1;
tests/lab/README.md says how to read it).

For each workload (tests/lab/workloads/) and budget, from the job as a
user wrote it (tests/lab/jobs/): lint it, apply the tool's --fix, plan
--jobs, run every setting those files name plus a full grid (threads 1-4
x workers 0-4; threads only without a loader), each run in its own
cgroup with the budget as its CFS quota; a real Prometheus scrapes the
runs' cgroup counters (promlab.py, under cAdvisor's names) and the
training loops' own counters (which the loops write to a file and
promlab.py serves, outside the runs' quotas); the plan's Pods are served by the test API
server; `compare` ranks them and `compare --fix` keeps the winner in a
copy of the fixed file, which is linted.  Prints the table and the
done-when checks of issue 34 as PASS/FAIL lines.

Owns: its output directory (LAB_OUT, default build/lab), the Prometheus,
API server, exporter and training processes it starts (all stopped
before it exits), and its cgroups.

Environment: LAB_SECONDS (measured seconds per run, default 10),
LAB_REPEATS (3), LAB_BUDGETS (0.5,1,2), LAB_WORKLOADS
(images,dense,dense-node,ranks,features; dense-node is dense.py as written
on a 16-CPU node, sharing dense's runs wherever the settings are the
same; features runs on OpenBLAS's pthreads build), LAB_GRID=0 (no grid),
LAB_SCRAPE_MS (Prometheus's interval: 1000 for runs of 5 s or more, else
500), LAB_SMOKE=1 (images at 1 CPU: the job as written,
its fix and the plan's settings, 3 s each, once, no grid), BIN.
Exit 0 when the harness ran (whatever the checks say; a FAIL line is a
figure, not a harness error), 1 when the harness broke, 77 when this
machine cannot run it (no torch, no prometheus, no cgroups): it says why.
"""
import copy
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cgroups  # noqa: E402
import promlab  # noqa: E402

PY = "/usr/bin/python3"
BIN = os.environ.get("BIN") or os.path.join(ROOT, "kubectl-cpulint")
SMOKE = os.environ.get("LAB_SMOKE") == "1"
SECONDS = float(os.environ.get("LAB_SECONDS") or (3 if SMOKE else 10))
REPEATS = int(os.environ.get("LAB_REPEATS") or (1 if SMOKE else 3))
BUDGETS = [float(b) for b in (os.environ.get("LAB_BUDGETS") or ("1" if SMOKE else "0.5,1,2")).split(",")]
WORKLOADS = (os.environ.get("LAB_WORKLOADS") or
             ("images" if SMOKE else "images,dense,dense-node,ranks,features")).split(",")
GRID = not SMOKE and os.environ.get("LAB_GRID") != "0"
# A job file's script when it is not the job's own name: dense-node is
# dense.py as written on a node (jobs/dense-node.yaml).
SCRIPTS = {"dense-node": "dense"}
CV2_FIX = "cv2.setNumThreads(0)"
# The image's libraries, not the job's settings: features.py runs on
# OpenBLAS's pthreads build (what pip's numpy bundles), while the
# system's libblas.so.3 stays the reference BLAS every other workload
# and every earlier figure used (tools/install-deps.sh --lab pins it).
OPENBLAS = "/usr/lib/x86_64-linux-gnu/openblas-pthread"
LIBS = {"features": {"LD_LIBRARY_PATH": OPENBLAS}}
OUT = os.environ.get("LAB_OUT") or os.path.join(ROOT, "build", "lab")
WORKER_FLAGS = ("--workers", "--num-workers", "--num_workers", "-j")
TP = 'sum(rate(train_examples_total{namespace="$namespace",pod="$pod"}[$window]))'
WT = 'sum(rate(train_loader_wait_seconds_total{namespace="$namespace",pod="$pod"}[$window]))'


def log(*a):
    print("lab:", *a, file=sys.stderr, flush=True)


def skip(why):
    print("lab: SKIP: %s" % why, flush=True)
    sys.exit(77)


def bname(b):
    return "%dm" % round(b * 1000)


def cpu_text(b):
    return '"%s"' % (("%g" % b) if b == int(b) else bname(b))


# ---- manifests --------------------------------------------------------

def container(doc):
    """The training container of a Job document."""
    return doc["spec"]["template"]["spec"]["containers"][0]


def workers_of(argv):
    for i, a in enumerate(argv):
        if a in WORKER_FLAGS and i + 1 < len(argv):
            return int(argv[i + 1])
        for f in WORKER_FLAGS:
            if a.startswith(f + "="):
                return int(a.split("=", 1)[1])
    return None


def with_setting(doc, threads, workers):
    """A copy of a Job with OMP/MKL_NUM_THREADS and the workers flag set
    as `plan --jobs` sets them (used for the grid and the static
    suggestion, which the tool does not write as files)."""
    d = copy.deepcopy(doc)
    c = container(d)
    env = [e for e in c.get("env", []) if e["name"] not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")]
    env += [{"name": "OMP_NUM_THREADS", "value": str(threads)},
            {"name": "MKL_NUM_THREADS", "value": str(threads)}]
    c["env"] = env
    if workers is not None:
        argv = list(c["command"]) + list(c.get("args", []))
        for i, a in enumerate(argv):
            if a in WORKER_FLAGS:
                argv[i + 1] = str(workers)
        c["command"], c["args"] = argv, []
    return d


def run_spec(doc, cwd):
    """What the runner executes for a Job document: its argv and the env
    it sets, read from the manifest (never from a hand-kept copy)."""
    c = container(doc)
    argv = [str(a) for a in list(c.get("command", [])) + list(c.get("args", []))]
    env = {e["name"]: str(e.get("value", "")) for e in c.get("env", [])}
    cpu = c["resources"]["limits"]["cpu"]
    cpus = float(cpu[:-1]) / 1000 if str(cpu).endswith("m") else float(cpu)
    h = hashlib.sha256()
    for f in sorted(os.listdir(cwd)):
        if f.endswith(".py"):
            h.update(f.encode() + open(os.path.join(cwd, f), "rb").read())
    # torch here is built without MKL (torch.__config__.show()), so
    # MKL_NUM_THREADS changes nothing: runs that differ only in it share
    # one measurement.
    key = json.dumps([argv, env.get("OMP_NUM_THREADS"), cpus, h.hexdigest()[:12]] +
                     ([env["OPENBLAS_NUM_THREADS"]] if "OPENBLAS_NUM_THREADS" in env else []))
    return {"argv": argv, "env": env, "cpus": cpus, "cwd": cwd, "key": key,
            "threads": int(env["OMP_NUM_THREADS"]) if env.get("OMP_NUM_THREADS", "").isdigit() else None,
            "workers": workers_of(argv)}


def setting_name(spec):
    t = spec["threads"] if spec["threads"] is not None else "?"
    n = "t%s" % t if spec["workers"] is None else "t%s-w%s" % (t, spec["workers"])
    ob = spec["env"].get("OPENBLAS_NUM_THREADS")
    return n + ("-b%s" % ob if ob is not None else "")


def tool(args, cwd, timeout=120):
    p = subprocess.run([BIN] + args, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def static_suggestion(findings, budgets=()):
    """(threads, workers) of the linter's budget split: the budget's own
    suggestion in the JSON report (suggested_threads, suggested_workers,
    given from one CPU per rank: what CPU401 says when it fires, and still
    there when the fix of another rule makes the job fit), else from the
    fix text of CPU401 or CPU202 on the job as written; workers None when
    it says none run."""
    for b in budgets:
        t, w = b.get("suggested_threads", -1), b.get("suggested_workers", -1)
        if t is not None and t >= 1:
            return t, (w if w is not None and w >= 0 else None), "budget"
    for rule in ("CPU401", "CPU202"):
        for f in findings:
            if f["rule"] != rule:
                continue
            fix = f.get("fix") or ""
            # "set OMP_NUM_THREADS to "1"", "keep OMP_NUM_THREADS at "1""
            # (the job already sets it so), or under one CPU per rank
            # "run 1 thread and no loader workers"
            m = re.search(r'(?:set OMP_NUM_THREADS to|keep OMP_NUM_THREADS at) "(\d+)"', fix)
            if not m:
                m = re.search(r"run (\d+) thread\(?s?\)? and no loader workers", fix)
                if m:
                    return int(m.group(1)), 0, rule
                continue
            t = int(m.group(1))
            w = re.search(r"use (\d+) loader worker", fix) or \
                re.search(r"and (\d+) loader worker", fix)
            return t, (int(w.group(1)) if w else None), rule
    return None


def script(wl):
    return SCRIPTS.get(wl, wl)


def cv2_variant(src, dst, on):
    """A copy of directory src in dst whose script calls CPU304's fix,
    cv2.setNumThreads(0), right after `import cv2` (on), or calls no
    cv2.setNumThreads at all (off): the same job with and without the
    fix that bounds OpenCV's pool in the loader's workers."""
    shutil.copytree(src, dst)
    for f in os.listdir(dst):
        if not f.endswith(".py"):
            continue
        path = os.path.join(dst, f)
        lines = open(path).read().split("\n")
        lines = [l for l in lines if not re.match(r"\s*cv2\.setNumThreads\(", l)]
        if on:
            for i, l in enumerate(lines):
                if l.strip() == "import cv2":
                    lines.insert(i + 1, CV2_FIX)
                    break
        with open(path, "w") as fh:
            fh.write("\n".join(lines))


def prepare(wl, budget):
    """Lint, fix and plan one workload at one budget; returns its case."""
    d = os.path.join(OUT, "%s-%s" % (wl, bname(budget)))
    shutil.rmtree(d, ignore_errors=True)
    text = open(os.path.join(HERE, "jobs", wl + ".yaml")).read()
    text = text.replace('cpu: "1"', "cpu: " + cpu_text(budget))
    case = {"workload": wl, "script": script(wl), "budget": budget, "dir": d}
    for sub in ("written", "fixed"):
        os.makedirs(os.path.join(d, sub))
        for f in (script(wl) + ".py", "metrics.py"):
            shutil.copy(os.path.join(HERE, "workloads", f), os.path.join(d, sub, f))
        with open(os.path.join(d, sub, "job.yaml"), "w") as f:
            f.write(text)
    w, fx = os.path.join(d, "written"), os.path.join(d, "fixed")
    # the files by name: "." honours .gitignore, and build/ is ignored
    files = ["job.yaml", script(wl) + ".py", "metrics.py"]
    rc, out, err = tool(["-o", "json"] + files, w)
    report = json.loads(out) if out.strip() else {}
    case["findings"] = report.get("findings", [])
    case["budgets"] = report.get("budgets", [])
    case["rules"] = sorted({f["rule"] for f in case["findings"]})
    rc, out, err = tool(["--fix"] + files, fx)
    case["fix_said"] = (out + err).strip().splitlines()[-1:] or [""]
    # the plan runs each setting as often as the lab repeats every run
    # (plan --repeat), and compare ranks by the median of those runs
    rc, out, err = tool(["plan", "--jobs"] + (["--repeat", str(REPEATS)] if REPEATS > 1 else []) +
                        ["--output-file", "plan.yaml", "job.yaml"], fx)
    case["plan_said"] = err.strip()
    case["plan"] = []
    case["plan_id"] = None
    if rc == 0:
        for doc in yaml.safe_load_all(open(os.path.join(fx, "plan.yaml"))):
            if doc:
                case["plan"].append(doc)
                case["plan_id"] = doc["metadata"]["labels"]["cpulint.io/plan"]
    written = yaml.safe_load(open(os.path.join(w, "job.yaml")))
    fixed = yaml.safe_load(open(os.path.join(fx, "job.yaml")))
    case["written"] = run_spec(written, w)
    case["fix"] = run_spec(fixed, fx)
    s = static_suggestion(case["findings"], case["budgets"])
    case["static"] = None
    if s:
        t, wk, rule = s
        if wk is None or case["fix"]["workers"] is None:
            wk = case["fix"]["workers"] if wk is None else None
        case["static"] = run_spec(with_setting(fixed, t, wk), fx)
        case["static_rule"] = rule
    case["planned"] = [(doc, run_spec(doc, fx)) for doc in case["plan"]]
    # OpenCV's pool in the loader (CPU304, issue 36): the job as written
    # and as fixed, each without and with cv2.setNumThreads(0)
    case["cv2"] = []
    if script(wl) == "images" and not SMOKE:
        for name, src, doc in (("written", w, written), ("fix", fx, fixed)):
            pair = []
            for on in (False, True):
                dst = os.path.join(d, "cv2-%s-%s" % (name, "on" if on else "off"))
                cv2_variant(src, dst, on)
                pair.append(run_spec(doc, dst))
            case["cv2"].append((name, pair[0], pair[1]))
    # OpenBLAS's pool in the loader (CPU401's other pools, issue 36): the
    # job as written and as fixed, each also with nothing changed but
    # OPENBLAS_NUM_THREADS=1, as CPU401's fix text says it
    case["blas"] = []
    if script(wl) == "features" and not SMOKE:
        for name, src, doc in (("written", w, written), ("fix", fx, fixed)):
            one = copy.deepcopy(doc)
            c = container(one)
            c["env"] = [e for e in c.get("env", []) if e["name"] != "OPENBLAS_NUM_THREADS"] + \
                [{"name": "OPENBLAS_NUM_THREADS", "value": "1"}]
            case["blas"].append((name, run_spec(doc, src), run_spec(one, src)))
    loader = case["fix"]["workers"] is not None
    case["grid"] = []
    if GRID:
        for t in (1, 2, 3, 4):
            for wk in ((0, 1, 2, 3, 4) if loader else (None,)):
                case["grid"].append(run_spec(with_setting(fixed, t, wk), fx))
    return case


# ---- running ----------------------------------------------------------

def command(spec):
    """The argv to run and its rank count."""
    argv = list(spec["argv"])
    ranks = 1
    if argv[0] in ("python", "python3"):
        argv = [PY] + argv[1:]
    elif argv[0] == "torchrun":
        argv = [PY, os.path.join(HERE, "torchrun.py")] + argv[1:]
        for i, a in enumerate(argv):
            if a in ("--nproc_per_node", "--nproc-per-node"):
                ranks = int(argv[i + 1])
    else:
        raise RuntimeError("cannot run %s" % argv[0])
    return argv, ranks


def execute(spec, rep, run_id, parent, prom, aliases):
    """Run one setting under its quota; returns its record."""
    argv, ranks = command(spec)
    status = os.path.join(OUT, "status", "%s-r%d.json" % (run_id, rep))
    os.makedirs(os.path.dirname(status), exist_ok=True)
    for f in [status] + ["%s.%d" % (status, r) for r in range(1, ranks)]:
        if os.path.exists(f):
            os.unlink(f)
    counters = status[:-5] + ".counters"
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"),
           "LANG": "C.UTF-8", "LAB_COUNTERS": counters, "LAB_SECONDS": str(SECONDS),
           "LAB_STATUS": status}
    env.update(spec["env"])
    env.update(LIBS.get(os.path.basename(spec["argv"][1])[:-3], {}) if len(spec["argv"]) > 1 else {})
    g = cgroups.Group(parent, "%s-r%d" % (run_id, rep), spec["cpus"])
    prom.add_run(g, aliases, [counters] + ["%s.%d" % (counters, r) for r in range(1, ranks)])
    t0 = time.time()
    log_path = status[:-5] + ".log"
    with open(log_path, "w") as lf:
        p = subprocess.Popen(argv, cwd=spec["cwd"], env=env, stdout=lf, stderr=subprocess.STDOUT,
                             preexec_fn=g.join)
        try:
            rc = p.wait(timeout=SECONDS + 240)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        except BaseException:
            # stopped (SIGTERM, ^C): the run goes with the lab
            p.kill()
            p.wait()
            g.remove()
            raise
    g.remove()
    rec = {"rc": rc, "wall": time.time() - t0, "log": log_path}
    marks = []
    for f in [status] + ["%s.%d" % (status, r) for r in range(1, ranks)]:
        try:
            marks.append(json.load(open(f)))
        except (OSError, ValueError):
            pass
    if rc != 0 or len(marks) != ranks or any("end" not in m for m in marks):
        rec["error"] = "exit %s; %s" % (rc, open(log_path).read()[-600:])
        return rec
    warm = max(m["warm"] for m in marks)
    end = min(m["end"] for m in marks)
    if end - warm < 0.8 * SECONDS:
        # a loop that stops early is measured over a window too short to
        # mean anything (ranks.py once kept its deadline in float32)
        rec["error"] = "the loop ran %.1f s of %g after warm-up" % (end - warm, SECONDS)
        return rec
    rec["start"] = int(warm) + 1
    rec["finish"] = int(end)
    rec["direct"] = sum((m["end_examples"] - m["warm_examples"]) / (m["end"] - m["warm"]) for m in marks)
    return rec


def main():
    if not os.path.exists(PY) or subprocess.run([PY, "-c", "import torch, torchvision, cv2"],
                                                capture_output=True).returncode != 0:
        skip("%s cannot import torch, torchvision and cv2 (sh tools/install-deps.sh --lab)" % PY)
    if "features" in WORKLOADS and not os.path.exists(os.path.join(OPENBLAS, "libblas.so.3")):
        skip("no OpenBLAS pthreads build in %s (sh tools/install-deps.sh --lab)" % OPENBLAS)
    if not shutil.which("prometheus"):
        skip("prometheus is not installed (sh tools/install-deps.sh)")
    why = cgroups.available()
    if why:
        skip(why)
    if not os.access(BIN, os.X_OK):
        print("lab: no binary %s (make first)" % BIN)
        return 1
    os.makedirs(OUT, exist_ok=True)
    t_begin = time.time()
    cases = []
    for b in BUDGETS:
        for wl in WORKLOADS:
            c = prepare(wl, b)
            cases.append(c)
            log("%s at %g CPU: rules %s; fix: %s; plan: %s" % (
                wl, b, ",".join(c["rules"]) or "none", c["fix_said"][0],
                c["plan_said"].splitlines()[-1] if c["plan_said"] else ""))
    # every distinct setting once per repeat; rows that name the same
    # setting (the grid's t4-w4 and the job as written) share the run
    runs = {}        # key -> {"spec", "id", "aliases" per rep, "recs"}
    order = []
    for c in cases:
        specs = [c["written"], c["fix"]] + ([c["static"]] if c["static"] else []) + \
            [s for _, s in c["planned"]] + c["grid"] + \
            [s for _, off, on in c["cv2"] + c["blas"] for s in (off, on)]
        for s in specs:
            # runs are shared by script: dense-node's fix and grid are
            # dense's
            k = (c["script"], s["key"])
            if k not in runs:
                rid = "%s-%s-%s" % (c["workload"], bname(c["budget"]), setting_name(s))
                if "/cv2-" in s["cwd"] and s["cwd"].endswith("-on"):
                    rid += "-cv2fix"
                n = sum(1 for r in runs.values() if r["id"].startswith(rid))
                runs[k] = {"spec": s, "id": rid + ("" if n == 0 else "-%d" % n), "recs": {}, "case": c}
                order.append(k)
    log("%d distinct settings x %d repeat(s) x %g s" % (len(order), REPEATS, SECONDS))
    # SIGTERM (kill, pkill) stops the lab as ^C does: through the
    # finally below, so Prometheus, the exporter and the cgroups go too
    # (killed without it, Prometheus ran on for its whole timeout).
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
    parent = cgroups.Parent()
    parent.enter()
    prom = promlab.Lab(OUT, timeout=int(len(order) * REPEATS * (SECONDS + 30) + 900),
                       scrape_ms=int(os.environ.get("LAB_SCRAPE_MS") or (1000 if SECONDS >= 5 else 500)))
    try:
        prom.start()
        for rep in range(1, REPEATS + 1):
            at = {}
            for k in order:
                r = runs[k]
                aliases = [(namespace(r["case"], rep), "run-" + r["id"])]
                # every plan that wrote this setting sees it as its Pod:
                # the plan's run of this repeat (plan --repeat)
                for c in cases:
                    for doc, s in c["planned"]:
                        if (c["script"], s["key"]) == k and plan_run(doc, rep):
                            aliases.append((plan_namespace(c, rep), pod_name(doc)))
                at[k] = aliases
            for i, k in enumerate(order):
                r = runs[k]
                aliases = at[k]
                rec = execute(r["spec"], rep, r["id"], parent, prom, aliases)
                rec["aliases"] = aliases
                r["recs"][rep] = rec
                log("r%d %3d/%d %-28s %s" % (rep, i + 1, len(order), r["id"],
                                               "%.1f examples/s" % rec["direct"] if "direct" in rec else rec["error"][-300:]))
        time.sleep(2)
        for k in order:
            for rep, rec in runs[k]["recs"].items():
                if "start" in rec:
                    ns, pod = rec["aliases"][0]
                    rec.update(prom.figures(ns, pod, rec["start"], rec["finish"]))
        import report
        results = report.compare_and_report(cases, runs, prom, BIN, OUT, REPEATS, TP, WT,
                                            namespace, pod_name, time.time() - t_begin,
                                            {"seconds": SECONDS, "repeats": REPEATS, "budgets": BUDGETS,
                                             "workloads": WORKLOADS, "smoke": SMOKE})
    finally:
        prom.stop()
        parent.remove()
    if SMOKE:
        # every setting the tool writes runs (a loader that takes no
        # num_workers=0 among them): a crash there is a defect, exit 1
        import runnable
        if not runnable.check(BIN):
            return 1
    return 0 if results else 1


def namespace(case, rep):
    return "lab-%s-%s-r%d" % (case["workload"], bname(case["budget"]), rep)


def plan_run(doc, rep):
    """Whether the plan's document doc is run rep: its cpulint.io/repeat
    label (plan --repeat), or every repeat when it has none."""
    r = doc["metadata"].get("labels", {}).get("cpulint.io/repeat")
    return r is None or r == str(rep)


def plan_namespace(case, rep):
    """Where the plan's Pods are served: all its runs in one namespace
    when the plan repeats them (compare takes their medians), else each
    repeat's own."""
    if any("cpulint.io/repeat" in doc["metadata"].get("labels", {}) for doc in case["plan"]):
        return "lab-%s-%s-plan" % (case["workload"], bname(case["budget"]))
    return namespace(case, rep)


def pod_name(doc):
    return doc["metadata"]["name"] + "-0"


if __name__ == "__main__":
    sys.exit(main())
