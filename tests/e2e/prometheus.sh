#!/bin/sh
# Measurements from a real Prometheus (Debian's prometheus package, see
# tools/install-deps.sh) through the real plugin path: the binary runs on
# 127.0.0.1 with its own configuration and data directory (never as the
# system service), scrapes testdata/prometheus/exporter.py every second
# (cAdvisor-shaped series with a known throttled share, CPU use and thread
# count per container), and `kubectl cpulint --prometheus` against the
# fake API server, which denies nodes/proxy, must report those values
# within a tolerance.  It also checks one query per metric per namespace,
# a Prometheus error as one line and exit 2, and the token file.
set -u
BIN=${BIN:?}
SUITE=prometheus
root=$(pwd)
pass=0 fail=0
tmp=$(mktemp -d)
PROM_PID= EXP_PID=
cleanup() {
	[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
	[ -n "$EXP_PID" ] && kill "$EXP_PID" 2>/dev/null && wait "$EXP_PID" 2>/dev/null
	apiserver_stop
	rm -rf "$tmp"
}
. tests/lib.sh
. tests/live/apiserver.sh
trap cleanup EXIT

if ! command -v prometheus >/dev/null 2>&1; then
	bad "prometheus is not installed (tools/install-deps.sh installs it)"
	finish
fi

# The exporter: train-0 throttled 42%, 7.9 CPUs, 97 threads; train-1
# 37%, 3.0 CPUs, 260 threads; a pod in another namespace; absurd figures
# for weird-0 and weird-1 (testdata/apiserver/fixtures/measure); young-0,
# 4 CPUs from BIRTH, a few seconds after the exporter starts (and the fake
# API server says it started then).
BIRTH=$(($(date +%s) + 4))
python3 testdata/prometheus/exporter.py --port-file "$tmp/exporter.port" \
	--timeout 240 \
	--container ml/train-0/pytorch=0.42,7.9,97 \
	--container ml/train-1/pytorch=0.37,3.0,260 \
	--container serving/tokenizer-5d8f7c9b6d-q7x2k/tokenizer=0.05,0.5,12 \
	--container ml/weird-0/train=9.99,1e300,2.5 \
	--container ml/weird-1/train=0.3,inf,1e9 \
	--container "ml/young-0/train=0.2,4.0,12@$BIRTH" &
EXP_PID=$!
i=0
while [ ! -s "$tmp/exporter.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/exporter.port" ] || { bad "the exporter did not start"; finish; }
EXP_PORT=$(cat "$tmp/exporter.port")

PROM_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: cadvisor
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:$EXP_PORT"]
  - job_name: prometheus
    static_configs:
      - targets: ["127.0.0.1:$PROM_PORT"]
YML
prometheus --config.file="$tmp/prometheus.yml" \
	--storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" \
	>"$tmp/prometheus.log" 2>&1 &
PROM_PID=$!
PROM="http://127.0.0.1:$PROM_PORT"

# Wait for a few scrapes: a rate over the window needs the window filled
# (the tests use 10 s windows), so 14 one-second scrapes.
i=0
while [ $i -lt 60 ]; do
	n=$(curl -s "$PROM/api/v1/query" --data-urlencode \
		'query=count_over_time(container_threads{pod="train-0",container="pytorch"}[1m])' |
		python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else 0)' 2>/dev/null)
	[ "${n:-0}" -ge 14 ] 2>/dev/null && break
	sleep 1
	i=$((i + 1))
done
[ "${n:-0}" -ge 14 ] 2>/dev/null && ok || { bad "prometheus has no scrapes after 60 s"; tail -5 "$tmp/prometheus.log"; finish; }

apiserver_start --deny get:nodes/proxy --fixtures default --fixtures measure --started "ml/young-0=$BIRTH" --timeout 200 || { bad "the fake API server"; finish; }
trap cleanup EXIT	# apiserver_start set its own EXIT trap
D=$APISERVER_DIR
mkdir -p "$tmp/bin" "$tmp/home"
cp "$BIN" "$tmp/bin/kubectl-cpulint"
export PATH="$tmp/bin:$PATH" HOME="$tmp/home"
unset KUBECONFIG CPULINT_PROMETHEUS_URL

# 1. text, through kubectl: the measured line from Prometheus, no
# nodes/proxy note (the kubelets are not read at all)
: > "$D/requests.jsonl"
# (a 10 s window: over 5 s a loaded machine's late scrapes left a rate
# with fewer than two samples, and the measured line out)
expect text 1 kubectl cpulint pod/train-0 --kubeconfig "$D/kubeconfig" --prometheus "$PROM" --window 10s
# measured_near NAME THREADS CPUS PCT: $all has a measured line within the
# JSON check's tolerance (a CPU within 0.2, a point of throttling): under
# load a scrape comes late and rate() over 10 s moves that much.
measured_near() {
	printf '%s\n' "$all" | python3 -c '
import re, sys
t, c, p = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
m = re.findall(r"measured \(prometheus, 10 s\): (\d+) threads, ([0-9.]+) CPUs used, throttled (\d+)% of periods", sys.stdin.read())
assert any(a == t and abs(float(b) - c) <= 0.2 and abs(int(q) - p) <= 1 for a, b, q in m), m
' "$2" "$3" "$4" && ok || { bad "$1: no measured line near $2 threads, $3 CPUs, $4%"; printf '%s\n' "$all" | grep measured; }
}
measured_near text 97 7.9 42
if printf '%s\n' "$all" | grep -qE "throttled in 4[123]\.[0-9]% of CFS periods over the last 10s \(from Prometheus; threshold 10%\) \[CPU501 cpu-throttled\]"; then ok; else bad "text: no CPU501 line near 42%"; fi
has text "[CPU503 cpu-limit-bound]"
lacks text "nodes/proxy"
if grep -q 'nodes/' "$D/requests.jsonl"; then bad "the kubelets were read"; else ok; fi

# 2. JSON, both pods of the PyTorchJob and the one in another namespace,
# from the environment variable: values within a tolerance
expect json 1 env CPULINT_PROMETHEUS_URL="$PROM" "$BIN" --kubeconfig "$D/kubeconfig" --window 10s -o json -A
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = {(x["object"], x["container"]): x for x in d["budgets"]}
def near(a, b, tol):
    assert a is not None and abs(a - b) <= tol, (a, b)
m = b[("pod/ml/train-0", "pytorch")]["measured"]
assert m["source"] == "prometheus" and m["window_s"] == 10, m
near(m["threads"], 97, 0); near(m["cpu_used"], 7.9, 0.2); near(m["throttled_pct"], 42, 1)
m = b[("pod/ml/train-1", "pytorch")]["measured"]
near(m["threads"], 260, 0); near(m["cpu_used"], 3.0, 0.1); near(m["throttled_pct"], 37, 1)
rules = {(f["object"], f["rule"]) for f in d["findings"]}
assert ("pod/ml/train-1", "CPU502") in rules, rules
assert ("pod/ml/train-0", "CPU502") not in rules, rules
assert ("pod/ml/train-0", "CPU503") in rules and ("pod/ml/train-1", "CPU503") not in rules, rules
' && ok || bad "json measurements from prometheus"

# 3. one query per metric per namespace, not one per container: two
# pods in one namespace cost three queries (the count read before is
# itself counted once it has answered)
queries() {
	curl -s "$PROM/api/v1/query" --data-urlencode \
		'query=sum(prometheus_http_requests_total{handler="/api/v1/query"})' |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])'
}
sleep 3
q0=$(queries)
expect selector 1 kubectl cpulint -l app=resnet --kubeconfig "$D/kubeconfig" --prometheus "$PROM" --window 10s
measured_near selector 260 3.0 37
sleep 3
q1=$(queries)
d=$((q1 - q0))
[ "$d" -ge 3 ] && [ "$d" -le 4 ] && ok || bad "two pods in one namespace took $d queries"

# 3b. Out-of-range figures are unknown, never warnings: a throttled share
# of 9.99, 1e300 CPUs, 2.5 threads (weird-0); NaN CPUs (a counter at
# +Inf) and 1e9 threads (weird-1), each with a note naming the query, in
# -v and in the JSON measured notes.
expect range 1 "$BIN" --kubeconfig "$D/kubeconfig" --prometheus "$PROM" --window 10s -v -o json -n ml -l app=measure
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = {x["object"]: x["measured"] for x in d["budgets"]}
w0, w1 = b["pod/ml/weird-0"], b["pod/ml/weird-1"]
assert w0["throttled_pct"] is None and w0["cpu_used"] is None, w0
assert w0["threads"] is None, w0
n = "\n".join(w0["notes"])
assert "throttled share unknown: Prometheus answered 9.99 for rate(container_cpu_cfs_throttled_periods_total[10s]) / rate(container_cpu_cfs_periods_total[10s])" in n, n
assert "for rate(container_cpu_usage_seconds_total[10s]) (above 8192, more CPUs than any machine has)" in n, n
assert "threads unknown: Prometheus answered 2.5 for max_over_time(container_threads[10s]) (not a whole number of threads)" in n, n
assert w1["cpu_used"] is None and w1["threads"] is None, w1
assert abs(w1["throttled_pct"] - 30) < 1, w1
n = "\n".join(w1["notes"])
assert "CPU used unknown: Prometheus answered NaN" in n and "above 4194304" in n, n
rules = {(f["object"], f["rule"]) for f in d["findings"]}
assert not {r for o, r in rules if o == "pod/ml/weird-0"} & {"CPU501", "CPU502", "CPU503"}, rules
assert ("pod/ml/weird-1", "CPU501") in rules and ("pod/ml/weird-1", "CPU503") not in rules, rules
' && ok || bad "range: out-of-range figures from Prometheus"
has range "kubectl-cpulint: pod/ml/weird-0[train]: measured: throttled share unknown: Prometheus answered 9.99 for rate(container_cpu_cfs_throttled_periods_total[10s])"
lacks range "999.0%"

# 3c. A container that started moments ago: rate() over --window 1m would
# dilute it (it has run some 20 s); its window is clamped to the time it
# has run, and the figures and the text say so.
expect young 1 "$BIN" --kubeconfig "$D/kubeconfig" --prometheus "$PROM" --window 1m -o json pod/young-0 -n ml
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = d["budgets"][0]["measured"]
assert 5 <= m["window_s"] < 60, m
# (not 4.0 exactly: Prometheus sees a new series a scrape or two late)
assert 3.0 < m["cpu_used"] < 4.6, m
assert m["threads"] == 12 and abs(m["throttled_pct"] - 20) < 1, m
assert any("it has run" in n and "not the 60 s of --window" in n for n in m["notes"]), m
' && ok || { bad "young: window not clamped to the time it has run"; printf '%s\n' "$out" | grep -A8 '"measured"'; }
expect young-text 1 "$BIN" --kubeconfig "$D/kubeconfig" --prometheus "$PROM" --window 1m pod/young-0 -n ml
has young-text "    measured (prometheus, over the "
has young-text " s it has run): 12 threads, "
has young-text "s it has run (from Prometheus; threshold 10%) [CPU501 cpu-throttled]"

# 4. Prometheus answers an error (a window it cannot parse cannot happen:
# ask a path that is not Prometheus): one line, exit 2, findings kept
expect prom-404 2 "$BIN" --kubeconfig "$D/kubeconfig" --prometheus "$PROM/nothing" pod/train-0
[ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && ok || bad "prom-404: not one line: $err"
has prom-404 "prometheus $PROM/nothing: HTTP 404"
has prom-404 "[CPU401 cpu-oversubscribed]"

# 5. a bearer token from a file is sent (Prometheus ignores it) and
# never printed
printf 'sekrit-token\n' > "$tmp/token"
expect token 1 "$BIN" --kubeconfig "$D/kubeconfig" --prometheus "$PROM" --prometheus-token-file "$tmp/token" --window 10s pod/train-1
has token "260 threads"
lacks token "sekrit"
expect token-missing 2 "$BIN" --kubeconfig "$D/kubeconfig" --prometheus "$PROM" --prometheus-token-file "$tmp/none" pod/train-1
has token-missing "--prometheus-token-file"
# A CR LF inside the token would add request headers: refused, one line
# naming the file, never the token; the findings from the spec stay.
printf 'sekrit-token\r\nX-Evil: injected\r\n' > "$tmp/token-crlf"
expect token-crlf 2 "$BIN" --kubeconfig "$D/kubeconfig" --prometheus "$PROM" --prometheus-token-file "$tmp/token-crlf" --window 10s pod/train-1
[ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && ok || bad "token-crlf: not one line: $err"
has token-crlf "--prometheus-token-file $tmp/token-crlf: the token holds a control character"
lacks token-crlf "sekrit"
lacks token-crlf "X-Evil"
lacks token-crlf "measured ("
finish
