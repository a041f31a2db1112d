#!/bin/sh
# Lays out the sysroot `make dist` cross-links a foreign architecture's
# release binary against (tools/install-deps.sh installs the cross
# compiler and enables the architecture in apt):
#   sh tools/cross-sysroot.sh ARCH DIR        e.g. arm64 build-arm64/sysroot
# DIR gets the contents of that architecture's Debian packages below: the
# C library and the static archives, headers and pkg-config files of the
# libraries the release links (plus libcurl's headers).  They are
# extracted with dpkg-deb, not installed: several of these -dev packages
# cannot be installed beside the machine's own (they are not Multi-Arch:
# same), and nothing on the machine changes.
#
# The .deb files are kept in CPULINT_DEB_CACHE (default
# ~/.cache/kubectl-cpulint/debs) and fetched with `apt-get download` only
# when the version apt offers is not there yet, each checked against the
# SHA256 apt's index gives.  DIR is rebuilt from scratch when the list of
# files differs from the one it was made from (DIR/.debs), so two trees
# built from one apt index get the same bytes.  DIR/.owners names the
# package of every file (for THIRD-PARTY-LICENSES).
set -eu
arch=${1:?usage: cross-sysroot.sh ARCH DIR}
dir=${2:?usage: cross-sysroot.sh ARCH DIR}
cache=${CPULINT_DEB_CACHE:-${HOME:-/tmp}/.cache/kubectl-cpulint/debs}

# The libraries of `pkg-config --static --libs yaml-0.1 jansson libgit2
# libssh2 jemalloc` (Makefile, STATIC_LIBS), by package, and the headers
# of the libraries loaded at run time (libcurl, libmicrohttpd).
pkgs="libc6 libc6-dev linux-libc-dev libcrypt-dev
      libyaml-dev libjansson-dev libgit2-dev libjemalloc-dev
      libmbedtls-dev libhttp-parser-dev libpcre2-dev libssh2-1-dev
      libgpg-error-dev libssl-dev zlib1g-dev libcurl4-openssl-dev
      libmicrohttpd-dev"

say() { echo "cross-sysroot: $*" >&2; }

if ! dpkg --print-foreign-architectures 2>/dev/null | grep -qx "$arch" &&
   [ "$(dpkg --print-architecture 2>/dev/null)" != "$arch" ]; then
	say "apt does not know the $arch architecture; run" \
	    "tools/install-deps.sh (dpkg --add-architecture $arch && apt-get update)"
	exit 1
fi
uris=$(apt-get download --print-uris $(for p in $pkgs; do
	printf '%s:%s ' "$p" "$arch"; done) 2>&1) || {
	say "apt-get cannot name the $arch packages:"
	printf '%s\n' "$uris" | tail -5 >&2
	exit 1
}
mkdir -p "$cache"
want=$(printf '%s\n' "$uris" | awk '{ print $2 }' | sort)
printf '%s\n' "$uris" | while read -r uri file size sum; do
	[ -n "$file" ] || continue
	sum=${sum#SHA256:}
	if [ -f "$cache/$file" ] &&
	   [ "$(sha256sum "$cache/$file" | cut -d' ' -f1)" = "$sum" ]; then
		continue
	fi
	say "fetching $file ($size bytes)"
	(cd "$cache" && apt-get download -q "${file%%_*}:$arch" \
		>"$cache/.log" 2>&1) || {
		say "apt-get download failed for $file:"
		tail -5 "$cache/.log" >&2
		exit 1
	}
	[ "$(sha256sum "$cache/$file" | cut -d' ' -f1)" = "$sum" ] || {
		say "$file: the SHA256 differs from apt's index"
		rm -f "$cache/$file"
		exit 1
	}
done
if [ -f "$dir/.debs" ] && [ "$(cat "$dir/.debs")" = "$want" ]; then
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
# .owners: "package NAME SOURCE VERSION" per package, then "PATH NAME"
# per file (tools/third-party-licenses.sh reads it).
for f in $want; do
	dpkg-deb -x "$cache/$f" "$dir"
	name=$(dpkg-deb -f "$cache/$f" Package)
	src=$(dpkg-deb -f "$cache/$f" Source | cut -d' ' -f1)
	echo "package $name ${src:-$name} $(dpkg-deb -f "$cache/$f" Version)"
	dpkg-deb -c "$cache/$f" | awk -v p="$name" '$1 ~ /^-/ {
		f = $6; sub(/^\./, "", f); print f, p }'
done > "$dir/.owners.tmp"
mv "$dir/.owners.tmp" "$dir/.owners"
printf '%s\n' "$want" > "$dir/.debs"
say "$arch sysroot in $dir ($(echo "$want" | wc -l) packages)"
