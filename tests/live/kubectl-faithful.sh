#!/bin/sh
# kubectl-faithful.sh — the real kubectl against the fake API server.
#
# Shows that testdata/apiserver/server.py answers like an API server:
# kubectl (discovery, GET, LIST with paging and selectors, CRDs, --raw,
# client certificates, tls-server-name, errors) gets what the fixtures
# hold, and the same bytes the plugin's client reads (fetched here with
# curl).  Run from the repository root; prints "ok"/"not ok" per check and
# a final "N passed, N failed"; exits non-zero when any check failed.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/apiserver.sh

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $1"; }
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}

if ! command -v kubectl >/dev/null 2>&1; then
	not_ok "kubectl is not on PATH"
	finish
fi
if ! apiserver_start --generate-pods 1200 --deny get:nodes/proxy::minikube \
	--timeout 240; then
	not_ok "the fake API server starts"
	finish
fi

D=$APISERVER_DIR
FX=testdata/apiserver/fixtures/default
export HOME="$D/home"		# kubectl's discovery cache
mkdir -p "$HOME"
unset KUBECONFIG
K="kubectl --kubeconfig $D/kubeconfig --request-timeout 20s"
printf 'Authorization: Bearer %s\n' "$(cat "$D/token")" >"$D/auth-header"

# same_json A B: the two files hold equal JSON.
same_json() {
	python3 -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a == b else 1)' "$1" "$2"
}

# raw PATH: the body the plugin's client reads (curl, same CA and token).
raw() {
	curl -sS --fail --cacert "$D/ca.crt" -H "@$D/auth-header" \
		"https://127.0.0.1:$APISERVER_PORT$1"
}

# get_same NAME FIXTURE PATH KUBECTL-ARGS...: kubectl's -o json, the raw
# body and the fixture are the same object.
get_same() {
	name=$1 fixture=$2 path=$3
	shift 3
	if $K "$@" -o json >"$D/out.json" 2>"$D/err" &&
		raw "$path" >"$D/raw.json" &&
		same_json "$D/out.json" "$FX/$fixture" &&
		same_json "$D/raw.json" "$FX/$fixture"; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/#   /' "$D/err"
	fi
}

get_same "get pod train-0 returns the fixture (token auth)" \
	ml-pod-train-0.json /api/v1/namespaces/ml/pods/train-0 \
	get pod train-0 -n ml
get_same "get pytorchjob resnet (CRD, discovery of kubeflow.org/v1)" \
	ml-pytorchjob-resnet.json \
	/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/resnet \
	get pytorchjob resnet -n ml
get_same "get trainjob llama-ft (trainer.kubeflow.org/v1alpha1)" \
	ml-trainjob-llama-ft.json \
	/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/llama-ft \
	get trainjob llama-ft -n ml
get_same "get cm resnet-env (short name)" ml-configmap-resnet-env.json \
	/api/v1/namespaces/ml/configmaps/resnet-env get cm resnet-env -n ml
get_same "get rs by short name, owner chain object" \
	serving-replicaset-tokenizer-5d8f7c9b6d.json \
	/apis/apps/v1/namespaces/serving/replicasets/tokenizer-5d8f7c9b6d \
	get rs tokenizer-5d8f7c9b6d -n serving
get_same "get node minikube (a real cluster's object)" k9s-no.json \
	/api/v1/nodes/minikube get node minikube

if kubectl --kubeconfig "$D/kubeconfig-cert" get deploy tokenizer \
	-n serving -o json >"$D/out.json" 2>"$D/err" &&
	same_json "$D/out.json" "$FX/serving-deployment-tokenizer.json" &&
	grep -q '"auth": "cert", "user": "cpl-cert-user"' "$D/requests.jsonl"
then
	ok "client certificate auth (kubeconfig-cert, relative paths)"
else
	not_ok "client certificate auth (kubeconfig-cert, relative paths)"
	sed 's/^/#   /' "$D/err"
fi

if $K --context fake-tls-name get pod train-0 -n ml -o json \
	>"$D/out.json" 2>"$D/err" &&
	same_json "$D/out.json" "$FX/ml-pod-train-0.json"; then
	ok "tls-server-name: https://localhost verified as kube.fake.test"
else
	not_ok "tls-server-name: https://localhost verified as kube.fake.test"
	sed 's/^/#   /' "$D/err"
fi

n=$($K get pods -A --chunk-size 500 -o name 2>"$D/err" | wc -l)
pages=$(grep -c '"path": "/api/v1/pods".*"continue"' "$D/requests.jsonl")
if [ "$n" -eq 1206 ] && [ "$pages" -eq 2 ]; then
	ok "get pods -A pages 1206 pods in chunks of 500"
else
	not_ok "get pods -A pages 1206 pods in chunks of 500 (got $n, $pages continued pages)"
fi

n=$($K get pods -A -l 'app=gen,tier in (web,etl)' -o name 2>"$D/err" |
	wc -l)
if [ "$n" -eq 800 ]; then
	ok "label selector, set-based"
else
	not_ok "label selector, set-based (got $n)"
fi

if $K get pods -n ml -o json 2>"$D/err" | python3 -c '
import json, sys
l = json.load(sys.stdin)
names = sorted(i["metadata"]["name"] for i in l["items"])
assert names == ["nightly-eval-28934400-8fz2m", "train-0", "train-1"], names
assert all(i["kind"] == "Pod" for i in l["items"])'; then
	ok "get pods -n ml lists the namespace"
else
	not_ok "get pods -n ml lists the namespace"
fi

if [ "$($K get cm resnet-env -n ml -o jsonpath='{.data.OMP_NUM_THREADS}')" = 16 ]
then
	ok "jsonpath over a ConfigMap"
else
	not_ok "jsonpath over a ConfigMap"
fi

if $K get --raw /api/v1/nodes/gpu-node-1/proxy/metrics/cadvisor 2>"$D/err" |
	grep -q '^container_cpu_cfs_throttled_periods_total{container="pytorch",.*pod="train-0"}'
then
	ok "get --raw cAdvisor metrics through the node proxy"
else
	not_ok "get --raw cAdvisor metrics through the node proxy"
fi

# expect_error NAME PATTERN KUBECTL-ARGS...: kubectl fails saying PATTERN.
expect_error() {
	name=$1 pattern=$2
	shift 2
	if $K "$@" >"$D/out" 2>"$D/err"; then
		not_ok "$name (kubectl succeeded)"
	elif grep -q "$pattern" "$D/err"; then
		ok "$name"
	else
		not_ok "$name"
		sed 's/^/#   /' "$D/err"
	fi
}

expect_error "403 for nodes/proxy that RBAC denies" \
	'nodes "minikube" is forbidden: User "cpl-tester" cannot get resource "nodes/proxy"' \
	get --raw /api/v1/nodes/minikube/proxy/metrics/cadvisor
expect_error "404 Status for a missing pod" 'pods "nope" not found' \
	get pod nope -n ml
expect_error "401 for a bad token" 'Unauthorized' \
	--context fake-bad-token get pods -n ml
expect_error "TLS failure with the wrong CA" \
	'certificate signed by unknown authority' \
	--context fake-wrong-ca get pods -n ml

if grep -q "$(cat "$D/token")" "$D/requests.jsonl"; then
	not_ok "the request log never holds the token"
else
	ok "the request log never holds the token"
fi

finish
