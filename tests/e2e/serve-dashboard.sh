#!/bin/sh
# deploy/grafana-dashboard.json and deploy/prometheus-rules.y*ml against
# a real Prometheus (Debian's, started here on 127.0.0.1, never the
# system service) that scrapes a real serve (--leader-elect, measuring
# through the fake API server's kubelets with --node-proxy) and loads the
# rules file: every panel's query returns data, the namespace variable's
# label_values lists the fixtures' namespace, every alert expression
# evaluates without error (and the two that the fixtures trip are
# pending), the rules pass `promtool check rules`, and the
# PrometheusRule holds the plain file's groups exactly.  Waits are
# bounded polls (Prometheus scrapes and evaluates every second).
set -u
BIN=${BIN:?}
SUITE=serve-dashboard
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

if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
	bad "prometheus and promtool are not installed (tools/install-deps.sh installs them)"
	finish
fi

# ---- the rules files, offline ----
expect "promtool check rules (plain file)" 0 promtool check rules deploy/prometheus-rules.yml
has "promtool check rules (plain file)" "SUCCESS"
expect "PrometheusRule = the plain file" 0 python3 - deploy/prometheus-rules.yaml deploy/prometheus-rules.yml "$tmp/from-crd.yml" <<'PY'
import sys, yaml
crd = yaml.safe_load(open(sys.argv[1]))
plain = yaml.safe_load(open(sys.argv[2]))
assert crd["apiVersion"] == "monitoring.coreos.com/v1", crd["apiVersion"]
assert crd["kind"] == "PrometheusRule"
assert crd["spec"] == plain, "the PrometheusRule's groups differ from the plain file's"
yaml.safe_dump(crd["spec"], open(sys.argv[3], "w"))
print("same %d groups" % len(plain["groups"]))
PY
expect "promtool check rules (PrometheusRule's groups)" 0 promtool check rules "$tmp/from-crd.yml"

# ---- a real serve, scraped by a real Prometheus ----
CPL_CERT_SANS="IP:127.0.0.1" sh deploy/make-cert.sh "$tmp/c" >/dev/null ||
	bad "make-cert.sh failed"
apiserver_start --timeout 200 || finish
trap cleanup EXIT	# apiserver_start set its own EXIT trap
export KUBECONFIG=$APISERVER_DIR/kubeconfig
PORT=$(free_port)
POD_NAME=cpulint-0 POD_NAMESPACE=cpulint-system "$BIN" serve \
	--listen "127.0.0.1:$PORT" --tls-cert-file "$tmp/c/tls.crt" \
	--tls-private-key-file "$tmp/c/tls.key" --audit-interval 1h \
	--node-proxy --leader-elect --kubeconfig "$KUBECONFIG" \
	2>"$tmp/serve.log" &
SERVE_PID=$!
PROM_PORT=$(free_port)
PROM="http://127.0.0.1:$PROM_PORT"
cat > "$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $PWD/deploy/prometheus-rules.yml
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

# Reviews for the admission panel: one allowed, one refused as invalid,
# once serve listens (on a loaded machine it may take seconds: sent at
# once, they were refused now and then).
wait_listening "$tmp/serve.log" "$SERVE_PID" ||
	bad "serve did not start: $(head -3 "$tmp/serve.log")"
python3 - "$PORT" "$tmp/c/ca.crt" <<'PY' || bad "reviews not sent"
import json, ssl, sys, urllib.request, urllib.error
ctx = ssl.create_default_context(cafile=sys.argv[2])
url = "https://127.0.0.1:%s/validate" % sys.argv[1]
good = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {"uid": "u1", "operation": "CREATE",
                    "kind": {"group": "", "version": "v1", "kind": "Pod"},
                    "namespace": "ml",
                    "object": {"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"name": "x", "namespace": "ml"},
                               "spec": {"containers": [
                                   {"name": "c", "image": "i"}]}}}}
for body in (json.dumps(good).encode(), b"not json"):
    rq = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(rq, context=ctx, timeout=10).read()
    except urllib.error.HTTPError:
        pass
PY

# The queries, run by one Python that polls each (at most 60 s) until
# it returns data; prints "ok NAME" or "FAIL NAME: why" per query.
python3 - "$PROM" deploy/grafana-dashboard.json deploy/prometheus-rules.yml > "$tmp/queries.txt" <<'PY'
import json, sys, time, urllib.parse, urllib.request
import yaml
prom, dash_file, rules_file = sys.argv[1:4]

def get(path, **params):
    url = prom + path + "?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=10) as f:
        return json.load(f)

def query(expr):
    try:
        return get("/api/v1/query", query=expr)
    except Exception as e:     # a 400 is a bad expression
        body = getattr(e, "read", lambda: b"")().decode(errors="replace")
        return {"status": "error", "error": "%s %s" % (e, body)}

def until_data(name, expr, deadline):
    last = None
    while True:
        last = query(expr)
        if last.get("status") == "success" and last["data"]["result"]:
            print("ok %s" % name)
            return
        if time.time() > deadline:
            print("FAIL %s: %s gives %s" % (name, expr,
                                            json.dumps(last)[:300]))
            return
        time.sleep(0.5)

dash = json.load(open(dash_file))
start = time.time()
deadline = start + 60
# The panels' variables as Grafana replaces them: All namespaces, a
# rate interval of four scrapes.
subst = {"$namespace": ".*", "$__rate_interval": "4s"}
ids, n = set(), 0
for p in dash["panels"]:
    assert p["id"] not in ids, "duplicate panel id %s" % p["id"]
    ids.add(p["id"])
    assert "gridPos" in p, p["title"]
    for t in p.get("targets", []):
        expr = t["expr"]
        for k, v in subst.items():
            expr = expr.replace(k, v)
        assert "$" not in expr.replace("$labels", ""), expr
        until_data("panel %r %s" % (p["title"], t["refId"]), expr, deadline)
        n += 1
print("ok %d panel queries" % n if n >= 10 else "FAIL only %d queries" % n)
# The namespace variable: label_values(cpulint_findings, namespace).
ns = get("/api/v1/label/namespace/values", **{"match[]": "cpulint_findings"})
print("ok namespace variable" if "ml" in ns["data"] else
      "FAIL namespace variable: %s" % ns)
# Every alert expression parses and evaluates.
rules = [r for g in yaml.safe_load(open(rules_file))["groups"]
         for r in g["rules"]]
for r in rules:
    res = query(r["expr"])
    print("ok alert %s evaluates" % r["alert"] if res.get("status") ==
          "success" else "FAIL alert %s: %s" % (r["alert"], res))
# Prometheus loaded them and evaluated each without error; the fixtures'
# oversubscribed and throttled jobs make those two pending.
want = {"CpulintTrainingOversubscribed", "CpulintTrainingThrottled"}
while True:
    got = get("/api/v1/rules")["data"]["groups"]
    loaded = {r["name"]: r for g in got for r in g["rules"]}
    done = (len(loaded) == len(rules) and
            all(r.get("lastEvaluation", "").startswith("20") and
                not r["lastEvaluation"].startswith("0001")
                for r in loaded.values()) and
            all(loaded[w]["state"] == "pending" for w in want))
    if done or time.time() > deadline + 30:
        break
    time.sleep(0.5)
for r in rules:
    got = loaded.get(r["alert"])
    if got is None:
        print("FAIL alert %s not loaded" % r["alert"])
    elif got["health"] != "ok":
        print("FAIL alert %s: health %s %s" % (r["alert"], got["health"],
                                              got.get("lastError")))
    else:
        print("ok alert %s loaded, health ok" % r["alert"])
for w in sorted(want):
    st = loaded.get(w, {}).get("state")
    print("ok %s pending" % w if st == "pending" else
          "FAIL %s: state %s" % (w, st))
for name in ("CpulintAuditDown", "CpulintNoAuditLeader",
             "CpulintTwoAuditLeaders"):
    st = loaded.get(name, {}).get("state")
    print("ok %s inactive" % name if st == "inactive" else
          "FAIL %s: state %s" % (name, st))
PY
while read -r line; do
	case $line in
	ok*) ok ;;
	*) bad "$line" ;;
	esac
done < "$tmp/queries.txt"
check "queries ran" [ -s "$tmp/queries.txt" ]

kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
check "serve stops on SIGTERM with 0" [ $? = 0 ]
SERVE_PID=
finish
