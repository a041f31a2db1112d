#!/usr/bin/env python3
"""runnable.py — every setting the tool writes for a job runs, with real
PyTorch: part of `make lab-smoke` (lab.py calls check()).

A worker count is more than a speed: a DataLoader given
persistent_workers=True (or a prefetch_factor) raises ValueError with
num_workers=0, so a fix or a plan setting of 0 workers would crash the
job it was meant to speed up.  For jobs/tabular.yaml (such a loader,
--workers 4 on 1 CPU) this lints, applies --fix --unsafe-fixes (CPU401's
split), writes the plan (plan --jobs), and runs the fixed job and every
planned setting's command with /usr/bin/python3 for a few steps: each
must exit 0.  The control, the same job with --workers 0, must fail with
that ValueError, or the check proves nothing.  No quota is needed: the
question is whether the setting runs, not how fast.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def argv_of(doc):
    c = doc["spec"]["template"]["spec"]["containers"][0]
    argv = [str(a) for a in list(c.get("command", [])) + list(c.get("args", []))]
    env = {e["name"]: str(e.get("value", "")) for e in c.get("env", [])}
    return [PY] + argv[1:], env


def run(argv, env, cwd):
    e = dict(os.environ)
    e.update(env)
    return subprocess.run(argv, cwd=cwd, env=e, capture_output=True, text=True,
                          timeout=300)


def check(binary):
    """Prints a PASS or FAIL line per setting; True when all pass."""
    d = tempfile.mkdtemp(prefix="lab-runnable-")
    ok = True
    try:
        shutil.copy(os.path.join(HERE, "jobs", "tabular.yaml"), os.path.join(d, "job.yaml"))
        shutil.copy(os.path.join(HERE, "workloads", "tabular.py"), d)
        files = ["job.yaml", "tabular.py"]
        p = subprocess.run([binary, "--fix", "--unsafe-fixes"] + files, cwd=d,
                           capture_output=True, text=True)
        fixed = yaml.safe_load(open(os.path.join(d, "job.yaml")))
        settings = [("fix", fixed)]
        p = subprocess.run([binary, "plan", "--jobs", "--output-file", "plan.yaml",
                            "job.yaml"], cwd=d, capture_output=True, text=True)
        if p.returncode != 0:
            ok = False
            print("runnable: FAIL plan exited %d: %s" % (p.returncode, p.stderr.strip()))
        else:
            for doc in yaml.safe_load_all(open(os.path.join(d, "plan.yaml"))):
                if doc:
                    settings.append((doc["metadata"]["labels"]["cpulint.io/setting"], doc))
        for name, doc in settings:
            argv, env = argv_of(doc)
            r = run(argv, env, d)
            line = "%s: %s" % (name, " ".join(argv[1:]))
            if r.returncode == 0:
                print("runnable: PASS %s" % line)
            else:
                ok = False
                print("runnable: FAIL %s exited %d: %s" % (line, r.returncode,
                                                        r.stderr.strip().splitlines()[-1:]))
        # the control: no workers must crash this loader
        argv, env = argv_of(fixed)
        i = argv.index("--workers")
        argv[i + 1] = "0"
        r = run(argv, env, d)
        if r.returncode != 0 and "ValueError" in r.stderr:
            print("runnable: PASS control: --workers 0 raises %s" %
                  r.stderr.strip().splitlines()[-1])
        else:
            ok = False
            print("runnable: FAIL control: --workers 0 exited %d without ValueError: "
                  "the check proves nothing" % r.returncode)
        print("runnable: %d setting(s) the tool wrote, %s" % (len(settings),
              "all run" if ok else "NOT all run"))
        return ok
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    b = os.environ.get("BIN") or os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                              "kubectl-cpulint")
    sys.exit(0 if check(os.path.abspath(b)) else 1)
