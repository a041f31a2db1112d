#!/usr/bin/env python3
"""refix.py -- after --fix, a re-run reports nothing the fix claimed to fix.

For every golden case (testdata/**/expected.txt, as tests/e2e/golden.sh
finds them), in a copy of its directory: the findings -o json lists with
edits are what --fix claims (applicability "safe"; every one with
--unsafe-fixes); --fix (then, in a fresh copy, --fix --unsafe-fixes)
runs, and a re-run must report, per rule, file, object and container, no
more findings than were there and not claimed.  Prints one line per
failure and "refix: N passed, N failed".  Owns its temporary copies.
"""
import collections
import json
import os
import shlex
import shutil
import subprocess
import sys


def run(bin_, cwd, args):
    p = subprocess.run([bin_] + args, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    return p


def findings(bin_, cwd, cfg, args):
    """The findings -o json reports and its exit status."""
    p = run(bin_, cwd, cfg + ["-o", "json"] + args)
    try:
        return json.loads(p.stdout.decode())["findings"], p.returncode
    except (ValueError, KeyError):
        return None, p.returncode


def key(f):
    return (f["rule"], f.get("file") or "", f.get("object") or "",
            f.get("container") or "")


def one(bin_, src, tmp, cfg, args, unsafe):
    """'' when the property holds in a copy of src, else why not."""
    work = os.path.join(tmp, "case")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(src, work, symlinks=True)
    before, rc = findings(bin_, work, cfg, args)
    if before is None:
        return ""		# not a case -o json reports on
    left = collections.Counter()
    claimed = collections.Counter()
    for f in before:
        k = key(f)
        if f.get("edits") and (unsafe or f.get("applicability") == "safe"):
            claimed[k] += 1
        else:
            left[k] += 1
    if not claimed:
        return ""
    fix = ["--fix"] + (["--unsafe-fixes"] if unsafe else [])
    p = run(bin_, work, cfg + fix + args)
    if p.returncode not in (0, 1, rc):	# a bad input stays one
        return "--fix exited %d: %s" % (p.returncode,
                                        p.stderr.decode()[:200])
    after, _ = findings(bin_, work, cfg, args)
    if after is None:
        return "-o json after --fix did not parse"
    now = collections.Counter(key(f) for f in after)
    bad = []
    for k in claimed:
        if now[k] > left[k]:
            msgs = [f["message"] for f in after if key(f) == k]
            bad.append("%s %s %s/%s still reported: %s" %
                       (k[0], k[1], k[2], k[3], msgs[0][:160]))
    return "; ".join(bad)


def main():
    bin_, root, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
    passed = failed = 0
    cases = []
    for d, _, files in os.walk(os.path.join(root, "testdata")):
        if "expected.txt" in files and "/apiserver" not in d:
            cases.append(d)
    for d in sorted(cases):
        args = ["."]
        if os.path.exists(os.path.join(d, "args")):
            with open(os.path.join(d, "args")) as fh:
                args = shlex.split(fh.read())
        # only static runs of paths: --fix needs files to rewrite
        if any(a in ("-f", "-") or a.startswith("--staged") or
               a.startswith("--diff-base") for a in args):
            continue
        cfg = [] if os.path.exists(os.path.join(d, ".cpulint.yaml")) \
            else ["--no-config"]
        name = os.path.relpath(d, os.path.join(root, "testdata"))
        ok = True
        for unsafe in (False, True):
            why = one(bin_, d, tmp, cfg, args, unsafe)
            if why:
                print("FAIL %s%s: %s" % (name,
                      " (--unsafe-fixes)" if unsafe else "", why))
                ok = False
        if ok:
            passed += 1
        else:
            failed += 1
    print("refix: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
