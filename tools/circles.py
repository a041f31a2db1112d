#!/usr/bin/env python3
"""Circles between source files, from the object files' symbols.

A file A calls B when A's object file leaves undefined a global symbol
that B's object file defines (`nm`: U against T/D/B/R).  Files that call
each other, directly or round a longer loop, form a circle: a strongly
connected component of more than one file.  The house wants none (issue
26); the circles that stand today are listed in tools/circles.allow, one
per line as their files sorted and joined by spaces, and this check fails
on any circle that is not there (a new one, or an old one grown), so no
new circle comes in while the old ones are taken apart.

Usage: circles.py BUILD_DIR [ALLOW_FILE]  (BUILD_DIR/lib, /rules, /cmd hold
the objects; prints the circles and exits 1 on a new one).
"""
import os
import subprocess
import sys


def objects(build):
    for top in ("lib", "rules", "cmd"):
        for root, _dirs, files in os.walk(os.path.join(build, top)):
            for f in files:
                if f.endswith(".o"):
                    yield os.path.join(root, f)


def source_name(build, obj):
    rel = os.path.relpath(obj, build)
    return rel[:-2] + ".c"


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj],
                         capture_output=True, text=True, check=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if l.strip()}
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True,
                         check=True).stdout
    undefined = {l.split()[-1] for l in out.splitlines() if l.strip()}
    return defined, undefined


def sccs(graph):
    """Tarjan's algorithm, iterative; returns the components."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                comps.append(sorted(comp))
    return comps


def main():
    build = sys.argv[1]
    allow_file = sys.argv[2] if len(sys.argv) > 2 else "tools/circles.allow"
    defs, uses = {}, {}
    for obj in objects(build):
        name = source_name(build, obj)
        d, u = symbols(obj)
        uses[name] = u
        for s in d:
            defs.setdefault(s, name)
    if not uses:
        print("circles: no object files under %s (build first)" % build)
        return 1
    graph = {f: set() for f in uses}
    for f, u in uses.items():
        for s in u:
            g = defs.get(s)
            if g is not None and g != f:
                graph[f].add(g)
    circles = [c for c in sccs(graph) if len(c) > 1]
    allowed = set()
    if os.path.exists(allow_file):
        for line in open(allow_file):
            line = line.split("#")[0].strip()
            if line:
                allowed.add(" ".join(sorted(line.split())))
    new = [c for c in circles if " ".join(c) not in allowed]
    for c in circles:
        print("circles: %s%s" % ("NEW " if c in new else "", " <-> ".join(c)))
    print("circles: %d between files, %d new" % (len(circles), len(new)))
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
