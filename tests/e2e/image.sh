#!/bin/sh
# The container image (Dockerfile) without Docker: its final stage's root
# filesystem is assembled from the same Debian packages with mmdebstrap
# (the suite of its FROM line, variant minbase as Debian's images are,
# plus the packages of its RUN apt-get install), its RUN useradd runs in
# it, the files its COPY --from=build lines name come from the release
# tarball (make dist-tar-ARCH, what the build stage runs), and the tool
# runs there through chroot as the USER the Dockerfile names, in its
# WORKDIR, as its ENTRYPOINT: the bundled example gives its golden
# findings, live mode loads the image's libcurl and lints a Pod on the
# fake API server, the CA bundle is there, and the process is not root.
# Also checks the Dockerfile's shape: two stages, a numeric non-root
# USER, an exec-form ENTRYPOINT.
#
# Needs root (chroot) and, the first time, the Debian mirror apt uses:
# the root filesystem is kept in CPULINT_IMAGE_CACHE (default
# ~/.cache/kubectl-cpulint), keyed by the suite, the packages and their
# versions, and each run writes on an overlay of it, so later runs take
# a few seconds.  Without root it
# says SKIP and why.
BIN=${BIN:?}
set -u
root=$(pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL image: $*"; fail=$((fail + 1)); }
finish() {
	echo "image: $pass passed, $fail failed"
	[ $fail -eq 0 ]
	exit $?
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
final = stages[1]
m = re.match(r"^debian:([a-z]+)-slim$", final["from"])
assert m, "the final stage is not FROM debian:SUITE-slim: " + final["from"]
out = {"SUITE": m.group(1)}
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

# 2. the release tarball, as the build stage makes it
arch=$(dpkg --print-architecture)
tarball=kubectl-cpulint-v$(cat VERSION)-linux-$arch.tar.gz
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u CFLAGS -u SAN \
    -u LDFLAGS -u LDLIBS make -j2 --no-print-directory dist-tar-"$arch" \
	>"$tmp/make.log" 2>&1 || {
	bad "make dist-tar-$arch failed: $(tail -5 "$tmp/make.log")"
	finish
}
mkdir -p "$tmp/out" && tar -C "$tmp/out" -xzf "$tarball"

# 3. the root filesystem: from the cache, or mmdebstrap
cache=${CPULINT_IMAGE_CACHE:-${HOME:-/tmp}/.cache/kubectl-cpulint}
key=$( (echo "$SUITE $PKGS"; apt-cache show --no-all-versions \
	$(echo "$PKGS" | tr , ' ') 2>/dev/null | grep -E '^(Package|Version):') |
	sha256sum | cut -c1-16)
rootfs=$cache/rootfs-$SUITE-$arch-$key
if [ ! -f "$rootfs/.complete" ]; then
	rm -rf "$rootfs" "$cache"/rootfs-"$SUITE"-"$arch"-*
	mkdir -p "$cache"
	echo "image: assembling $SUITE-slim + $PKGS with mmdebstrap (once; kept in $cache)"
	# minbase, and the files Debian's slim images leave out
	if ! mmdebstrap --variant=minbase --include="$PKGS" \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		"$SUITE" "$rootfs" >"$tmp/mm.log" 2>&1; then
		bad "mmdebstrap failed (it needs the Debian mirror apt uses): $(tail -5 "$tmp/mm.log")"
		rm -rf "$rootfs"
		finish
	fi
	touch "$rootfs/.complete"
fi
# The image's writable layer: an overlay on the kept root filesystem
# (or, where overlayfs cannot be mounted, a copy of it).
r=$tmp/root
mkdir -p "$r" "$tmp/upper" "$tmp/work"
if mount -t overlay overlay -o "lowerdir=$rootfs,upperdir=$tmp/upper,workdir=$tmp/work" "$r" 2>/dev/null; then
	trap 'umount "$r"; rm -rf "$tmp"' EXIT
else
	cp -a "$rootfs/." "$r/" || { bad "cannot copy $rootfs"; finish; }
fi
for p in $(echo "$PKGS" | tr , ' '); do
	chroot "$r" dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' && ok || bad "$p is not installed in the image"
done

# 4. the final stage's own steps: useradd, the COPY lines, WORKDIR
chroot "$r" /bin/sh -c "$USERADD" >"$tmp/useradd.log" 2>&1 && ok ||
	bad "RUN $USERADD: $(cat "$tmp/useradd.log")"
for c in $COPIES; do
	src=${c%%=*} dst=${c#*=}
	mkdir -p "$r$dst" && cp -p "$tmp/out/$src" "$r$dst" ||
		bad "COPY $src $dst"
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

# 7. live mode: the image's libcurl, the fake API server on loopback
. tests/live/apiserver.sh
if apiserver_start --timeout 120; then
	trap 'apiserver_stop; umount "$r" 2>/dev/null; rm -rf "$tmp"' EXIT
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
finish
