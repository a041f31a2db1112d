#!/bin/sh
# Golden end-to-end tests.  Every directory under testdata/ that holds an
# `expected.txt` is a case: the binary runs inside that directory with the
# arguments in `args` (default: "."), plus --no-config unless the case has
# a .cpulint.yaml, and its stdout, stderr and exit status are compared with
# expected.txt, expected.stderr (when present) and expected.exit (default
# 0).  A case may also hold expected.json / expected.sarif, compared with
# the output of -o json / sarif.  UPDATE_GOLDEN=1 rewrites the
# expected files instead (review the diff before committing).
set -u
BIN=${BIN:?BIN must name the kubectl-cpulint binary}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
root=$(pwd)
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {	# name expected actual
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$3" "$2"
		return 0
	fi
	if cmp -s "$2" "$3"; then
		return 0
	fi
	echo "FAIL $1: $(basename "$2") differs:"
	diff -u "$2" "$3" | head -40
	return 1
}

for exp in $(find testdata -name expected.txt -not -path '*/apiserver/*' | sort); do
	dir=$(dirname "$exp")
	name=${dir#testdata/}
	args=.
	[ -f "$dir/args" ] && args=$(cat "$dir/args")
	cfg=--no-config
	[ -f "$dir/.cpulint.yaml" ] && cfg=
	ok=1
	(cd "$dir" && eval "\"\$BIN\" $cfg --color never $args" \
		>"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc")
	[ -n "${UPDATE_GOLDEN:-}" ] && cp "$tmp/rc" "$dir/expected.exit"
	want_rc=$(cat "$dir/expected.exit" 2>/dev/null || echo 0)
	if [ "$(cat "$tmp/rc")" != "$want_rc" ]; then
		echo "FAIL $name: exit $(cat "$tmp/rc"), expected $want_rc"
		ok=0
	fi
	check "$name" "$dir/expected.txt" "$tmp/out" || ok=0
	if [ -f "$dir/expected.stderr" ]; then
		check "$name" "$dir/expected.stderr" "$tmp/err" || ok=0
	elif [ -s "$tmp/err" ]; then
		if [ -n "${UPDATE_GOLDEN:-}" ]; then
			cp "$tmp/err" "$dir/expected.stderr"
		else
			echo "FAIL $name: unexpected stderr:"
			head -5 "$tmp/err"
			ok=0
		fi
	fi
	for fmt in json sarif; do
		[ -f "$dir/expected.$fmt" ] || continue
		(cd "$dir" && eval "\"\$BIN\" $cfg -o $fmt $args" \
			>"$tmp/out.$fmt" 2>/dev/null)
		if [ "$fmt" = sarif ]; then
			# the absolute source root differs between machines
			sed -i -e "s|file://$root/|file:///ROOT/|g" \
			    -e "s|$BIN|kubectl-cpulint|g" "$tmp/out.$fmt"
			python3 "$root/tests/validate-sarif.py" \
				"$root/testdata/reference/sarif/sarif-schema-2.1.0.json" \
				"$tmp/out.$fmt" >/dev/null || { echo "FAIL $name: SARIF does not validate"; ok=0; }
		fi
		check "$name" "$dir/expected.$fmt" "$tmp/out.$fmt" || ok=0
	done
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
