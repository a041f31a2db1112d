#!/bin/sh
# --fix and --diff end to end.  Every directory under testdata/fix/ is a
# case: its files (all but expected.*, args and SOURCES.md) are copied to
# a scratch directory and linted there with --no-config and the flags in
# `args` (default none).  For each case:
#   - --diff prints expected.diff, exits 1 (0 when expected.diff is
#     empty), and writes nothing (checksums);
#   - that diff applies with `patch -p1 --dry-run` and `git apply --check`,
#     and applied with patch gives the same bytes as --fix;
#   - --fix leaves each changed file equal to expected.after (one file
#     changed) or expected.after.NAME (several), says "fixed N
#     finding(s) in M file(s)", and a second --fix changes nothing;
#   - loaded as data (PyYAML), original and fixed differ exactly by the
#     reviewed lines of expected.changes ("path: old -> new");
#   - linted again, no finding with a fix --fix may apply is left and no
#     (rule, object, container) appears that was not there before.
# UPDATE_GOLDEN=1 writes expected.diff, expected.after* and
# expected.changes (review them).  Then the refusals and standard input.
set -u
BIN=${BIN:?BIN must name the kubectl-cpulint binary}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
root=$(pwd)
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL fix: $*"; fail=$((fail + 1)); }

# golden NAME EXPECTED ACTUAL
golden() {
	if [ -n "${UPDATE_GOLDEN:-}" ]; then
		cp "$3" "$2"
		ok
	elif cmp -s "$2" "$3"; then
		ok
	else
		bad "$1: $(basename "$2") differs:"
		diff -u "$2" "$3" | head -30
	fi
}

# inputs DIR: the case's input files, one a line.
inputs() {
	(cd "$1" && find . -type f ! -name 'expected.*' ! -name args \
		! -name SOURCES.md | sed 's|^\./||' | sort)
}

sums() { (cd "$1" && inputs . | xargs cksum); }

# The data-level difference of two YAML/JSON files, one sorted line per
# changed leaf: "path: old -> new" (a missing side is <absent>).
changes() {
	python3 - "$1" "$2" <<'PY'
import sys, yaml
def load(p):
    with open(p, "rb") as f:
        return list(yaml.safe_load_all(f.read().decode("utf-8")))
def walk(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            walk(a.get(k, ABSENT), b.get(k, ABSENT), path + [str(k)], out)
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            walk(a[i] if i < len(a) else ABSENT,
                 b[i] if i < len(b) else ABSENT, path + [str(i)], out)
    elif a != b or type(a) != type(b):
        out.append("%s: %s -> %s" % (".".join(path) or ".", show(a), show(b)))
class Absent: pass
ABSENT = Absent()
def show(v):
    return "<absent>" if v is ABSENT else repr(v)
out = []
a, b = load(sys.argv[1]), load(sys.argv[2])
walk(a, b, [], out)
print("\n".join(sorted(out)))
PY
}

# After --fix: nothing fixable with these flags is left, nothing is new.
relint() {	# before.json after.json unsafe(0|1)
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
before = json.load(open(sys.argv[1]))["findings"]
after = json.load(open(sys.argv[2]))["findings"]
unsafe = sys.argv[3] == "1"
key = lambda f: (f["rule"], f.get("object"), f.get("container"))
left = [f for f in after if f.get("edits") and not f.get("suppressed")
        and (f.get("applicability") == "safe" or unsafe)]
new = set(map(key, after)) - set(map(key, before))
for f in left:
    print("still fixable: %s %s:%s" % (f["rule"], f["file"], f["line"]))
for k in sorted(new, key=str):
    print("new finding: %s %s %s" % k)
sys.exit(1 if left or new else 0)
PY
}

schema=$root/testdata/reference/sarif/sarif-schema-2.1.0.json

# JSON edits and SARIF fixes: the same (file, region, text) sets.
same_edits() {	# report.json report.sarif
	python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["findings"]
s = json.load(open(sys.argv[2]))["runs"][0]["results"]
je = sorted((e["file"], e["line"], e["column"], e["end_line"],
             e["end_column"], e["text"]) for f in j for e in f["edits"])
se = sorted((c["artifactLocation"]["uri"], r["deletedRegion"]["startLine"],
             r["deletedRegion"]["startColumn"], r["deletedRegion"]["endLine"],
             r["deletedRegion"]["endColumn"],
             r.get("insertedContent", {}).get("text", ""))
            for res in s for fx in res.get("fixes", [])
            for c in fx["artifactChanges"] for r in c["replacements"])
if je != se:
    print("JSON edits:", je[:3], "\nSARIF fixes:", se[:3])
sys.exit(0 if je == se else 1)
PY
}

for dir in $(find testdata/fix -mindepth 1 -maxdepth 1 -type d | sort); do
	name=${dir#testdata/fix/}
	args=
	[ -f "$dir/args" ] && args=$(cat "$dir/args")
	unsafe=0
	case " $args " in *" --unsafe-fixes "*) unsafe=1 ;; esac
	w=$tmp/$name
	rm -rf "$w" "$w.patched"
	mkdir -p "$w"
	for f in $(inputs "$dir"); do
		mkdir -p "$w/$(dirname "$f")"
		cp -p "$dir/$f" "$w/$f"
	done
	cp -R "$w" "$w.patched"
	sums "$w" >"$tmp/sum.before"

	# --diff: the golden diff, exit status, nothing written.
	(cd "$w" && "$BIN" --no-config $args --diff . >"$tmp/diff" \
		2>"$tmp/diff.err"; echo $? >"$tmp/rc")
	golden "$name" "$dir/expected.diff" "$tmp/diff"
	want=1
	[ -s "$dir/expected.diff" ] || want=0
	if [ "$(cat "$tmp/rc")" = "$want" ]; then ok; else
		bad "$name: --diff exit $(cat "$tmp/rc"), expected $want"
		cat "$tmp/diff.err"
	fi
	sums "$w" >"$tmp/sum.after"
	if cmp -s "$tmp/sum.before" "$tmp/sum.after"; then ok; else
		bad "$name: --diff changed a file"
	fi
	if [ -s "$tmp/diff" ]; then
		if (cd "$w" && patch -p1 --dry-run -s <"$tmp/diff" \
			>/dev/null); then ok; else
			bad "$name: patch -p1 --dry-run refuses the diff"
		fi
		if (cd "$w" && git apply --check "$tmp/diff"); then ok; else
			bad "$name: git apply --check refuses the diff"
		fi
		(cd "$w.patched" && patch -p1 -s <"$tmp/diff" >/dev/null)
	fi

	# --fix: the fixed files, the summary line, the round trip.
	(cd "$w" && "$BIN" --no-config $args -o json . >"$tmp/before.json" \
		2>/dev/null)
	# SARIF carries the same edits as JSON's, insertions included, and
	# validates against the official schema.
	(cd "$w" && "$BIN" --no-config $args -o sarif . >"$tmp/before.sarif" \
		2>/dev/null)
	if python3 "$root/tests/validate-sarif.py" "$schema" \
		"$tmp/before.sarif" && same_edits "$tmp/before.json" \
		"$tmp/before.sarif"; then ok; else
		bad "$name: SARIF invalid or its fixes differ from JSON's edits"
	fi
	(cd "$w" && "$BIN" --no-config --color never $args --fix . \
		>"$tmp/fix.out" 2>"$tmp/fix.err"; echo $? >"$tmp/rc")
	case $(cat "$tmp/rc") in 0 | 1) ok ;; *)
		bad "$name: --fix exit $(cat "$tmp/rc")"
		cat "$tmp/fix.err" ;;
	esac
	changed=
	for f in $(inputs "$dir"); do
		cmp -s "$dir/$f" "$w/$f" || changed="$changed $f"
	done
	nchanged=$(echo $changed | wc -w)
	if grep -q "^kubectl-cpulint: fixed [0-9]* finding(s) in $nchanged file(s)" \
		"$tmp/fix.err"; then ok; else
		bad "$name: no \"fixed ... in $nchanged file(s)\" line:"
		cat "$tmp/fix.err"
	fi
	: >"$tmp/changes"
	for f in $changed; do
		exp=$dir/expected.after
		[ "$nchanged" -gt 1 ] && exp=$dir/expected.after.$(basename "$f")
		golden "$name" "$exp" "$w/$f"
		if cmp -s "$w/$f" "$w.patched/$f"; then ok; else
			bad "$name: --diff applied with patch differs from --fix"
		fi
		case $f in *.yaml | *.yml | *.json)
			[ "$nchanged" -gt 1 ] && echo "# $f" >>"$tmp/changes"
			changes "$dir/$f" "$w/$f" >>"$tmp/changes" ||
				bad "$name: $f does not load after --fix" ;;
		esac
	done
	if [ -n "$changed" ]; then
		golden "$name" "$dir/expected.changes" "$tmp/changes"
	elif [ -s "$dir/expected.diff" ]; then
		bad "$name: --fix changed nothing, --diff had a diff"
	fi
	(cd "$w" && "$BIN" --no-config $args -o json . >"$tmp/after.json" \
		2>/dev/null)
	if relint "$tmp/before.json" "$tmp/after.json" "$unsafe"; then ok
	else bad "$name: linted again after --fix"; fi
	sums "$w" >"$tmp/sum.fixed"
	(cd "$w" && "$BIN" --no-config $args --fix . >/dev/null 2>&1)
	sums "$w" >"$tmp/sum.again"
	if cmp -s "$tmp/sum.fixed" "$tmp/sum.again"; then ok; else
		bad "$name: a second --fix changed something"
	fi
done

# Standard input: --fix prints the fixed text, the report on stderr.
case_dir=testdata/fix/pytorchjob
"$BIN" --no-config --color never --fix -f - \
	<"$case_dir/pytorchjob.yaml" >"$tmp/out" 2>"$tmp/err"
if cmp -s "$tmp/out" "$case_dir/expected.after"; then ok; else
	bad "stdin: --fix -f - did not print the fixed text"
	diff "$case_dir/expected.after" "$tmp/out" | head
fi
if grep -q "^kubectl-cpulint: fixed 3 finding(s) in 1 file(s)" "$tmp/err" \
	&& grep -q "finding" "$tmp/err"; then ok; else
	bad "stdin: summary or report missing on stderr"; cat "$tmp/err"
fi
"$BIN" --no-config --diff - <"$case_dir/pytorchjob.yaml" >"$tmp/out" 2>&1
grep -q '^+++ b/<stdin>$' "$tmp/out" && ok || bad "stdin: --diff"

# The file mode is kept; --unsafe-fixes alone only counts.
w=$tmp/mode
mkdir -p "$w"
cp testdata/fix/plx-unsafe/polyaxonfile.yaml "$w/"
chmod 640 "$w/polyaxonfile.yaml"
(cd "$w" && "$BIN" --no-config --unsafe-fixes . >/dev/null 2>"$tmp/err")
if grep -qx "kubectl-cpulint: 3 fix(es) available with --fix, 1 more with --fix --unsafe-fixes" "$tmp/err"; then ok; else
	bad "--unsafe-fixes alone:"; cat "$tmp/err"
fi
(cd "$w" && "$BIN" --no-config --fix . >/dev/null 2>"$tmp/err")
if grep -q "; 1 more fix(es) with --unsafe-fixes" "$tmp/err"; then ok; else
	bad "--fix did not count the unsafe fix left:"; cat "$tmp/err"
fi
if [ "$(stat -c %a "$w/polyaxonfile.yaml")" = 640 ]; then ok; else
	bad "--fix changed the file mode"
fi
[ -z "$(find "$w" -name '.*.??????')" ] && ok || bad "a temporary file was left"

# --diff-base: only the findings on changed lines are fixed.
w=$tmp/git
mkdir -p "$w"
cp testdata/fix/pytorchjob/pytorchjob.yaml "$w/"
(cd "$w" && git init -q && git add . &&
	git -c user.name=t -c user.email=t@example.com commit -qm base)
(cd "$w" && "$BIN" --no-config --fix --diff-base HEAD . >/dev/null \
	2>"$tmp/err")
if cmp -s "$w/pytorchjob.yaml" testdata/fix/pytorchjob/pytorchjob.yaml &&
	grep -q "fixed 0 finding(s) in 0 file(s)" "$tmp/err"; then ok; else
	bad "--diff-base HEAD fixed an unchanged line"; cat "$tmp/err"
fi
sed 's/value: "16"/value: "12"/' testdata/fix/pytorchjob/pytorchjob.yaml \
	>"$w/pytorchjob.yaml"
(cd "$w" && "$BIN" --no-config --diff --diff-base HEAD . >"$tmp/out" \
	2>/dev/null)
if grep -q '^+              value: "1"$' "$tmp/out" &&
	! grep -q '^[-+].*OMP_NUM_THREADS' "$tmp/out"; then ok; else
	bad "--diff --diff-base HEAD:"; cat "$tmp/out"
fi

# An edit that would change another node (here the loader-worker count
# of an anchored command another container reads) is not offered: the
# finding's fix says why, and --fix leaves the command as it was.  (The
# re-parse that refuses such an edit if one were made is tested in
# tests/unit/test_yamlcheck.c.)
w=$tmp/refused
mkdir -p "$w"
cp testdata/fix-refused/shared-command.yaml "$w/job.yaml"
(cd "$w" && "$BIN" --no-config -o json job.yaml >"$tmp/out" 2>/dev/null)
if python3 - "$tmp/out" <<'PY'
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["findings"]
     if x["rule"] == "CPU401"]
assert f and all(not x["edits"] for x in f), f
assert all("No automatic edit: the value is inside &cmd" in x["fix"]
           for x in f), f
PY
then ok; else bad "CPU401 offered an edit of an anchored command"; fi
(cd "$w" && "$BIN" --no-config --fix --unsafe-fixes job.yaml >/dev/null \
	2>"$tmp/err")
if grep -q -- '"--workers=8"\]$' "$w/job.yaml" &&
	grep -q '^      - name: dshm' "$w/job.yaml"; then ok; else
	bad "--fix of an anchored command:"; cat "$tmp/err"
fi

# Files that are not the user's to rewrite.  As another user (nobody)
# who may write the directory: a read-only file of root's, and a file of
# root's that nobody may write, are refused (a rename would replace them
# and make them nobody's); --force writes the second in place, keeping
# its owner.  A hard-linked file is refused (a rename would split the
# links); --force writes it in place.  Exit 2 when a file was refused.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	w=$tmp/owners
	mkdir -p "$w"
	chmod 777 "$w"
	src=testdata/fix/pod/pod.yaml
	cp "$src" "$w/ro.yaml"
	chmod 644 "$w/ro.yaml"
	cp "$src" "$w/shared.yaml"
	chmod 666 "$w/shared.yaml"
	as_nobody() {
		(cd "$w" && setpriv --reuid=65534 --regid=65534 \
			--clear-groups "$BIN" --no-config "$@")
	}
	as_nobody --fix ro.yaml >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q "^kubectl-cpulint: ro.yaml: read-only: not fixed" "$tmp/err" &&
		cmp -s "$src" "$w/ro.yaml" &&
		[ "$(stat -c %u "$w/ro.yaml")" = 0 ]; then ok; else
		bad "nobody's --fix of root's read-only file: exit $rc"
		cat "$tmp/err"
	fi
	as_nobody --fix shared.yaml >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q "^kubectl-cpulint: shared.yaml: owned by user 0, group 0, which a rewrite cannot keep" "$tmp/err" &&
		cmp -s "$src" "$w/shared.yaml"; then ok; else
		bad "nobody's --fix of root's file: exit $rc"; cat "$tmp/err"
	fi
	as_nobody --fix --force shared.yaml >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc != 2 ] && cmp -s testdata/fix/pod/expected.after \
		"$w/shared.yaml" &&
		[ "$(stat -c %u:%g:%a "$w/shared.yaml")" = 0:0:666 ]; then ok
	else
		bad "nobody's --fix --force of root's file: exit $rc"
		cat "$tmp/err"
	fi
	cp "$src" "$w/linked.yaml"
	ln "$w/linked.yaml" "$w/other-name.yaml"
	"$BIN" --no-config --fix "$w/linked.yaml" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q "more than one hard link: not fixed" "$tmp/err" &&
		cmp -s "$src" "$w/linked.yaml"; then ok; else
		bad "--fix of a hard-linked file: exit $rc"; cat "$tmp/err"
	fi
	"$BIN" --no-config --fix --force "$w/linked.yaml" >/dev/null 2>&1
	if cmp -s testdata/fix/pod/expected.after "$w/other-name.yaml"; then
		ok; else bad "--fix --force did not write the hard link in place"
	fi
	rm -rf "$w"
else
	echo "fix: not root (or no setpriv): ownership cases skipped"
fi

# --output-file naming an input: refused before anything is read, the
# input left as it was.
w=$tmp/outfile
mkdir -p "$w"
cp testdata/fix/pod/pod.yaml "$w/pod.yaml"
ln -s pod.yaml "$w/alias.yaml"
for args in "--output-file pod.yaml pod.yaml" \
	"--output-file alias.yaml pod.yaml" "--output-file pod.yaml -f -" \
	"--output-file pod.yaml ." "--fix --output-file pod.yaml pod.yaml"; do
	(cd "$w" && "$BIN" --no-config $args <pod.yaml >/dev/null \
		2>"$tmp/err")
	rc=$?
	if [ $rc = 2 ] && grep -q "^kubectl-cpulint: --output-file .* the report would replace it" "$tmp/err" &&
		cmp -s testdata/fix/pod/pod.yaml "$w/pod.yaml"; then ok; else
		bad "$args: exit $rc"; cat "$tmp/err"
	fi
done

# Refusals: live targets, --staged.
"$BIN" --fix pod/x >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "live objects" "$tmp/err"; then ok; else
	bad "--fix pod/x: exit $rc"; cat "$tmp/err"
fi
"$BIN" --diff -l app=x >/dev/null 2>"$tmp/err"
[ $? = 2 ] && ok || bad "--diff -l was not refused"
"$BIN" --fix --staged >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "index" "$tmp/err"; then ok; else
	bad "--fix --staged: exit $rc"; cat "$tmp/err"
fi

echo "fix: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
