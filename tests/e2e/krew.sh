#!/bin/sh
# The krew manifest: the checker agrees with krew on the real index and
# krew's own test manifests, and our rendered template passes it.
set -u
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL krew: $*"; fail=$((fail + 1)); }
K=testdata/reference/krew
chk() { python3 tools/check-krew.py "$@" >/dev/null; }
for f in $K/krew-index/ctx.yaml $K/krew-index/resource-capacity.yaml \
	 $K/krew-index/view-allocations.yaml $K/krew-testdata/integration/foo.yaml \
	 $K/krew-testdata/indexscanner-plugins/foo.yaml $K/krew-testdata/indexscanner-plugins/bar.yaml; do
	chk "$f" && ok || bad "valid manifest rejected: $f"
done
for f in $K/krew-testdata/indexscanner-plugins/badplugin.yaml \
	 $K/krew-testdata/indexscanner-plugins/badplugin2.yaml \
	 $K/krew-testdata/indexscanner-plugins/wrongname.yaml; do
	chk "$f" && bad "invalid manifest accepted: $f" || ok
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t=$tmp/kubectl-cpulint-v$(cat VERSION)-linux
printf 'fake release\n' > "$t-amd64.tar.gz"
printf 'fake arm64 release\n' > "$t-arm64.tar.gz"
sh tools/krew-manifest.sh "$t-amd64.tar.gz" https://example.invalid/a.tar.gz \
	"$t-arm64.tar.gz" https://example.invalid/b.tar.gz > "$tmp/cpulint.yaml" &&
	ok || bad "render"
[ "$(grep -c 'arch: ' "$tmp/cpulint.yaml")" = 2 ] && ok || bad "not two platforms"
grep -q "sha256: $(sha256sum "$t-arm64.tar.gz" | cut -d' ' -f1)" \
	"$tmp/cpulint.yaml" && ok || bad "no arm64 sha256"
printf x > "$tmp/release.tar.gz"
sh tools/krew-manifest.sh "$tmp/release.tar.gz" https://example.invalid/r \
	>/dev/null 2>&1 && bad "a tarball named for no platform rendered" || ok
chk "$tmp/cpulint.yaml" && ok || bad "rendered manifest invalid: $(python3 tools/check-krew.py "$tmp/cpulint.yaml")"
grep -q "version: v$(cat VERSION)" "$tmp/cpulint.yaml" && ok || bad "version not filled in"
# The template itself is valid YAML (issue 38): yamllint passes it and
# the rendered manifest, and the tool lints the folder without an error.
if command -v yamllint >/dev/null 2>&1; then
	yamllint krew/cpulint.yaml "$tmp/cpulint.yaml" >"$tmp/yl" 2>&1 && ok ||
		bad "yamllint: $(head -5 "$tmp/yl")"
else
	bad "no yamllint (apt-get install yamllint)"
fi
python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' krew/cpulint.yaml 2>/dev/null &&
	ok || bad "krew/cpulint.yaml is not YAML"
BIN=${BIN:-./kubectl-cpulint}
"$BIN" --no-config krew/ >"$tmp/lint" 2>&1 && ok ||
	bad "kubectl-cpulint krew/ exits $?: $(head -3 "$tmp/lint")"
# Every file a release tarball holds that a user needs beside the binary
# is installed: the licence, NOTICE and the notices of the libraries the
# static binary carries (THIRD-PARTY-LICENSES); each is in DIST_FILES.
python3 - "$tmp/cpulint.yaml" Makefile <<'PY' && ok || bad "krew files"
import re, sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
mk = open(sys.argv[2]).read()
dist = re.search(r"^DIST_FILES\s*:=\s*(.*?)\n\S", mk, re.S | re.M).group(1)
dist = set(re.sub(r"\$\(sort|\)|\\|\$\(BIN", " ", dist).split()) | {"kubectl-cpulint"}
for p in m["spec"]["platforms"]:
    files = {f["from"] for f in p["files"]}
    for need in ("LICENSE", "NOTICE", "THIRD-PARTY-LICENSES"):
        assert need in files, (need, files)
    for f in files:
        assert f in dist, (f, dist)
PY
echo "krew: $pass passed, $fail failed"
[ $fail -eq 0 ]
