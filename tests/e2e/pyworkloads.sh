#!/bin/sh
# Workloads declared in Python (lib/run/pywork.c) in a tree large enough
# to be judged in several batches of groups: a Flyte task is judged in
# the group of the file that declares it and of the modules it imports
# (judged in a batch before its file's, it let the file's text go and the
# file's own batch then re-read a freed text: SIGSEGV); -j 1 and -j 2 give
# the same report; a task of another plugin (Slurm) is no workload.
set -u
SUITE=pyworkloads
BIN=${BIN:?}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/lib.sh"

tree=$tmp/tree
mkdir -p "$tree"
# 40 packages of a flow each (two files: past a batch of 48), each file
# an entry script (so none is quiet), then a package whose flow imports
# a module of its own that is in the second batch too.
i=0
while [ $i -lt 40 ]; do
	p=$tree/p$(printf %02d $i)
	mkdir -p "$p"
	: > "$p/__init__.py"
	cat > "$p/ex.py" <<PY
from flytekit import task, workflow


@task
def a$i(x: int) -> int:
    return x


@workflow
def wf(x: int) -> int:
    return a$i(x=x)


if __name__ == "__main__":
    wf(x=1)
PY
	i=$((i + 1))
done
mkdir -p "$tree/zz"
: > "$tree/zz/__init__.py"
cp "$root/testdata/pyworkloads/flyte-imports/helpers.py" \
   "$root/testdata/pyworkloads/flyte-imports/zz_flow.py" "$tree/zz/"
sed -i 's/^from helpers import/from .helpers import/' "$tree/zz/zz_flow.py"

expect "a task importing a module judged earlier" 1 \
	"$BIN" --no-config -q "$tree"
has "its loader, read through the module" \
	"zz_flow.py:8:66: error: 1 rank x (1 intra-op thread + 6 loader workers)"
lacks "the Slurm task" "on_slurm"
one=$out
expect "the same with -j 2" 1 "$BIN" --no-config -q -j 2 "$tree"
check "-j 1 and -j 2 agree" [ "$out" = "$one" ]
expect "the same with -j 1" 1 "$BIN" --no-config -q -j 1 "$tree"
check "-j 1 and the default agree" [ "$out" = "$one" ]

finish
