#!/bin/sh
# After --fix (and --fix --unsafe-fixes), a re-run reports nothing the fix
# claimed to fix, on every golden case (tests/refix.py); and the README's
# example, once fixed with --unsafe-fixes, has no CPU401 left: its 8
# loader workers come from the Polyaxon input `workers`, whose value the
# fix edits and the finding names (issue 38 point 6).
set -u
BIN=${BIN:?BIN must name the kubectl-cpulint binary}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
no() { echo "FAIL: $1"; fail=$((fail + 1)); }

cp testdata/example/polyaxonfile.yaml "$tmp/p.yaml"
"$BIN" --no-config "$tmp/p.yaml" >"$tmp/before" 2>&1
if grep -q 'the Polyaxon input "workers"' "$tmp/before"; then ok; else
	no "CPU401 does not name the Polyaxon input workers"; fi
"$BIN" --no-config --fix --unsafe-fixes "$tmp/p.yaml" >/dev/null 2>&1
if grep -q 'value: 0, isOptional' "$tmp/p.yaml"; then ok; else
	no "--fix did not set the input workers to 0"; fi
"$BIN" --no-config "$tmp/p.yaml" >"$tmp/after" 2>&1
if grep -q CPU401 "$tmp/after"; then
	no "CPU401 left after --fix --unsafe-fixes: $(grep CPU401 "$tmp/after")"
else ok; fi
mkdir "$tmp/g"
python3 tests/refix.py "$BIN" "$(pwd)" "$tmp/g" >"$tmp/refix" 2>&1
rc=$?
cat "$tmp/refix"
if [ $rc = 0 ]; then ok; else no "refix over the golden cases"; fi
echo "refix: $pass passed, $fail failed"
[ $fail -eq 0 ]
