#!/usr/bin/env python3
"""The layering check of `make lint`: wings that only reach down.

Reads the wing table (tools/wings: each wing and the wings below it that
it may use) and checks, over lib/, rules/ and cmd/:

  - every `#include "..."` of a file names its own wing or one on its
    wing's line (a header of lib/ is named by its wing: "run/engine.h";
    util.h is util's, a header found in rules/ or cmd/ is theirs);
  - every call from one file to a global another defines (its object's
    undefined symbols against the other's defined ones: `nm`) runs to
    its own wing or one on its line;
  - no struct of one bare name is defined in two wings (`struct scan`
    of the shell and of the Python reader: grep and a debugger cannot
    tell them apart), a function's own struct and a typedef'd one
    included;
  - a private header (named `*_int.h`) is included only by files of its
    own wing (the unit tests under tests/ may include it), and a header
    of lib/ that only its own wing includes is named so (tests/ and
    tools/ do not count as users);
  - the table itself runs one way (no wing reaches itself round a loop),
    and so do the calls: no circle between wings (implied by the two
    checks above; said once by name when they find one).

Files inside one wing may call each other, round a loop or not (as
libgit2's files do): a recursion between two files of a wing is a direct
call, never a function pointer set only to hide it (docs/CONTRIBUTING.md).

Usage: house.py BUILD_DIR [WINGS_FILE]  (BUILD_DIR/lib, /rules, /cmd hold
the objects).  Prints what it found; exits 1 on any breach.
"""
import glob
import os
import re
import subprocess
import sys


# A struct's definition: at the top level or a function's own (indented,
# its variable on the same line), plain, static, const or a typedef.
STRUCT_DEF = re.compile(r"\s*(?:typedef\s+)?(?:(?:static|const|extern)\s+)*"
                        r"struct\s+([A-Za-z_][A-Za-z_0-9]*)\s*\{")


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


def wing_of(path):
    """The wing a source file belongs to."""
    parts = path.split("/")
    if parts[0] == "lib":
        return "util" if len(parts) == 2 else parts[1]
    return parts[0]


def header_wing(inc):
    """The wing an include names, or None when it names no file here."""
    if "/" in inc:
        w = inc.split("/")[0]
        return w if os.path.isfile(os.path.join("lib", inc)) else None
    if inc == "util.h":
        return "util"
    for top in ("rules", "cmd"):
        if os.path.isfile(os.path.join(top, inc)):
            return top
    return None


def read_wings(path):
    wings = {}
    for n, line in enumerate(open(path), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        name, _, below = line.partition(":")
        wings[name.strip()] = set(below.split())
    return wings


def main():
    build = sys.argv[1]
    wings = read_wings(sys.argv[2] if len(sys.argv) > 2 else
                       "tools/wings")
    bad = []
    # The table runs one way.
    for w in [w for c in sccs({k: v & set(wings) for k, v in wings.items()})
              if len(c) > 1 for w in c]:
        bad.append("wings: %s reaches itself round a loop (tools/wings)"
                   % w)
    for w, below in wings.items():
        for b in below - set(wings):
            bad.append("wings: %s names an unknown wing %s" % (w, b))
    # Includes.
    srcs = sorted(glob.glob("lib/*.[ch]") + glob.glob("lib/*/*.[ch]") +
                  glob.glob("rules/*.[ch]") + glob.glob("cmd/*.[ch]"))
    for p in srcs:
        w = wing_of(p)
        if w not in wings:
            bad.append("wings: %s is in no wing of tools/wings" % p)
            continue
        for n, line in enumerate(open(p, encoding="utf-8"), 1):
            m = re.match(r'#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            hw = header_wing(m.group(1))
            if hw is None:
                if not os.path.isfile(os.path.join(os.path.dirname(p),
                                                   m.group(1))):
                    bad.append("%s:%d: includes %s, which is no header "
                               "of a wing" % (p, n, m.group(1)))
                continue
            if m.group(1).endswith("_int.h") and hw != w:
                bad.append("%s:%d: includes %s, a header private to %s"
                           % (p, n, m.group(1), hw))
                continue
            if hw != w and hw not in wings[w]:
                bad.append("%s:%d: includes %s: %s may not reach up to "
                           "%s (tools/wings)" % (p, n, m.group(1), w, hw))
    # A header only its own wing includes is private: named *_int.h.
    users = {}
    for p in srcs:
        for line in open(p, encoding="utf-8"):
            m = re.match(r'#\s*include\s+"([^"]+)"', line)
            if m and "/" in m.group(1):
                users.setdefault(m.group(1), set()).add(wing_of(p))
    for h in sorted(glob.glob("lib/*/*.h")):
        inc = h[len("lib/"):]
        w = wing_of(h)
        if not h.endswith("_int.h") and users.get(inc, set()) <= {w}:
            bad.append("%s: only %s includes it: a private header is "
                       "named %s" % (h, w, os.path.basename(h)[:-2] +
                                     "_int.h"))
    # Struct names: one wing each.
    owner = {}
    for p in srcs:
        for n, line in enumerate(open(p, encoding="utf-8"), 1):
            m = STRUCT_DEF.match(line)
            if not m:
                continue
            w = wing_of(p)
            prev = owner.setdefault(m.group(1), (w, p, n))
            if prev[0] != w:
                bad.append("%s:%d: struct %s is also defined in %s:%d "
                           "(another wing)" % (p, n, m.group(1), prev[1],
                                               prev[2]))
    # Calls, from the objects (of sources that still exist: a file moved
    # leaves its old object behind in a build directory).
    defs, uses = {}, {}
    for obj in objects(build):
        name = source_name(build, obj)
        if not os.path.isfile(name):
            continue
        d, u = symbols(obj)
        uses[name] = u
        for s in d:
            defs.setdefault(s, name)
    if not uses:
        print("house: no object files under %s (build first)" % build)
        return 1
    graph = {f: set() for f in uses}
    for f, u in sorted(uses.items()):
        wf = wing_of(f)
        for s in sorted(u):
            g = defs.get(s)
            if g is None or g == f:
                continue
            graph[f].add(g)
            wg = wing_of(g)
            if wf != wg and wf in wings and wg not in wings[wf]:
                bad.append("%s calls %s (%s): %s may not reach up to %s "
                           "(tools/wings)" % (f, s, g, wf, wg))
    # Circles: between wings a breach (the calls above already name
    # each arrow that runs up); inside one wing allowed, only counted.
    wgraph = {}
    for f, gs in graph.items():
        wgraph.setdefault(wing_of(f), set()).update(
            wing_of(g) for g in gs if wing_of(g) != wing_of(f))
    for w in list(wgraph):
        for v in wgraph[w]:
            wgraph.setdefault(v, set())
    for c in sccs(wgraph):
        if len(c) > 1:
            bad.append("circle between wings: %s" % " <-> ".join(c))
    inside = sum(len(c) for c in sccs(graph)
                 if len(c) > 1 and len({wing_of(f) for f in c}) == 1)
    for b in bad:
        print("house: " + b)
    print("house: %d wings, %d files (%d in loops inside a wing, "
          "allowed), %d breaches"
          % (len(wings), len(uses), inside, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
