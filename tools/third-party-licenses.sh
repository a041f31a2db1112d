#!/bin/sh
# Prints the copyright notices and licences of the libraries the release
# binary links statically, for THIRD-PARTY-LICENSES in the tarball:
#   sh tools/third-party-licenses.sh build/release/kubectl-cpulint.map
#   sh tools/third-party-licenses.sh build-arm64/release/kubectl-cpulint.map \
#       build-arm64/sysroot
# The linker's map names every archive a member was taken from; the
# Debian (or Ubuntu) package that installed the archive names its
# copyright file.  The C library's and the compiler's own archives
# (libc_nonshared.a, libgcc.a) are part of the toolchain and left out.
# A cross build's archives come from the packages tools/cross-sysroot.sh
# extracted into SYSROOT: its file SYSROOT/.owners names their packages,
# and the copyright files are the sysroot's.
# Without dpkg it stops and says so: collect the licences by hand then.
set -e
map=${1:?usage: third-party-licenses.sh LINKER-MAP [SYSROOT]}
sysroot=${2:-}
if [ -n "$sysroot" ]; then
	sysroot=$(readlink -f "$sysroot")
	[ -f "$sysroot/.owners" ] || {
		echo "third-party-licenses: no $sysroot/.owners" \
		     "(tools/cross-sysroot.sh writes it)" >&2
		exit 1
	}
fi
# owner FILE: the package that installed FILE (on this machine, or in
# the sysroot)
owner() {
	case ${sysroot:+y}$1 in
	y"$sysroot"/*)
		awk -v f="${1#"$sysroot"}" '$1 == f { print $2; exit }' \
			"$sysroot/.owners" ;;
	*)
		p=$(dpkg -S "$1" 2>/dev/null | head -1 | cut -d: -f1)
		# usr-merged systems install some archives under /lib
		[ -n "$p" ] || p=$(dpkg -S "${1#/usr}" 2>/dev/null | head -1 |
			cut -d: -f1)
		echo "$p" ;;
	esac
}
command -v dpkg >/dev/null 2>&1 || {
	echo "third-party-licenses: no dpkg to find the licences of the" \
	     "static libraries; collect them by hand" >&2
	exit 1
}
pkgs=""
for a in $(grep -oE '^/[^ (]*\.a\(' "$map" | tr -d '(' | sort -u); do
	a=$(readlink -f "$a")
	case $a in /usr/lib/gcc/* | /usr/lib/gcc-cross/*) continue ;; esac
	[ -z "$sysroot" ] || case $a in "$sysroot"/*) ;; *)
		echo "third-party-licenses: $a is not in $sysroot" >&2
		exit 1 ;;
	esac
	p=$(owner "$a")
	[ -n "$p" ] || { echo "third-party-licenses: no package owns $a" >&2; exit 1; }
	case $p in libc6-dev|libc-dev*) continue ;; esac
	case " $pkgs " in *" $p "*) ;; *) pkgs="$pkgs $p" ;; esac
done
[ -n "$pkgs" ] || { echo "third-party-licenses: no archive in $map" >&2; exit 1; }
cat <<'HEAD'
Third-party software in the kubectl-cpulint release binary
==========================================================

The binary links the libraries below statically (the C library is linked
dynamically, and libcurl is loaded at run time only for live mode; neither
is included).  Below is each library's copyright file as its Debian
package ships it.  Licences these files name by path
(/usr/share/common-licenses/...) are the standard texts: Apache-2.0 is in
LICENSE; libgit2's GPL-2.0 comes with a linking exception that allows
distributing it linked into other programs without restriction.
HEAD
for p in $pkgs; do
	f=$sysroot/usr/share/doc/$p/copyright
	[ -f "$f" ] || { echo "third-party-licenses: $f is missing" >&2; exit 1; }
	if [ -n "$sysroot" ]; then
		v=$(awk -v p="$p" '$1 == "package" && $2 == p {
			print $3 " " $4; exit }' "$sysroot/.owners")
	else
		v=$(dpkg-query -W -f='${Source} ${Version}' "$p" 2>/dev/null)
	fi
	printf '\n\n==== %s (Debian package %s) ====\n\n' "$v" "$p"
	cat "$f"
done
