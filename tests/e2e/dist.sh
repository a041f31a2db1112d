#!/bin/sh
# The release tarballs (make dist) are what krew installs: linux-amd64,
# built here, and linux-arm64, cross-built (tools/cross-sysroot.sh) and
# run under qemu-user on the bundled example, with the same output as the
# golden; the rendered manifest beside them (cpulint.yaml) lists both with
# their sha256, as SHA256SUMS does, and each holds the man page, the
# completion scripts and kubectl_complete-cpulint.  The amd64 binary needs
# nothing but the C library and runs in an empty root (chroot: the binary,
# the libraries ldd lists, testdata/example) printing the example's golden
# findings; there, without libcurl, live mode fails with one line naming
# libcurl 4 and exit 2, as it does with a libcurl that is too old or
# lacks a function; so does `serve` without libmicrohttpd (or with one
# that lacks a function).  On this machine, with libcurl, the same binary
# talks to the fake API server, and with libmicrohttpd it serves HTTPS.  The tarball holds LICENSE, two builds
# give one sha256, the rendered krew manifest carries that sha256, and
# the newest GLIBC_x.y symbol version the binary references is the one
# the README states.  The chroot part needs root; without it, it says SKIP.
set -u
root=$(pwd)
SUITE=dist
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh

# A plain build of the release, whatever make runs this script: make asan
# passes BUILD, CFLAGS and SAN down, in MAKEFLAGS and in the environment.
dist() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u CFLAGS -u SAN \
	    -u LDFLAGS -u LDLIBS make -j2 --no-print-directory dist \
		>"$tmp/make.log" 2>&1 || {
		bad "make dist failed:"
		tail -20 "$tmp/make.log"
		finish
	}
}

version=$(cat VERSION)
tar=kubectl-cpulint-v$version-linux-amd64.tar.gz
tar64=kubectl-cpulint-v$version-linux-arm64.tar.gz

# 1. two builds, one sha256 (the second relinks and repacks everything,
# a second later, so file times would show)
dist
sum1=$(sha256sum "$tar" | cut -d' ' -f1)
a1=$(sha256sum "$tar64" | cut -d' ' -f1)
rm -rf build/release build/dist-amd64 build-arm64/release build/dist-arm64 \
	"$tar" "$tar64" cpulint.yaml SHA256SUMS
sleep 1
dist
sum2=$(sha256sum "$tar" | cut -d' ' -f1)
a2=$(sha256sum "$tar64" | cut -d' ' -f1)
[ "$sum1" = "$sum2" ] && ok || bad "two builds differ: $sum1 $sum2"
[ "$a1" = "$a2" ] && ok || bad "two arm64 builds differ: $a1 $a2"

# 2. what each tarball holds, owned by 0, regular files only (krew
# unpacks no links)
for t in "$tar" "$tar64"; do
	tar tzf "$t" | sort > "$tmp/list"
	if printf '%s\n' LICENSE NOTICE THIRD-PARTY-LICENSES \
		completion/_kubectl-cpulint completion/kubectl-cpulint.bash \
		kubectl-cpulint kubectl-cpulint.1 kubectl_complete-cpulint |
		cmp -s - "$tmp/list"; then ok; else
		bad "$t holds: $(cat "$tmp/list")"
	fi
	if tar tvzf "$t" | awk '$2 != "0/0" || $1 !~ /^-/ { exit 1 }'; then
		ok
	else
		bad "$t: entries not owned by 0/0 or not regular files"
	fi
	tar xzf "$t" -O THIRD-PARTY-LICENSES | grep -q '^==== libyaml ' && ok ||
		bad "$t: THIRD-PARTY-LICENSES names no libyaml"
done
x=$tmp/x
mkdir -p "$x" && tar -C "$x" -xzf "$tar"
bin=$x/kubectl-cpulint
cmp -s "$x/kubectl-cpulint.1" "$MAN" && ok || bad "the tarball's man page is not $MAN"
# kubectl_complete-cpulint answers as the binary's __complete does
if "$x/kubectl_complete-cpulint" --expl >"$tmp/c1" &&
   "$bin" __complete --expl >"$tmp/c2" && [ -s "$tmp/c1" ] &&
   cmp -s "$tmp/c1" "$tmp/c2"; then ok; else
	bad "kubectl_complete-cpulint: $(head -3 "$tmp/c1")"
fi

# 3. the krew manifest make dist wrote names both tarballs' sha256,
# each under its platform, and so does SHA256SUMS
python3 tools/check-krew.py cpulint.yaml >/dev/null && ok ||
	bad "rendered manifest invalid: $(python3 tools/check-krew.py cpulint.yaml)"
if python3 - cpulint.yaml "$tar" "$sum2" "$tar64" "$a2" <<'PY'; then ok; else bad "cpulint.yaml platforms"; fi
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
got = {(p["selector"]["matchLabels"]["arch"], p["uri"].rsplit("/", 1)[1],
        p["sha256"]) for p in m["spec"]["platforms"]}
want = {("amd64", sys.argv[2], sys.argv[3]), ("arm64", sys.argv[4], sys.argv[5])}
assert got == want, got
for p in m["spec"]["platforms"]:
    assert p["selector"]["matchLabels"]["os"] == "linux"
    assert {"kubectl-cpulint", "kubectl_complete-cpulint", "LICENSE"} <= \
        {f["from"] for f in p["files"]}, p["files"]
PY
sha256sum -c SHA256SUMS >/dev/null 2>&1 && [ "$(grep -c '' SHA256SUMS)" = 2 ] &&
	ok || bad "SHA256SUMS: $(cat SHA256SUMS)"

# 4. only the C library: ldd lists nothing else
libs=$(ldd "$bin" | awk '{ print $1 }' | sed 's|.*/||')
for l in $libs; do
	case $l in
	linux-vdso.so.1 | libc.so.6 | libm.so.6 | libpthread.so.0 | \
	libdl.so.2 | librt.so.1 | ld-linux*.so.*) ok ;;
	*) bad "the release binary needs $l" ;;
	esac
done

# 5. the newest glibc symbol version is the README's
need=$(objdump -T "$bin" | grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+' |
       sed 's/GLIBC_//' | sort -uV | tail -1)
said=$(grep -oE 'glibc [0-9]+\.[0-9]+ or later' README.md | head -1 |
       awk '{ print $2 }')
[ -n "$need" ] && [ "$need" = "$said" ] && ok ||
	bad "the binary needs glibc $need, the README says ${said:-nothing}"

# 5b. the arm64 binary: AArch64, only the C library, the same glibc,
# and under qemu-user (-L: its C library from the build's sysroot) the
# example's golden findings and exit status, as golden.sh runs it
x64=$tmp/x64
mkdir -p "$x64" && tar -C "$x64" -xzf "$tar64"
readelf -h "$x64/kubectl-cpulint" | grep -q 'Machine:.*AArch64' && ok ||
	bad "the arm64 binary is not AArch64"
for l in $(readelf -d "$x64/kubectl-cpulint" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	case $l in
	libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | librt.so.1 | \
	ld-linux-aarch64.so.1) ok ;;
	*) bad "the arm64 binary needs $l" ;;
	esac
done
need64=$(objdump -T "$x64/kubectl-cpulint" | grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+' |
	 sed 's/GLIBC_//' | sort -uV | tail -1)
[ "$need64" = "$said" ] && ok ||
	bad "the arm64 binary needs glibc $need64, the README says ${said:-nothing}"
if command -v qemu-aarch64 >/dev/null 2>&1; then
	(cd testdata/example && qemu-aarch64 -L "$root/build-arm64/sysroot" \
		"$x64/kubectl-cpulint" --no-config --color never . \
		>"$tmp/out64" 2>"$tmp/err64"; echo $? > "$tmp/rc64")
	want=$(cat testdata/example/expected.exit)
	[ "$(cat "$tmp/rc64")" = "$want" ] && ok ||
		bad "arm64 under qemu: exit $(cat "$tmp/rc64"), expected $want: $(head -3 "$tmp/err64")"
	if cmp -s testdata/example/expected.txt "$tmp/out64"; then ok; else
		bad "arm64 under qemu: the findings differ from testdata/example/expected.txt"
		diff -u testdata/example/expected.txt "$tmp/out64" | head -20
	fi
	[ -s "$tmp/err64" ] && bad "arm64 under qemu: stderr: $(head -3 "$tmp/err64")" || ok
	v=$(qemu-aarch64 -L "$root/build-arm64/sysroot" "$x64/kubectl-cpulint" --version)
	[ "$v" = "$("$bin" --version)" ] && ok || bad "arm64 --version: $v"
else
	bad "no qemu-aarch64 to run the arm64 binary (tools/install-deps.sh installs qemu-user)"
fi

# 6. with libcurl here, live mode works from the release binary
. tests/live/apiserver.sh
if apiserver_start --timeout 120; then
	trap 'apiserver_stop; rm -rf "$tmp"' EXIT
	out=$(HOME=$tmp "$bin" --kubeconfig "$APISERVER_DIR/kubeconfig" \
	      pod/train-0 2>"$tmp/err")
	rc=$?
	[ $rc -eq 1 ] && ok || bad "live through the release binary: exit $rc: $(head -3 "$tmp/err")"
	printf '%s\n' "$out" | grep -qF "pod/ml/train-0[pytorch]: error: OMP_NUM_THREADS=16 x 4 ranks" &&
		ok || bad "live through the release binary: no finding"
	apiserver_stop
else
	bad "the fake API server did not start"
fi

# 7. a libcurl.so.4 that is too old, or lacks a function: one line each
fake() {	# dir version-number version-text [more C]
	mkdir -p "$1"
	cat > "$1/fake.c" <<EOF
#include <curl/curl.h>
static curl_version_info_data d = { .version = "$3", .version_num = $2 };
curl_version_info_data *curl_version_info(CURLversion v)
{ (void)v; return &d; }
CURLcode curl_global_init(long f) { (void)f; return CURLE_OK; }
void curl_global_cleanup(void) { }
${4:-}
EOF
	cc -shared -fPIC $(pkg-config --cflags libcurl) -o "$1/libcurl.so.4" \
		"$1/fake.c"
}
fake "$tmp/old" 0x075100 7.81.0
LD_LIBRARY_PATH=$tmp/old "$bin" pod/x >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c '' "$tmp/err")" = 1 ] &&
	grep -qF '7.85.0 or later, and the installed one is 7.81.0' "$tmp/err" &&
	ok || bad "old libcurl: exit $rc: $(cat "$tmp/err")"
fake "$tmp/partial" 0x080000 8.0.0 'CURL *curl_easy_init(void) { return 0; }'
LD_LIBRARY_PATH=$tmp/partial "$bin" pod/x >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c '' "$tmp/err")" = 1 ] &&
	grep -qF 'the installed one has no curl_easy_cleanup' "$tmp/err" &&
	ok || bad "partial libcurl: exit $rc: $(cat "$tmp/err")"

# 7b. serve from the release binary: libmicrohttpd loaded at run time
# serves HTTPS here; a libmicrohttpd.so.12 that lacks a function is one
# line and exit 2
CPL_CERT_SANS="IP:127.0.0.1" sh deploy/make-cert.sh "$tmp/certs" >/dev/null
"$bin" serve --no-audit --listen 127.0.0.1:0 --tls-cert-file \
	"$tmp/certs/tls.crt" --tls-private-key-file "$tmp/certs/tls.key" \
	2>"$tmp/serve.err" &
spid=$!
wait_listening "$tmp/serve.err" "$spid" || true
sport=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$tmp/serve.err")
python3 tests/serve-client.py req "$tmp/certs/ca.crt" GET \
	"https://127.0.0.1:${sport:-1}/healthz" 2>/dev/null | head -1 |
	grep -qx 200 && ok || bad "serve from the release binary: $(cat "$tmp/serve.err")"
kill -TERM $spid
wait $spid && ok || bad "serve from the release binary: SIGTERM"
mkdir -p "$tmp/mhd"
printf 'const char *MHD_get_version(void) { return "0.9.0"; }\n' \
	> "$tmp/mhd/fake.c"
cc -shared -fPIC -o "$tmp/mhd/libmicrohttpd.so.12" "$tmp/mhd/fake.c"
LD_LIBRARY_PATH=$tmp/mhd "$bin" serve --no-audit --tls-cert-file x \
	--tls-private-key-file y >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c '' "$tmp/err")" = 1 ] &&
	grep -qF 'the installed one has no MHD_is_feature_supported' "$tmp/err" &&
	ok || bad "partial libmicrohttpd: exit $rc: $(cat "$tmp/err")"

# 8. an empty root: the binary, its libraries, the example
if [ "$(id -u)" != 0 ] || ! command -v chroot >/dev/null 2>&1; then
	echo "SKIP dist: the empty-root run needs root and chroot (CI runs it as root)"
	finish
fi
r=$tmp/root
mkdir -p "$r"
cp -R testdata/example/. "$r/"
cp "$bin" "$r/kubectl-cpulint"
for l in $(ldd "$bin" | grep -oE '/[^ ]+'); do
	mkdir -p "$r$(dirname "$l")" && cp -L "$l" "$r$l"
done
if find "$r" -name 'libcurl*' | grep -q .; then
	bad "libcurl in the empty root"
else
	ok
fi
# As golden.sh runs it: inside the example, with --no-config.
chroot "$r" /kubectl-cpulint --no-config --color never . \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
want=$(cat testdata/example/expected.exit)
[ "$rc" = "$want" ] && ok || bad "empty root: exit $rc, expected $want: $(head -3 "$tmp/err")"
if cmp -s testdata/example/expected.txt "$tmp/out"; then ok; else
	bad "empty root: the findings differ from testdata/example/expected.txt"
	diff -u testdata/example/expected.txt "$tmp/out" | head -20
fi
[ -s "$tmp/err" ] && bad "empty root: stderr: $(head -3 "$tmp/err")" || ok
# Live mode without libcurl: one line, exit 2, nothing on stdout.
chroot "$r" /kubectl-cpulint pod/train-0 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "live without libcurl: exit $rc, expected 2"
[ "$(grep -c '' "$tmp/err")" = 1 ] && ok ||
	bad "live without libcurl: not one line: $(cat "$tmp/err")"
grep -qF 'needs libcurl 4 (libcurl.so.4)' "$tmp/err" && ok ||
	bad "live without libcurl: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && bad "live without libcurl: stdout: $(cat "$tmp/out")" || ok
# serve without libmicrohttpd: one line naming it, exit 2.
chroot "$r" /kubectl-cpulint serve --no-audit --tls-cert-file /c \
	--tls-private-key-file /k >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c '' "$tmp/err")" = 1 ] &&
	grep -qF 'serve needs libmicrohttpd (libmicrohttpd.so.12), which cannot be loaded' "$tmp/err" &&
	ok || bad "serve without libmicrohttpd: exit $rc: $(cat "$tmp/err")"
cd "$root" || exit 1
finish
