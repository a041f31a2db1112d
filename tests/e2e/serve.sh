#!/bin/sh
# kubectl-cpulint serve, for real: its HTTPS port with a certificate
# deploy/make-cert.sh makes (openssl), the real kubectl applying
# PyTorchJobs to the fake API server, which calls serve's /validate on
# create as the API server's admission chain does and sends its warnings
# back in Warning headers (testdata/apiserver/server.py --webhook).
# Then: malformed, huge and deep reviews (400/413, never a crash), the
# API server's limits on warnings, many connections and a slow client,
# the certificate reloaded when its files change (and a bad pair
# refused), SIGTERM, and deploy/ linted by the tool itself.  Waits are
# bounded polls, never timed assertions.
set -u
BIN=${BIN:?}
SUITE=serve
. tests/lib.sh
. tests/live/apiserver.sh
SERVE_PID=
cleanup() {
	[ -z "$SERVE_PID" ] || { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }
	apiserver_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
client() { python3 tests/serve-client.py "$@"; }

# serve_start LOG ARGS...: starts serve on 127.0.0.1:$PORT, waits (at
# most 30 s) for its "listening" line.
serve_start() {
	log=$1
	shift
	"$BIN" serve --listen "127.0.0.1:$PORT" --tls-cert-file "$tmp/c/tls.crt" \
		--tls-private-key-file "$tmp/c/tls.key" "$@" 2>"$log" &
	SERVE_PID=$!
	if ! wait_listening "$log" "$SERVE_PID"; then
		bad "serve did not start: $(cat "$log")"
		SERVE_PID=
		return 1
	fi
}
serve_stop() {
	kill -TERM "$SERVE_PID"
	wait "$SERVE_PID"
	stop_rc=$?
	SERVE_PID=
}
# wait_for FILE TEXT: at most 30 s.
wait_for() {
	i=0
	while ! grep -qF -- "$2" "$1" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -qF -- "$2" "$1"
}

if ! python3 -c 'import ctypes.util, sys; sys.exit(0 if ctypes.util.find_library("microhttpd") else 1)'; then
	bad "libmicrohttpd is not installed (tools/install-deps.sh)"
	finish
fi
CPL_CERT_SANS="IP:127.0.0.1,DNS:localhost" sh deploy/make-cert.sh "$tmp/c" \
	>/dev/null || bad "make-cert.sh failed"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=https://127.0.0.1:$PORT
CA=$tmp/c/ca.crt

# ---- flags ----
expect "serve without a pair" 2 "$BIN" serve --no-audit
has "serve without a pair" "--tls-cert-file and --tls-private-key-file are required"
expect "serve flag without serve" 2 "$BIN" --no-audit x.yaml
has "serve flag without serve" "go with serve"
expect "serve with a path" 2 "$BIN" serve x.yaml
has "serve with a path" "takes flags only"
expect "bad --deny-on" 2 "$BIN" serve --deny-on fatal
expect "bad --listen" 2 "$BIN" serve --no-audit --listen nowhere \
	--tls-cert-file "$tmp/c/tls.crt" --tls-private-key-file "$tmp/c/tls.key"
has "bad --listen" "--listen takes ADDR:PORT"
expect "unreadable key" 2 "$BIN" serve --no-audit --listen 127.0.0.1:0 \
	--tls-cert-file "$tmp/c/tls.crt" --tls-private-key-file "$tmp/none.key"
has "unreadable key" "none.key"

# ---- the webhook alone ----
serve_start "$tmp/serve.log" --no-audit || finish
expect "healthz" 0 client req "$CA" GET "$URL/healthz"
has "healthz" "200"
expect "readyz" 0 client req "$CA" GET "$URL/readyz"
has "readyz" "200"
expect "unknown path" 0 client req "$CA" GET "$URL/nothing"
has "unknown path" "404"
expect "GET /validate" 0 client req "$CA" GET "$URL/validate"
has "GET /validate" "405"

client review testdata/serve/bad-pytorchjob.yaml CREATE > "$tmp/bad.json"
expect "bad review" 0 client req "$CA" POST "$URL/validate" "$tmp/bad.json"
has "bad review: 200" "200"
has "bad review: uid" '"uid":"e2e-uid-1"'
has "bad review: allowed" '"allowed":true'
has "bad review: CPU401" 'CPU401 error: 4 ranks x (8 intra-op threads + 8 loader workers) = 64 busy threads'
has "bad review: CPU402" 'CPU402 warning:'
client review testdata/serve/good-pytorchjob.yaml CREATE > "$tmp/good.json"
expect "good review" 0 client req "$CA" POST "$URL/validate" "$tmp/good.json"
has "good review" '"allowed":true'
lacks "good review" 'warnings'
client review testdata/serve/bad-pytorchjob.yaml DELETE > "$tmp/del.json"
expect "delete review" 0 client req "$CA" POST "$URL/validate" "$tmp/del.json"
has "delete review" '"allowed":true'
lacks "delete review" 'CPU'

# Malformed reviews: 400 with the reason.
printf '{"apiVersion":' > "$tmp/m1"
printf '[1,2]' > "$tmp/m2"
printf '{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"x"}}' > "$tmp/m3"
printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}' > "$tmp/m4"
printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7,"operation":"CREATE"}}' > "$tmp/m5"
printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"a","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":"no"}}}}' > "$tmp/m6"
for m in m1 m2 m3 m4 m5; do
	expect "malformed $m" 0 client req "$CA" POST "$URL/validate" "$tmp/$m"
	has "malformed $m: 400" "400"
	has "malformed $m: reason" "malformed AdmissionReview: "
done
has "malformed m5" "request.uid is not a string"
expect "invalid object" 0 client req "$CA" POST "$URL/validate" "$tmp/m6"
has "invalid object: answered" '"allowed":true'
# 100,000 levels of nesting: refused by the JSON parser, not the stack.
python3 -c 'print("{\"a\":" * 100000 + "1" + "}" * 100000)' > "$tmp/deep"
expect "deep review" 0 client req "$CA" POST "$URL/validate" "$tmp/deep"
has "deep review" "400"
# Over the body cap (8 MiB): 413, read and dropped.
python3 -c 'import sys; sys.stdout.write("[" + "1," * 5000000 + "1]")' > "$tmp/huge"
expect "huge review" 0 client req "$CA" POST "$URL/validate" "$tmp/huge"
has "huge review" "413"
# An object of 3 MiB and more is admitted unjudged, and says so.
python3 - "$tmp/big.json" <<'PY'
import json, sys
obj = {"apiVersion": "v1", "kind": "ConfigMap",
       "metadata": {"name": "big", "namespace": "ml"},
       "data": {"k": "x" * (3 << 20)}}
json.dump({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
           "request": {"uid": "big", "operation": "CREATE",
                       "kind": {"group": "", "version": "v1",
                                "kind": "ConfigMap"},
                       "object": obj}}, open(sys.argv[1], "w"))
PY
expect "big object" 0 client req "$CA" POST "$URL/validate" "$tmp/big.json"
has "big object" "not judged: the object is"

# More containers than judged per review: admitted unjudged, at once.
python3 - "$tmp/wide.yaml" <<'PY'
import sys, yaml
cs = [{"name": "c%03d" % i, "image": "pytorch/pytorch:2.4.0",
       "command": ["torchrun", "--nproc_per_node=4", "train.py"]}
      for i in range(400)]
yaml.safe_dump({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "wide", "namespace": "ml"},
                "spec": {"containers": cs}}, open(sys.argv[1], "w"))
PY
client review "$tmp/wide.yaml" CREATE > "$tmp/wide.json"
expect "wide object" 0 client req "$CA" POST "$URL/validate" "$tmp/wide.json"
has "wide object" "not judged: the object has more than 128 containers"

# The API server's limits: 30 bad containers make about 90 findings.
python3 - "$tmp/many.yaml" <<'PY'
import sys, yaml
c = {"name": "c", "image": "pytorch/pytorch:2.4.0",
     "command": ["torchrun", "--nproc_per_node=4", "train.py",
                 "--workers=8"],
     "env": [{"name": "OMP_NUM_THREADS", "value": "8"}],
     "resources": {"limits": {"cpu": "4"}}}
cs = [dict(c, name="c%02d\x1b[31m" % i) for i in range(30)]
job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
       "metadata": {"name": "many", "namespace": "ml"},
       "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1,
                "template": {"spec": {"containers": cs}}}}}}
yaml.safe_dump(job, open(sys.argv[1], "w"))
PY
client review "$tmp/many.yaml" CREATE > "$tmp/many.json"
client req "$CA" POST "$URL/validate" "$tmp/many.json" | tail -n +2 > "$tmp/many.out"
expect "warning limits" 0 client limits "$tmp/many.out"
has "warning limits" "warnings "
all=$(cat "$tmp/many.out")
has "warning limits: the rest counted" "more findings not shown"
has "warning limits: escaped" 'c00\\x1b[31m'

# Many connections at once, and a slow client.
expect "crowd" 0 client crowd "$CA" "$URL/validate" 60 24 "$tmp/bad.json"
has "crowd: every review answered" "200 x 24"
expect "slow client" 0 client slow "$CA" "$URL/validate"
has "slow client: dropped" "closed"
expect "alive after all that" 0 client req "$CA" GET "$URL/healthz"
has "alive after all that" "200"

# /metrics without the audit: the webhook's counters.
expect "metrics, no audit" 0 client req "$CA" GET "$URL/metrics"
has "metrics counts reviews" 'cpulint_admission_reviews_total{result="invalid"} 7'
lacks "metrics, no audit" "cpulint_audit_up"

# The certificate reloaded when its files change: a pair from a new CA
# replaces the files (renamed over them, as a Secret volume swaps).
CPL_CERT_SANS="IP:127.0.0.1" sh deploy/make-cert.sh "$tmp/c2" >/dev/null
cp "$tmp/c2/tls.crt" "$tmp/c/tls.crt.new"
cp "$tmp/c2/tls.key" "$tmp/c/tls.key.new"
mv "$tmp/c/tls.key.new" "$tmp/c/tls.key"
mv "$tmp/c/tls.crt.new" "$tmp/c/tls.crt"
check "reloaded" wait_for "$tmp/serve.log" "certificate and key reloaded"
expect "new CA trusted" 0 client req "$tmp/c2/ca.crt" GET "$URL/healthz"
has "new CA trusted" "200"
expect "old CA refused" 1 client req "$CA" GET "$URL/healthz"
has "old CA refused" "CERTIFICATE_VERIFY_FAILED"
# A bad pair is refused, and the last good one goes on serving.
echo "not a key" > "$tmp/c/tls.key.new"
mv "$tmp/c/tls.key.new" "$tmp/c/tls.key"
check "bad pair refused" wait_for "$tmp/serve.log" "still serving the previous pair"
expect "still serving" 0 client req "$tmp/c2/ca.crt" GET "$URL/healthz"
has "still serving" "200"
cp "$tmp/c2/tls.key" "$tmp/c/tls.key"

# SIGTERM: a clean exit.
serve_stop
check "SIGTERM exits 0" [ "$stop_rc" = 0 ]
all=$(cat "$tmp/serve.log")
has "SIGTERM said" "SIGTERM: stopping"
cp "$tmp/c2/ca.crt" "$CA"

# ---- the real kubectl, through the fake API server's admission chain ----
apiserver_start --webhook "$URL/validate" --webhook-ca "$CA" --timeout 200 || finish
export KUBECONFIG=$APISERVER_DIR/kubeconfig
serve_start "$tmp/serve2.log" --no-audit || finish
expect "kubectl apply bad" 0 kubectl apply -f testdata/serve/bad-pytorchjob.yaml
has "kubectl apply bad: created" "pytorchjob.kubeflow.org/resnet-bad created"
has "kubectl apply bad: warning" 'Warning: CPU401 error: 4 ranks x (8 intra-op threads + 8 loader workers) = 64 busy threads on a budget of 4 CPUs'
has "kubectl apply bad: CPU202" 'Warning: CPU202 error: OMP_NUM_THREADS=8 x 4 ranks'
expect "kubectl apply good" 0 kubectl apply -f testdata/serve/good-pytorchjob.yaml
has "kubectl apply good" "pytorchjob.kubeflow.org/resnet-good created"
lacks "kubectl apply good" "Warning"
check "webhook called on create" grep -q '"event": "webhook", "operation": "CREATE", "resource": "pytorchjobs", "name": "resnet-good", "allowed": true, "warnings": 0' "$APISERVER_DIR/requests.jsonl"
serve_stop
serve_start "$tmp/serve3.log" --no-audit --deny-on error || finish
sed 's/resnet-bad/resnet-denied/' testdata/serve/bad-pytorchjob.yaml > "$tmp/denied.yaml"
expect "kubectl apply denied" 1 kubectl apply -f "$tmp/denied.yaml"
has "kubectl apply denied: refused" 'Error from server (Forbidden): error when creating'
has "kubectl apply denied: reason" 'admission webhook "validate.cpulint.io" denied the request: kubectl-cpulint: PyTorchJob ml/resnet-denied has 2 findings at or above error (--deny-on)'
expect "denied is not stored" 1 kubectl get pytorchjob resnet-denied
sed 's/resnet-good/resnet-good2/' testdata/serve/good-pytorchjob.yaml > "$tmp/good2.yaml"
expect "good passes --deny-on" 0 kubectl create -f "$tmp/good2.yaml"
lacks "good passes --deny-on" "Warning"
serve_stop
# The webhook down: failurePolicy Ignore admits.
sed 's/resnet-bad/resnet-unjudged/' testdata/serve/bad-pytorchjob.yaml > "$tmp/unjudged.yaml"
expect "webhook down: admitted" 0 kubectl apply -f "$tmp/unjudged.yaml"
lacks "webhook down: no warning" "Warning"

# ---- deploy/ passes the tool's own rules ----
expect "deploy/ lints clean" 0 "$BIN" deploy/
has "deploy/ lints clean" "no findings"
finish
