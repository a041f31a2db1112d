#!/bin/sh
# make bench: prints figures, asserts nothing about time.  Generates a
# monorepo-sized tree (manifests, Polyaxonfiles, Python) in a temp dir and
# times the linter over it; then runs any benchmark binaries given.
set -e
BIN=${BIN:-$(pwd)/kubectl-cpulint}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(2000):
    d = os.path.join(root, "jobs", "team%02d" % (i % 50), "job%04d" % i)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "polyaxonfile.yaml"), "w") as f:
        f.write("""version: 1.1
kind: component
name: job%d
inputs:
- {name: workers, type: int, value: %d}
run:
  kind: job
  container:
    image: pytorch/pytorch
    command: ["torchrun", "--nproc_per_node=%d", "train.py", "--workers={{ workers }}"]
    env:
    - {name: OMP_NUM_THREADS, value: "%d"}
    resources:
      requests: {cpu: 2}
      limits: {cpu: %d}
""" % (i, i % 8, 1 + i % 4, 1 + i % 6, 2 + i % 8))
    with open(os.path.join(d, "pytorchjob.yaml"), "w") as f:
        for r in ("Master", "Worker"):
            pass
        f.write("""apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pj%d}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: x
            command: [sh, -c, "export OMP_NUM_THREADS=$(nproc) && torchrun train.py --num-workers 4"]
            resources: {limits: {cpu: "4"}}
    Worker:
      replicas: 3
      template:
        spec:
          containers:
          - name: pytorch
            image: x
            args: ["--workers", "8"]
""" % i)
    with open(os.path.join(d, "train.py"), "w") as f:
        f.write("import os\nimport torch\n" + "\n".join(
            "def f%d(x):\n    return torch.zeros(%d) + x\n" % (k, k) for k in range(60)))
PY
files=$(find "$tmp" -type f | wc -l)
bytes=$(du -sb "$tmp" | cut -f1)
start=$(date +%s.%N)
"$BIN" --no-config -o json "$tmp" > "$tmp.out" 2>/dev/null || true
end=$(date +%s.%N)
findings=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['findings']))" "$tmp.out")
rm -f "$tmp.out"
python3 - "$start" "$end" "$files" "$bytes" "$findings" <<'PY'
import sys
s, e, files, size, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
t = e - s
print("bench tree: %d files, %.1f MiB, %d findings in %.3f s (%.0f files/s, %.1f MiB/s)"
      % (files, size / 1048576, n, t, files / t, size / 1048576 / t))
PY
# pre-commit on that tree as a repository: one changed train.py, judged
# with the workloads that run it (every YAML file git lists is a
# candidate; each is read once).
(
	cd "$tmp" && git init -q . && git add -A &&
	git -c user.name=b -c user.email=b@example.com commit -qm bench
) >/dev/null 2>&1
start=$(date +%s.%N)
(cd "$tmp" && "$BIN" --no-config jobs/team00/job0000/train.py > /dev/null 2>&1) || true
end=$(date +%s.%N)
python3 -c "import sys; s,e=float(sys.argv[1]),float(sys.argv[2]); print('bench pre-commit: one train.py in a %s-file repository in %.3f s' % (sys.argv[3], e - s))" "$start" "$end" "$files"
# One 20,000-line Python file, scanned on its own.
python3 - "$tmp/big.py" <<'PY'
import sys
lines = ["import os", "import torch", "from torch.utils.data import DataLoader"]
for i in range(2000):
    lines += ["def step%d(x, n=%d):" % (i, i), "    '''doc'''",
              "    y = torch.zeros(n) + x", "    s = f'{x} {n}'", "    if n > 3:",
              "        y = y * 2", "    print(os.cpu_count())", "    return y", "", ""]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
start=$(date +%s.%N)
"$BIN" --no-config "$tmp/big.py" > /dev/null 2>&1 || true
end=$(date +%s.%N)
python3 -c "import sys; s,e=float(sys.argv[1]),float(sys.argv[2]); print('bench python: 20,000-line file in %.3f s' % (e - s))" "$start" "$end"
for b in "$@"; do "$b"; done
