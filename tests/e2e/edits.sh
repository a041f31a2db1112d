#!/bin/sh
# The edits findings carry (issue 13): every edit the linter reports for
# the golden cases under testdata/edits (each fixable rule in each input
# form), the rules' bad fixtures, the kinds and the example is applied by
# tests/apply-edits.py, which checks that the edited files still load
# (PyYAML, json, ast), that insertions only add data, and that linting
# again shows neither the fixed findings nor new ones.
set -u
BIN=${BIN:?}
if ! python3 -c 'import yaml' 2>/dev/null; then
	echo "edits: 0 passed, 0 failed (skipped: no PyYAML)"
	exit 0
fi
cases=$(find testdata/edits testdata/rules testdata/kinds -mindepth 1 \
	-maxdepth 2 -type d | grep -v '/good' | sort)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
python3 tests/apply-edits.py "$BIN" $cases testdata/example testdata/budget \
	>"$out"
rc=$?
grep -v '^ok ' "$out" | sed 's/^apply-edits:/edits:/'
exit $rc
