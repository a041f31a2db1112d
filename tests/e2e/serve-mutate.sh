#!/bin/sh
# kubectl-cpulint serve --mutate, for real: deploy/mutating-webhook.yaml
# applied with the real kubectl to the fake API server (its URL and CA
# put in for the Service), which calls the webhooks applied to it as the
# API server's admission chain does (namespaceSelector, objectSelector,
# rules, caBundle over HTTPS, failurePolicy, timeoutSeconds) and applies
# the JSONPatch answered (testdata/apiserver/admission.py).  A Pod, a
# PyTorchJob, a Job and a Pod its operator made, applied in the opted-in
# namespace, come back with the thread variables the fixes suggest and
# nothing else changed; a user's values, a non-training Pod, an opted-out
# Pod (annotation, label) and a namespace not opted in stay as they are;
# --mutate-dry-run only annotates; garbled, oversized and deep reviews
# get a clean error.  Waits are bounded polls.
set -u
BIN=${BIN:?}
SUITE=serve-mutate
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
D=testdata/serve-mutate

serve_start() {
	log=$1
	shift
	"$BIN" serve --listen "127.0.0.1:$PORT" --tls-cert-file "$tmp/c/tls.crt" \
		--tls-private-key-file "$tmp/c/tls.key" --no-audit "$@" 2>"$log" &
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
	SERVE_PID=
}
# mutated NAME KIND OBJ FILE: what the webhook changed in the stored OBJ.
mutated() {
	kubectl get -n mut "$2" "$3" -o json > "$tmp/stored.json" &&
		python3 tests/serve-mutated.py "$4" "$tmp/stored.json"
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

# /mutate is there only with --mutate.
serve_start "$tmp/serve0.log" || finish
expect "no --mutate: /mutate" 0 client req "$CA" POST "$URL/mutate" /dev/null
has "no --mutate: 404" "404"
serve_stop
serve_start "$tmp/serve.log" --mutate || finish
has_log() { all=$(cat "$tmp/serve.log"); has "$@"; }
has_log "listening names /mutate" "/mutate, /metrics"

# ---- hostile reviews: a clean error, bounded ----
expect "GET /mutate" 0 client req "$CA" GET "$URL/mutate"
has "GET /mutate: 405" "405"
printf '{"apiVersion":' > "$tmp/m1"
printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"a","operation":"CREATE","object":{"kind":"Pod","metadata":7,"spec":{"containers":[{"name":"t","command":["torchrun","x.py"],"env":"no","resources":{"limits":{"cpu":"4"}}}]}}}}' > "$tmp/m2"
printf '\377\376garbage\000\001' > "$tmp/m3"
expect "garbled review" 0 client req "$CA" POST "$URL/mutate" "$tmp/m1"
has "garbled review: 400" "400"
has "garbled review: reason" "malformed AdmissionReview: not JSON"
expect "odd object" 0 client req "$CA" POST "$URL/mutate" "$tmp/m2"
has "odd object: answered" '"allowed":true'
lacks "odd object: no patch" '"patch"'
expect "binary review" 0 client req "$CA" POST "$URL/mutate" "$tmp/m3"
has "binary review: 400" "400"
python3 -c 'print("{\"a\":" * 100000 + "1" + "}" * 100000)' > "$tmp/deep"
expect "deep review" 0 client req "$CA" POST "$URL/mutate" "$tmp/deep"
has "deep review: 400" "400"
head -c 10485760 /dev/zero | tr '\0' ' ' > "$tmp/huge"
expect "huge review" 0 client req "$CA" POST "$URL/mutate" "$tmp/huge"
has "huge review: 413" "413"
# 300 random edits of the fixtures ('~' and '/' in keys and names, odd
# types, envs without names or with one twice, odd CPUs): every patch
# applies, adds only thread counts with valid distinct names, and
# taken out again gives the object sent (tests/serve-mutate-props.py).
expect "random reviews" 0 python3 tests/serve-mutate-props.py "$CA" "$URL/mutate" 300 37 $D/*.yaml
has "random reviews: some patched" "patched"
expect "serve still up" 0 client req "$CA" GET "$URL/healthz"
has "serve still up" "200"

# ---- the real kubectl, through the admission chain ----
apiserver_start --timeout 250 || finish
export KUBECONFIG=$APISERVER_DIR/kubeconfig
CAB=$(base64 -w0 < "$CA")
python3 - "$URL/mutate" "$CAB" deploy/mutating-webhook.yaml > "$tmp/mwc.yaml" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[3]))
for h in doc["webhooks"]:
    h["clientConfig"] = {"url": sys.argv[1], "caBundle": sys.argv[2]}
yaml.safe_dump(doc, sys.stdout)
PY
expect "apply the MutatingWebhookConfiguration" 0 kubectl apply -f "$tmp/mwc.yaml"
has "apply the MutatingWebhookConfiguration" "mutatingwebhookconfiguration.admissionregistration.k8s.io/kubectl-cpulint created"
expect "namespaces" 0 kubectl apply -f $D/namespaces.yaml
has "namespaces" "namespace/mut created"

expect "apply pod" 0 kubectl apply -n mut -f $D/pod.yaml
has "apply pod: created" "pod/train created"
has "apply pod: the same warnings as /validate" "Warning: CPU201 warning: OMP_NUM_THREADS is not set in container"
expect "pod mutated" 0 mutated "pod mutated" pod train $D/pod.yaml
has "pod: OMP" "/spec/containers/0 OMP_NUM_THREADS=2"
has "pod: MKL" "/spec/containers/0 MKL_NUM_THREADS=2"
lacks "pod: sidecar untouched" "/spec/containers/1"
lacks "pod: init untouched" "initContainers"
has "pod: annotation" 'note: container "trainer": OMP_NUM_THREADS=2, MKL_NUM_THREADS=2 (CPU limit 4, 1 rank, CPU201 thread-env-missing)'
has "pod: nothing else" "rest: same"

# The same numbers as --fix: the tool's own diff of the file.
expect "fix says the same" 1 "$BIN" --diff $D/pod.yaml
has "fix says the same: OMP" '+          value: "2"'

expect "apply pytorchjob" 0 kubectl apply -n mut -f $D/pytorchjob.yaml
has "apply pytorchjob: created" "pytorchjob.kubeflow.org/resnet created"
expect "pytorchjob mutated" 0 mutated "pytorchjob mutated" pytorchjob resnet $D/pytorchjob.yaml
has "pytorchjob: Master" "/spec/pytorchReplicaSpecs/Master/template/spec/containers/0 OMP_NUM_THREADS=4"
has "pytorchjob: Worker" "/spec/pytorchReplicaSpecs/Worker/template/spec/containers/0 MKL_NUM_THREADS=4"
has "pytorchjob: annotation" "note: container"
has "pytorchjob: nothing else" "rest: same"

expect "apply job" 0 kubectl apply -n mut -f $D/job.yaml
expect "job mutated" 0 mutated "job" job finetune $D/job.yaml
has "job: template" "/spec/template/spec/containers/0 OMP_NUM_THREADS=3"
has "job: nothing else" "rest: same"

expect "apply operator pod" 0 kubectl apply -n mut -f $D/pod-operator.yaml
expect "operator pod mutated" 0 mutated "operator pod" pod resnet-worker-0 $D/pod-operator.yaml
has "operator pod: as its owner's worker" "/spec/containers/0 OMP_NUM_THREADS=4"
has "operator pod: why" "([Worker] CPU limit 8, 1 rank, CPU201"
has "operator pod: nothing else" "rest: same"
# The same Pod without its owner is no training Pod: unchanged.
sed '/ownerReferences:/,/blockOwnerDeletion/d; s/name: resnet-worker-0/name: lone-0/' \
	$D/pod-operator.yaml > "$tmp/lone.yaml"
expect "apply lone pod" 0 kubectl apply -n mut -f "$tmp/lone.yaml"
expect "lone pod unchanged" 0 mutated "lone" pod lone-0 "$tmp/lone.yaml"
lacks "lone pod: nothing added" "OMP_NUM_THREADS"
has "lone pod: same" "rest: same"

for p in user:train-user optout:train-optout web:web; do
	f=${p%%:*} n=${p#*:}
	expect "apply $f" 0 kubectl apply -n mut -f "$D/pod-$f.yaml"
	expect "$f unchanged" 0 mutated "$f" pod "$n" "$D/pod-$f.yaml"
	lacks "$f: no env added" "/spec/containers"
	lacks "$f: no annotation" "note:"
	has "$f: nothing else" "rest: same"
done
sed 's/name: train-optout/name: train-optout2/' $D/pod-optout.yaml > "$tmp/optout2.yaml"
expect "apply optout: said" 0 kubectl apply -n mut -f "$tmp/optout2.yaml" --dry-run=server
has "apply optout: said" "not mutated: the object opts out"

# Opted out by label: the objectSelector keeps it from the webhook.
sed 's/name: train$/name: train-label/; s/    app: train/    app: train\n    cpulint.io\/mutate: "false"/' $D/pod.yaml > "$tmp/pod-label.yaml"
n0=$(grep -c '"phase": "mutating"' "$APISERVER_DIR/requests.jsonl")
expect "apply label opt-out" 0 kubectl apply -n mut -f "$tmp/pod-label.yaml"
lacks "label opt-out: no review" "Warning"
n1=$(grep -c '"phase": "mutating"' "$APISERVER_DIR/requests.jsonl")
check "label opt-out: not sent" [ "$n0" = "$n1" ]

# A namespace not opted in: not sent, unchanged.
expect "apply in plain" 0 kubectl apply -n plain -f $D/pod.yaml
lacks "plain: no warning" "Warning"
kubectl get -n plain pod train -o json > "$tmp/plain.json"
expect "plain unchanged" 0 python3 tests/serve-mutated.py $D/pod.yaml "$tmp/plain.json"
lacks "plain: nothing added" "OMP_NUM_THREADS"
has "plain: same" "rest: same"

# docs/serve.md's step: an existing namespace opted in with kubectl label.
expect "label ml" 0 kubectl label namespace ml cpulint.io/mutate=enabled
has "label ml" "namespace/ml labeled"
expect "apply in ml" 0 kubectl apply -n ml -f $D/pod.yaml
kubectl get -n ml pod train -o json > "$tmp/ml.json"
expect "ml mutated" 0 python3 tests/serve-mutated.py $D/pod.yaml "$tmp/ml.json"
has "ml: OMP" "/spec/containers/0 OMP_NUM_THREADS=2"
has "ml: same" "rest: same"

# Both webhooks, as deploy/ installs them: the API server calls the
# mutating one first, so /validate judges the patched object (no CPU201
# from it: the variables are set).
python3 - "$URL/validate" "$CAB" deploy/webhook.yaml > "$tmp/vwc.yaml" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[3]))
for h in doc["webhooks"]:
    h["clientConfig"] = {"url": sys.argv[1], "caBundle": sys.argv[2]}
    h["rules"].append({"apiGroups": [""], "apiVersions": ["v1"],
                       "resources": ["pods"],
                       "operations": ["CREATE", "UPDATE"]})
yaml.safe_dump(doc, sys.stdout)
PY
expect "apply the ValidatingWebhookConfiguration" 0 kubectl apply -f "$tmp/vwc.yaml"
expect "label mut for /validate" 0 kubectl label namespace mut cpulint.io/webhook=enabled
sed 's/name: train$/name: train-both/' $D/pod.yaml > "$tmp/pod-both.yaml"
expect "apply with both" 0 kubectl apply -n mut -f "$tmp/pod-both.yaml"
n=$(printf '%s\n' "$all" | grep -c "Warning: CPU201")
check "both: CPU201 from /mutate only" [ "$n" -eq 1 ]
grep '"webhook": "validate.cpulint.io"' "$APISERVER_DIR/requests.jsonl" | tail -1 > "$tmp/v.line"
all=$(cat "$tmp/v.line")
has "both: /validate called after" '"phase": "validating"'
has "both: /validate answered" '"allowed": true'
lacks "both: /validate no error" '"error"'
expect "both: stored patched" 0 mutated "both" pod train-both "$tmp/pod-both.yaml"
has "both: OMP" "/spec/containers/0 OMP_NUM_THREADS=2"
has "both: same" "rest: same"

# ---- dry run: only the annotation ----
serve_stop
serve_start "$tmp/serve2.log" --mutate-dry-run || finish
sed 's/name: train$/name: train-dry/' $D/pod.yaml > "$tmp/pod-dry.yaml"
expect "apply dry" 0 kubectl apply -n mut -f "$tmp/pod-dry.yaml"
expect "dry: only annotated" 0 mutated "dry" pod train-dry "$tmp/pod-dry.yaml"
lacks "dry: no env" "/spec/containers"
has "dry: annotation" 'note: dry run (--mutate-dry-run), would set: container "trainer": OMP_NUM_THREADS=2'
has "dry: nothing else" "rest: same"

# ---- the webhook down: failurePolicy Ignore admits unchanged ----
serve_stop
sed 's/name: train$/name: train-down/' $D/pod.yaml > "$tmp/pod-down.yaml"
expect "webhook down: admitted" 0 kubectl apply -n mut -f "$tmp/pod-down.yaml"
expect "webhook down: unchanged" 0 mutated "down" pod train-down "$tmp/pod-down.yaml"
has "webhook down: same" "rest: same"
grep -q '"error"' "$APISERVER_DIR/requests.jsonl"
check "webhook down: the call error logged" [ $? -eq 0 ]
finish
