#!/bin/sh
# Prints the copyright notices and licences of the libraries the release
# binary links statically, for THIRD-PARTY-LICENSES in the tarball:
#   sh tools/third-party-licenses.sh build/release/kubectl-cpulint.map
# The linker's map names every archive a member was taken from; the
# Debian (or Ubuntu) package that installed the archive names its
# copyright file.  The C library's and the compiler's own archives
# (libc_nonshared.a, libgcc.a) are part of the toolchain and left out.
# Without dpkg it stops and says so: collect the licences by hand then.
set -e
map=${1:?usage: third-party-licenses.sh LINKER-MAP}
command -v dpkg >/dev/null 2>&1 || {
	echo "third-party-licenses: no dpkg to find the licences of the" \
	     "static libraries; collect them by hand" >&2
	exit 1
}
pkgs=""
for a in $(grep -oE '^/[^ (]*\.a\(' "$map" | tr -d '(' | sort -u); do
	a=$(readlink -f "$a")
	case $a in /usr/lib/gcc/*) continue ;; esac
	p=$(dpkg -S "$a" 2>/dev/null | head -1 | cut -d: -f1)
	# usr-merged systems install some archives under /lib
	[ -n "$p" ] || p=$(dpkg -S "${a#/usr}" 2>/dev/null | head -1 | cut -d: -f1)
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
	f=/usr/share/doc/$p/copyright
	[ -f "$f" ] || { echo "third-party-licenses: $f is missing" >&2; exit 1; }
	printf '\n\n==== %s (Debian package %s) ====\n\n' \
	       "$(dpkg-query -W -f='${Source} ${Version}' "$p" 2>/dev/null)" "$p"
	cat "$f"
done
