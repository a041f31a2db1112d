#!/bin/sh
# The README tells the truth: its rule table is the registry's, every flag
# in --help has a row in a flag table, every table renders (a header and a
# separator line), the pre-commit rev and the workflow pin the release
# tag of VERSION, the workflow runs the action (action.yml) at that tag
# with inputs it has, on push and pull requests, and the
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

# Every link in the README and docs/ resolves (issue 38): relative links
# name a file that exists and, with #SECTION, a heading there (GitHub's
# anchors); links to this repository's files on GitHub name files of the
# tree; a README section named in prose exists.
if python3 - "$(pwd)" <<'PY'; then ok; else bad "a link in README.md or docs/ does not resolve"; fi
import os, re, sys
root = sys.argv[1]
files = [os.path.join(root, "README.md")] + sorted(
    os.path.join(root, "docs", f) for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
def slugs(path):
    out = set(); seen = {}
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M):
        h = m.group(1)
        h = re.sub(r"`([^`]*)`", r"\1", h)
        h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
        s = h.strip().lower()
        s = re.sub(r"[^\w\- ]", "", s)
        s = s.replace(" ", "-")
        n = seen.get(s, 0); seen[s] = n + 1
        out.add(s if n == 0 else "%s-%d" % (s, n))
    return out
bad = 0
REPO = "https://github.com/kubectl-cpulint/kubectl-cpulint/blob/main/"
for f in files:
    text = open(f, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for m in re.finditer(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text):
        url = m.group(1)
        if url.startswith(REPO):
            url = os.path.relpath(os.path.join(root, url[len(REPO):]), os.path.dirname(f))
        elif re.match(r"^[a-z]+:", url):
            continue
        path, _, frag = url.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        where = os.path.relpath(f, root)
        if not os.path.exists(target):
            print("%s: %s: no such file" % (where, m.group(1))); bad += 1; continue
        if frag and target.endswith(".md") and frag not in slugs(target):
            print("%s: %s: no such section" % (where, m.group(1))); bad += 1
# A section named in prose ("the README's "CI"", README ("CI gate"))
# is a heading there too.
readme = slugs(os.path.join(root, "README.md"))
for f in files:
    text = open(f, encoding="utf-8").read()
    for m in re.finditer(r'README(?:\'s)?\s*\(?\s*"([^"]+)"', text):
        s = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        if s not in readme:
            print("%s: names a README section %r that does not exist" %
                  (os.path.relpath(f, root), m.group(1)))
            bad += 1
sys.exit(1 if bad else 0)
PY
# The install section says, before krew and the tarball, that no release
# is tagged yet while none is (the newcomer's first command).
if ! git tag -l 'v*' 2>/dev/null | grep -q .; then
	sed -n '/^## Install/,/kubectl krew install/p' README.md | grep -q 'No release is tagged yet' &&
		ok || bad "the install section does not say that no release is tagged yet"
fi

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
assert wf["permissions"]["security-events"] == "write", wf["permissions"]
steps = wf["jobs"]["cpulint"]["steps"]
co = [s for s in steps if s.get("uses", "").startswith("actions/checkout@")][0]
assert co["with"]["fetch-depth"] == 0, co
# the action (tests/e2e/action.sh runs it), pinned to the release tag,
# with inputs it has
act = [s for s in steps if s.get("uses", "").startswith("kubectl-cpulint/kubectl-cpulint@")]
assert len(act) == 1, steps
assert act[0]["uses"].split("@")[1] == tag, act[0]["uses"]
inputs = yaml.safe_load(open("action.yml"))["inputs"]
assert set(act[0].get("with", {})) <= set(inputs), act[0]["with"]
PY
rm -rf "$tmpd"

# The README's own commands of the static tool (its sh blocks' lines
# that start kubectl-cpulint: fixing, the baseline) run as written in a
# copy of the bundled example, each exiting 0 or 1 (findings), never 2.
tmpx=$(mktemp -d)
cp -R testdata/example/. "$tmpx"/
if python3 - README.md "$BIN" "$tmpx" <<'PY'; then ok; else bad "a README command failed"; fi
import re, subprocess, sys
text, binary, where = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
ran = 0
for block in re.findall(r"```sh\n(.*?)```", text, re.S):
    for line in block.splitlines():
        cmd = line.split("  #")[0].strip()
        if not cmd.startswith("kubectl-cpulint "):
            continue
        cmd = binary + cmd[len("kubectl-cpulint"):] + " --no-config"
        rc = subprocess.call(cmd, shell=True, cwd=where,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        ran += 1
        if rc not in (0, 1):
            print("README command exits %d: %s" % (rc, line))
            sys.exit(1)
assert ran >= 5, ran
PY
rm -rf "$tmpx"

out=$("$BIN" --color never testdata/example 2>&1)
rc=$?
[ $rc -eq 1 ] && ok || bad "example exits $rc, expected 1"
printf '%s\n' "$out" | grep -q 'fix: ' && ok || bad "example shows no fix"
echo "readme: $pass passed, $fail failed"
[ $fail -eq 0 ]
