#!/bin/sh
# The command line: information flags, usage errors (--jobs), --fail-on,
# --output-file, colour,
# .cpulint.yaml (severity, off, exclude, errors), inline suppressions in
# YAML, a huge file, directory walking rules.
set -u
BIN=${BIN:?}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SUITE=cli
. tests/lib.sh

expect version 0 "$BIN" --version
has version "kubectl-cpulint $(cat VERSION)"
expect help 0 "$BIN" -h
has help "usage: kubectl-cpulint"
expect explain 0 "$BIN" --explain CPU401
has explain "# CPU401 cpu-oversubscribed"
expect explain-name 0 "$BIN" --explain shm-missing
has explain-name "# CPU402 shm-missing"
expect explain-bad 2 "$BIN" --explain CPU999
expect list 0 "$BIN" --list-rules
has list "CPU403  nproc-auto-on-cpu"
expect no-args 2 "$BIN"
expect bad-flag 2 "$BIN" --nope .
expect bad-format 2 "$BIN" -o xml .
has bad-format '-o/--output takes text, json, sarif, github, junit, gitlab or markdown, not "xml"'
expect bad-format-alias 2 "$BIN" --format xml .
expect bad-fail-on 2 "$BIN" --fail-on sometimes .
expect bad-jobs 2 "$BIN" -j 0 .
has bad-jobs '--jobs takes a number from 1 to 1024, not "0"'
expect bad-jobs-word 2 "$BIN" --jobs=two .
has bad-jobs-word '--jobs takes a number from 1 to 1024, not "two"'
# Every checked value says what its flag takes (cmd/flags.c's table).
expect bad-fail-on-word 2 "$BIN" --fail-on=x .
has bad-fail-on-word '--fail-on takes error, warning, note or none, not "x"'
expect bad-deny-on 2 "$BIN" --deny-on x .
has bad-deny-on '--deny-on takes error, warning, note or none, not "x"'
expect bad-color 2 "$BIN" --color x .
has bad-color '--color takes auto, always or never'
expect bad-sample 2 "$BIN" --sample 2h .
has bad-sample '--sample takes a duration such as 30s or 1m (at most 1h), not "2h"'
expect bad-window 2 "$BIN" --window 0 .
has bad-window '--window takes a duration such as 1h or 30m, not "0"'
expect bad-audit-interval 2 "$BIN" --audit-interval 0 .
has bad-audit-interval '--audit-interval takes a duration such as 30s or 5m, not "0"'
expect bad-lease 2 "$BIN" --leader-elect-lease-duration 2s .
has bad-lease '--leader-elect-lease-duration takes a duration of 3s or more, not "2s"'
# plan and compare read their flags from the same table (cmd/flags.c's
# subcommand rows): a shared flag says what it takes in the main
# command's words, after the subcommand's name, and kubectl's -o=json
# is -o json there too.
expect plan-bad-max 2 "$BIN" plan --max 0 x.yaml
has plan-bad-max 'kubectl-cpulint plan: --max takes a number from 1 to 4096, not "0"'
expect plan-bad-segment 2 "$BIN" plan --segment =1 x.yaml
has plan-bad-segment 'kubectl-cpulint plan: --segment takes NAME=VALUE (an input or flag of the training script, such as steps=200), not "=1"'
expect plan-bad-flag 2 "$BIN" plan --fail-on x x.yaml
has plan-bad-flag 'kubectl-cpulint plan: unknown or incomplete option "--fail-on" (see plan --help)'
expect compare-live-timeout 2 "$BIN" compare --live-timeout x -l a=b
has compare-live-timeout 'kubectl-cpulint compare: --live-timeout takes a duration such as 90s or 10m (0: no limit), not "x"'
expect compare-o-equals 2 "$BIN" compare -o=json
has compare-o-equals 'kubectl-cpulint compare: name the runs'
expect compare-bad-o 2 "$BIN" compare -o xml
has compare-bad-o 'kubectl-cpulint compare: -o takes text, json or html, not "xml"'
expect compare-fix-diff 2 "$BIN" compare --fix a --diff b
has compare-fix-diff 'kubectl-cpulint compare: give one of --fix FILE and --diff FILE'
expect bad-flag-arg 2 "$BIN" --mutate-dry-run=x .
has bad-flag-arg "option '--mutate-dry-run' doesn't allow an argument"
expect bad-flag-short 2 "$BIN" -Z .
has bad-flag-short "invalid option -- 'Z'"
expect mixed 2 "$BIN" testdata/example pod/train-0
expect live-flags-on-paths 2 "$BIN" -n ml testdata/example

cp testdata/example/polyaxonfile.yaml "$tmp/p.yaml"
expect fail-on-none 0 "$BIN" --no-config --fail-on none "$tmp/p.yaml"
expect fail-on-error 1 "$BIN" --no-config --fail-on error "$tmp/p.yaml"
expect output 1 "$BIN" --no-config --output-file "$tmp/out.txt" "$tmp/p.yaml"
[ -z "$out" ] && grep -q "CPU401" "$tmp/out.txt" && ok || bad "--output-file wrote elsewhere"
expect color 1 "$BIN" --no-config --color always "$tmp/p.yaml"
printf '%s' "$out" | grep -q "$(printf '\033')\[" && ok || bad "--color always has no escapes"
expect nocolor 1 env NO_COLOR=1 "$BIN" --no-config "$tmp/p.yaml"
printf '%s' "$out" | grep -q "$(printf '\033')" && bad "colour with NO_COLOR" || ok

# configuration
mkdir -p "$tmp/proj/vendor" "$tmp/proj/jobs"
cp testdata/example/polyaxonfile.yaml "$tmp/proj/jobs/"
cp testdata/example/polyaxonfile.yaml "$tmp/proj/vendor/"
printf 'rules:\n  CPU401: off\n  CPU202: note\n  cpu-request-limit-gap: warning\nexclude:\n  - vendor/\nthrottle-threshold: 20\n' > "$tmp/proj/.cpulint.yaml"
expect config 1 "$BIN" "$tmp/proj"
lacks config-off "CPU401"
lacks config-exclude "vendor/polyaxonfile.yaml"
has config-severity "note: OMP_NUM_THREADS=8"
has config-name "warning: container \"polyaxon-main\" requests 1 CPU"
expect no-config 1 "$BIN" --no-config "$tmp/proj"
has no-config "CPU401"
printf 'rules:\n  CPU777: off\n' > "$tmp/bad.yaml"
expect config-unknown-rule 2 "$BIN" --config "$tmp/bad.yaml" "$tmp/p.yaml"
has config-unknown-rule "bad.yaml:2:3: error: unknown rule \"CPU777\""
has config-still-lints "CPU401"
printf 'rules:\n  CPU401: loud\n' > "$tmp/bad.yaml"
expect config-bad-severity 2 "$BIN" --config "$tmp/bad.yaml" "$tmp/p.yaml"
has config-bad-severity "bad.yaml:2:11: error: invalid severity for CPU401"
printf 'colour: red\n' > "$tmp/bad.yaml"
expect config-unknown-key 2 "$BIN" --config "$tmp/bad.yaml" "$tmp/p.yaml"
has config-unknown-key "unknown configuration key \"colour\""

# inline suppressions
sed -e 's|      value: "8"|      value: "8"  # cpulint: disable=CPU202|' \
    "$tmp/p.yaml" > "$tmp/s.yaml"
expect suppress-line 1 "$BIN" --no-config "$tmp/s.yaml"
lacks suppress-line "OMP_NUM_THREADS=8 x 4"
has suppress-summary "suppressed"
expect suppress-sarif 1 "$BIN" --no-config -o sarif "$tmp/s.yaml"
has suppress-sarif '"kind": "inSource"'
{ cat "$tmp/p.yaml"; printf '# cpulint: disable-file=CPU202,CPU401\n'; } > "$tmp/f.yaml"
expect suppress-file 1 "$BIN" --no-config "$tmp/f.yaml"
lacks suppress-file "CPU401"
lacks suppress-file "CPU202"

# a huge file and the walker's skips
python3 -c 'import sys; sys.stdout.write("# pad\n" * 3000000)' > "$tmp/huge.yaml"
expect huge 2 "$BIN" --no-config "$tmp/huge.yaml" "$tmp/p.yaml"
has huge "huge.yaml: error: file is too large"
has huge-others "CPU401"
mkdir -p "$tmp/w/.hidden" "$tmp/w/node_modules" "$tmp/w/ok"
for d in .hidden node_modules ok; do cp "$tmp/p.yaml" "$tmp/w/$d/"; done
# Broken, and one of ours (apiVersion and kind): an error.  (Broken and
# not ours is skipped: tests/e2e/ci.sh.)
printf 'apiVersion: v1\nkind: Pod\na: [1\n' > "$tmp/w/ok/broken.yaml"
printf 'title: notes\n' > "$tmp/w/ok/notes.yaml"
expect walk 2 "$BIN" --no-config "$tmp/w"
has walk "ok/p.yaml"
lacks walk-hidden ".hidden/p.yaml"
lacks walk-node-modules "node_modules/p.yaml"
has walk-broken "broken.yaml:4:1: error:"
lacks walk-notes "notes.yaml"
expect ignore-unknown 1 "$BIN" --no-config --ignore-unknown "$tmp/w/ok/notes.yaml" "$tmp/p.yaml"
lacks ignore-unknown "notes.yaml"

echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
