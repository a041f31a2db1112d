#!/bin/sh
# Scale: a 20,000-line Python file and a tree of 5,000 Python files are
# scanned to the end with the right findings; and a tree judged in several
# batches of groups (lib/run/group.c) where linking one batch asks for a file
# another thread is loading for the next: 96 Jobs of one script each, two
# batches of 48 files, the last Job's script in a package whose
# __init__.py, imported by nothing, is a group of its own in a third
# batch; linking the second batch looks for that __init__.py (is z/pkg a
# package?) while it loads.  The same report at -j 1 and -j 2.  And a
# walk of 3,000 files, more than one queue (pipeline.c reads full queues
# on other threads while the walk goes on): the same output at -j 1, 2
# and 3, every object once and in order.  No timing is asserted here;
# `make bench` prints the figures.
set -u
BIN=${BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL scale: $*"; fail=$((fail + 1)); }
python3 - "$tmp" <<'PY'
import os, sys
root = sys.argv[1]
big = ["import os", "import torch", "from torch.utils.data import DataLoader", ""]
for i in range(2000):
    big += ["def step%d(x, n=%d):" % (i, i),
            "    \"\"\"Docstring with os.cpu_count() that never counts.\"\"\"",
            "    y = torch.zeros(n) + x  # os.cpu_count() in a comment",
            "    s = f\"{x} {n}\"",
            "    if n > 3:",
            "        y = y * 2",
            "    print(os.cpu_count())",
            "    return y",
            "",
            ""]
big += ["loader = DataLoader(range(10), num_workers=os.cpu_count())"]
open(os.path.join(root, "big.py"), "w").write("\n".join(big) + "\n")
for i in range(5000):
    d = os.path.join(root, "tree", "pkg%02d" % (i % 50))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "mod%04d.py" % i), "w") as f:
        f.write("import multiprocessing as mp\n\nPOOL = %s\n" %
                ("mp.Pool(mp.cpu_count())" if i % 1000 == 0 else "None"))
PY
n=$(wc -l < "$tmp/big.py")
[ "$n" -ge 20000 ] && ok || bad "big.py has only $n lines"
out=$("$BIN" --no-config -o json "$tmp/big.py")
rc=$?
[ $rc = 1 ] && ok || bad "big.py: exit $rc"
printf '%s' "$out" | python3 -c '
import json, sys
f = json.load(sys.stdin)["findings"]
assert [(x["rule"], x["line"]) for x in f] == [("CPU301", 20005)], f
' && ok || bad "big.py findings"
out=$("$BIN" --no-config -o json "$tmp/tree")
rc=$?
[ $rc = 1 ] && ok || bad "tree: exit $rc"
printf '%s' "$out" | python3 -c '
import json, sys
f = json.load(sys.stdin)["findings"]
assert len(f) == 5 and all(x["rule"] == "CPU301" for x in f), f
' && ok || bad "tree findings"
python3 - "$tmp/batches" <<'PY'
import os, sys
root = sys.argv[1]
job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j%d}\nspec:\n"
       "  template:\n    spec:\n      restartPolicy: Never\n"
       "      containers:\n      - name: t\n        image: x\n"
       "        command: [python, %s]\n"
       "        resources: {limits: {cpu: '2'}}\n")
script = ("import os\nfrom torch.utils.data import DataLoader\n"
          "if __name__ == '__main__':\n"
          "    DataLoader([], num_workers=os.cpu_count())\n")
os.makedirs(os.path.join(root, "z", "pkg"))
open(os.path.join(root, "z", "pkg", "__init__.py"), "w").write("X = 1\n")
open(os.path.join(root, "z", "pkg", "train.py"), "w").write(script)
open(os.path.join(root, "z", "job.yaml"), "w").write(job % (0, "pkg/train.py"))
for i in range(1, 96):
    d = os.path.join(root, "b%03d" % i)
    os.makedirs(d)
    open(os.path.join(d, "train.py"), "w").write(script)
    open(os.path.join(d, "job.yaml"), "w").write(job % (i, "train.py"))
PY
for j in 1 2; do
	"$BIN" --no-config -j $j -o json "$tmp/batches" > "$tmp/batches-$j.json"
	rc=$?
	[ $rc = 1 ] && ok || bad "batches -j $j: exit $rc"
done
cmp -s "$tmp/batches-1.json" "$tmp/batches-2.json" && ok ||
	bad "batches: -j 1 and -j 2 differ"
python3 - "$tmp/batches-2.json" <<'PY' && ok || bad "batches findings"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
where = sorted(x["file"].split("/batches/")[1] for x in f
               if x["rule"] == "CPU301")
assert len(where) == 96 and "z/pkg/train.py" in where, where
PY
# A walk of more files than one queue holds (pipeline.c: full queues
# are read on other threads while the walk goes on): parse errors,
# unreadable files and a Helm chart rendered while a queue is in
# flight, and files named again after the walk met them, come out in the
# same order, once each, at any -j.
python3 - "$tmp/queues" <<'PY'
import os, sys
root = sys.argv[1]
pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec:\n"
       "  containers:\n  - name: c\n    image: x\n"
       "    command: [python, -c, pass]\n")
for i in range(3000):
    d = os.path.join(root, "d%02d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "f%04d.yaml" % i)
    if i % 700 == 350:
        text = "a: [1\n"                    # a parse error
    else:
        text = pod % i
    open(path, "w").write(text)
    if i % 900 == 450:
        os.chmod(path, 0)                   # unreadable (not as root)
os.makedirs(os.path.join(root, "d25", "chart", "templates"))
open(os.path.join(root, "d25", "chart", "Chart.yaml"), "w").write(
    "apiVersion: v2\nname: c\nversion: 1.0.0\n")
open(os.path.join(root, "d25", "chart", "templates", "pod.yaml"),
     "w").write(pod % 9999)
PY
for j in 1 2 3; do
	CPULINT_HELM=none "$BIN" --no-config -v -j $j "$tmp/queues" \
		"$tmp/queues/d29/f2999.yaml" "$tmp/queues/d05/f0500.yaml" \
		> "$tmp/queues-$j.txt" 2> "$tmp/queues-$j.err"
	echo "exit $?" >> "$tmp/queues-$j.err"
done
for j in 2 3; do
	cmp -s "$tmp/queues-1.txt" "$tmp/queues-$j.txt" &&
		cmp -s "$tmp/queues-1.err" "$tmp/queues-$j.err" && ok ||
		bad "queues: -j 1 and -j $j differ"
done
# -v names each object loaded: every Pod once, in the walk's order (the
# chart's Pod where the walk met the chart: d25/chart before d25/f*).
grep -c 'loaded Pod' "$tmp/queues-1.err" | grep -qx 2997 && ok ||
	bad "queues: $(grep -c 'loaded Pod' "$tmp/queues-1.err") Pods loaded, not 2997"
grep 'loaded Pod' "$tmp/queues-1.err" | sed 's/.*loaded Pod p\([0-9]*\) .*/\1/' |
	sed 's/^9999$/2499.5/' | sort -c -g 2>/dev/null && ok ||
	bad "queues: Pods not loaded in walk order"
grep -q 'd25/chart: read: Helm chart rendered without helm' "$tmp/queues-1.err" &&
	ok || bad "queues: no Helm note"
[ "$(grep -c 'f0350.yaml\|f1050.yaml\|f1750.yaml\|f2450.yaml' "$tmp/queues-1.err")" -ge 4 ] &&
	ok || bad "queues: parse errors missing: $(head -5 "$tmp/queues-1.err")"
echo "scale: $pass passed, $fail failed"
[ $fail -eq 0 ]
