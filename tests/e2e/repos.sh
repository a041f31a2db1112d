#!/bin/sh
# A folder of several clones: the Dockerfile a placeholder image links
# (docs/inputs.md, "An image written as a placeholder") is searched for
# in the repository that holds the manifest (its nearest folder with
# .git), not in the whole starting folder.  Found on a public tree read
# from a parent folder: 46 Dockerfiles of a sibling repository were
# counted for one manifest.  The clones are made here (git init): a .git
# folder cannot be committed into testdata.
set -u
BIN=${BIN:?}
SUITE=repos
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
T="timeout 30"
case=testdata/kinds/dockerfile-placeholder-only

# clone a: the fine-tuning repository of the golden case; clone b: a
# serving repository with a Dockerfile of its own that runs Python.
mkdir -p "$tmp/clones/a" "$tmp/clones/b/docker"
cp -R "$case/deploy" "$case/docker" "$case/src" "$case/requirements.txt" \
	"$tmp/clones/a/"
printf 'FROM python:3.11-slim\nRUN pip install fastapi uvicorn\nCMD ["python", "-m", "uvicorn", "app:api"]\n' \
	> "$tmp/clones/b/docker/Dockerfile"
git -C "$tmp/clones/a" init -q
git -C "$tmp/clones/b" init -q
cd "$tmp/clones" || exit 1

# From the folder of clones, a's manifest links a's Dockerfile alone.
expect one-clone 1 $T "$BIN" --no-config -v a
has one-clone 'runs a/docker/Dockerfile'
has one-clone 'CPU401'
# Both clones at once: still each its own.
expect both-clones 1 $T "$BIN" --no-config -v .
has both-clones 'runs a/docker/Dockerfile'
lacks both-clones 'Dockerfiles of the repository run Python'
# Without .git the starting folder is the repository: two Dockerfiles
# run Python, so none links, and -v says so.
rm -rf a/.git b/.git
expect no-git 0 $T "$BIN" --no-config -v a
has no-git '2 Dockerfiles of the repository run Python'
lacks no-git 'CPU401'
finish
