#!/usr/bin/env python3
"""fixprop.py — the property --fix is held to, over generated files.

Writes N Kubernetes Job manifests in many styles (anchors read by an
alias or not, merge keys, literal and folded block scalars, tags, quoting,
flow and block lists, comments, CRLF, a BOM, indentation, JSON), runs
`kubectl-cpulint -o json` and then `--fix --unsafe-fixes` on each, and
checks with PyYAML, a reader independent of the tool's own:

  - the fixed file parses, with as many documents, a BOM and CRLF line
    ends kept where the original had them;
  - every value the original held is still there with the same type and
    value, except the nodes an edit of a finding names, which hold what
    the edit intends (the value its text spells, or the old value with
    the edited bytes replaced), with the type they had;
  - anything added is what fixes add: thread variables, the /dev/shm
    volume and mount, CPU requests and limits.

Aliases are resolved as PyYAML resolves them, so an edit of an anchor
that changed what an alias reads shows as a change at the alias's path,
which no edit names.  Prints "fixprop: N passed, M failed" and exits 1 on
any failure.  Usage: fixprop.py BIN N SEED WORKDIR
"""
import json
import os
import random
import subprocess
import sys

import yaml

THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
ADDED_KEYS = {"env", "volumes", "volumeMounts", "resources", "requests",
              "limits", "cpu", "name", "value", "mountPath", "emptyDir",
              "medium", "sizeLimit"} | set(THREAD_VARS)


def value_text(rng, v, anchor=None):
    """A thread count written in one of YAML's styles; (text, block)."""
    a = "&%s " % anchor if anchor else ""
    style = rng.choice(["plain", "double", "single", "literal", "folded",
                        "tag", "tagq"])
    if style == "plain":
        return a + str(v), False
    if style == "double":
        return a + '"%d"' % v, False
    if style == "single":
        return a + "'%d'" % v, False
    if style == "tag":
        return a + "!!str %d" % v, False
    if style == "tagq":
        return a + '!!str "%d"' % v, False
    return a + ("|" if style == "literal" else ">-"), True


def env_block(rng, ind, omp, mkl, anchor, alias_of, env_anchor):
    """An env list in block or flow style, lines without line ends."""
    lines = []
    head = ind + "env:" + (" &%s" % env_anchor if env_anchor else "")
    items = []
    if omp is not None:
        items.append(("OMP_NUM_THREADS", omp, anchor))
    if mkl is not None:
        items.append(("MKL_NUM_THREADS", mkl, None))
    flow = rng.random() < 0.25 and alias_of is None
    if flow:
        parts = []
        for name, v, anc in items:
            parts.append("{name: %s, value: %s\"%d\"}" % (
                name, "&%s " % anc if anc else "", v))
        lines.append(head + " [" + ", ".join(parts) + "]")
        return lines
    lines.append(head)
    dash = ind if rng.random() < 0.5 else ind + "  "
    for name, v, anc in items:
        lines.append(dash + "- name: " + name)
        if rng.random() < 0.2:
            lines.append(dash + "  # the thread count")
        if alias_of and name == "OMP_NUM_THREADS":
            lines.append(dash + "  value: *" + alias_of)
            continue
        text, block = value_text(rng, v, anc)
        lines.append(dash + "  value: " + text)
        if block:
            lines.append(dash + "    " + str(v))
    return lines


def command(rng, ind, ranks, workers):
    style = rng.choice(["flow", "block", "literal"])
    if style == "flow":
        return [ind + 'command: ["torchrun", "--nproc_per_node=%d", '
                '"train.py", "--workers=%d"]' % (ranks, workers)]
    if style == "block":
        return [ind + "command:", ind + "- torchrun",
                ind + "- --nproc_per_node=%d" % ranks, ind + "- train.py",
                ind + "- --workers=%d" % workers]
    return [ind + "command: [\"/bin/sh\", \"-c\"]", ind + "args:",
            ind + "- |",
            ind + "  torchrun --nproc_per_node=%d train.py --workers %d"
            % (ranks, workers)]


def resources(rng, ind, cpus):
    style = rng.choice(["str", "int", "milli", "none", "request"])
    if style == "none":
        return []
    val = {"str": '"%d"' % cpus, "int": str(cpus),
           "milli": "%dm" % (cpus * 1000)}.get(style, '"%d"' % cpus)
    if style == "request":
        return [ind + "resources:", ind + "  requests:",
                ind + "    cpu: " + val]
    return [ind + "resources:", ind + "  limits:", ind + "    cpu: " + val]


def manifest(rng, i):
    """One Job as text, in a style drawn from rng."""
    ind = "      "
    lines = ["# generated variant %d" % i, "apiVersion: batch/v1",
             "kind: Job", "metadata:", "  name: train-%d" % i, "spec:",
             "  template:", "    spec:", "      restartPolicy: Never",
             "      containers:"]
    item = ind if rng.random() < 0.5 else ind + "  "
    body = item + "  "
    shape = rng.choice(["plain", "alias-value", "alias-env", "merge",
                        "anchor-unread"])
    n = 2
    for k in range(n):
        ranks = rng.choice([1, 2, 4])
        omp = rng.choice([None, 2, 8, 16])
        mkl = rng.choice([None, None, 4, 16])
        cpus = rng.choice([2, 4, 8])
        workers = rng.choice([0, 2, 8])
        anchor = alias_of = env_anchor = None
        if shape == "alias-value" and k == 0:
            omp = omp or 8
            anchor = "t"
        if shape == "alias-value" and k == 1:
            alias_of = "t"
            omp = 8
        if shape == "anchor-unread" and k == 0:
            omp = omp or 8
            anchor = "u"
        if shape == "alias-env" and k == 0:
            omp = omp or 8
            env_anchor = "e"
        if shape == "merge" and k == 1:
            lines.append(item + "- <<: *c0")
            lines.append(body + "name: c1")
            continue
        head = item + "- " + ("&c0 " if shape == "merge" and k == 0
                              else "") + "name: c%d" % k
        if shape == "merge" and k == 0:
            lines.append(item + "- &c0")
            lines.append(body + "name: c0")
        else:
            lines.append(head)
        lines.append(body + "image: registry.example.com/ml/train:1.0")
        lines += command(rng, body, ranks, workers)
        if shape == "alias-env" and k == 1:
            lines.append(body + "env: *e")
        elif omp is not None or mkl is not None:
            lines += env_block(rng, body, omp, mkl, anchor, alias_of,
                               env_anchor)
        lines += resources(rng, body, cpus)
        if rng.random() < 0.3:
            lines.append(body + "# end of c%d" % k)
    text = "\n".join(lines) + "\n"
    return text


def render(rng, i):
    """(file name, bytes) of variant i."""
    text = manifest(rng, i)
    if rng.random() < 0.12:
        data = yaml.safe_load(text)
        if rng.random() < 0.5:
            return "v%03d.json" % i, json.dumps(data, indent=2).encode()
        return "v%03d.json" % i, json.dumps(data).encode()
    raw = text.encode()
    if rng.random() < 0.2:
        raw = raw.replace(b"\n", b"\r\n")
    if rng.random() < 0.15:
        raw = b"\xef\xbb\xbf" + raw
    return "v%03d.yaml" % i, raw


def compose(raw):
    """The documents as PyYAML's node graphs."""
    return list(yaml.compose_all(raw.decode("utf-8-sig")))


def scalars(docs):
    """Every scalar node of the original, once (aliases share them)."""
    out, seen = [], set()

    def walk(n):
        if id(n) in seen:
            return
        seen.add(id(n))
        if isinstance(n, yaml.ScalarNode):
            out.append(n)
        elif isinstance(n, yaml.SequenceNode):
            for c in n.value:
                walk(c)
        elif isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                walk(k)
                walk(v)
    for d in docs:
        walk(d)
    return out


def offset(lines_at, line, col):
    return lines_at[line - 1] + col - 1


def intended(raw, docs, edits):
    """Per scalar node (by id): the value its edits intend, from the
    original text: the scalar the replacement spells (after the node's
    anchor or tag) when it replaces the node's content whole, else the
    old value with the edited bytes replaced at their place."""
    text = raw.decode("utf-8-sig")
    at = [0]
    for ln in text.split("\n"):
        at.append(at[-1] + len(ln) + 1)
    nodes = scalars(docs)
    want = {}
    for e in edits:
        eo = offset(at, e["line"], e["column"])
        ee = offset(at, e["end_line"], e["end_column"])
        if eo == ee:
            continue
        inside = [n for n in nodes if n.start_mark.index <= eo and
                  ee <= n.end_mark.index]
        if not inside:
            continue
        n = min(inside, key=lambda n: n.end_mark.index - n.start_mark.index)
        s, end = n.start_mark.index, n.end_mark.index
        c = s
        while c < end and text[c] in "&!":
            while c < end and text[c] not in " \t\r\n":
                c += 1
            while c < end and text[c] in " \t":
                c += 1
        cend = end
        while cend > c and text[cend - 1] in " \t\r\n":
            cend -= 1
        if eo <= c and ee >= cend:
            want[id(n)] = yaml.safe_load(text[s:eo] + e["text"])
        else:
            old = text[eo:ee]
            v = n.value
            k = v.rfind(old, 0, max(0, eo - c) + len(old))
            want[id(n)] = v if k < 0 else v[:k] + e["text"] + v[k + len(old):]
    return want


def node_paths(docs):
    """Each scalar node's id → the data paths it is read at (an alias
    and a merge key's base read one node at several)."""
    out = {}

    def walk(n, path, depth):
        if depth > 60:
            return
        if isinstance(n, yaml.ScalarNode):
            out.setdefault(id(n), []).append(path)
        elif isinstance(n, yaml.SequenceNode):
            for i, c in enumerate(n.value):
                walk(c, path + (i,), depth + 1)
        elif isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                if k.tag == "tag:yaml.org,2002:merge":
                    for kk, vv in v.value:
                        walk(vv, path + (kk.value,), depth + 1)
                else:
                    walk(v, path + (k.value,), depth + 1)
    for i, d in enumerate(docs):
        walk(d, (i,), 0)
    return out


def check_file(path, raw0, raw1, edits):
    """The problems of one fixed file (a list of strings)."""
    problems = []
    try:
        docs1 = list(yaml.safe_load_all(raw1.decode("utf-8-sig")))
    except yaml.YAMLError as ex:
        return ["the fixed file does not parse: %s" % ex]
    docs0 = list(yaml.safe_load_all(raw0.decode("utf-8-sig")))
    if len(docs0) != len(docs1):
        problems.append("documents: %d -> %d" % (len(docs0), len(docs1)))
    if raw0.startswith(b"\xef\xbb\xbf") != raw1.startswith(b"\xef\xbb\xbf"):
        problems.append("the BOM was not kept")
    if b"\r\n" in raw0 and raw0.count(b"\n") == raw0.count(b"\r\n") and \
            raw1.count(b"\n") != raw1.count(b"\r\n"):
        problems.append("CRLF line ends were not kept")
    # One composed graph for both: node ids are only unique while it
    # lives.
    graph = compose(raw0)
    want_by_id = intended(raw0, graph, edits)
    where = node_paths(graph)
    want, shared = {}, set()
    for nid, ps in where.items():
        for p in ps:
            if nid in want_by_id:
                want[p] = want_by_id[nid]
            if len(ps) > 1:
                shared.add(p)

    def leaf(a, b, path):
        if a == b and type(a) is type(b):
            return
        if path in shared:
            problems.append("%s: %r -> %r, a value read at several "
                            "places" % (path, a, b))
        elif path in want:
            if type(b) is not type(a):
                problems.append("%s: type %s -> %s" % (
                    path, type(a).__name__, type(b).__name__))
            elif b != want[path]:
                problems.append("%s: %r, intended %r" % (
                    path, b, want[path]))
        else:
            problems.append("%s: %r -> %r, which no edit names" % (
                path, a, b))

    def cmp(a, b, path):
        if isinstance(a, dict):
            if not isinstance(b, dict):
                problems.append("%s: a mapping became %r" % (path, b))
                return
            for k in a:
                if k not in b:
                    problems.append("%s.%s: removed" % (path, k))
                else:
                    cmp(a[k], b[k], path + (k,))
            for k in b:
                if k not in a and k not in ADDED_KEYS:
                    problems.append("%s.%s: added %r" % (path, k, b[k]))
            return
        if isinstance(a, list):
            if not isinstance(b, list):
                problems.append("%s: a list became %r" % (path, b))
                return
            # Added items: thread variables, the dshm volume or mount,
            # each one whose name the list did not hold.
            names = {x.get("name") for x in a if isinstance(x, dict)}
            rest = [x for x in b if not (added_item(x) and
                                         x.get("name") not in names)]
            if len(rest) != len(a):
                problems.append("%s: items %r -> %r" % (path, a, b))
                return
            for i, (x, y) in enumerate(zip(a, rest)):
                cmp(x, y, path + (i,))
            return
        leaf(a, b, path)
    for i, (a, b) in enumerate(zip(docs0, docs1)):
        cmp(a, b, (i,))
    return problems


def added_item(x):
    return isinstance(x, dict) and (x.get("name") in THREAD_VARS or
                                    x.get("name") == "dshm")


def byte_offset(raw, at, line, col):
    return at[line - 1] + col - 1


def apply_pass(raw, report, name):
    """raw with the edits of report's findings applied as one pass of
    --fix applies them: groups (findings) in the order of their first
    edit, a group skipped whole when an edit overlaps one applied (an
    insertion overlaps only a range it falls strictly inside), an edit
    equal to an applied one dropped, insertions at one point in order."""
    at = [0]
    for ln in raw.split(b"\n"):
        at.append(at[-1] + len(ln) + 1)
    groups = []
    for fi, f in enumerate(report["findings"]):
        eds = [e for e in f.get("edits") or [] if e["file"] == name]
        if not eds:
            continue
        spans = [(byte_offset(raw, at, e["line"], e["column"]),
                  byte_offset(raw, at, e["end_line"], e["end_column"]),
                  e["text"].encode(), (fi, k)) for k, e in enumerate(eds)]
        groups.append([sp + (e,) for sp, e in zip(spans, eds)])
    groups.sort(key=lambda g: min((s[0], s[1], s[3]) for s in g))
    accepted = []

    def overlaps(a, b):
        if a[0] == a[1] and b[0] == b[1]:
            return False
        if a[0] == a[1]:
            return b[0] < a[0] < b[1]
        if b[0] == b[1]:
            return a[0] < b[0] < a[1]
        return a[0] < b[1] and b[0] < a[1]
    for g in groups:
        keep, ok = [], True
        for sp in g:
            if any(sp[:3] == x[:3] for x in accepted + keep):
                continue
            if any(overlaps(sp, x) for x in accepted + keep):
                ok = False
                break
            keep.append(sp)
        if ok:
            accepted += keep
    out, pos = [], 0
    for s, e, t, _, _ in sorted(accepted, key=lambda x: (x[0], x[1],
                                                         x[3])):
        out.append(raw[pos:s])
        out.append(t)
        pos = e
    out.append(raw[pos:])
    return b"".join(out), [x[4] for x in accepted]


def lint_json(bin_, d, name):
    r = subprocess.run([bin_, "--no-config", "-o", "json", name],
                       cwd=d, capture_output=True)
    try:
        return json.loads(r.stdout), r
    except ValueError:
        return None, r


def main():
    bin_, n, seed, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
        sys.argv[4]
    rng = random.Random(seed)
    passed = failed = 0
    for i in range(n):
        name, raw0 = render(rng, i)
        d = os.path.join(work, "c%03d" % i)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, name)
        problems = []
        # The edits the report offers, applied pass by pass as --fix
        # does; each pass must hold the property.
        text = raw0
        for npass in range(10):
            with open(path, "wb") as f:
                f.write(text)
            report, r = lint_json(bin_, d, name)
            if report is None:
                problems.append("pass %d: no JSON report (exit %d): %s" % (
                    npass + 1, r.returncode, r.stderr.decode()[:300]))
                break
            new, applied = apply_pass(text, report, name)
            if new == text:
                break
            problems += ["pass %d: %s" % (npass + 1, p)
                         for p in check_file(path, text, new, applied)]
            if problems:
                break
            text = new
        # --fix itself must make exactly that text.
        if not problems:
            with open(path, "wb") as f:
                f.write(raw0)
            r = subprocess.run([bin_, "--no-config", "--fix",
                                "--unsafe-fixes", name], cwd=d,
                               capture_output=True)
            with open(path, "rb") as f:
                got = f.read()
            if r.returncode not in (0, 1):
                problems.append("--fix exit %d: %s" % (
                    r.returncode, r.stderr.decode()[:300]))
            elif got != text:
                with open(path + ".passes", "wb") as f:
                    f.write(text)
                with open(path + ".orig", "wb") as f:
                    f.write(raw0)
                problems.append("--fix wrote other bytes than its edits "
                                "applied pass by pass (%s.passes)" % path)
        if problems:
            failed += 1
            print("FAIL fixprop: %s (seed %d):" % (path, seed))
            for p in problems[:8]:
                print("    " + p)
        else:
            passed += 1
    print("fixprop: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
