# tests/lib.sh — helpers the end-to-end scripts share; sourced, never run.
# Set SUITE (the name printed) before sourcing.  expect NAME RC CMD… runs
# CMD with stdout in $out, stderr in $err and both in $all, and checks the
# exit status; has/lacks look for a fixed string in $all; finish prints
# "SUITE: N passed, N failed" and exits non-zero on any failure.  With
# ALL_OUTPUT set, every output is also appended to that file (for checks
# over the whole run, such as "no token was ever printed").
pass=0 fail=0
tmp=${tmp:-$(mktemp -d)}
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $SUITE: $*"; fail=$((fail + 1)); }
expect() {
	name=$1 want=$2
	shift 2
	out=$("$@" 2>"$tmp/.err")
	rc=$?
	err=$(cat "$tmp/.err")
	all="$out
$err"
	[ -z "${ALL_OUTPUT:-}" ] || printf '%s\n' "$all" >> "$ALL_OUTPUT"
	if [ "$rc" = "$want" ]; then ok; else
		bad "$name: exit $rc, expected $want"
		printf '%s\n' "$all" | head -8
	fi
}
has() {
	if printf '%s\n' "$all" | grep -qF -- "$2"; then ok; else
		bad "$1: output lacks '$2'"
		printf '%s\n' "$all" | head -8
	fi
}
lacks() {
	if printf '%s\n' "$all" | grep -qF -- "$2"; then
		bad "$1: output has '$2'"
		printf '%s\n' "$all" | grep -F -- "$2" | head -3
	else ok; fi
}
# check NAME CONDITION…: a plain assertion.
check() {
	name=$1
	shift
	if "$@"; then ok; else bad "$name"; fi
}
# wait_listening LOG PID: waits until serve's LOG says "listening on
# port", while PID runs, at most 30 s; 0 when it listens.  A loaded
# machine may take seconds to start it: a request sent at once is
# refused now and then.
wait_listening() {
	_wl=0
	until grep -q "listening on port" "$1" 2>/dev/null; do
		kill -0 "$2" 2>/dev/null && [ $_wl -lt 300 ] || return 1
		sleep 0.1
		_wl=$((_wl + 1))
	done
}
finish() {
	echo "$SUITE: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}
