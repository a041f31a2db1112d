#!/bin/sh
# Certificate rotation as a Kubernetes Secret volume does it (what
# cert-manager's renewal of deploy/cert-manager.yaml's Certificate
# causes): the files tls.crt and tls.key are symlinks through ..data to a
# timestamped directory, and an update makes a new directory and renames
# a new ..data symlink over the old one (atomic), then removes the old
# directory.  serve, given DIR/tls.crt and DIR/tls.key, serves the new
# pair to new connections without a restart (the serial a new TLS
# connection sees, read with openssl s_client), a connection opened
# before goes on, and a bad new pair (a key that is not the
# certificate's) keeps the old pair serving with one line on stderr.
set -u
BIN=${BIN:?}
SUITE=serve-rotate
. tests/lib.sh
SERVE_PID=
cleanup() {
	[ -z "$SERVE_PID" ] || { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }
	rm -rf "$tmp"
}
trap cleanup EXIT

# serial: the serial of the certificate a new TLS connection is shown.
serial() {
	openssl s_client -connect "127.0.0.1:$PORT" -servername localhost \
		</dev/null 2>/dev/null | openssl x509 -noout -serial 2>/dev/null
}
file_serial() { openssl x509 -noout -serial -in "$1"; }
# until_serial NAME WANT: polls (at most 15 s) until a new connection
# sees the serial WANT.
until_serial() {
	i=0
	while [ $i -lt 75 ]; do
		[ "$(serial)" = "$2" ] && { ok; return; }
		sleep 0.2
		i=$((i + 1))
	done
	bad "$1: a new connection sees '$(serial)', not '$2'"
}
# swap N FROM: a new ..N directory with FROM's files, ..data renamed over
# (as the kubelet's AtomicWriter does), the old directory removed.
swap() {
	d=$tmp/secret
	mkdir "$d/..$1"
	cp "$2/tls.crt" "$2/tls.key" "$2/ca.crt" "$d/..$1/"
	old=$(readlink "$d/..data")
	ln -s "..$1" "$d/..data_tmp"
	mv -T "$d/..data_tmp" "$d/..data"
	rm -rf "${d:?}/$old"
}

for n in 1 2; do
	CPL_CERT_SANS="IP:127.0.0.1,DNS:localhost" sh deploy/make-cert.sh \
		"$tmp/c$n" >/dev/null || bad "make-cert.sh $n failed"
done
S1=$(file_serial "$tmp/c1/tls.crt")
S2=$(file_serial "$tmp/c2/tls.crt")
check "two serials" [ -n "$S1" ] && [ "$S1" != "$S2" ]
# A mismatched pair: c1's certificate with c2's key.
mkdir "$tmp/bad"
cp "$tmp/c1/tls.crt" "$tmp/c1/ca.crt" "$tmp/bad/"
cp "$tmp/c2/tls.key" "$tmp/bad/"

# The Secret volume's layout.
mkdir -p "$tmp/secret/..t1"
cp "$tmp/c1/tls.crt" "$tmp/c1/tls.key" "$tmp/c1/ca.crt" "$tmp/secret/..t1/"
ln -s ..t1 "$tmp/secret/..data"
for f in tls.crt tls.key ca.crt; do
	ln -s "..data/$f" "$tmp/secret/$f"
done

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN" serve --no-audit --listen "127.0.0.1:$PORT" \
	--tls-cert-file "$tmp/secret/tls.crt" \
	--tls-private-key-file "$tmp/secret/tls.key" 2>"$tmp/serve.log" &
SERVE_PID=$!
until_serial "the first pair" "$S1"

# A connection opened before the swap, kept alive through it.
mkfifo "$tmp/go"
python3 - "$PORT" "$tmp/c1/ca.crt" "$tmp/go" > "$tmp/kept.txt" 2>&1 <<'PY' &
import http.client, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[2])
c = http.client.HTTPSConnection("127.0.0.1", int(sys.argv[1]),
                                context=ctx, timeout=10)
for i in range(2):
    c.request("GET", "/healthz")
    r = c.getresponse()
    print("request %d: %d %s" % (i, r.status, r.read().decode().strip()))
    sys.stdout.flush()
    if i == 0:
        open(sys.argv[3]).read()     # wait for the swap
print("one connection:", c.sock is not None)
PY
KEPT=$!

# ---- renewed: the new pair, no restart ----
swap t2 "$tmp/c2"
until_serial "renewed pair served to new connections" "$S2"
echo go > "$tmp/go"
wait "$KEPT"
all=$(cat "$tmp/kept.txt")
has "a connection from before the swap goes on" "request 1: 200 ok"
check "still the same process" kill -0 "$SERVE_PID"
check "reloaded once" [ "$(grep -c 'certificate and key reloaded' "$tmp/serve.log")" = 1 ]

# ---- a bad pair: the last good one goes on, one line said ----
swap t3 "$tmp/bad"
sleep 3		# three polls at least
check "bad pair: the good one still served" [ "$(serial)" = "$S2" ]
all=$(cat "$tmp/serve.log")
has "bad pair said" "still serving the previous pair"
check "said once" [ "$(grep -c 'still serving the previous pair' "$tmp/serve.log")" = 1 ]

# ---- fixed: served again ----
swap t4 "$tmp/c1"
until_serial "fixed pair served" "$S1"

kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
check "serve stops on SIGTERM with 0" [ $? = 0 ]
SERVE_PID=
finish
