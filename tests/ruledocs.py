#!/usr/bin/env python3
"""The examples in rules/ID.md are tests (issue 39, point 6).

Every rule page's "Example" section holds fenced blocks whose first line
says `# bad: ...` or `# good: ...`.  The blocks of one kind (all the bad
ones, all the good ones) make one case directory: a `yaml` block is
written as job.yaml (the second as job2.yaml ...), a `python` block as
the file its first line names (`# bad: train.py, ...`), else train.py;
a case with no file of a type the other case has takes the other's (a
page that shows one manifest and the code it runs, bad and good).
The binary lints the directory (-o json, --no-config); the rule must be
among the findings of the bad case and absent from the good case.  A
rule that needs a running Pod (live only) is judged by its live tests;
its page's example is not a static case and is said so, not counted.

Usage: ruledocs.py BIN [RULES_DIR]; prints one line per case and
"N passed, N failed"; exit 1 when any failed.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w*)\s*$")
HEAD = re.compile(r"^#\s*(bad|good)\b[:,]?\s*(.*)$")
PYNAME = re.compile(r"^([\w./-]+\.py)\b")


def blocks(text):
    """(lang, lines) of each fenced block in the Example section."""
    out, cur, lang, in_example = [], None, "", False
    for line in text.splitlines():
        if cur is None and line.startswith("## "):
            in_example = line.strip().lower().startswith("## example")
            continue
        m = FENCE.match(line)
        if m and cur is None:
            cur, lang = [], m.group(1)
        elif line.startswith("```") and cur is not None:
            if in_example:
                out.append((lang, cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def cases(text):
    """{'bad': [(name, body)], 'good': [...]} from the page's examples."""
    got = {"bad": [], "good": []}
    for lang, lines in blocks(text):
        if not lines:
            continue
        m = HEAD.match(lines[0].strip())
        if not m or lang not in ("yaml", "python"):
            continue
        kind, rest = m.group(1), m.group(2)
        if lang == "python":
            n = PYNAME.match(rest)
            name = n.group(1) if n else "train.py"
        else:
            k = sum(1 for x, _ in got[kind] if x.endswith(".yaml"))
            name = "job.yaml" if k == 0 else "job%d.yaml" % (k + 1)
        got[kind].append((name, "\n".join(lines) + "\n"))
    # A page may show one manifest and two versions of the code it runs
    # ("good: train.py, ... (same Pod)"): a case without a file of the
    # other case's type runs beside that case's file, as the page says.
    for kind, other in (("bad", "good"), ("good", "bad")):
        mine = {os.path.splitext(n)[1] for n, _ in got[kind]}
        for name, body in list(got[other]):
            if got[kind] and os.path.splitext(name)[1] not in mine:
                got[kind].append((name, body))
    return got


def rule_ids(binary, root):
    """The rules the binary knows, and which of them are live only."""
    out = subprocess.run([binary, "--list-rules", "-o", "json"],
                         capture_output=True, text=True, timeout=30, cwd=root)
    if out.returncode != 0:
        sys.exit("ruledocs: `%s --list-rules -o json` failed: %s" % (binary, out.stderr))
    return {r["id"]: r["live_only"] for r in json.loads(out.stdout)}


def run_case(binary, files, tmp):
    os.makedirs(tmp)
    for name, body in files:
        path = os.path.join(tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(body)
    out = subprocess.run([binary, "--no-config", "-o", "json", "."],
                         capture_output=True, text=True, timeout=60, cwd=tmp)
    if out.returncode not in (0, 1):
        return None, out.stderr.strip()
    doc = json.loads(out.stdout)
    return sorted({f["rule"] for f in doc["findings"]}), ""


def main():
    binary = os.path.abspath(sys.argv[1])
    rules_dir = sys.argv[2] if len(sys.argv) > 2 else "rules"
    root = os.path.dirname(os.path.abspath(rules_dir))
    known = rule_ids(binary, root)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for rid in sorted(known):
            path = os.path.join(rules_dir, rid + ".md")
            with open(path) as f:
                got = cases(f.read())
            if known[rid]:
                print("skip %s: live only; its example is judged by the live tests" % rid)
                continue
            if not got["bad"] or not got["good"]:
                print("FAIL %s: rules/%s.md has no bad and good example (```yaml or ```python, first line '# bad:'/'# good:')" % (rid, rid))
                failed += 1
                continue
            for kind in ("bad", "good"):
                found, err = run_case(binary, got[kind],
                                      os.path.join(tmp, rid + "-" + kind))
                names = ", ".join(n for n, _ in got[kind])
                if found is None:
                    print("FAIL %s %s (%s): the run failed: %s" % (rid, kind, names, err))
                    failed += 1
                elif (rid in found) != (kind == "bad"):
                    print("FAIL %s %s (%s): %s; findings: %s" % (
                        rid, kind, names,
                        "does not fire" if kind == "bad" else "fires",
                        ", ".join(found) or "none"))
                    failed += 1
                else:
                    print("ok %s %s (%s)" % (rid, kind, names))
                    passed += 1
    print("ruledocs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
