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
