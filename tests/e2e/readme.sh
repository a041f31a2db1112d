#!/bin/sh
# The README tells the truth: its rule table is the registry's, every flag
# in --help has a row in a flag table, every table renders (a header and a
# separator line), the pre-commit rev and the workflow pin the release
# tag of VERSION, the workflow runs on push and pull requests with
# --diff-base on pull requests only and its commands work, and the
# bundled example it names produces findings with fixes and exit 1.
BIN=${BIN:?}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL readme: $*"; fail=$((fail + 1)); }

table=$(BIN=$BIN sh tools/rule-table.sh)
if printf '%s\n' "$table" | while IFS= read -r line; do
	grep -qxF -- "$line" README.md || { echo "missing: $line"; exit 1; }
done; then ok; else bad "rule table differs from tools/rule-table.sh"; fi

for flag in $("$BIN" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	if grep -E '^\| `' README.md | grep -qE -- "\`$flag( |\`)"; then ok
	else bad "flag $flag has no row in the README's flag tables"; fi
done

# Every table: a header row, then a separator row (else it is a paragraph).
if python3 - README.md <<'PY'; then ok; else bad "a table does not render"; fi
import re, sys
lines = open(sys.argv[1]).read().split("\n")
fence = False
bad = 0
for i, l in enumerate(lines):
    if l.startswith("```"):
        fence = not fence
    if fence or not l.startswith("|"):
        continue
    if i > 0 and lines[i - 1].startswith("|"):
        continue
    if i + 1 >= len(lines) or not re.match(r"^\|( *:?-+:? *\|)+$", lines[i + 1]):
        print("README.md:%d: table without a separator line" % (i + 1))
        bad = 1
sys.exit(bad)
PY

# The pinned versions are the release tag of VERSION; the workflow is sound.
tmpd=$(mktemp -d)
if python3 - README.md "v$(cat VERSION)" "$BIN" "$tmpd" <<'PY'; then ok; else bad "README workflow or pins"; fi
import re, subprocess, sys, yaml
text, tag, binary, tmp = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], sys.argv[4]
blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
pc = [yaml.safe_load(b) for b in blocks if "pre-commit-config" in b][0]
assert pc["repos"][0]["rev"] == tag, pc["repos"][0]["rev"]
hooks = {h["id"] for h in yaml.safe_load(open(".pre-commit-hooks.yaml"))}
assert {h["id"] for h in pc["repos"][0]["hooks"]} <= hooks
wf = [yaml.safe_load(b) for b in blocks if "workflows" in b][0]
on = wf.get("on", wf.get(True))
assert "push" in on and "pull_request" in on, on
job = wf["jobs"]["cpulint"]
assert job["env"]["CPULINT_VERSION"] == tag, job["env"]
runs = [s for s in job["steps"] if "kubectl-cpulint " in s.get("run", "")
        and "make" not in s["run"]]
assert len(runs) == 2, runs
for s in runs:
    pr = s["if"] == "github.event_name == 'pull_request'"
    assert pr == ("--diff-base" in s["run"]), s
    assert "--output-file cpulint.sarif" in s["run"] and "-o sarif" in s["run"]
    if not pr:
        cmd = s["run"].replace("kubectl-cpulint", binary, 1).replace(
            "cpulint.sarif", tmp + "/cpulint.sarif").replace(" .", " testdata/example")
        rc = subprocess.call(cmd + " --no-config", shell=True)
        assert rc == 1, rc
        assert '"version": "2.1.0"' in open(tmp + "/cpulint.sarif").read()
PY
rm -rf "$tmpd"

out=$("$BIN" --color never testdata/example 2>&1)
rc=$?
[ $rc -eq 1 ] && ok || bad "example exits $rc, expected 1"
printf '%s\n' "$out" | grep -q 'fix: ' && ok || bad "example shows no fix"
echo "readme: $pass passed, $fail failed"
[ $fail -eq 0 ]
