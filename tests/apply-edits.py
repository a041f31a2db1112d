#!/usr/bin/env python3
"""apply-edits.py — proves the edits the linter reports.

For each case directory: copy it, lint the copy (-o json), apply every
finding's edits (safe and unsafe; exact duplicates dropped, as the
applying side does), then check that

  * no two edits overlap and every position is inside its file;
  * each edited YAML/JSON file still loads (PyYAML; JSON files with the
    json module too) and, for insertions only, loads as a superset of the
    original: every original mapping key is still there and every list
    holds its original items in their order;
  * each edited Python file still parses (ast);
  * linting the edited copy no longer reports the findings that carried
    edits (same rule, object and container) at their severity or above
    (an error its edit leaves a note is settled) and reports no finding
    that was not there before.

Usage: apply-edits.py BIN CASE_DIR...  Prints one line per case and a
summary "apply-edits: N passed, M failed"; exits 1 on any failure.
"""
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml


def lint(binary, cwd):
    out = subprocess.run([binary, "--no-config", "-o", "json", "."],
                         cwd=cwd, capture_output=True, text=True)
    return json.loads(out.stdout)["findings"]


SEVERITY = {"note": 1, "warning": 2, "error": 3}


def key(f):
    if f.get("object"):
        return (f["rule"], f["object"], f.get("container"))
    return (f["rule"], f["file"], f["message"])  # code: no object


def offset(data, line, col):
    at = 0
    for _ in range(line - 1):
        at = data.index(b"\n", at) + 1
    end = data.find(b"\n", at)
    end = len(data) if end < 0 else end
    if col - 1 > end - at + (1 if end < len(data) else 0):
        raise ValueError("column %d past the end of line %d" % (col, line))
    return at + col - 1


def apply(data, edits):
    spans = []
    for e in edits:
        a = offset(data, e["line"], e["column"])
        b = offset(data, e["end_line"], e["end_column"])
        if b < a:
            raise ValueError("edit ends before it starts: %r" % e)
        spans.append((a, b, e["text"].encode()))
    # Stable: insertions at one point (two findings adding keys after
    # the same mapping) go in the order reported.
    spans.sort(key=lambda s: (s[0], s[1]))
    for (a1, b1, _), (a2, b2, _) in zip(spans, spans[1:]):
        if a2 < b1 or (a1 == a2 and a1 != b1):
            raise ValueError("edits overlap at bytes %d and %d" % (a1, a2))
    out, at = b"", 0
    for a, b, t in spans:
        out += data[at:a] + t
        at = b
    return out + data[at:]


def subset(a, b, where="$"):
    if isinstance(a, dict):
        if not isinstance(b, dict):
            return "%s: mapping became %r" % (where, type(b).__name__)
        for k in a:
            if k not in b:
                return "%s: key %r lost" % (where, k)
            r = subset(a[k], b[k], "%s.%s" % (where, k))
            if r:
                return r
        return None
    if isinstance(a, list):
        # every original item, in order, among the new list's items
        if not isinstance(b, list):
            return "%s: list became %r" % (where, type(b).__name__)
        j = 0
        for i, x in enumerate(a):
            while j < len(b) and subset(x, b[j]) is not None:
                j += 1
            if j == len(b):
                return "%s[%d] lost" % (where, i)
            j += 1
        return None
    return None if a == b else "%s: %r became %r" % (where, a, b)


def load(path, data):
    text = data.decode()
    if path.endswith(".py"):
        ast.parse(text, path)
        return None
    if path.endswith(".json"):
        json.loads(text)
    return list(yaml.safe_load_all(text))


def run_case(binary, case):
    tmp = tempfile.mkdtemp()
    try:
        work = os.path.join(tmp, "case")
        shutil.copytree(case, work)
        before = lint(binary, work)
        fixed = [f for f in before if f.get("edits")]
        if not fixed:
            return None, "no edits"
        byfile, inserts = {}, {}
        for f in fixed:
            for e in f["edits"]:
                byfile.setdefault(e["file"], [])
                if e not in byfile[e["file"]]:
                    byfile[e["file"]].append(e)
        for path, edits in byfile.items():
            full = os.path.join(work, path)
            with open(full, "rb") as fh:
                orig = fh.read()
            new = apply(orig, edits)
            only_ins = [e for e in edits if e["line"] == e["end_line"]
                        and e["column"] == e["end_column"]]
            docs0 = load(path, orig)
            load(path, new)
            if docs0 is not None and only_ins:
                docs1 = load(path, apply(orig, only_ins))
                r = subset(docs0, docs1)
                if r:
                    return False, "%s: not a superset: %s" % (path, r)
            with open(full, "wb") as fh:
                fh.write(new)
        after = lint(binary, work)
        # A finding its edit left as a note (CPU401 under one CPU: one
        # thread and no workers, the budget itself the problem) is
        # settled; one at its old severity or higher is not.
        was = {key(f): SEVERITY.get(f.get("severity"), 0) for f in fixed}
        left = [key(f) for f in after if key(f) in was and
                SEVERITY.get(f.get("severity"), 0) >= was[key(f)]]
        if left:
            return False, "still reported after the edits: %r" % left
        new_ones = [key(f) for f in after
                    if key(f) not in map(key, before)]
        if new_ones:
            return False, "new findings after the edits: %r" % new_ones
        return True, "%d finding(s), %d edit(s)" % (
            len(fixed), sum(len(v) for v in byfile.values()))
    except Exception as ex:  # a parse error or a bad position
        return False, "%s: %s" % (type(ex).__name__, ex)
    finally:
        shutil.rmtree(tmp)


def main():
    binary = os.path.abspath(sys.argv[1])
    passed = failed = 0
    for case in sys.argv[2:]:
        ok, why = run_case(binary, case)
        if ok is None:
            continue
        print("%s %s: %s" % ("ok  " if ok else "FAIL", case, why))
        if ok:
            passed += 1
        else:
            failed += 1
    print("apply-edits: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
