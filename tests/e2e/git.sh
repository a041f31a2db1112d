#!/bin/sh
# Git-aware runs on throw-away repositories: ignored files, --staged,
# --diff-base, a repository without commits, a plain directory, a path with
# spaces and non-ASCII characters, SARIF validity and fingerprint
# stability, and the real pre-commit tool running the project's hook.
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

echo "git: $pass passed, $fail failed"
[ $fail -eq 0 ]
