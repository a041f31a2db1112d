#!/bin/sh
# Runs every unit test binary given; prints each suite's check summary and
# one closing line "unit: N passed, N failed"; fails when any test failed
# or a binary crashed without a summary.
pass=0
fail=0
for t in "$@"; do
	out=$(CK_FORK=${CK_FORK:-yes} "$t" 2>&1)
	rc=$?
	name=$(basename "$t")
	printf '%s\n' "$out" | grep -E '^[0-9]+%: |:[EF]:' | sed "s|^|$name: |"
	sum=$(printf '%s\n' "$out" |
	    sed -n 's/^[0-9]*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' |
	    awk '{n+=$1; f+=$2+$3} END {print n+0, f+0}')
	n=${sum% *}
	f=${sum#* }
	if [ "$n" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		printf '%s\n' "$out" | tail -20
		echo "$name: exited $rc without a passing summary"
		f=$((f + 1))
	fi
	pass=$((pass + n - ${f%% *}))
	fail=$((fail + f))
done
[ "$pass" -ge 0 ] || pass=0
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
