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
printf 'fake release\n' > "$tmp/kubectl-cpulint.tar.gz"
sh tools/krew-manifest.sh "$tmp/kubectl-cpulint.tar.gz" \
	https://example.invalid/kubectl-cpulint.tar.gz > "$tmp/cpulint.yaml" && ok || bad "render"
chk "$tmp/cpulint.yaml" && ok || bad "rendered manifest invalid: $(python3 tools/check-krew.py "$tmp/cpulint.yaml")"
grep -q "version: v$(cat VERSION)" "$tmp/cpulint.yaml" && ok || bad "version not filled in"
echo "krew: $pass passed, $fail failed"
[ $fail -eq 0 ]
