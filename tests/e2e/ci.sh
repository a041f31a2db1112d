#!/bin/sh
# Adopting the tool in CI (issue 24): a baseline (--write-baseline, then
# --baseline: moved lines still match, a new finding is reported, a bad
# baseline is one clear error), -q, the by-rule table, the CI formats
# (-o junit against the Jenkins xUnit plugin's and Ant's strict JUnit
# schemas, only what fails --fail-on a <failure>, file= under GitLab CI;
# -o gitlab against a schema written from GitLab's documentation with
# unique fingerprints and the fix in the description; -o markdown escaped,
# capped under GitHub's comment limit, most severe first, linked, rendered
# by markdown-it; -o github from the repository root
# with at most 10 annotations per level), files that are not ours
# skipped (and ours that do not parse still errors), and SARIF details
# (a suppression's reason, distinct fingerprints on one line,
# automationDetails, fullName) through the official schema.
set -u
SUITE=ci
BIN=${BIN:?}
root=$(pwd)
sarif_schema=$root/testdata/reference/sarif/sarif-schema-2.1.0.json
junit_xsd=$root/testdata/reference/junit/junit-10.xsd
ant_xsd=$root/testdata/reference/junit/JUnit-ant.xsd
gitlab_schema=$root/testdata/ci/gitlab-codequality.schema.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/lib.sh"

# A job whose OMP_NUM_THREADS is over its budget; $1 the name, $2 the
# container's name.
job() {
	cat <<YAML
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: "$2"
        image: pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime
        command: [torchrun, --nproc_per_node=4, train.py]
        env:
        - name: OMP_NUM_THREADS
          value: "8"
        resources:
          requests: {cpu: "4"}
          limits: {cpu: "4"}
YAML
}

# ---- a scratch repository --------------------------------------------
repo=$tmp/repo
mkdir -p "$repo/deploy" && cd "$repo" || exit 1
git init -q . && git config user.email ci@example.com &&
	git config user.name ci
job train trainer > deploy/train.yaml
job eval evaluator > deploy/eval.yaml
cp "$root/testdata/example/polyaxonfile.yaml" .
git add -A && git commit -qm base

# ---- baseline round trip ---------------------------------------------
expect write-baseline 0 "$BIN" --no-config --write-baseline base.json .
has write-baseline-said "wrote 7 findings to the baseline base.json"
has write-baseline-report "polyaxonfile.yaml:23:14: error:"
check baseline-json python3 - base.json <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert b["version"] == 1 and b["tool"] == "kubectl-cpulint", b
fs = b["findings"]
assert len(fs) == 7, len(fs)
assert len({f["fingerprint"] for f in fs}) == 7
assert {f["file"] for f in fs} == {"deploy/train.yaml", "deploy/eval.yaml",
                                    "polyaxonfile.yaml"}, fs
PY
expect baseline-clean 0 "$BIN" --no-config --baseline base.json .
has baseline-clean-summary "no findings, 7 in the baseline"
expect baseline-json-summary 0 "$BIN" --no-config -o json --baseline base.json .
check baseline-json-count python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["findings"] == [] and d["summary"]["baselined"] == 7, d["summary"]' "$out"
# Moved lines: a comment above, every finding two lines lower.
{ printf '# moved\n# down\n'; cat deploy/train.yaml; } > t && mv t deploy/train.yaml
{ printf '# one more line\n'; cat polyaxonfile.yaml; } > t && mv t polyaxonfile.yaml
expect baseline-moved 0 "$BIN" --no-config --baseline base.json .
has baseline-moved-summary "no findings, 7 in the baseline"
# From another directory, the same repository: paths from the root.
expect baseline-subdir 0 sh -c "cd deploy && \"\$0\" --no-config --baseline ../base.json ." "$BIN"
has baseline-subdir-summary "no findings, 2 in the baseline"
# A new finding is reported; the old ones stay quiet.
job extra extra > deploy/extra.yaml
expect baseline-new 1 "$BIN" --no-config --baseline base.json .
has baseline-new-finding "deploy/extra.yaml:15:18: error: OMP_NUM_THREADS=8"
has baseline-new-summary "1 finding (1 error, 0 warnings, 0 notes), 7 in the baseline"
lacks baseline-new-old "deploy/train.yaml"
# An edit to a finding's own line is a new finding; the next line's
# edit is not (GitHub's line hash reads 100 characters on, ours not).
sed 's/value: "8"/value: "6"/' deploy/eval.yaml > t && mv t deploy/eval.yaml
rm deploy/extra.yaml
expect baseline-edited 1 "$BIN" --no-config --baseline base.json .
has baseline-edited-finding "deploy/eval.yaml:15:18: error: OMP_NUM_THREADS=6"
has baseline-edited-summary "1 finding (1 error, 0 warnings, 0 notes), 6 in the baseline"
# A SARIF log of the tool is a baseline too.
git checkout -q deploy/eval.yaml
"$BIN" --no-config -o sarif --output-file "$tmp/base.sarif" . >/dev/null
expect baseline-sarif 0 "$BIN" --no-config --baseline "$tmp/base.sarif" .
has baseline-sarif-summary "no findings, 7 in the baseline"
# With --diff-base: both filters; the changed line's finding is new.
git add -A && git commit -qm moved
sed 's/value: "8"/value: "6"/' deploy/train.yaml > t && mv t deploy/train.yaml
expect baseline-diff-base 1 "$BIN" --no-config --diff-base HEAD --baseline base.json
has baseline-diff-base-new "deploy/train.yaml:17:18: error: OMP_NUM_THREADS=6"
lacks baseline-diff-base-old "deploy/eval.yaml"
git checkout -q deploy/train.yaml
# A suppressed finding is not written: it is already quiet.
sed 's/value: "8"/value: "8"  # cpulint: disable=CPU202 by policy/' \
	deploy/eval.yaml > t && mv t deploy/eval.yaml
expect baseline-suppressed 0 "$BIN" --no-config --write-baseline "$tmp/b2.json" .
has baseline-suppressed-said "wrote 6 findings to the baseline"
git checkout -q deploy/eval.yaml

# ---- a bad baseline: one clear error, nothing linted -----------------
printf '{"version": 1,\n "findings": [,]}\n' > "$tmp/bad.json"
expect bad-baseline-json 2 "$BIN" --no-config --baseline "$tmp/bad.json" .
has bad-baseline-json-msg "kubectl-cpulint: --baseline $tmp/bad.json:2:15: not JSON:"
check bad-baseline-one-line [ "$(printf '%s\n' "$all" | grep -c .)" = 1 ]
check bad-baseline-no-report [ -z "$out" ]
echo '[1, 2]' > "$tmp/bad2.json"
expect bad-baseline-shape 2 "$BIN" --no-config --baseline "$tmp/bad2.json" .
has bad-baseline-shape-msg "not a kubectl-cpulint baseline"
echo '{"version": 1, "findings": [{"rule": "CPU202"}]}' > "$tmp/bad3.json"
expect bad-baseline-entry 2 "$BIN" --no-config --baseline "$tmp/bad3.json" .
has bad-baseline-entry-msg 'findings[0] has no "fingerprint" string'
expect bad-baseline-missing 2 "$BIN" --no-config --baseline "$tmp/none.json" .
has bad-baseline-missing-msg "--baseline $tmp/none.json:"
# Usage: a baseline of changed lines only makes no sense.
expect write-baseline-diff-base 2 "$BIN" --no-config --diff-base HEAD --write-baseline x.json
has write-baseline-diff-base-msg "does not go with --diff-base"
# The baseline never replaces an input.
cp deploy/train.yaml "$tmp/in.yaml"
expect write-baseline-input 2 "$BIN" --no-config --write-baseline "$tmp/in.yaml" "$tmp/in.yaml"
has write-baseline-input-msg "kubectl-cpulint: --write-baseline $tmp/in.yaml is $tmp/in.yaml, an input of this run: the baseline would replace it"
check write-baseline-input-kept cmp -s deploy/train.yaml "$tmp/in.yaml"
# Written whole or not at all: an unwritable place keeps the old file.
echo keep > "$tmp/keep.json"
chmod a-w "$tmp"
if [ "$(id -u)" != 0 ]; then
	expect write-baseline-atomic 2 "$BIN" --no-config --write-baseline "$tmp/keep.json" .
	check write-baseline-atomic-kept [ "$(cat "$tmp/keep.json")" = keep ]
fi
chmod u+w "$tmp"

# ---- -q and the by-rule table ----------------------------------------
expect quiet 1 "$BIN" --no-config -q .
lacks quiet-fix "    fix:"
lacks quiet-note "    note:"
lacks quiet-summary "findings ("
check quiet-lines [ "$(printf '%s\n' "$out" | grep -c ': error: \|: warning: \|: note: ')" = "$(printf '%s\n' "$out" | grep -c .)" ]
for i in 1 2 3 4 5 6; do job "more$i" "c$i" > "deploy/more$i.yaml"; done
expect byrule 1 "$BIN" --no-config .
has byrule-head "by rule:"
has byrule-202 "      10  CPU202 thread-env-over-budget"
has byrule-401 "       1  CPU401 cpu-oversubscribed"
expect byrule-few 1 "$BIN" --no-config deploy/train.yaml
lacks byrule-few-head "by rule:"

# ---- -o junit against the JUnit schema -------------------------------
mkdir -p "$tmp/h" && cd "$tmp/h" || exit 1
job 'x<y>&"z' 'a|b <script>@team ##[' > hostile.yaml
sed 's/value: "8"/value: "8"  # cpulint: disable=CPU202 "by" <policy>/' \
	hostile.yaml > quiet.yaml
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: x\n' > broken.yaml
expect junit 2 "$BIN" --no-config -o junit --output-file "$tmp/r.xml" .
check junit-xsd sh -c 'xmllint --noout --schema "$0" "$1" 2>/dev/null' "$junit_xsd" "$tmp/r.xml"
check junit-counts python3 - "$tmp/r.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]).getroot()
assert t.tag == "testsuites", t.tag
s = {x.get("name"): x for x in t.findall("testsuite")}
s202 = s["CPU202 thread-env-over-budget"]
assert s202.get("failures") == "1" and s202.get("skipped") == "1", s202.attrib
f = s202.find("testcase/failure")
assert f.get("type") == "error" and f.get("message").startswith("OMP_NUM")
sk = s202.find("testcase/skipped")
assert sk.get("message") == 'suppressed: "by" <policy>', sk.attrib
assert s["kubectl-cpulint"].get("errors") == "1"
assert s["CPU101 cpu-request-missing"].find("testcase").get("name") == "no findings"
PY
grep -q '##\[' "$tmp/r.xml" && bad "junit: ##[ in the output" || ok
check junit-ant-xsd sh -c 'xmllint --noout --schema "$0" "$1" 2>/dev/null' "$ant_xsd" "$tmp/r.xml"
# Only what fails the gate is a <failure> (issue 38): the example's 4
# errors, 4 warnings and 1 note.  Below --fail-on a finding is a passing
# testcase, listed in its suite's system-out.
for fo in error:4 warning:8 note:9 none:0; do
	expect "junit-fail-on-${fo%:*}" "$([ "${fo#*:}" = 0 ] && echo 0 || echo 1)" \
		"$BIN" --no-config --fail-on "${fo%:*}" -o junit --output-file "$tmp/g.xml" "$root/testdata/example"
	check "junit-fail-on-${fo%:*}-count" python3 - "$tmp/g.xml" "${fo#*:}" <<'PY'
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]).getroot()
n = len(t.findall("testsuite/testcase/failure"))
assert n == int(sys.argv[2]), n
assert sum(int(s.get("failures")) for s in t.findall("testsuite")) == n
out = "".join(s.findtext("system-out") or "" for s in t.findall("testsuite"))
assert out.count("polyaxonfile.yaml") + out.count("eval-job.yaml") >= 9 - n, out
PY
	check "junit-fail-on-${fo%:*}-schemas" sh -c 'xmllint --noout --schema "$0" "$2" 2>/dev/null && xmllint --noout --schema "$1" "$2" 2>/dev/null' "$junit_xsd" "$ant_xsd" "$tmp/g.xml"
done
# Under GitLab CI each testcase names its file (GitLab links it), from
# the repository root; the strict schemas have no such attribute, so
# elsewhere it is left out.
expect junit-gitlab 2 env GITLAB_CI=true "$BIN" --no-config -o junit .
has junit-gitlab-file 'file="hostile.yaml"'
expect junit-no-gitlab 2 env -u GITLAB_CI "$BIN" --no-config -o junit .
lacks junit-no-gitlab-file 'file="'

# ---- -o gitlab: schema, unique fingerprints, paths from the root ------
cd "$repo/deploy" || exit 1
expect gitlab 1 "$BIN" --no-config -o gitlab --output-file "$tmp/cq.json" .
check gitlab-schema python3 - "$gitlab_schema" "$tmp/cq.json" <<'PY'
import json, sys, jsonschema
schema, report = (json.load(open(p)) for p in sys.argv[1:3])
jsonschema.validate(report, schema)
prints = [i["fingerprint"] for i in report]
assert len(prints) == len(set(prints)) == 8, prints
paths = {i["location"]["path"] for i in report}
assert "deploy/train.yaml" in paths, paths
assert {i["severity"] for i in report} == {"major"}, report
# the description carries the fix (GitLab shows nothing else)
assert all("; fix: set OMP_NUM_THREADS to" in i["description"] for i in report), report[0]
PY
cd "$repo" || exit 1

# ---- -o markdown: a table per rule, escaped ---------------------------
expect markdown 1 "$BIN" --no-config -o markdown "$tmp/h/hostile.yaml"
has markdown-head "### kubectl-cpulint: 1 finding (1 error, 0 warnings, 0 notes)"
has markdown-link "#### [CPU202 thread-env-over-budget](https://github.com/kubectl-cpulint/kubectl-cpulint/blob/main/rules/CPU202.md): 1"
has markdown-escaped 'container "a\|b &lt;script&gt;<!-- -->&#64;<!-- -->team \#\#\["'
lacks markdown-raw '<script>'
lacks markdown-mention '@team'
check markdown-columns python3 - "$out" <<'PY'
import sys
rows = [l for l in sys.argv[1].splitlines() if l.startswith("| ")]
for r in rows:   # every row has its 4 cells: no value adds a column
    cells = r.replace("\\|", "").count("|")
    assert cells == 5, r
PY
expect markdown-quiet 1 "$BIN" --no-config -q -o markdown "$tmp/h/hostile.yaml"
has markdown-quiet-head "| severity | where | message |"
lacks markdown-quiet-fix "| fix |"

# ---- -o markdown: capped for a comment, most severe first, linked -----
# The project's own testdata was 196,553 characters (issue 38): GitHub
# takes 65,536 in a comment.  Errors come first, lower levels fold in
# <details>, the rest is counted; rendered by markdown-it (CommonMark with
# tables, as GitHub's renderer) every table stays a table.
expect markdown-cap 2 "$BIN" --no-config -o markdown --output-file "$tmp/big.md" "$root/testdata"
check markdown-cap-size python3 - "$tmp/big.md" <<'PY'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
assert len(t) <= 65536 and len(t.encode()) <= 60000, len(t)
assert "more findings not shown** (" in t, t[-400:]
# most severe first: no error row after a warning's or a note's
sev = [l.split(" | ")[0][2:] for l in t.splitlines() if l.startswith("| e") or l.startswith("| w") or l.startswith("| n")]
rank = {"error": 0, "warning": 1, "note": 2}
assert sev and sev == sorted(sev, key=rank.get), sev[:5]
assert sev[0] == "error"
PY
mdpy=
for py in python3 /usr/bin/python3; do
	"$py" -c 'import markdown_it' 2>/dev/null && { mdpy=$py; break; }
done
if [ -n "$mdpy" ]; then
"$BIN" --no-config -o markdown --output-file "$tmp/ex.md" "$root/testdata/example"
check markdown-render "$mdpy" - "$tmp/big.md" "$tmp/ex.md" <<'PY'
import re, sys
from markdown_it import MarkdownIt
for f in sys.argv[1:]:
    t = open(f, encoding="utf-8").read()
    html = MarkdownIt("commonmark").enable("table").render(t)
    rows = sum(1 for l in t.splitlines() if l.startswith("| ") and not l.startswith("| severity"))
    assert html.count("<tr>") == rows, (f, html.count("<tr>"), rows)
    # the only links are the rules' documentation
    for href in re.findall(r'href="([^"]*)"', html):
        assert href.startswith("https://github.com/kubectl-cpulint/kubectl-cpulint/blob/main/rules/"), href
# the example: errors open, then 4 warnings and 1 note folded, each
# holding its tables
ex = MarkdownIt("commonmark").enable("table").render(t)
assert ex.index("CPU202") < ex.index("<details><summary>4 warnings</summary>") < ex.index("CPU101") < ex.index("<details><summary>1 note</summary>") < ex.index("CPU103"), ex
assert ex.count("<details>") == 2 and ex.count("</details>") == 2
assert ex.count("<table>") == 8, ex.count("<table>")
PY
else echo "ci: markdown-it not installed (apt-get install python3-markdown-it): rendering not checked"; fi
sha=0123456789abcdef0123456789abcdef01234567
expect markdown-links 1 env GITHUB_SERVER_URL=https://github.com GITHUB_REPOSITORY=o/r GITHUB_SHA=$sha GITHUB_WORKSPACE="$repo" sh -c "cd deploy && \"\$0\" --no-config -o markdown ." "$BIN"
has markdown-link-place "| error | [train.yaml:17:18](https://github.com/o/r/blob/$sha/deploy/train.yaml#L17) | OMP"
has markdown-notes "<br>note: [train.yaml:"
expect markdown-links-hostile 1 env GITHUB_SERVER_URL='https://github.com/x)"' GITHUB_REPOSITORY='o/r' GITHUB_SHA=$sha "$BIN" --no-config -o markdown deploy
lacks markdown-links-hostile-none "/blob/$sha/"
expect markdown-links-badrepo 1 env GITHUB_SERVER_URL=https://github.com GITHUB_REPOSITORY='o/r)<x' GITHUB_SHA=$sha "$BIN" --no-config -o markdown deploy
lacks markdown-links-badrepo-none "/blob/$sha/"

# ---- -o github: from the repository root, the limit, the summary ------
expect github-subdir 1 sh -c "cd deploy && \"\$0\" --no-config -o github ." "$BIN"
has github-root-path "::error file=deploy/more1.yaml,line=15,col=18,"
has github-summary "kubectl-cpulint: 8 findings (8 errors, 0 warnings, 0 notes)"
expect github-workspace 1 env GITHUB_WORKSPACE="$tmp" sh -c "cd deploy && \"\$0\" --no-config -o github ." "$BIN"
has github-workspace-path "::error file=repo/deploy/more1.yaml,"
for i in 7 8 9 10 11 12; do job "more$i" "c$i" > "deploy/more$i.yaml"; done
expect github-limit 1 "$BIN" --no-config -o github .
check github-limit-10 [ "$(printf '%s\n' "$out" | grep -c '^::error ')" = 10 ]
has github-limit-plain "deploy/more9.yaml:15:18: error: OMP_NUM_THREADS=8"
has github-limit-summary "; 7 not annotated (GitHub shows 10 annotations of each level per step): listed above"
rm -f deploy/more*.yaml

# ---- files that are not ours -----------------------------------------
mkdir -p "$tmp/n" && cd "$tmp/n" || exit 1
printf '{\n  // comments are not JSON\n  "compilerOptions": {"strict": true},\n}\n' > tsconfig.json
printf 'services:\n  web:\n    image: nginx\n    ports: [80\n' > docker-compose.yaml
printf 'on: push\njobs:\n  t:\n    steps:\n    - run: echo "${{ x }"\n      with: {a: [\n' > workflow.yml
job ok ok > ok.yaml
expect not-ours 1 "$BIN" --no-config -v .
has not-ours-ts "kubectl-cpulint: tsconfig.json: skipped: does not parse (3:20:"
has not-ours-compose "kubectl-cpulint: docker-compose.yaml: skipped: does not parse"
has not-ours-why "names no kind with apiVersion or version"
has not-ours-linted "ok.yaml:15:18: error:"
has not-ours-workflow "kubectl-cpulint: workflow.yml: skipped: does not parse"
lacks not-ours-error ": error: did not find"
expect not-ours-quiet 1 "$BIN" --no-config .
lacks not-ours-quiet-note "skipped"
expect not-ours-named 1 "$BIN" --no-config -v --ignore-unknown tsconfig.json ok.yaml
has not-ours-named-skip "tsconfig.json: skipped: does not parse"
# Named without --ignore-unknown, it is an error, as any file named that
# is not a workload.
expect not-ours-named-strict 2 "$BIN" --no-config tsconfig.json
has not-ours-named-strict-msg "tsconfig.json:3:20: error:"
# Ours that do not parse stay errors, with file:line:col.
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: x\nspec: [\n' > pod.yaml
expect ours-broken 2 "$BIN" --no-config .
has ours-broken-pos "pod.yaml:4:5: error: did not find expected"
rm pod.yaml
printf 'version: 1.1\nkind: component\nrun: {kind: job\n' > polyaxonfile.yaml
expect ours-polyaxon 2 "$BIN" --no-config .
has ours-polyaxon-pos "polyaxonfile.yaml:4:1: error:"
rm polyaxonfile.yaml
# A stream whose one good object sits beside a broken document.
{ job multi multi; printf -- '---\nfoo: [\n'; } > multi.yaml
expect ours-multi 2 "$BIN" --no-config .
has ours-multi-pos "multi.yaml:21:1: error:"
# JSON with apiVersion and kind that does not parse.
printf '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}\n' > pod.json
expect ours-json 2 "$BIN" --no-config pod.json --ignore-unknown
has ours-json-pos "pod.json:2:1: error:"

# ---- SARIF details -----------------------------------------------------
mkdir -p "$tmp/s" && cd "$tmp/s" || exit 1
job two two | sed 's/value: "8"/value: "8"  # cpulint: disable=CPU202 by policy/' > sup.yaml
cat > one.json <<'JSON'
{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a"}, "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "a", "image": "x", "command": ["torchrun", "--nproc_per_node=4", "t.py"], "env": [{"name": "OMP_NUM_THREADS", "value": "8"}], "resources": {"limits": {"cpu": "4"}}}]}}}}, {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "b"}, "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "b", "image": "x", "command": ["torchrun", "--nproc_per_node=4", "t.py"], "env": [{"name": "OMP_NUM_THREADS", "value": "8"}], "resources": {"limits": {"cpu": "4"}}}]}}}}]}
JSON
expect sarif 1 "$BIN" --no-config -o sarif --output-file "$tmp/s.sarif" .
check sarif-schema python3 "$root/tests/validate-sarif.py" "$sarif_schema" "$tmp/s.sarif"
check sarif-details python3 - "$tmp/s.sarif" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert run["automationDetails"]["id"] == "kubectl-cpulint/", run["automationDetails"]
assert run["tool"]["driver"]["fullName"].startswith("kubectl-cpulint "), run["tool"]
res = run["results"]
sup = [r for r in res if r.get("suppressions")]
assert [s["suppressions"][0]["justification"] for s in sup] == ["by policy"], sup
one = [r for r in res if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "one.json"
       and r["ruleId"] == "CPU202"]
assert len(one) == 2, one
assert one[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == \
       one[1]["locations"][0]["physicalLocation"]["region"]["startLine"]
p = [r["partialFingerprints"]["cpulint/v1"] for r in res]
assert len(p) == len(set(p)), p
PY

# ---- SARIF in Azure Pipelines (issue 38) -------------------------------
# Advanced Security for Azure DevOps files a run under its build: with the
# agent's variables, automationDetails.id has the azuredevops/pipeline/
# build/ prefix and its properties the four keys GHAzDO1019 asks; checked
# by the rules' own logic and, when installed (npm install -g
# @microsoft/sarif-multitool), by Microsoft's SARIF validator itself.
ado="TF_BUILD=True SYSTEM_COLLECTIONURI=https://dev.azure.com/example-org/
SYSTEM_TEAMPROJECTID=6ce954b1-ce1f-45d1-b94d-e6bf2464ba2c
BUILD_DEFINITIONID=17 SYSTEM_DEFINITIONID=17 BUILD_DEFINITIONNAME=ml-jobs
SYSTEM_PHASEID=3a3a2a60-14c7-570b-14a4-fa42ad92f52a SYSTEM_PHASENAME=Job
SYSTEM_JOBID=12f1170f-54f2-53f3-20dd-22fc7dff55f9 SYSTEM_JOBNAME=__default
BUILD_SOURCEBRANCH=refs/heads/main BUILD_BUILDID=4242"
# shellcheck disable=SC2086
expect sarif-ado 1 env $ado "$BIN" --no-config -o sarif --output-file "$tmp/ado.sarif" "$root/testdata/example"
check sarif-ado-schema python3 "$root/tests/validate-sarif.py" "$sarif_schema" "$tmp/ado.sarif"
check sarif-ado-rules python3 - "$tmp/ado.sarif" <<'PY'
import json, re, sys, uuid
a = json.load(open(sys.argv[1]))["runs"][0]["automationDetails"]
assert a["id"] == "azuredevops/pipeline/build/example-org/6ce954b1-ce1f-45d1-b94d-e6bf2464ba2c/17/3a3a2a60-14c7-570b-14a4-fa42ad92f52a/refs/heads/main/4242", a["id"]
p = a["properties"]
assert int(p["azuredevops/pipeline/build/buildDefinitionId"]) > 0
assert p["azuredevops/pipeline/build/buildDefinitionName"].strip()
assert uuid.UUID(p["azuredevops/pipeline/build/phaseId"]).int != 0
assert p["azuredevops/pipeline/build/phaseName"].strip()
PY
# a partial environment (no phase) is no pipeline: the usual category
# shellcheck disable=SC2086
expect sarif-ado-partial 1 env $ado SYSTEM_PHASEID= SYSTEM_JOBID= "$BIN" --no-config -o sarif "$root/testdata/example"
has sarif-ado-partial-id '"id": "kubectl-cpulint/"'
mt=$(NODE_PATH=$(npm root -g 2>/dev/null) node -p "require('@microsoft/sarif-multitool')" 2>/dev/null)
if [ -n "$mt" ] && [ -x "$mt" ]; then
	"$mt" validate "$tmp/ado.sarif" --rule-kind "Sarif;Ado" --level "Error;Warning" \
		--output "$tmp/ado-val.sarif" --log ForceOverwrite >"$tmp/ado-val.txt" 2>&1
	if grep -q ': error \|: warning ' "$tmp/ado-val.txt"; then
		bad "sarif-ado: the SARIF validator: $(grep ': error \|: warning ' "$tmp/ado-val.txt" | head -3)"
	else ok; fi
else
	echo "ci: Microsoft's SARIF validator not installed (npm install -g @microsoft/sarif-multitool): its Ado rules not run"
fi

finish
