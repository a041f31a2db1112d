#!/bin/sh
# Scale: a 20,000-line Python file and a tree of 5,000 Python files are
# scanned to the end with the right findings.  No timing is asserted here;
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
echo "scale: $pass passed, $fail failed"
[ $fail -eq 0 ]
