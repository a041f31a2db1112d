#!/bin/sh
# Directory walks: one rule set for the plain walk and the git walk (a
# repository and a plain copy of it give the same files), Helm charts and
# other templates met in a walk (skipped with a -v line) or named (an
# error), Polyaxonfiles with {{ x }} inside strings still linted.
set -u
SUITE=walk
BIN=${BIN:?}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/lib.sh"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/xdg GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
mkdir -p "$HOME" "$XDG_CONFIG_HOME"

bad_yaml() { cat "$root/testdata/example/polyaxonfile.yaml"; }
bad_py() {
cat <<'PY'
import os
from multiprocessing import Pool

pool = Pool(os.cpu_count())
PY
}
# The files each finding names, one per line, sorted.
files_of() { printf '%s\n' "$1" | sed -n 's/^\([^: ]*\):[0-9]*:[0-9]*: .*/\1/p' | sort -u; }

# 1. the same files from a git walk, a plain walk and the index
r=$tmp/repo
mkdir -p "$r" && cd "$r" || exit 1
git init -q .
for d in ok ok/deep .hid venv __pycache__ node_modules site-packages \
	 sub/venv sub/.cache my_venv; do
	mkdir -p "$d"
	bad_yaml > "$d/p.yaml"
	bad_py > "$d/x.py"
done
bad_yaml > .hidden.yaml
bad_py > .hidden.py
bad_yaml > top.yaml
bad_py > top.py
git add -A && git commit -qm files
expect git-walk 1 "$BIN" --no-config .
git_files=$(files_of "$out")
expect git-staged 1 "$BIN" --no-config --staged .
staged_files=$(files_of "$out")
mkdir "$tmp/copy" && git archive HEAD | tar -x -C "$tmp/copy"
cd "$tmp/copy" || exit 1
check copy-is-plain test ! -e .git
expect plain-walk 1 "$BIN" --no-config .
plain_files=$(files_of "$out")
want='my_venv/p.yaml
my_venv/x.py
ok/deep/p.yaml
ok/deep/x.py
ok/p.yaml
ok/x.py
top.py
top.yaml'
check "git walk lists: $git_files" test "$git_files" = "$want"
check "plain walk lists: $plain_files" test "$plain_files" = "$want"
check "staged walk lists: $staged_files" test "$staged_files" = "$want"
# A hidden or vendored directory named on the command line is walked.
expect named-hidden 1 "$BIN" --no-config .hid
has named-hidden ".hid/p.yaml:23:14: error:"
expect named-venv-file 1 "$BIN" --no-config venv/x.py
has named-venv-file "venv/x.py:4:"
# Excluding a directory by a glob prunes it in both walks.
printf 'exclude:\n  - "**/deep"\n' > .cpulint.yaml
expect plain-exclude 1 "$BIN" .
lacks plain-exclude "ok/deep/"
cp .cpulint.yaml "$r/" && cd "$r" || exit 1
expect git-exclude 1 "$BIN" .
lacks git-exclude "ok/deep/"
cd "$root"

finish
