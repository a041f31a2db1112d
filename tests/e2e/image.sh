#!/bin/sh
# The container image (Dockerfile) built as `docker build .` builds it,
# without Docker: every stage, from the repository.  Each stage's root
# filesystem is assembled with mmdebstrap from the Debian packages its
# FROM line and its RUN apt-get install name (minbase, as Debian's images
# are; the slim image's exclusions for the final stage); the build
# stage's COPY . . copies the repository less what .dockerignore names,
# its ARGs are its defaults and its other RUN lines run in it through
# chroot in its WORKDIR, as Docker runs them (/bin/sh -c); the final
# stage's RUN useradd runs in it and its COPY --from=build lines copy
# from the build stage's result.  The tool then runs there as the USER
# the Dockerfile names, in its WORKDIR, as its ENTRYPOINT: the bundled
# example gives its golden findings, live mode loads the image's libcurl
# and lints a Pod on the fake API server, `serve` loads the image's
# libmicrohttpd and answers /healthz and /metrics over TLS, the CA bundle
# is there, and the process is not root.  Also checks the Dockerfile's
# shape (two stages, a numeric non-root USER, an exec-form ENTRYPOINT)
# and that docker/ holds nothing the Dockerfile does not use.
#
# Needs root (chroot) and, the first time, the Debian mirror apt uses:
# the root filesystems are kept in CPULINT_IMAGE_CACHE (default
# ~/.cache/kubectl-cpulint), keyed by the suite, the packages and their
# versions, and each run writes on an overlay of them.  The build stage
# compiles the tool (a few minutes on two cores).  Without root it says
# SKIP and why.
BIN=${BIN:?}
set -u
root=$(pwd)
SUITE=image
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh

# 1. the Dockerfile's final stage, read into shell variables
if ! python3 - Dockerfile > "$tmp/stage.sh" <<'PY'; then bad "Dockerfile: $(cat "$tmp/stage.sh")"; finish; fi
import json, re, shlex, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
lines = [l.strip() for l in text.split("\n") if l.strip() and not l.lstrip().startswith("#")]
stages, cur = [], None
for l in lines:
    word, _, rest = l.partition(" ")
    word = word.upper()
    if word == "FROM":
        cur = {"from": rest.split()[0], "as": rest.split()[2] if " AS " in rest.upper() else "", "cmds": []}
        stages.append(cur)
    elif cur is not None:
        cur["cmds"].append((word, rest.strip()))
assert len(stages) == 2, "not two stages: %d" % len(stages)
assert stages[0]["as"] == "build", stages[0]
build = stages[0]
m = re.match(r"^debian:([a-z]+)$", build["from"])
assert m, "the build stage is not FROM debian:SUITE: " + build["from"]
out = {"BSUITE": m.group(1)}
bsteps = []
for w, r in build["cmds"]:
    if w == "RUN" and "apt-get install" in r:
        words = r.split("apt-get install", 1)[1].split("&&")[0].split()
        out["BPKGS"] = ",".join(x for x in words if not x.startswith("-"))
    elif w == "RUN":
        bsteps.append("RUN " + r)
    elif w == "WORKDIR":
        bsteps.append("WORKDIR " + r)
    elif w == "ARG":
        assert "=" in r, "an ARG without a default: " + r
        bsteps.append("ARG " + r)
    elif w == "COPY":
        assert r.split() == [".", "."], "the build stage copies more than . .: " + r
        bsteps.append("COPY")
    else:
        raise AssertionError("the build stage has %s %s" % (w, r))
assert "BPKGS" in out, "the build stage installs no packages"
out["BSTEPS"] = "\n".join(bsteps)
final = stages[1]
m = re.match(r"^debian:([a-z]+)-slim$", final["from"])
assert m, "the final stage is not FROM debian:SUITE-slim: " + final["from"]
out["FSUITE"] = m.group(1)
runs = [r for w, r in final["cmds"] if w == "RUN"]
apt = [r for r in runs if "apt-get install" in r]
assert len(apt) == 1, "not one RUN apt-get install"
words = apt[0].split("apt-get install", 1)[1].split("&&")[0].split()
out["PKGS"] = ",".join(w for w in words if not w.startswith("-"))
other = [r for r in runs if r not in apt]
assert len(other) == 1 and other[0].startswith("useradd "), other
out["USERADD"] = other[0]
copies = []
for w, r in final["cmds"]:
    if w == "COPY":
        a = r.split()
        assert a[0] == "--from=build", r
        for src in a[1:-1]:
            assert src.startswith("/out/"), src
            copies.append(src[len("/out/"):] + "=" + a[-1])
out["COPIES"] = " ".join(copies)
user = [r for w, r in final["cmds"] if w == "USER"]
assert len(user) == 1 and re.match(r"^[0-9]+:[0-9]+$", user[0]), user
assert not user[0].startswith("0:"), "USER is root"
out["USERSPEC"] = user[0]
out["WORKDIR"] = [r for w, r in final["cmds"] if w == "WORKDIR"][-1]
ep = json.loads([r for w, r in final["cmds"] if w == "ENTRYPOINT"][-1])
assert isinstance(ep, list) and ep, "ENTRYPOINT is not in exec form"
out["ENTRYPOINT"] = " ".join(shlex.quote(x) for x in ep)
for k, v in out.items():
    print("%s=%s" % (k, shlex.quote(v)))
PY
ok
. "$tmp/stage.sh"

if [ "$(id -u)" != 0 ] || ! command -v chroot >/dev/null 2>&1; then
	echo "SKIP image: assembling and entering the image's root filesystem needs root and chroot (CI runs it as root)"
	finish
fi
if ! command -v mmdebstrap >/dev/null 2>&1; then
	bad "no mmdebstrap to assemble the image (tools/install-deps.sh installs it)"
	finish
fi

arch=$(dpkg --print-architecture)
cache=${CPULINT_IMAGE_CACHE:-${HOME:-/tmp}/.cache/kubectl-cpulint}
mounts=""
cleanup() {
	for m in $mounts; do umount "$m" 2>/dev/null; done
	[ -z "${APISERVER_DIR:-}" ] || apiserver_stop
	rm -rf "$tmp"
}
trap cleanup EXIT

# rootfs NAME SUITE PKGS SLIM: a kept root filesystem of SUITE (minbase)
# with PKGS (SLIM: the files Debian's slim images leave out are left
# out), assembled once, in $made; 1 when mmdebstrap fails.
rootfs() {
	key=$( (echo "$2 $3 $4"; apt-cache show --no-all-versions \
		$(echo "$3" | tr , ' ') 2>/dev/null | grep -E '^(Package|Version):') |
		sha256sum | cut -c1-16)
	made=$cache/rootfs-$1-$2-$arch-$key
	[ -f "$made/.complete" ] && return 0
	rm -rf "$made" "$cache"/rootfs-"$1"-"$2"-"$arch"-*
	mkdir -p "$cache"
	echo "image: assembling the $1 stage ($2 + $3) with mmdebstrap (once; kept in $cache)"
	set -- --variant=minbase --include="$3" "$2" "$made"
	[ "$4" = slim ] && set -- --dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' "$@"
	if ! mmdebstrap "$@" >"$tmp/mm.log" 2>&1; then
		rm -rf "$made"
		return 1
	fi
	touch "$made/.complete"
}
# layer LOWER DIR: DIR is a writable overlay on LOWER (or a copy of it
# where overlayfs cannot be mounted).
layer() {
	mkdir -p "$2" "$2.upper" "$2.work"
	if mount -t overlay overlay -o "lowerdir=$1,upperdir=$2.upper,workdir=$2.work" "$2" 2>/dev/null; then
		mounts="$2 $mounts"
	else
		cp -a "$1/." "$2/"
	fi
}
# installed ROOT PKGS: every package of the stage is installed there.
installed() {
	for p in $(echo "$2" | tr , ' '); do
		chroot "$1" dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'install ok installed' && ok ||
			bad "$p is not installed in the $3 stage"
	done
}

# 2. the build stage, as docker build runs it
if ! rootfs build "$BSUITE" "$BPKGS" full; then
	bad "mmdebstrap failed for the build stage (it needs the Debian mirror apt uses): $(tail -5 "$tmp/mm.log")"
	finish
fi
b=$tmp/build
layer "$made" "$b"
installed "$b" "$BPKGS" build
wd=/ args=""
built=1
printf '%s\n' "$BSTEPS" > "$tmp/bsteps"
while IFS= read -r step; do
	case $step in
	"WORKDIR "*) wd=${step#WORKDIR }; mkdir -p "$b$wd" ;;
	"ARG "*) args="$args ${step#ARG }" ;;
	COPY)	# the build context: the repository less .dockerignore
		python3 - "$root" "$b$wd" <<'PY' || { bad "COPY . ."; built=0; }
import fnmatch, os, shutil, sys
src, dst = sys.argv[1:3]
pats = []
if os.path.exists(os.path.join(src, ".dockerignore")):
    for l in open(os.path.join(src, ".dockerignore")):
        l = l.strip()
        if l and not l.startswith("#"):
            pats.append(l.strip("/"))
def ignored(rel):
    return any(fnmatch.fnmatchcase(rel, p) for p in pats)
for d, dirs, files in os.walk(src):
    reld = os.path.relpath(d, src)
    dirs[:] = [x for x in dirs if not ignored(os.path.normpath(os.path.join(reld, x)))]
    os.makedirs(os.path.join(dst, reld), exist_ok=True)
    for f in files:
        rel = os.path.normpath(os.path.join(reld, f))
        if not ignored(rel):
            shutil.copy2(os.path.join(d, f), os.path.join(dst, rel), follow_symlinks=False)
PY
		;;
	"RUN "*)
		# shellcheck disable=SC2086
		if ! chroot "$b" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root $args /bin/sh -c "cd \"\$0\" && ${step#RUN }" "$wd" \
			>"$tmp/build.log" 2>&1; then
			bad "the build stage's $(echo "$step" | cut -c1-60): $(tail -5 "$tmp/build.log")"
			built=0
		fi ;;
	esac
	[ $built = 1 ] || break
done < "$tmp/bsteps"
[ $built = 1 ] && ok || finish

# 3. the final stage: its root filesystem, its packages
if ! rootfs final "$FSUITE" "$PKGS" slim; then
	bad "mmdebstrap failed for the final stage: $(tail -5 "$tmp/mm.log")"
	finish
fi
r=$tmp/root
layer "$made" "$r"
installed "$r" "$PKGS" final

# 4. the final stage's own steps: useradd, the COPY lines, WORKDIR
chroot "$r" /bin/sh -c "$USERADD" >"$tmp/useradd.log" 2>&1 && ok ||
	bad "RUN $USERADD: $(cat "$tmp/useradd.log")"
for c in $COPIES; do
	src=${c%%=*} dst=${c#*=}
	mkdir -p "$r$dst" && cp -p "$b/out/$src" "$r$dst" ||
		bad "COPY --from=build /out/$src $dst"
done
mkdir -p "$r$WORKDIR"
cp -R testdata/example/. "$r$WORKDIR/"
chmod -R a+rX "$r$WORKDIR"
# runs as the image would: chroot to the image, USER, WORKDIR, ENTRYPOINT
image() {
	chroot --userspec="$USERSPEC" "$r" /bin/sh -c \
		"cd \"\$1\" && shift && exec $ENTRYPOINT \"\$@\"" sh "$WORKDIR" "$@"
}

# 5. not root; the example's golden findings
uid=$(chroot --userspec="$USERSPEC" "$r" /usr/bin/id -u)
[ "$uid" = "${USERSPEC%%:*}" ] && [ "$uid" != 0 ] && ok || bad "runs as uid $uid"
grep -q "^cpulint:x:${USERSPEC%%:*}:" "$r/etc/passwd" && ok ||
	bad "no user cpulint with the USER's uid in the image"
image --no-config --color never . >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
want=$(cat testdata/example/expected.exit)
[ "$rc" = "$want" ] && ok || bad "example in the image: exit $rc, expected $want: $(head -3 "$tmp/err.txt")"
if cmp -s testdata/example/expected.txt "$tmp/out.txt"; then ok; else
	bad "example in the image: the findings differ from testdata/example/expected.txt"
	diff -u testdata/example/expected.txt "$tmp/out.txt" | head -20
fi
[ -s "$tmp/err.txt" ] && bad "example in the image: stderr: $(head -3 "$tmp/err.txt")" || ok
image --version >"$tmp/v" 2>&1 && [ "$(cat "$tmp/v")" = "$("$BIN" --version)" ] &&
	ok || bad "--version in the image: $(cat "$tmp/v")"

# 6. the CA bundle ca-certificates' maintainer script writes
[ "$(grep -c 'BEGIN CERTIFICATE' "$r/etc/ssl/certs/ca-certificates.crt" 2>/dev/null)" -gt 50 ] &&
	ok || bad "no CA bundle in the image"

# 7. serve: the image's libmicrohttpd, TLS on loopback; /healthz and
# /metrics answer, then it stops on SIGTERM (at most 30 s in all)
CPL_CERT_SANS="IP:127.0.0.1,DNS:localhost" sh deploy/make-cert.sh "$tmp/c" >/dev/null 2>&1 ||
	bad "make-cert.sh failed"
mkdir -p "$r/tmp/c" && cp "$tmp/c/tls.crt" "$tmp/c/tls.key" "$r/tmp/c/" &&
	chmod -R a+rX "$r/tmp/c"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# chroot and the shell exec the server, so $! is its process: run in
# image() (a function in a subshell), SIGTERM reached the subshell only
# and the server outlived the test.
chroot --userspec="$USERSPEC" "$r" /bin/sh -c \
	"cd \"\$1\" && shift && exec $ENTRYPOINT \"\$@\"" sh "$WORKDIR" \
	serve --no-audit --listen "127.0.0.1:$port" --tls-cert-file /tmp/c/tls.crt \
	--tls-private-key-file /tmp/c/tls.key 2>"$tmp/serve.log" &
spid=$!
if wait_listening "$tmp/serve.log" "$spid"; then
	ok
	for path in /healthz /metrics; do
		code=$(curl -s -o "$tmp/serve.body" -w '%{http_code}' --max-time 10 \
			--cacert "$tmp/c/ca.crt" "https://127.0.0.1:$port$path")
		[ "$code" = 200 ] && ok || bad "serve in the image: $path answered $code"
	done
	grep -q '^cpulint_' "$tmp/serve.body" && ok || bad "serve in the image: /metrics holds no cpulint_ series"
else
	bad "serve in the image did not start: $(head -3 "$tmp/serve.log")"
fi
kill -TERM "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
if python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 2)' \
	"$port" 2>/dev/null; then
	bad "serve in the image still listens after SIGTERM"
else
	ok
fi

# 8. live mode: the image's libcurl, the fake API server on loopback
. tests/live/apiserver.sh
if apiserver_start --timeout 120; then
	cp "$APISERVER_DIR/kubeconfig" "$r/tmp/kubeconfig"
	chmod 0644 "$r/tmp/kubeconfig"
	image --kubeconfig /tmp/kubeconfig pod/train-0 >"$tmp/live" 2>"$tmp/live.err"
	rc=$?
	[ $rc -eq 1 ] && ok || bad "live in the image: exit $rc: $(head -3 "$tmp/live.err")"
	grep -qF "pod/ml/train-0[pytorch]: error: OMP_NUM_THREADS=16 x 4 ranks" "$tmp/live" &&
		ok || bad "live in the image: no finding: $(head -3 "$tmp/live")"
	apiserver_stop
else
	bad "the fake API server did not start"
fi
cd "$root" || exit 1

# 9. docker/ holds only what the Dockerfile uses (a test fixture's copy
# there is not part of the image)
for f in docker/*; do
	[ -e "$f" ] || continue
	grep -qF "$f" Dockerfile && ok || bad "$f is not used by the Dockerfile"
done
finish
