#!/bin/sh
# Nothing injected: values from inputs (directory and file names, object
# and container names, a live Pod's name from the API server, a server
# URL, flag values) never produce output a CI runner or a terminal obeys.
# Every output, stdout and stderr, in every format (-o text, json, sarif,
# github; -v; --budget; --diff; completion; usage errors) is checked by
# one checker: well-formed UTF-8, no control byte but '\n' (and the tab a
# diff header ends with), no C1 control, no "##[" (the runner's old
# command form, obeyed anywhere in a line), and no line that starts with
# "::" after the blanks the runner trims, except -o github's own
# annotations.  JSON parses and gives the values back; SARIF validates.
# --diff names are quoted as git quotes them: patch -p1 and git apply
# both reproduce --fix exactly and create nothing else, and a path they
# would misread is refused.
set -u
BIN=${BIN:?}
root=$(pwd)
SUITE=inject
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
. tests/live/apiserver.sh

ESC=$(printf '\033')
BEL=$(printf '\007')
CR=$(printf '\r')
TAB=$(printf '\t')
NL='
'

# The checker: check.py FORMAT FILE... (FORMAT github allows its own
# annotation lines; diff allows a tab at the end of a ---/+++ line and
# the file's own bytes in hunks, which are the YAML below: ASCII).
cat > "$tmp/check.py" <<'PY'
import re, sys
fmt, paths = sys.argv[1], sys.argv[2:]
# .NET Char.IsWhiteSpace: what the runner's TrimStart skips
WS = set("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | \
    {chr(c) for c in range(0x2000, 0x200b)}
OWN = re.compile(r"::(error|warning|notice)( |::)")
bad = 0
def fail(path, n, why, line):
    global bad
    bad += 1
    if bad <= 5:
        print("%s line %d: %s: %r" % (path, n, why, line[:120]))
for p in paths:
    raw = open(p, "rb").read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(p, 0, "not UTF-8 (%s)" % e, raw[max(0, e.start - 20):e.end + 20])
        continue
    if "##[" in text:
        fail(p, 0, "##[", text[text.index("##["):][:60])
    for n, line in enumerate(text.split("\n"), 1):
        body = line
        if fmt == "diff" and (line.startswith("--- ") or
                              line.startswith("+++ ")) and line.endswith("\t"):
            body = line[:-1]
        for ch in body:
            if ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f:
                fail(p, n, "control U+%04X" % ord(ch), line)
                break
        s = line.lstrip("".join(WS))
        if s.startswith("::") and not (fmt == "github" and
                                       p.endswith(".out") and
                                       OWN.match(line)):
            fail(p, n, "a runner command", line)
sys.exit(1 if bad else 0)
PY
# safe NAME FORMAT FILE...: the checker passes.
safe() {
	name=$1 f=$2
	shift 2
	if python3 "$tmp/check.py" "$f" "$@"; then ok; else bad "$name"; fi
}

# A Job with a fixable finding (CPU202: OMP_NUM_THREADS 8 x 2 ranks on 4
# CPUs) whose object and container names are hostile: YAML escapes, so
# the file is ASCII and the values hold ESC, BEL, CR, LF, C1 controls.
job() {
	cat <<'YAML'
apiVersion: batch/v1
kind: Job
metadata:
  name: "j\e[31mred\e]8;;http://evil.example/\alink\e]8;;\a\u009b2J\n::add-mask::obj"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: "c\n::add-mask::y\r::stop-commands::z\x85##[add-mask]w\u009d0;t\a"
        image: pytorch/pytorch
        command: [torchrun, --nproc_per_node, "2", train.py]
        env:
        - {name: OMP_NUM_THREADS, value: "8"}
        resources:
          limits: {cpu: "4"}
YAML
}

# Directory names a runner or a terminal would obey, and the names git
# quotes (tab, quote, backslash, UTF-8) or follows with a tab (space).
w=$tmp/w
mkdir -p "$w"
for d in "d${NL}::add-mask::x" "${ESC}[31mred${ESC}]8;;http://e/${BEL}l${ESC}]8;;${BEL}" \
	"c1$(printf '\302\233')2J$(printf '\302\235')0;t" "cr${CR}::stop-commands::tok" \
	"##[add-mask]sec" "t${TAB}ab" 'q"uote' 'back\slash' "sp ace" \
	"$(printf '\303\251\346\227\245')" "::add-mask::lead"; do
	mkdir -p "$w/$d"
	job > "$w/$d/job.yaml"
done
# A file that does not parse (and is one of ours: apiVersion and kind),
# named like a command: its error line on stderr starts with the name.
printf 'apiVersion: v1\nkind: Pod\na: [1\n' > "$w/::stop-commands::tok.yaml"

# 1. every format, with -v and --budget: stdout and stderr
cd "$w"
for fmt in text json sarif github junit gitlab markdown; do
	"$BIN" --no-config -v --budget -o "$fmt" . >"$tmp/$fmt.out" \
		2>"$tmp/$fmt.err"
	rc=$?
	[ $rc = 2 ] && ok || bad "-o $fmt: exit $rc, expected 2 (the bad file)"
	safe "-o $fmt" "$fmt" "$tmp/$fmt.out" "$tmp/$fmt.err"
done
grep -q 'CPU202' "$tmp/text.out" && ok || bad "no CPU202 in the text report"
# each hostile directory's finding is one line
[ "$(grep -c ': error: OMP_NUM_THREADS=8' "$tmp/text.out")" = 11 ] && ok ||
	bad "text: not one line per finding"
# the file that does not parse is named on stderr, its ':' escaped
grep -qF '\x3a:stop-commands::tok.yaml:4:1: error:' "$tmp/github.err" && ok ||
	bad "-o github: the bad file's error line"
# colour on: SGR only
"$BIN" --no-config --color always . >"$tmp/color.out" 2>/dev/null
sed "s/${ESC}\[[0-9;]*m//g" "$tmp/color.out" > "$tmp/color-plain.out"
safe "--color always" text "$tmp/color-plain.out"
grep -q "${ESC}\[1m" "$tmp/color.out" && ok || bad "--color always: no colour"
# JSON gives the values back exactly
python3 - "$tmp/json.out" <<'PY' && ok || bad "json: values not given back"
import json, sys
d = json.load(open(sys.argv[1]))
files = {f["file"] for f in d["findings"]}
assert "d\n::add-mask::x/job.yaml" in files, files
assert "cr\r::stop-commands::tok/job.yaml" in files, files
c = d["findings"][0]["container"]
assert c == "c\n::add-mask::y\r::stop-commands::z\x85##[add-mask]w\x9d0;t\x07", repr(c)
PY
"$BIN" --no-config -o sarif --output-file "$tmp/out.sarif" . \
	>"$tmp/sarif-file.out" 2>"$tmp/sarif-file.err"
safe "sarif file" sarif "$tmp/out.sarif" "$tmp/sarif-file.out" \
	"$tmp/sarif-file.err"
python3 "$root/tests/validate-sarif.py" \
	"$root/testdata/reference/sarif/sarif-schema-2.1.0.json" \
	"$tmp/out.sarif" >/dev/null && ok || bad "SARIF does not validate"
python3 "$root/tests/validate-sarif.py" \
	"$root/testdata/reference/sarif/sarif-schema-2.1.0.json" \
	"$tmp/sarif.out" >/dev/null && ok || bad "SARIF (stdout) does not validate"
# -o github: what the runner reads (TryParseV2, then its unescaping) is
# our three commands only, and the file property names the file
python3 - "$tmp/github.out" <<'PY' && ok || bad "github: runner view"
import sys
cmds, files = set(), set()
for line in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    s = line.lstrip()
    if not s.startswith("::"):
        continue
    info = s[2:s.index("::", 2)]
    name, _, props = info.partition(" ")
    cmds.add(name)
    for kv in props.split(","):
        k, _, v = kv.partition("=")
        if k == "file":
            for a, b in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"),
                         ("%2C", ","), ("%25", "%")):
                v = v.replace(a, b)
            files.add(v)
assert cmds <= {"error", "warning", "notice"}, cmds
assert "d\n::add-mask::x/job.yaml" in files, files
PY

# 2. --diff: quoted names; patch -p1 and git apply reproduce --fix and
# create nothing else
"$BIN" --no-config --diff . >"$tmp/diff.out" 2>"$tmp/diff.err"
rc=$?
[ $rc = 2 ] && ok || bad "--diff: exit $rc, expected 2 (the bad file)"
safe "--diff" diff "$tmp/diff.out" "$tmp/diff.err"
grep -qxF -- '--- "a/d\n::add-mask::x/job.yaml"' "$tmp/diff.out" && ok ||
	bad "--diff: the newline directory is not quoted as git quotes it"
grep -qxF -- "--- a/sp ace/job.yaml$TAB" "$tmp/diff.out" && ok ||
	bad "--diff: no tab after a name with a space"
grep -qxF -- '+++ "b/\303\251\346\227\245/job.yaml"' "$tmp/diff.out" && ok ||
	bad "--diff: UTF-8 not quoted in octal"
rm -f "$w/::stop-commands::tok.yaml"
cp -R "$w" "$tmp/fixed" && cp -R "$w" "$tmp/patched" && cp -R "$w" "$tmp/applied"
(cd "$tmp/fixed" && "$BIN" --no-config --fix . >/dev/null 2>&1)
(cd "$tmp/patched" && patch -p1 --batch --no-backup-if-mismatch --quiet \
	<"$tmp/diff.out") && ok || bad "patch -p1 refused the diff"
diff -r "$tmp/fixed" "$tmp/patched" >/dev/null && ok ||
	bad "patch -p1: the tree differs from --fix's"
(cd "$tmp/applied" && git init -q && git apply <"$tmp/diff.out" &&
	rm -rf .git) && ok || bad "git apply refused the diff"
diff -r "$tmp/fixed" "$tmp/applied" >/dev/null && ok ||
	bad "git apply: the tree differs from --fix's"
cmp -s "$w/sp ace/job.yaml" "$tmp/fixed/sp ace/job.yaml" && bad "--fix fixed nothing" || ok
# a diff whose names once went raw: the old header let a directory
# name carry a whole second diff that creates a file
evil="x${NL}+++ b/pwned${NL}@@ -0,0 +1 @@${NL}+owned"
mkdir -p "$tmp/e/$evil" && job > "$tmp/e/$evil/job.yaml"
(cd "$tmp/e" && "$BIN" --no-config --diff . >"$tmp/e.diff" 2>/dev/null)
cp -R "$tmp/e" "$tmp/e2"
(cd "$tmp/e2" && patch -p1 --batch --no-backup-if-mismatch --quiet \
	<"$tmp/e.diff" >/dev/null 2>&1)
[ ! -e "$tmp/e2/pwned" ] && ok || bad "--diff | patch -p1 created a file"
grep -q 'OMP_NUM_THREADS, value: "1"' "$tmp/e2/$evil/job.yaml" && ok ||
	bad "--diff | patch -p1 missed the file"
# refused: a path through .. and an absolute path, said on stderr; the
# other file's diff is printed; exit 2
cd "$w/sp ace"
"$BIN" --no-config --diff '../q"uote/job.yaml' "$w/t${TAB}ab/job.yaml" \
	job.yaml >"$tmp/ref.out" 2>"$tmp/ref.err"
rc=$?
[ $rc = 2 ] && ok || bad "--diff refusal: exit $rc, expected 2"
safe "--diff refusal" diff "$tmp/ref.out" "$tmp/ref.err"
grep -q '^--- a/job.yaml$' "$tmp/ref.out" && ok || bad "--diff refusal: the good file is missing"
[ "$(grep -c '^--- ' "$tmp/ref.out")" = 1 ] && ok || bad "--diff refusal: a refused file was printed"
grep -qF '../q"uote/job.yaml: error: not in the diff: patch(1) and git apply refuse a path through ".."' "$tmp/ref.err" && ok ||
	bad "--diff refusal: the .. path is not named"
grep -qF "/t\\tab/job.yaml: error: not in the diff: patch -p1 would apply an absolute path" "$tmp/ref.err" && ok ||
	bad "--diff refusal: the absolute path is not named"
cd "$root"

# 3. flag values, --explain, completion
"$BIN" "--o${ESC}]8;;x${BEL}" >"$tmp/flag.out" 2>"$tmp/flag.err"
"$BIN" -o "::add-mask::fmt${NL}::x" . >>"$tmp/flag.out" 2>>"$tmp/flag.err"
"$BIN" --explain "${ESC}[2J::x" >>"$tmp/flag.out" 2>>"$tmp/flag.err"
"$BIN" --fail-on "${CR}::add-mask::f" . >>"$tmp/flag.out" 2>>"$tmp/flag.err"
safe "usage errors" text "$tmp/flag.out" "$tmp/flag.err"
grep -qF "unrecognized or ambiguous option '--o\\x1b]8;;x\\x07'" "$tmp/flag.err" && ok ||
	bad "getopt's message is not ours"
(cd "$w" && "$BIN" __complete "") >"$tmp/complete.out" 2>&1
python3 - "$tmp/complete.out" <<'PY' && ok || bad "completion offered a name it cannot show"
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
assert all(0x20 <= ord(c) and not 0x7f <= ord(c) <= 0x9f
           for c in t.replace("\n", "").replace("\t", "")), repr(t)
assert "sp ace/" in t and "::add-mask::lead/" in t, t
PY

# 4. live: a Pod whose name and container come from the API server, and a
# server URL that names itself in an error
mkdir -p "$tmp/fx"
python3 - "$tmp/fx/ml-pod-evil.json" <<'PY'
import json, sys
name = "evil\n::add-mask::live\x1b[31m\x1b]8;;http://e/\x07l\x1b]8;;\x07\u009b2J"
pod = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": name, "namespace": "ml",
                    "labels": {"app": "evil"},
                    "uid": "00000000-0000-4000-8000-00000000e111"},
       "spec": {"restartPolicy": "Never", "containers": [{
           "name": "c\r::stop-commands::t\u0085##[add-mask]w",
           "image": "pytorch/pytorch",
           "command": ["torchrun", "--nproc_per_node", "2", "train.py"],
           "env": [{"name": "OMP_NUM_THREADS", "value": "8"}],
           "resources": {"limits": {"cpu": "4"}}}]},
       "status": {"phase": "Running"}}
json.dump(pod, open(sys.argv[1], "w"))
PY
if apiserver_start --fixtures default --fixtures "$tmp/fx" --timeout 120; then
	trap 'apiserver_stop; rm -rf "$tmp"' EXIT
	D=$APISERVER_DIR
	for fmt in text json sarif github junit gitlab markdown; do
		"$BIN" --kubeconfig "$D/kubeconfig" -n ml -l app=evil -v \
			--budget -o "$fmt" >"$tmp/live-$fmt.out" \
			2>"$tmp/live-$fmt.err"
		rc=$?
		[ $rc = 1 ] && ok || bad "live -o $fmt: exit $rc, expected 1"
		safe "live -o $fmt" "$fmt" "$tmp/live-$fmt.out" "$tmp/live-$fmt.err"
	done
	grep -qF 'pod/ml/evil\n::add-mask::live\x1b[31m' "$tmp/live-text.out" && ok ||
		bad "live: the Pod's name is not shown escaped"
	python3 - "$tmp/live-json.out" <<'PY' && ok || bad "live json: values not given back"
import json, sys
d = json.load(open(sys.argv[1]))
objs = {f["object"] for f in d["findings"]}
assert any(o.startswith("pod/ml/evil\n::add-mask::live\x1b[31m") for o in objs), objs
PY
	# a server whose URL holds a newline and a command: named in the
	# error, escaped
	sed "s|server: https://127.0.0.1:$APISERVER_PORT|server: \"https://127.0.0.1:1/x\\\\n::add-mask::srv\\\\e[31m\"|" \
		"$D/kubeconfig" > "$tmp/kc-evil"
	"$BIN" --kubeconfig "$tmp/kc-evil" --request-timeout 2s -v -o github \
		pod/x >"$tmp/srv.out" 2>"$tmp/srv.err"
	rc=$?
	[ $rc = 2 ] && ok || bad "bad server: exit $rc, expected 2"
	safe "bad server" github "$tmp/srv.out" "$tmp/srv.err"
	apiserver_stop
else
	bad "the fake API server did not start"
fi

# Issue 40 point 6: a file name holding U+202E (right-to-left override)
# and other invisible format characters cannot disguise a finding's place
# in text (nor in the other formats people read); U+FFFE and U+FFFF never
# reach the JUnit XML, which xmllint then reads; Markdown names no
# address GitHub would autolink (cmark-gfm, GitHub's own renderer, with
# its autolink extension).
u=$tmp/u
mkdir -p "$u"
RLO=$(printf '\342\200\256')
cat > "$u/j${RLO}lmy.yaml" <<'YAML'
apiVersion: batch/v1
kind: Job
metadata:
  name: u
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: "c\uFFFF\uFFFEx\u2066y\u200Bz www.evil.example ops@corp.example https://evil.example/x"
        image: pytorch/pytorch
        command: [torchrun, --nproc_per_node, "2", train.py]
        env:
        - {name: OMP_NUM_THREADS, value: "8"}
        resources:
          limits: {cpu: "4"}
YAML
for fmt in text github junit markdown; do
	(cd "$u" && "$BIN" --no-config -o "$fmt" . >"$tmp/u-$fmt.out" 2>"$tmp/u-$fmt.err")
	if python3 - "$tmp/u-$fmt.out" "$tmp/u-$fmt.err" <<'PY'; then ok; else bad "-o $fmt: an invisible character or noncharacter raw"; fi
import sys
for p in sys.argv[1:]:
    t = open(p, encoding="utf-8").read()
    for ch in t:
        c = ord(ch)
        assert not (0x202a <= c <= 0x202e or 0x2066 <= c <= 0x2069 or
                    0x200b <= c <= 0x200f or c in (0xfffe, 0xffff)), (p, hex(c))
PY
done
grep -q 'j\\u202elmy.yaml' "$tmp/u-text.out" && ok || bad "text: U+202E not shown as \\u202e: $(head -2 "$tmp/u-text.out")"
xmllint --noout "$tmp/u-junit.out" 2>"$tmp/u-xml.err" && ok || bad "junit: xmllint: $(head -3 "$tmp/u-xml.err")"
if command -v cmark-gfm >/dev/null 2>&1; then
	cmark-gfm -e autolink -e table --unsafe "$tmp/u-markdown.out" > "$tmp/u.html"
	if grep -o 'href="[^"]*"' "$tmp/u.html" | grep -v '/rules/CPU[0-9]*\.md"' >"$tmp/u-links"; then
		bad "markdown: GitHub would autolink: $(head -3 "$tmp/u-links")"
	else ok; fi
	grep -q 'www' "$tmp/u.html" && grep -q 'corp.example' "$tmp/u.html" && ok ||
		bad "markdown: the names are not shown"
else
	bad "no cmark-gfm (apt-get install cmark-gfm): GitHub's autolinks not checked"
fi

finish
