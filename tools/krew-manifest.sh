#!/bin/sh
# Renders krew/cpulint.yaml for a release tarball:
#   sh tools/krew-manifest.sh TARBALL URL > cpulint.yaml
set -e
tarball=${1:?usage: krew-manifest.sh TARBALL URL}
url=${2:?usage: krew-manifest.sh TARBALL URL}
sum=$(sha256sum "$tarball" | cut -d' ' -f1)
version=$(cat "$(dirname "$0")/../VERSION")
sed -e "s|@VERSION@|$version|" -e "s|@URL@|$url|" -e "s|@SHA256@|$sum|" \
	"$(dirname "$0")/../krew/cpulint.yaml"
