#!/bin/sh
# Installs what building and testing kubectl-cpulint needs on Debian/Ubuntu.
# Skips apt entirely when everything is already present.
set -e
need=""
for p in yaml-0.1:libyaml-dev libcurl:libcurl4-openssl-dev jansson:libjansson-dev \
         libgit2:libgit2-dev check:check; do
	mod=${p%%:*}; deb=${p#*:}
	pkg-config --exists "$mod" 2>/dev/null || need="$need $deb"
done
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v openssl >/dev/null 2>&1 || need="$need openssl"
[ -z "$*" ] || need="$need $*"
if [ -n "$need" ]; then
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $need pkg-config
fi
