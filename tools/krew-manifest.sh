#!/bin/sh
# Renders krew/cpulint.yaml for release tarballs (make dist runs it):
#   sh tools/krew-manifest.sh TARBALL URL [TARBALL URL]... > cpulint.yaml
# Each TARBALL is named kubectl-cpulint-vVERSION-OS-ARCH.tar.gz (its
# platform comes from the name) and gets one platform entry with URL and
# its sha256.
set -e
usage="usage: krew-manifest.sh TARBALL URL [TARBALL URL]..."
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || { echo "$usage" >&2; exit 2; }
top=$(dirname "$0")/..
version=$(cat "$top/VERSION")
tmpl=$top/krew/cpulint.yaml
echo "# krew manifest of kubectl-cpulint v$version (tools/krew-manifest.sh)"
sed -e '/^#/d' -e "s|@VERSION@|$version|" -e '/^  platforms:$/q' "$tmpl"
while [ $# -gt 0 ]; do
	tarball=$1 url=$2
	shift 2
	plat=$(basename "$tarball" | sed -n \
		's/^kubectl-cpulint-v[^-]*-\([a-z]*\)-\([a-z0-9]*\)\.tar\.gz$/\1 \2/p')
	[ -n "$plat" ] || {
		echo "krew-manifest: $tarball is not named" \
		     "kubectl-cpulint-vVERSION-OS-ARCH.tar.gz" >&2
		exit 1
	}
	sum=$(sha256sum "$tarball" | cut -d' ' -f1)
	sed -e '1,/^  platforms:$/d' -e "s|\"@OS@\"|${plat% *}|" \
	    -e "s|\"@ARCH@\"|${plat#* }|" -e "s|\"@URL@\"|$url|" \
	    -e "s|\"@SHA256@\"|$sum|" "$tmpl"
done
