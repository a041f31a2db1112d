#!/bin/sh
# The habits of kubectl users, pre-commit and code scanning (issue 12),
# through the real binary: -o is the format and --output-file the file;
# a stream on standard input (-f -, -); TYPE NAME as kubectl get; clean
# streams (nothing on stdout when nothing was read, "no files to lint",
# --list-rules -o sarif refused); SARIF's 25,000-result limit; and a
# report file that is complete or untouched when writing fails (a full
# disk, made with ulimit -f).
set -u
BIN=${BIN:?}
SUITE=habits
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
schema=$root/testdata/reference/sarif/sarif-schema-2.1.0.json
valid() { python3 "$root/tests/validate-sarif.py" "$schema" "$1" >/dev/null; }

# A training Pod: one error pair (CPU202, CPU401) with OMP_NUM_THREADS=8.
pod() {	# name omp
	cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  containers:
  - name: t
    image: pytorch
    command: [torchrun, --nproc_per_node, "2", train.py]
    env: [{name: OMP_NUM_THREADS, value: "$2"}]
    resources: {requests: {cpu: "2"}, limits: {cpu: "2"}}
EOF
}
cp testdata/example/polyaxonfile.yaml "$tmp/p.yaml"

# 1. -o FORMAT, its spellings and its alias; --output-file.
expect o-json 1 "$BIN" --no-config -o json "$tmp/p.yaml"
printf '%s\n' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' &&
	ok || bad "-o json is not JSON"
expect o-eq 1 "$BIN" --no-config -o=json "$tmp/p.yaml"
has o-eq '"findings"'
expect o-glued 1 "$BIN" --no-config -ojson "$tmp/p.yaml"
has o-glued '"findings"'
expect o-long 1 "$BIN" --no-config --output sarif "$tmp/p.yaml"
has o-long '"version": "2.1.0"'
expect format-alias 1 "$BIN" --no-config --format github "$tmp/p.yaml"
has format-alias "::error file="
expect o-bad 2 "$BIN" --no-config -o yaml "$tmp/p.yaml"
has o-bad '-o/--output takes text, json, sarif, github, junit, gitlab or markdown, not "yaml"'
check o-bad-stdout [ -z "$out" ]
expect o-file-habit 2 "$BIN" --no-config -o "$tmp/report.txt" "$tmp/p.yaml"
has o-file-habit "to write the report to a file: --output-file FILE"
check o-file-habit-no-file [ ! -e "$tmp/report.txt" ]
expect output-file 1 "$BIN" --no-config -o sarif --output-file "$tmp/r.sarif" "$tmp/p.yaml"
check output-file-stdout [ -z "$out" ]
valid "$tmp/r.sarif" && ok || bad "--output-file SARIF invalid"
ls -A "$tmp" | grep -q '^\.r\.sarif' && bad "a temporary file was left" || ok

# 2. Standard input: a real multi-document stream piped in.
{ pod good 1; echo ---; printf 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\n'
  echo ---; pod bad 8; } > "$tmp/stream.yaml"
out=$(cat "$tmp/stream.yaml" | "$BIN" --no-config -f - 2>"$tmp/.err"); rc=$?
err=$(cat "$tmp/.err"); all="$out
$err"
check stdin-exit [ "$rc" = 1 ]
has stdin-location "<stdin>:24:42: error: OMP_NUM_THREADS=8 x 2 ranks"
lacks stdin-good "<stdin>:10:"
all=$(cat "$tmp/stream.yaml" | "$BIN" --no-config - 2>&1)
has stdin-bare-dash "<stdin>:24:42: error:"
all=$(cat "$tmp/stream.yaml" | "$BIN" --no-config -o json - 2>&1)
printf '%s\n' "$all" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert {f["file"] for f in d["findings"]} == {"<stdin>"}, d["findings"]
assert d["findings"][0]["line"] == 24
' && ok || bad "stdin JSON file is not <stdin>"
cat "$tmp/stream.yaml" | "$BIN" --no-config -o sarif -f - > "$tmp/stdin.sarif"
valid "$tmp/stdin.sarif" && ok || bad "stdin SARIF invalid"
python3 - "$tmp/stdin.sarif" <<'PY' && ok || bad "stdin SARIF location"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"][0]
loc = r["locations"][0]["physicalLocation"]
assert loc["artifactLocation"]["uri"] == "stdin", loc
assert "uriBaseId" not in loc["artifactLocation"], loc
assert loc["region"]["startLine"] == 24, loc
assert r["partialFingerprints"]["primaryLocationLineHash"]
PY
all=$(cat "$tmp/stream.yaml" | "$BIN" --no-config -o github - 2>&1)
has stdin-github "::error title=CPU202 thread-env-over-budget::<stdin>:24:42: OMP_NUM_THREADS=8"
lacks stdin-github-file "file=<stdin>"
# kustomize build (kubectl's own kustomize) piped in
mkdir -p "$tmp/kust"
pod kpod 8 > "$tmp/kust/pod.yaml"
printf 'resources: [pod.yaml]\nnamespace: ml\nnamePrefix: team-\n' \
	> "$tmp/kust/kustomization.yaml"
if command -v kubectl >/dev/null 2>&1; then
	kubectl kustomize "$tmp/kust" > "$tmp/kust.out" 2>&1 || cat "$tmp/kust.out"
	all=$(kubectl kustomize "$tmp/kust" | "$BIN" --no-config -f - 2>&1)
	has kustomize-stdin "<stdin>:"
	has kustomize-stdin2 "OMP_NUM_THREADS=8 x 2 ranks"
else
	bad "kubectl is not installed (tools/install-deps.sh installs it)"
fi
# a stream and a file together; stdin named twice is read once
all=$(cat "$tmp/stream.yaml" | "$BIN" --no-config - "$tmp/p.yaml" - 2>&1)
has stdin-and-file "p.yaml:23:14: error:"
has stdin-and-file2 "<stdin>:24:42: error:"
# over the size limit: an error, and no hang
all=$(head -c 17000000 /dev/zero | tr '\0' '#' | "$BIN" --no-config - 2>&1)
has stdin-too-large "<stdin>: error: standard input is larger than the limit of 16777216 bytes"
all=$(printf '' | "$BIN" --no-config -f - 2>&1); rc=$?
check stdin-empty [ "$rc" = 2 ]
expect stdin-staged 2 "$BIN" --staged -
has stdin-staged "standard input (-) has no git history"

# 6. TYPE NAME is TYPE/NAME (the cluster part is in complete.sh); a type
# followed by TYPE/NAME is refused as kubectl does.
expect type-slash 2 "$BIN" pod pod/train-0
has type-slash "after a TYPE come names"
mkdir -p "$tmp/pod"
cp "$tmp/p.yaml" "$tmp/pod/"
(cd "$tmp" && "$BIN" --no-config pod > "$tmp/o" 2>&1); rc=$?
check type-word-dir-is-a-path [ "$rc" = 1 ]
grep -q "pod/p.yaml:23:14" "$tmp/o" && ok || bad "a directory named pod is a path"
# ... but "pod NAME" with a directory named pod here and no NAME here is
# still kubectl's TYPE NAME (a repository's deploy/ must not change what
# "deploy trainer" means), while "pod FILE" with FILE here is two paths
(cd "$tmp" && "$BIN" --no-config --kubeconfig "$tmp/none.kubeconfig" \
	pod train-0 > "$tmp/o" 2>&1); rc=$?
check type-word-dir-then-name [ "$rc" = 2 ]
grep -q "none.kubeconfig: error: cannot read --kubeconfig" "$tmp/o" && ok ||
	bad "pod NAME beside a directory pod is not a live target: $(cat "$tmp/o")"
(cd "$tmp" && "$BIN" --no-config pod p.yaml > "$tmp/o" 2>&1); rc=$?
check type-word-dir-then-file [ "$rc" = 1 ]
grep -q "pod/p.yaml:23:14" "$tmp/o" && ok || bad "pod FILE is two paths"

# 8. Clean streams.
mkdir -p "$tmp/empty/sub"
expect empty-walk 0 "$BIN" --no-config "$tmp/empty"
has empty-walk "kubectl-cpulint: no files to lint"
expect nothing-read 2 "$BIN" --no-config "$tmp/missing.yaml"
check nothing-read-stdout [ -z "$out" ]
has nothing-read "missing.yaml: error: cannot read"
expect nothing-read-file 2 "$BIN" --no-config --output-file "$tmp/none.sarif" -o sarif "$tmp/missing.yaml"
check nothing-read-no-file [ ! -e "$tmp/none.sarif" ]
expect list-sarif 2 "$BIN" --list-rules -o sarif
check list-sarif-stdout [ -z "$out" ]
has list-sarif "--list-rules prints text or json"
expect list-json 0 "$BIN" --list-rules -o json
has list-json '"id": "CPU101"'

# 9. SARIF keeps at most 25,000 results, the most severe: 25,050 notes
# first in the file, then 20 errors (one CPU202 each) that file order
# alone would drop.
python3 - "$tmp/many.yaml" <<'PY'
import sys
note = """apiVersion: v1
kind: Pod
metadata: {name: n%d}
spec:
  containers:
  - name: t
    image: pytorch
    command: [torchrun, --nproc_per_node, "2", train.py]
    resources: {requests: {cpu: "2"}}
"""
err = note.replace("n%d", "e%d").replace(
    'resources: {requests: {cpu: "2"}}',
    'env: [{name: OMP_NUM_THREADS, value: "8"}]\n'
    '    resources: {requests: {cpu: "2"}, limits: {cpu: "2"}}')
with open(sys.argv[1], "w") as f:
    f.write("---\n".join([note % i for i in range(25050)] +
                         [err % i for i in range(20)]))
PY
expect sarif-limit 1 "$BIN" --no-config -o sarif --output-file "$tmp/many.sarif" "$tmp/many.yaml"
has sarif-limit "code scanning takes at most 25000 results per run"
has sarif-limit-count "leaves 70 out"
python3 - "$tmp/many.sarif" <<'PY' && ok || bad "SARIF limit"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
res = run["results"]
assert len(res) == 25000, len(res)
assert sum(r["level"] == "error" for r in res) == 20
notes = run["invocations"][0]["toolExecutionNotifications"]
assert notes[0]["level"] == "warning"
assert notes[0]["message"]["text"].startswith("70 results were left out"), notes
lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in res]
assert lines == sorted(lines)	# still in file order
PY

# Hardening 10: a write that fails (a full disk: ulimit -f, SIGXFSZ
# ignored so the write returns EFBIG) leaves FILE as it was, no temporary
# file, one message, exit 2.
printf 'previous report\n' > "$tmp/keep.sarif"
(ulimit -f 8 && trap '' XFSZ && exec "$BIN" --no-config -o sarif \
	--output-file "$tmp/keep.sarif" "$tmp/p.yaml") >"$tmp/o" 2>"$tmp/e"
rc=$?
check full-disk-exit [ "$rc" = 2 ]
check full-disk-kept [ "$(cat "$tmp/keep.sarif")" = "previous report" ]
check full-disk-one-line [ "$(grep -c '' "$tmp/e")" = 1 ]
grep -q "cannot write the report to $tmp/keep.sarif: File too large" "$tmp/e" &&
	ok || { bad "full disk message"; cat "$tmp/e"; }
ls -A "$tmp" | grep -q '^\.keep\.sarif' && bad "temporary file left" || ok
(ulimit -f 8 && trap '' XFSZ && exec "$BIN" --no-config -o sarif \
	--output-file "$tmp/new.sarif" "$tmp/p.yaml") >/dev/null 2>&1
check full-disk-no-file [ ! -e "$tmp/new.sarif" ]
# a new file gets the mode of a new file (umask), a symlink keeps linking
(umask 027 && "$BIN" --no-config --output-file "$tmp/m.txt" "$tmp/p.yaml" >/dev/null 2>&1)
check new-file-mode [ "$(stat -c %a "$tmp/m.txt")" = 640 ]
ln -s m.txt "$tmp/link.txt"
"$BIN" --no-config -o json --output-file "$tmp/link.txt" "$tmp/p.yaml" >/dev/null 2>&1
check symlink-kept [ -L "$tmp/link.txt" ]
grep -q '"findings"' "$tmp/m.txt" && ok || bad "symlink target not written"
expect dev-null 1 "$BIN" --no-config --output-file /dev/null "$tmp/p.yaml"
check dev-null-still [ -c /dev/null ]
finish
