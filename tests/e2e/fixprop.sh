#!/bin/sh
# The property of --fix (tests/fixprop.py) over a small generated corpus:
# every file it fixes re-parses, as PyYAML reads it, to the original tree
# but for the nodes its edits name, which hold what they intend.
# FIXPROP_N variants (default 80) from FIXPROP_SEED (default 1); `make
# fuzz` runs thousands from a new seed.
set -u
BIN=${BIN:?BIN must name the kubectl-cpulint binary}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 tests/fixprop.py "$BIN" "${FIXPROP_N:-80}" "${FIXPROP_SEED:-1}" \
	"$tmp"
