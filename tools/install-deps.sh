#!/bin/sh
# Installs what building and testing kubectl-cpulint needs on Debian or
# Ubuntu: the five libraries, pkg-config, a C compiler, and the tools the
# tests drive for real (python3 with jsonschema for the SARIF schema,
# openssl for test certificates, git, pre-commit, kubectl, groff for the
# manual page, bash and zsh for the completion scripts).  Installs only
# what is missing, so it is quick on a machine that has everything.
set -e
need=""
for p in yaml-0.1:libyaml-dev libcurl:libcurl4-openssl-dev \
         jansson:libjansson-dev libgit2:libgit2-dev check:check; do
	mod=${p%%:*}
	deb=${p#*:}
	pkg-config --exists "$mod" 2>/dev/null || need="$need $deb"
done
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
command -v openssl >/dev/null 2>&1 || need="$need openssl"
command -v git >/dev/null 2>&1 || need="$need git"
command -v pre-commit >/dev/null 2>&1 || need="$need pre-commit"
command -v kubectl >/dev/null 2>&1 || need="$need kubernetes-client"
command -v groff >/dev/null 2>&1 || need="$need groff-base"
command -v zsh >/dev/null 2>&1 || need="$need zsh"
python3 -c 'import jsonschema, yaml' 2>/dev/null ||
	need="$need python3 python3-jsonschema python3-yaml"
if [ -n "$need" ]; then
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	echo "installing:$need"
	$SUDO apt-get update
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $need pkg-config
fi
