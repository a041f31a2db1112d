#!/bin/sh
# The release tarball (make dist) is what krew installs: its binary needs
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
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL dist: $*"; fail=$((fail + 1)); }
finish() {
	echo "dist: $pass passed, $fail failed"
	[ $fail -eq 0 ]
	exit $?
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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

# 1. two builds, one sha256 (the second relinks and repacks everything,
# a second later, so file times would show)
dist
sum1=$(sha256sum "$tar" | cut -d' ' -f1)
rm -rf build/release build/dist "$tar"
sleep 1
dist
sum2=$(sha256sum "$tar" | cut -d' ' -f1)
[ "$sum1" = "$sum2" ] && ok || bad "two builds differ: $sum1 $sum2"

# 2. what the tarball holds: LICENSE, owner 0, the binary
tar tzf "$tar" > "$tmp/list"
grep -qx LICENSE "$tmp/list" && ok || bad "no LICENSE in $tar: $(cat "$tmp/list")"
grep -qx kubectl-cpulint "$tmp/list" && ok || bad "no binary in $tar"
if tar tvzf "$tar" | awk '$2 != "0/0" { exit 1 }'; then ok; else
	bad "entries not owned by 0/0"
fi
x=$tmp/x
mkdir -p "$x" && tar -C "$x" -xzf "$tar"
bin=$x/kubectl-cpulint

# 3. the krew manifest names this tarball's sha256
sh tools/krew-manifest.sh "$tar" "https://example.invalid/$tar" \
	> "$tmp/cpulint.yaml"
grep -q "sha256: $sum2\$" "$tmp/cpulint.yaml" && ok ||
	bad "krew manifest sha256 differs from the tarball's ($sum2)"
python3 tools/check-krew.py "$tmp/cpulint.yaml" >/dev/null && ok ||
	bad "rendered manifest invalid"

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
i=0
until grep -q "listening on port" "$tmp/serve.err" || [ $i -ge 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
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
