#!/bin/sh
# The README tells the truth: its rule table is the registry's, every flag
# in --help appears in it, and the bundled example it names produces
# findings with fixes and exit status 1.
BIN=${BIN:?}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL readme: $*"; fail=$((fail + 1)); }

table=$(BIN=$BIN sh tools/rule-table.sh)
if printf '%s\n' "$table" | while IFS= read -r line; do
	grep -qxF -- "$line" README.md || { echo "missing: $line"; exit 1; }
done; then ok; else bad "rule table differs from tools/rule-table.sh"; fi

for flag in $("$BIN" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	if grep -qF -- "$flag" README.md; then ok; else bad "flag $flag not in README"; fi
done

out=$("$BIN" --color never testdata/example 2>&1)
rc=$?
[ $rc -eq 1 ] && ok || bad "example exits $rc, expected 1"
printf '%s\n' "$out" | grep -q 'fix: ' && ok || bad "example shows no fix"
echo "readme: $pass passed, $fail failed"
[ $fail -eq 0 ]
