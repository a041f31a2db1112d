#!/bin/sh
# serve's /metrics scraped by a real Prometheus (Debian's prometheus,
# started here on 127.0.0.1 with its own configuration, never as the
# system service) over HTTPS, while serve's audit reads the fake API
# server: the PromQL of docs/serve.md that lists the worst owners names
# the Pod the real kubectl creates; replaced with a fixed spec, its error
# series go and its budget stays; deleted, all its series go.  The
# audit's interval is an hour: the watch alone brings the changes.  Waits
# are bounded polls (Prometheus scrapes every second), never timed
# assertions.
set -u
BIN=${BIN:?}
SUITE=serve-prometheus
. tests/lib.sh
. tests/live/apiserver.sh
SERVE_PID= PROM_PID=
cleanup() {
	[ -z "$SERVE_PID" ] || { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }
	[ -z "$PROM_PID" ] || { kill "$PROM_PID" 2>/dev/null; wait "$PROM_PID" 2>/dev/null; }
	apiserver_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# promql QUERY: the instant result as "labels=value" lines, sorted.
promql() {
	python3 - "$PROM" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "/api/v1/query?" + urllib.parse.urlencode(
    {"query": sys.argv[2]})
with urllib.request.urlopen(url, timeout=10) as f:
    d = json.load(f)
rows = []
for r in d["data"]["result"]:
    m = r["metric"]
    rows.append(",".join("%s=%s" % (k, m[k]) for k in sorted(m)
                         if k not in ("instance", "job")) +
                " " + r["value"][1])
print("\n".join(sorted(rows)))
PY
}
# until_query NAME QUERY WANT: polls (at most 60 s) until the result has
# (WANT "+TEXT") or lacks (WANT "-TEXT") TEXT.
until_query() {
	name=$1 q=$2 want=$3
	i=0
	while [ $i -lt 120 ]; do
		res=$(promql "$q" 2>/dev/null)
		case $want in
		+*) printf '%s\n' "$res" | grep -qF -- "${want#+}" && { ok; return; } ;;
		-*) printf '%s\n' "$res" | grep -qF -- "${want#-}" || { ok; return; } ;;
		esac
		sleep 0.5
		i=$((i + 1))
	done
	bad "$name: after 60 s, $q gives: $res"
}

if ! command -v prometheus >/dev/null 2>&1; then
	bad "prometheus is not installed (tools/install-deps.sh installs it)"
	finish
fi
CPL_CERT_SANS="IP:127.0.0.1" sh deploy/make-cert.sh "$tmp/c" >/dev/null ||
	bad "make-cert.sh failed"
apiserver_start --deny get:nodes/proxy --timeout 200 || finish
trap cleanup EXIT	# apiserver_start set its own EXIT trap
export KUBECONFIG=$APISERVER_DIR/kubeconfig
PORT=$(free_port)
"$BIN" serve --listen "127.0.0.1:$PORT" --tls-cert-file "$tmp/c/tls.crt" \
	--tls-private-key-file "$tmp/c/tls.key" --audit-interval 1h \
	--kubeconfig "$KUBECONFIG" 2>"$tmp/serve.log" &
SERVE_PID=$!

PROM_PORT=$(free_port)
PROM="http://127.0.0.1:$PROM_PORT"
cat > "$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: cpulint
    scheme: https
    tls_config:
      ca_file: $tmp/c/ca.crt
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
YML
prometheus --config.file="$tmp/prometheus.yml" \
	--storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" \
	>"$tmp/prometheus.log" 2>&1 &
PROM_PID=$!

# The audit read the cluster, and Prometheus scraped it over HTTPS.
until_query "scraped" 'up{job="cpulint"}' "+ 1"
until_query "audit up" 'cpulint_audit_up' "+ 1"
until_query "fixture findings" 'cpulint_findings{namespace="ml",owner="train-0",rule="CPU401"}' \
	"+container=pytorch,namespace=ml,owner=train-0,owner_kind=pod,rule=CPU401,severity=error 1"
until_query "budget" 'cpulint_budget_cpus{owner="train-0"}' "+owner=train-0,owner_kind=pod 8"

# Created: the worst owner.
WORST='topk(3, sum by (namespace, owner_kind, owner) (cpulint_findings{severity="error"}))'
expect "kubectl create hog" 0 kubectl create -f testdata/serve/hog-pod.yaml
until_query "hog is the worst" "topk(1, sum by (namespace, owner_kind, owner) (cpulint_findings{severity=\"error\"}))" \
	"+namespace=ml,owner=hog,owner_kind=pod 6"
res=$(promql "$WORST")
all=$res
has "worst owners list" "namespace=ml,owner=hog,owner_kind=pod 6"
has "worst owners list" "namespace=ml,owner=train-0,owner_kind=pod"
until_query "hog's ranks" 'cpulint_ranks{owner="hog",container="b"}' "+ 4"

# Changed: fixed, its errors go; its budget stays.
expect "kubectl replace hog" 0 kubectl replace -f testdata/serve/hog-pod-fixed.yaml
until_query "hog's errors gone" 'cpulint_findings{owner="hog"}' "-owner=hog"
until_query "hog's threads" 'cpulint_planned_threads{owner="hog",container="a"}' "+ 2"
until_query "hog's budget stays" 'cpulint_budget_cpus{owner="hog",container="c"}' "+ 4"

# Deleted: every series of it goes.
expect "kubectl delete hog" 0 kubectl delete pod hog --wait=false
until_query "hog gone" '{owner="hog"}' "-owner=hog"
until_query "train-0 stays" 'cpulint_findings{owner="train-0",rule="CPU401"}' "+owner=train-0"

kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
check "serve stops on SIGTERM with 0" [ $? = 0 ]
SERVE_PID=
finish
