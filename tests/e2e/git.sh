#!/bin/sh
# Git-aware runs on throw-away repositories: ignored files, --staged,
# --diff-base, a repository without commits, a plain directory, a path with
# spaces and non-ASCII characters, SARIF validity and fingerprint
# stability, the real pre-commit tool running the project's hooks, and a
# changed Python file judged with the workloads that run it (at the line
# the change touched).
set -u
BIN=${BIN:?}
root=$(pwd)
schema=$root/testdata/reference/sarif/sarif-schema-2.1.0.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/xdg GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
mkdir -p "$HOME" "$XDG_CONFIG_HOME"
git config --global init.defaultBranch main
git config --global protocol.file.allow always
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL git: $*"; fail=$((fail + 1)); }
# expect NAME WANT_RC CMD...: runs CMD, keeps output in $out, checks rc.
expect() {
	name=$1 want=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ]; then ok; else
		bad "$name: exit $rc, expected $want"
		printf '%s\n' "$out" | head -10
	fi
}
has() {	# name text
	if printf '%s\n' "$out" | grep -qF -- "$2"; then ok; else
		bad "$1: output lacks '$2'"
		printf '%s\n' "$out" | head -10
	fi
}
lacks() {
	if printf '%s\n' "$out" | grep -qF -- "$2"; then
		bad "$1: output has '$2'"
	else ok; fi
}

good_file() {
cat <<'YAML'
version: 1.1
kind: component
name: good
run:
  kind: job
  container:
    image: pytorch/pytorch
    command: ["python", "-u", "train.py", "--workers", "2"]
    env:
    - {name: OMP_NUM_THREADS, value: "2"}
    resources:
      requests: {cpu: 4}
      limits: {cpu: 4}
YAML
}
bad_file() { cat "$root/testdata/example/polyaxonfile.yaml"; }

# 1. ignored and untracked files
r=$tmp/r1
git init -q "$r" && cd "$r" || exit 1
good_file > polyaxonfile.yaml
bad_file > ignored.yaml
mkdir sub && bad_file > sub/untracked.yaml
printf 'ignored.yaml\n' > .gitignore
git add polyaxonfile.yaml .gitignore && git commit -qm init
expect ignored 1 "$BIN" --no-config .
lacks ignored "ignored.yaml"
has untracked "sub/untracked.yaml:23:14: error:"
rm -r sub

# 2. --staged reads the index, not the working tree
bad_file > polyaxonfile.yaml
expect worktree-bad 1 "$BIN" --no-config .
expect staged-good 0 "$BIN" --no-config --staged
expect staged-good-file 0 "$BIN" --no-config --staged polyaxonfile.yaml
git add polyaxonfile.yaml
good_file > polyaxonfile.yaml
expect staged-bad 1 "$BIN" --no-config --staged
has staged-bad "polyaxonfile.yaml:23:14: error: OMP_NUM_THREADS=8"
expect worktree-good 0 "$BIN" --no-config .
expect staged-missing 2 "$BIN" --no-config --staged nothere.yaml
has staged-missing "nothere.yaml"
git checkout -q -- polyaxonfile.yaml
git reset -q --hard

# 3. --diff-base keeps only findings on changed lines
bad_file > old.yaml
git add old.yaml && git commit -qm old
git checkout -q -b feature
sed 's/value: "16"/value: "12"/' old.yaml > old.tmp && mv old.tmp old.yaml
bad_file > new.yaml
expect diff 1 "$BIN" --no-config --diff-base main .
has diff-new "new.yaml:23:14: error: OMP_NUM_THREADS=8"
has diff-changed-line "old.yaml:25:14: error: MKL_NUM_THREADS=12"
lacks diff-unchanged "old.yaml:23:14: error"
lacks diff-unchanged-request "old.yaml:28:14: note"
expect diff-all 1 "$BIN" --no-config .
has diff-all "old.yaml:23:14"
expect diff-badref 2 "$BIN" --no-config --diff-base no-such-branch .
has diff-badref "no-such-branch"
git stash -q -u
expect diff-clean 0 "$BIN" --no-config --diff-base main .
cd "$root"

# 4. a repository with no commits yet
r=$tmp/r2
git init -q "$r" && cd "$r" || exit 1
bad_file > polyaxonfile.yaml
expect unborn 1 "$BIN" --no-config .
expect unborn-diff 2 "$BIN" --no-config --diff-base HEAD .
has unborn-diff "HEAD"
git add polyaxonfile.yaml
expect unborn-staged 1 "$BIN" --no-config --staged
cd "$root"

# 5. a plain directory
d=$tmp/plain
mkdir -p "$d" && cd "$d" || exit 1
bad_file > polyaxonfile.yaml
expect plain 1 "$BIN" --no-config .
expect plain-staged 2 "$BIN" --no-config --staged .
has plain-staged "not in a git repository"
expect plain-diff 2 "$BIN" --no-config --diff-base main .
cd "$root"

# 6. spaces and non-ASCII characters; SARIF valid, fingerprints stable
r=$tmp/r3
git init -q "$r" && cd "$r" || exit 1
mkdir "dir with space"
f="dir with space/naïve polyaxonfile.yaml"
bad_file > "$f"
git add . && git commit -qm odd
expect odd 1 "$BIN" --no-config .
has odd "dir with space/naïve polyaxonfile.yaml:23:14: error:"
expect odd-sarif 1 "$BIN" --no-config -o sarif --output-file a.sarif .
if python3 "$root/tests/validate-sarif.py" "$schema" a.sarif >/dev/null; then ok; else bad "sarif invalid"; fi
python3 - a.sarif <<'PY' && ok || bad "sarif uri not encoded/relative"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"][0]
loc = r["locations"][0]["physicalLocation"]["artifactLocation"]
assert loc["uri"] == "dir%20with%20space/na%C3%AFve%20polyaxonfile.yaml", loc
assert loc["uriBaseId"] == "%SRCROOT%"
PY
{ printf '# an unrelated comment\n# and another\n'; cat "$f"; } > x.tmp && mv x.tmp "$f"
expect odd-sarif2 1 "$BIN" --no-config -o sarif --output-file b.sarif .
python3 - a.sarif b.sarif <<'PY' && ok || bad "fingerprints moved with an unrelated edit"
import json, sys
def prints(p):
    res = json.load(open(p))["runs"][0]["results"]
    return sorted((r["ruleId"], r["partialFingerprints"]["primaryLocationLineHash"]) for r in res)
a, b = prints(sys.argv[1]), prints(sys.argv[2])
assert a == b and len(a) > 0, (a, b)
PY
cd "$root"

# 7. the real pre-commit tool runs the project's hook
if command -v pre-commit >/dev/null 2>&1; then
	hookrepo=$tmp/hookrepo
	# a copy of the sources that is not a repository: a new one
	git clone -q "$root" "$hookrepo" 2>/dev/null || git init -q "$hookrepo"
	cp "$root/.pre-commit-hooks.yaml" "$hookrepo/"
	(cd "$hookrepo" && git add -A && git commit -qm hooks --allow-empty) >/dev/null 2>&1
	mkdir -p "$tmp/bin" && cp "$BIN" "$tmp/bin/kubectl-cpulint"
	r=$tmp/r4
	git init -q "$r" && cd "$r" || exit 1
	good_file > polyaxonfile.yaml
	printf 'repos: []\n' > .pre-commit-config.yaml
	git add . && git commit -qm init
	expect precommit-good 0 env PATH="$tmp/bin:$PATH" pre-commit try-repo "$hookrepo" kubectl-cpulint --all-files
	has precommit-good "Passed"
	bad_file > polyaxonfile.yaml
	git add polyaxonfile.yaml
	expect precommit-bad 1 env PATH="$tmp/bin:$PATH" pre-commit try-repo "$hookrepo" kubectl-cpulint --all-files
	has precommit-bad "OMP_NUM_THREADS=8"
	has precommit-bad "Failed"
	# args: [--fix] in a real configuration: the hook fixes the file in
	# place, pre-commit fails the run because the hook changed files,
	# and the next run finds nothing left that --fix could change
	rev=$(git -C "$hookrepo" rev-parse HEAD)
	printf 'repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: kubectl-cpulint\n    args: [--fix]\n' \
		"$hookrepo" "$rev" > .pre-commit-config.yaml
	git add .pre-commit-config.yaml polyaxonfile.yaml
	expect precommit-fix 1 env PATH="$tmp/bin:$PATH" pre-commit run --all-files
	has precommit-fix "files were modified by this hook"
	has precommit-fix "fixed "
	out=$(cat polyaxonfile.yaml)
	lacks precommit-fix-file 'value: "8"'
	git add polyaxonfile.yaml
	expect precommit-fix-again 1 env PATH="$tmp/bin:$PATH" pre-commit run --all-files
	lacks precommit-fix-again "files were modified by this hook"
	expect precommit-fix-diff 0 "$BIN" --no-config --diff polyaxonfile.yaml
	cd "$root"
else
	bad "pre-commit is not installed (tools/install-deps.sh installs it)"
fi

# 8. linked code: a Polyaxonfile alone still sees its Python (working tree
#    or index), and --diff-base keeps a budget finding whose code changed
r=$tmp/r5
git init -q "$r" && cd "$r" || exit 1
cat > polyaxonfile.yaml <<'YAML'
version: 1.1
kind: component
run:
  kind: job
  container:
    image: pytorch/pytorch
    command: ["python", "train.py", "--workers", "2"]
    env: [{name: OMP_NUM_THREADS, value: "1"}]
    resources: {requests: {cpu: 4}, limits: {cpu: 4}}
YAML
cat > train.py <<'PY'
import argparse

import torch

from data_setup import make_loader

p = argparse.ArgumentParser()
p.add_argument("--workers", type=int, default=1)
args = p.parse_args()
loader = make_loader(args.workers)
PY
cat > data_setup.py <<'PY'
from torch.utils.data import DataLoader


def make_loader(workers, extra=0):
    return DataLoader(range(10), num_workers=workers + extra)
PY
git add . && git commit -qm base
expect linked-clean 0 "$BIN" --no-config polyaxonfile.yaml
git checkout -q -b more
sed -i 's/extra=0/extra=6/' data_setup.py
expect linked-worktree 1 "$BIN" --no-config polyaxonfile.yaml
has linked-worktree "polyaxonfile.yaml:9:51: error: 1 rank x (1 intra-op thread + 8 loader workers)"
expect linked-staged-old 0 "$BIN" --no-config --staged polyaxonfile.yaml
git add data_setup.py
expect linked-staged-new 1 "$BIN" --no-config --staged polyaxonfile.yaml
expect linked-diff 1 "$BIN" --no-config --diff-base main .
has linked-diff "polyaxonfile.yaml:9:51: error:"
cd "$root"

# 9. pre-commit sees the whole change: only train.py changes (its --workers
#    default goes from 2 to 8); the Polyaxonfile that runs it (through
#    main.py's import) is judged, the finding reported at the changed
#    Python line, and the Polyaxonfile's unrelated problem left out
r=$tmp/r6
git init -q "$r" && cd "$r" || exit 1
mkdir -p jobs src
cat > jobs/polyaxonfile.yaml <<'YAML'
version: 1.1
kind: component
run:
  kind: job
  container:
    image: pytorch/pytorch
    command: ["python", "src/main.py"]
    env:
    - {name: OMP_NUM_THREADS, value: "1"}
    - {name: MKL_NUM_THREADS, value: "2"}
    resources: {requests: {cpu: 4}, limits: {cpu: 4}}
YAML
printf 'from train import run\n\nrun()\n' > src/main.py
cat > src/train.py <<'PY'
import argparse

import torch
from torch.utils.data import DataLoader


def run():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    return DataLoader(range(10), num_workers=args.workers)
PY
printf 'print("unrelated")\n' > src/other.py
printf 'repos: []\n' > .pre-commit-config.yaml
git add . && git commit -qm base
expect reach-base 1 "$BIN" --no-config .
has reach-base "jobs/polyaxonfile.yaml:10:"
has reach-base "CPU203"
expect reach-unchanged 0 "$BIN" --no-config src/train.py
lacks reach-unchanged "CPU203"
git checkout -q -b wider
sed -i 's/default=2/default=8/' src/train.py
expect reach-named 1 "$BIN" --no-config src/train.py
has reach-named "src/train.py:9:51: error: 1 rank x (2 intra-op threads + 8 loader workers)"
has reach-named "note: jobs/polyaxonfile.yaml:11:51: runs this code: Polyaxon job/polyaxonfile"
lacks reach-named "CPU203"
expect reach-other 0 "$BIN" --no-config src/other.py
expect reach-diff 1 "$BIN" --no-config --diff-base main src/train.py
has reach-diff "src/train.py:9:51: error:"
lacks reach-diff "CPU203"
expect reach-verbose 1 "$BIN" --no-config -v src/train.py
has reach-verbose "jobs/polyaxonfile.yaml: read because it runs src/train.py"
(cd src && "$BIN" --no-config train.py) > "$tmp/sub.out" 2>&1
grep -qF "train.py:9:51: error:" "$tmp/sub.out" && ok || bad "reach from a subdirectory"
git add src/train.py
sed -i 's/default=8/default=2/' src/train.py
expect reach-staged 1 "$BIN" --no-config --staged src/train.py
has reach-staged "src/train.py:9:51: error:"
expect reach-worktree 0 "$BIN" --no-config src/train.py
git checkout -q -- src/train.py
if command -v pre-commit >/dev/null 2>&1; then
	for hook in kubectl-cpulint kubectl-cpulint-staged; do
		expect "precommit-reach-$hook" 1 env PATH="$tmp/bin:$PATH" pre-commit try-repo "$hookrepo" "$hook"
		has "precommit-reach-$hook" "src/train.py:9:51: error: 1 rank x (2 intra-op threads + 8 loader workers)"
		has "precommit-reach-$hook-failed" "Failed"
		lacks "precommit-reach-$hook" "CPU203"
	done
	git commit -qm wider
	sed -i 's/unrelated/still unrelated/' src/other.py
	git add src/other.py
	expect precommit-reach-clean 0 env PATH="$tmp/bin:$PATH" pre-commit try-repo "$hookrepo" kubectl-cpulint
	has precommit-reach-clean "Passed"
fi
cd "$root"

# 10. with two places in the named file, the finding goes to the line the
#     change touched (since HEAD, or since --diff-base)
r=$tmp/r7
git init -q "$r" && cd "$r" || exit 1
cat > polyaxonfile.yaml <<'YAML'
version: 1.1
kind: component
run:
  kind: job
  container:
    image: pytorch/pytorch
    command: ["python", "train.py"]
    resources: {requests: {cpu: 4}, limits: {cpu: 4}}
YAML
cat > train.py <<'PY'
import argparse

import torch
from torch.utils.data import DataLoader

torch.set_num_threads(2)
p = argparse.ArgumentParser()
p.add_argument("--workers", type=int, default=2)
args = p.parse_args()
loader = DataLoader(range(10), num_workers=args.workers)
PY
git add . && git commit -qm base
sed -i 's/default=2/default=6/' train.py
expect changed-workers 1 "$BIN" --no-config train.py
has changed-workers "train.py:8:47: error: 1 rank x (2 intra-op threads + 6 loader workers)"
has changed-workers "note: train.py:6:23: intra-op threads"
git commit -qam workers
sed -i 's/set_num_threads(2)/set_num_threads(3)/' train.py
expect changed-threads 1 "$BIN" --no-config train.py
has changed-threads "train.py:6:23: error: 1 rank x (3 intra-op threads + 6 loader workers)"
expect changed-since-base 1 "$BIN" --no-config --diff-base HEAD~1 train.py
has changed-since-base "train.py:6:23: error: 1 rank x (3 intra-op threads + 6 loader workers)"
cd "$root"

# 11. a comment-only edit of the code a job runs is not a new problem:
#     neither --diff-base nor the hook (train.py named) brings back the
#     job's old findings; a real change to the code still does
r=$tmp/r8
git init -q "$r" && cd "$r" || exit 1
cat > job.yaml <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: resnet}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: pytorch/pytorch
        command: ["torchrun", "--nproc_per_node=4", "train.py"]
        env: [{name: OMP_NUM_THREADS, value: "4"}]
        resources: {limits: {cpu: "4"}}
YAML
cat > train.py <<'PY'
import torch
from torch.utils.data import DataLoader

loader = DataLoader(range(10), num_workers=2)
PY
git add . && git commit -qm base && git tag base0
expect old-findings 1 "$BIN" --no-config .
has old-findings "job.yaml:12:46: error: OMP_NUM_THREADS=4 x 4 ranks"
sed -i 's/^import torch$/import torch  # the model/' train.py
printf '\n# the end\n' >>train.py
expect comment-diff-base 0 "$BIN" --no-config --diff-base base0 .
lacks comment-diff-base "CPU202"
expect comment-hook 0 "$BIN" --no-config train.py
lacks comment-hook "CPU202"
lacks comment-hook "CPU401"
git commit -qam comments
sed -i 's/num_workers=2/num_workers=3/' train.py
expect code-diff-base 1 "$BIN" --no-config --diff-base base0 .
has code-diff-base "CPU401"
expect code-hook 1 "$BIN" --no-config train.py
has code-hook "train.py:4:44: error:"
lacks code-hook "CPU202"
cd "$root"

echo "git: $pass passed, $fail failed"
[ $fail -eq 0 ]
