#!/bin/sh
# The make bench instrument, without timing anything: the monorepo
# generator (tests/bench/gen-monorepo.py) is deterministic, a smaller tree
# is the start of a larger one (the scaling line relies on it), its files
# are all inputs the linter understands, its clean projects are silent and
# its others give findings of many rules; and the report reader of
# tests/bench/bench.py counts what the report holds.
set -u
BIN=${BIN:?}
SUITE=bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh

gen=tests/bench/gen-monorepo.py
expect "generate 12" 0 python3 $gen "$tmp/a" 12
has "generate 12" "12 projects, 48 files,"
expect "generate 12 again" 0 python3 $gen "$tmp/b" 12
expect "generate 20" 0 python3 $gen "$tmp/c" 20
expect "other seed" 0 python3 $gen "$tmp/d" 12 --seed other
check "same seed, same bytes" diff -r "$tmp/a" "$tmp/b"
# the 12-project tree is the first 12 projects of the 20-project one
n=0
for f in $(cd "$tmp/a" && find . -type f | sort); do
	cmp -s "$tmp/a/$f" "$tmp/c/$f" || n=$((n + 1))
done
check "12 projects are the start of 20 ($n files differ)" [ "$n" = 0 ]
if diff -rq "$tmp/a" "$tmp/d" >/dev/null; then
	bad "another seed, the same files"
else ok; fi
check "4 files a project" [ "$(find "$tmp/c" -type f | wc -l)" = 80 ]

expect "lint the tree" 1 "$BIN" --no-config -o json "$tmp/c"
printf '%s' "$out" > "$tmp/c.json"
python3 - "$tmp/c.json" "$gen" <<'PY' && ok || bad "findings by project"
import collections, importlib.util, json, sys
rep = json.load(open(sys.argv[1]))
assert rep["errors"] == [], rep["errors"]
spec = importlib.util.spec_from_file_location("gen", sys.argv[2])
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
by = collections.defaultdict(set)
for f in rep["findings"]:
    by[f["file"].split("/")[-2]].add(f["rule"])
projects = [gen.Project("cpulint-bench", k) for k in range(20)]
clean = [p.name for p in projects if p.clean]
assert clean and len(clean) < 20, clean
loud = [p for p in clean if by[p]]
assert not loud, "clean projects with findings: %s" % loud
rules = set().union(*by.values())
assert len(rules) >= 4, rules
PY
# --pad (issue 28's realistic-size tree): bigger files, the same
# findings per project and rule, lower down.
expect "generate 20 padded" 0 python3 $gen "$tmp/p" 20 --pad 20
check "padded files are bigger" [ "$(du -sk "$tmp/p" | cut -f1)" -gt \
	"$(du -sk "$tmp/c" | cut -f1)" ]
expect "lint the padded tree" 1 "$BIN" --no-config -o json "$tmp/p"
printf '%s' "$out" > "$tmp/p.json"
python3 - "$tmp/c.json" "$tmp/p.json" <<'PY' && ok || bad "padded: same findings"
import collections, json, sys
def rules(path):
    c = collections.Counter()
    for f in json.load(open(path))["findings"]:
        c[(f["file"].split("/")[-2], f["file"].split("/")[-1], f["rule"])] += 1
    return c
a, b = rules(sys.argv[1]), rules(sys.argv[2])
assert a == b and a, (a - b, b - a)
PY
# Issue 39's tree shaped like real repositories (gen-realtree.py, row
# real): deterministic, a smaller tree the start of a larger one, four
# files a project, of the kinds a repository holds (not only what the
# tool reads), one large file in fifty projects; linted without errors,
# with findings of several rules.
rgen=tests/bench/gen-realtree.py
expect "real tree 60" 0 python3 $rgen "$tmp/r" 60
has "real tree 60" "60 projects, 240 files,"
expect "real tree 60 again" 0 python3 $rgen "$tmp/r2" 60
expect "real tree 100" 0 python3 $rgen "$tmp/r3" 100
check "real tree: same seed, same bytes" diff -r "$tmp/r" "$tmp/r2"
n=0
for f in $(cd "$tmp/r" && find . -type f | sort); do
	cmp -s "$tmp/r/$f" "$tmp/r3/$f" || n=$((n + 1))
done
check "real tree: 60 projects are the start of 100 ($n files differ)" \
	[ "$n" = 0 ]
for want in '*.md' '*.sh' '*.py' 'k8s.yaml' 'polyaxonfile.yaml' \
	    'values.yaml' 'crds.yaml' 'api_pb2.py'; do
	check "real tree holds $want" [ -n "$(find "$tmp/r3" -name "$want")" ]
done
check "real tree: a large file" [ -n "$(find "$tmp/r3" -size +200k)" ]
expect "lint the real tree" 1 "$BIN" --no-config -o json "$tmp/r3"
printf '%s' "$out" > "$tmp/r3.json"
python3 - "$tmp/r3.json" <<'PY' && ok || bad "real tree: findings"
import json, sys
rep = json.load(open(sys.argv[1]))
assert rep["errors"] == [], rep["errors"]
rules = {f["rule"] for f in rep["findings"]}
assert len(rules) >= 4, rules
PY
# The real-repository rows' instrument: a commit laid out from a git
# directory (what a snapshot folder holds), a package copied under other
# names.
mkdir -p "$tmp/snap/o+r"
git init -q "$tmp/w" && (cd "$tmp/w" && mkdir -p pkg/sub &&
	printf 'from pkg.sub import a\n' > pkg/__init__.py &&
	printf 'import pkg\n' > pkg/sub/a.py && printf '#!/bin/sh\n' > run.sh &&
	chmod +x run.sh && git add -A &&
	git -c user.name=b -c user.email=b@x commit -qm c) ||
	bad "a repository to lay out"
cp -r "$tmp/w/.git" "$tmp/snap/o+r/repo"
python3 - "$tmp" "$(git -C "$tmp/w" rev-parse HEAD)" <<'PY' && ok || bad "lay_out, copy_package"
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("bench",
                                              "tests/bench/bench.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
tmp, commit = sys.argv[1], sys.argv[2]
git = bench.snapshot(os.path.join(tmp, "snap"), "o/r", commit)
assert git and git.endswith("repo"), git
assert bench.snapshot(os.path.join(tmp, "snap"), "o/r", "0" * 40) is None
assert bench.lay_out(git, commit, os.path.join(tmp, "out")) == 0
assert open(os.path.join(tmp, "out/pkg/sub/a.py")).read() == "import pkg\n"
assert os.access(os.path.join(tmp, "out/run.sh"), os.X_OK)
bench.copy_package(os.path.join(tmp, "out/pkg"), os.path.join(tmp, "cp"), 2)
assert open(os.path.join(tmp, "cp/pkg_2/__init__.py")).read() == \
    "from pkg_2.sub import a\n"
assert open(os.path.join(tmp, "cp/pkg/sub/a.py")).read() == "import pkg\n"
assert bench.tree_size(os.path.join(tmp, "cp")) == (4, 4, 70)
assert [r[0] for r in bench.read_repos()][0] == "pyg-team/pytorch_geometric"
PY
# The bench's report reader against the report itself.
python3 - "$tmp/c.json" <<'PY' && ok || bad "bench.py counts the report"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("bench",
                                              "tests/bench/bench.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
rep = json.load(open(sys.argv[1]))
for chunk in (bench.CHUNK, 1000, 97):     # objects across reads too
    bench.CHUNK = chunk
    total, gen, distinct = bench.count_findings(sys.argv[1])
    assert total == len(rep["findings"]) > 0, (total, len(rep["findings"]))
    assert (gen, distinct) == (0, 0), (gen, distinct)
PY
# Live reports: the Pods of one owner are one problem, however many Pods.
python3 - "$tmp/live.json" <<'PY' && ok || bad "bench.py distinct problems"
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("bench",
                                              "tests/bench/bench.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
def finding(rule, obj, cont):
    return {"rule": rule, "name": "x", "severity": "error", "file": None,
            "line": 0, "column": 0, "object": obj, "container": cont,
            "message": "m", "related": [], "edits": []}
fs = [finding("CPU401", "pod/gen-%s/gen-train-%03d-7d9f8-%05d" % (s, g, i),
              "main") for s in "ab" for g in range(3) for i in range(5)]
fs += [finding("CPU402", "deployment/gen-a/gen-train-000", "main"),
       finding("CPU401", "pod/ml/train-1", "pytorch")]
json.dump({"version": 1, "findings": fs, "budgets": [],
           "summary": {"errors": len(fs), "warnings": 0, "notes": 0,
                       "suppressed": 0}, "errors": []},
          open(sys.argv[1], "w"), indent=2)
for chunk in (bench.CHUNK, 61):
    bench.CHUNK = chunk
    assert bench.count_findings(sys.argv[1]) == (32, 31, 7), \
        bench.count_findings(sys.argv[1])
# keys in another order, no spaces: the same counts
rev = [dict(reversed(list(f.items()))) for f in fs]
with open(sys.argv[1], "w") as out:
    out.write(json.dumps({"version": 1, "findings": rev},
                         separators=(",", ":")))
assert bench.count_findings(sys.argv[1]) == (32, 31, 7), \
    bench.count_findings(sys.argv[1])
assert bench.owners(600) == 6 and bench.owners(10000) == 102
PY
finish
