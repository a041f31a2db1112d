#!/bin/sh
# Golden end-to-end tests.  Every directory under testdata/ that holds an
# `expected.txt` is a case: the binary runs inside that directory with the
# arguments in `args` (default: "."), plus --no-config unless the case has
# a .cpulint.yaml, and its stdout, stderr and exit status are compared with
# expected.txt, expected.stderr (when present) and expected.exit (default
# 0).  A case may also hold expected.json / expected.sarif, compared with
# the output of -o json / sarif.  UPDATE_GOLDEN=1 rewrites the
# expected files instead (review the diff before committing).
# Every case runs three times: with the default -j, with -j 1 and with
# -j 2, each held to the same expected files (a SARIF commandLine is read
# without its "-j N"): the report is the same bytes for any -j.
set -u
BIN=${BIN:?BIN must name the kubectl-cpulint binary}
# Charts render with the built-in evaluator on every machine (helm.sh
# tests the helm path).
CPULINT_HELM=none
export CPULINT_HELM
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

# One run of a case: dir, the name to report, args, the config flag and
# the -j flags ("" for the default); 1 when anything differs.
run_case() {
	rdir=$1 rname=$2 rargs=$3 rcfg=$4 jobs=$5
	rok=1
	(cd "$rdir" && eval "\"\$BIN\" $jobs $rcfg --color never $rargs" \
		>"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc")
	[ -n "${UPDATE_GOLDEN:-}" ] && cp "$tmp/rc" "$rdir/expected.exit"
	want_rc=$(cat "$rdir/expected.exit" 2>/dev/null || echo 0)
	if [ "$(cat "$tmp/rc")" != "$want_rc" ]; then
		echo "FAIL $rname: exit $(cat "$tmp/rc"), expected $want_rc"
		rok=0
	fi
	check "$rname" "$rdir/expected.txt" "$tmp/out" || rok=0
	if [ -f "$rdir/expected.stderr" ]; then
		check "$rname" "$rdir/expected.stderr" "$tmp/err" || rok=0
	elif [ -s "$tmp/err" ]; then
		if [ -n "${UPDATE_GOLDEN:-}" ]; then
			cp "$tmp/err" "$rdir/expected.stderr"
		else
			echo "FAIL $rname: unexpected stderr:"
			head -5 "$tmp/err"
			rok=0
		fi
	fi
	for fmt in json sarif; do
		[ -f "$rdir/expected.$fmt" ] || continue
		(cd "$rdir" && eval "\"\$BIN\" $jobs $rcfg -o $fmt $rargs" \
			>"$tmp/out.$fmt" 2>/dev/null)
		if [ "$fmt" = sarif ]; then
			# the absolute source root differs between machines;
			# the commandLine is read without its -j
			sed -i -e "s|file://$root/|file:///ROOT/|g" \
			    -e "s|$BIN|kubectl-cpulint|g" \
			    -e "s|kubectl-cpulint $jobs |kubectl-cpulint |" \
			    "$tmp/out.$fmt"
			python3 "$root/tests/validate-sarif.py" \
				"$root/testdata/reference/sarif/sarif-schema-2.1.0.json" \
				"$tmp/out.$fmt" >/dev/null || { echo "FAIL $rname: SARIF does not validate"; rok=0; }
		fi
		check "$rname" "$rdir/expected.$fmt" "$tmp/out.$fmt" || rok=0
	done
	[ $rok = 1 ]
}

for exp in $(find testdata -name expected.txt -not -path '*/apiserver/*' | sort); do
	dir=$(dirname "$exp")
	name=${dir#testdata/}
	args=.
	[ -f "$dir/args" ] && args=$(cat "$dir/args")
	cfg=--no-config
	[ -f "$dir/.cpulint.yaml" ] && cfg=
	ok=1
	for jobs in "" "-j 1" "-j 2"; do
		[ -n "${UPDATE_GOLDEN:-}" ] && [ -n "$jobs" ] && continue
		run_case "$dir" "$name${jobs:+ ($jobs)}" "$args" "$cfg" \
		    "$jobs" || ok=0
	done
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
