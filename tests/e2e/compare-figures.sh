#!/bin/sh
# What `compare` does with Prometheus's answers (issue 40, points 1, 13,
# 14, 17, 18), against the fake API server and a fake Prometheus
# (testdata/prometheus/fakeprom.py) on 127.0.0.1 that answers what a
# real one would not:
#
#   out of range   a throttled share of 99900%, a wait of 5000%, 1e308
#                  examples/s, a thread count of "abc": each unknown,
#                  said once per figure, never ranked;
#   covered time   CPU use of a container whose samples cover 100 s of
#                  its 265 s life is the counter's increase over 100 s
#                  (3.9 CPUs), not over the window (1.47);
#   time limits    --request-timeout bounds each query, --live-timeout
#                  the run;
#   no figures     nothing to compare: said, exit 2;
#   inputs         --output-file naming --fix FILE or --diff FILE is
#                  refused before anything is read.
set -u
BIN=${BIN:?}
SUITE=compare-figures
tmp=$(mktemp -d)
PROM_PID=
cleanup() {
	[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
	apiserver_stop
	rm -rf "$tmp"
}
. tests/lib.sh
. tests/live/apiserver.sh
trap cleanup EXIT

END=$(($(date +%s) - 60))
BIRTH=$((END - 265))
mkdir "$tmp/fx"
# Two runs of plan p1 in namespace fig (t2-w2, t4-w2: 8 CPUs each), one
# run in namespace none (Prometheus knows nothing of it).
python3 - "$tmp/fx" "$BIRTH" "$END" <<'PY'
import json, sys, time
fx, birth, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
stamp = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
for ns, name, threads, workers in (("fig", "fig-a", 2, 2), ("fig", "fig-b", 4, 2), ("none", "none-a", 2, 2)):
    setting = "t%d-w%d" % (threads, workers)
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": ns, "uid": "u-" + name,
                        "labels": {"cpulint.io/plan": "p1", "cpulint.io/setting": setting}},
           "spec": {"nodeName": "n1", "restartPolicy": "Never", "containers": [{
               "name": "pytorch", "image": "pytorch/pytorch:2.3.1",
               "command": ["python", "train.py", "--workers", str(workers)],
               "env": [{"name": "OMP_NUM_THREADS", "value": str(threads)},
                       {"name": "MKL_NUM_THREADS", "value": str(threads)}],
               "resources": {"limits": {"cpu": "8"}, "requests": {"cpu": "8"}}}]},
           "status": {"phase": "Succeeded", "startTime": stamp(birth),
                      "containerStatuses": [{"name": "pytorch", "ready": False, "restartCount": 0,
                          "image": "pytorch/pytorch:2.3.1",
                          "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                              "startedAt": stamp(birth), "finishedAt": stamp(end)}}}]}}
    json.dump(pod, open("%s/%s-pod-%s.json" % (fx, ns, name), "w"), indent=1)
PY
# The answers.  fig-a: absurd figures; its CPU samples cover the last
# 100 s of its life at 3.9 CPUs (a real Prometheus's rate() over the
# window says 3.9 x 100 / 265 = 1.47).  fig-b: sane figures.
python3 - "$tmp/answers.json" "$END" <<'PY'
import json, sys
out, end = sys.argv[1], int(sys.argv[2])
def vec(v): return [{"metric": {}, "value": [end, v]}]
a = 'namespace="fig",pod="fig-a"'
b = 'namespace="fig",pod="fig-b"'
cpu_a = [[end - 100 + 10 * i, "%g" % (3.9 * 10 * i)] for i in range(11)]
cpu_b = [[end - 265 + 5 * i, "%g" % (6.0 * 5 * i)] for i in range(54)]
rules = [
    {"match": "slow_metric", "result": vec("1"), "delay": 8},
    {"match": "rate(container_cpu_usage_seconds_total{" + a, "result": vec("1.47")},
    {"match": "container_cpu_usage_seconds_total{" + a, "type": "matrix",
     "result": [{"metric": {"cpu": "total"}, "values": cpu_a}]},
    {"match": "rate(container_cpu_usage_seconds_total{" + b, "result": vec("6")},
    {"match": "container_cpu_usage_seconds_total{" + b, "type": "matrix",
     "result": [{"metric": {"cpu": "total"}, "values": cpu_b}]},
    {"match": "container_cpu_cfs_throttled_periods_total{" + a, "result": vec("99900")},
    {"match": "container_cpu_cfs_throttled_periods_total{" + b, "result": vec("5")},
    {"match": "container_threads{" + a, "result": vec("abc")},
    {"match": "container_threads{" + b, "result": vec("20")},
    {"match": 'examples{pod="fig-a"}', "result": vec("1e308")},
    {"match": 'examples{pod="fig-b"}', "result": vec("500")},
    {"match": 'wait{pod="fig-a"}', "result": vec("50")},
    {"match": 'wait{pod="fig-b"}', "result": vec("0.1")},
]
json.dump(rules, open(out, "w"))
PY
python3 testdata/prometheus/fakeprom.py --port-file "$tmp/prom.port" \
	--answers "$tmp/answers.json" --log "$tmp/queries.jsonl" --timeout 120 &
PROM_PID=$!
i=0
while [ ! -s "$tmp/prom.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/prom.port" ] || { bad "the fake Prometheus did not start"; finish; }
PROM="http://127.0.0.1:$(cat "$tmp/prom.port")"
apiserver_start --fixtures "$tmp/fx" --timeout 120 || { bad "the fake API server"; finish; }
trap cleanup EXIT
D=$APISERVER_DIR
K="--kubeconfig $D/kubeconfig --prometheus $PROM"
TP='sum(examples{pod="$pod"})'
WT='sum(wait{pod="$pod"})'

# 1. out of range: unknown, said once per figure, never ranked
expect range 0 "$BIN" compare $K -n fig -l cpulint.io/plan=p1 --throughput "$TP" --wait "$WT" -o json
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = {r["setting"]: r for r in d["rows"]}
a, b = rows["t2-w2"], rows["t4-w2"]
assert a["throttled_pct"] is None and a["wait_pct"] is None, a
assert a["examples_per_s"] is None and a["threads_measured"] is None, a
assert b["throttled_pct"] == 5 and b["examples_per_s"] == 500 and b["threads_measured"] == 20, b
assert d["best"] == "t4-w2", d["best"]
' && ok || { bad "range: the table"; printf '%s\n' "$out" | head -40; }
has range "kubectl-cpulint compare: pod/fig/fig-a: prometheus answered a throttled share of 99900, outside 0 to 100%: unknown"
has range "pod/fig/fig-a: prometheus answered a loader wait (--wait) of 5000, outside 0 to 100% of the time: unknown"
has range "pod/fig/fig-a: prometheus answered a throughput (--throughput) of 1e+308, outside 0 to 1e12 a second: unknown"
has range "pod/fig/fig-a: prometheus answered a thread count that is not a number: unknown"
check range-once [ "$(printf '%s\n' "$err" | grep -c 'throttled share')" = 1 ]

# 2. CPU use over the time the samples cover
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = {r["setting"]: r for r in d["rows"]}
assert abs(rows["t2-w2"]["cpu_used"] - 3.9) < 0.01, rows["t2-w2"]
assert abs(rows["t4-w2"]["cpu_used"] - 6.0) < 0.01, rows["t4-w2"]
assert rows["t2-w2"]["window_s"] == 265, rows["t2-w2"]
' && ok || { bad "covered: CPU used"; printf '%s\n' "$out" | head -30; }

# 3. --request-timeout bounds a query; --live-timeout the run
t0=$(date +%s)
expect request-timeout 2 "$BIN" compare $K -n fig -l cpulint.io/plan=p1 --throughput 'slow_metric{pod="$pod"}' --request-timeout 2s
t1=$(date +%s)
[ $((t1 - t0)) -lt 6 ] && ok || bad "--request-timeout 2s: $((t1 - t0)) s"
has request-timeout "prometheus $PROM: timeout: connected, but no answer"
t0=$(date +%s)
expect live-timeout 2 "$BIN" compare $K -n fig -l cpulint.io/plan=p1 --throughput 'slow_metric{pod="$pod"}' --live-timeout 2s
t1=$(date +%s)
[ $((t1 - t0)) -lt 6 ] && ok || bad "--live-timeout 2s: $((t1 - t0)) s"
has live-timeout "run's time limit (--live-timeout)"

# 4. no figures: nothing to compare
expect nothing 2 "$BIN" compare $K -n none -l cpulint.io/plan=p1
has nothing "kubectl-cpulint compare: Prometheus has no figure for any run: nothing to compare"
lacks nothing "SETTING"

# 5. the table never replaces the file --fix or --diff keeps the
# setting in (by any name), and nothing is asked of anyone first
cp testdata/plan/pytorchjob.yaml "$tmp/job.yaml"
ln -s "$tmp/job.yaml" "$tmp/link.yaml"
: > "$tmp/queries.jsonl"
expect fix-output 2 "$BIN" compare $K -n fig -l cpulint.io/plan=p1 --fix "$tmp/job.yaml" --output-file "$tmp/link.yaml"
has fix-output "--output-file $tmp/link.yaml is $tmp/job.yaml, an input of this run"
check fix-output-kept cmp -s testdata/plan/pytorchjob.yaml "$tmp/job.yaml"
check fix-output-no-query [ ! -s "$tmp/queries.jsonl" ]
expect diff-output 2 "$BIN" compare $K -n fig -l cpulint.io/plan=p1 --diff "$tmp/job.yaml" --output-file "$tmp/job.yaml"
check diff-output-kept cmp -s testdata/plan/pytorchjob.yaml "$tmp/job.yaml"
# nor the .cpulint.yaml the lint of FILE reads
mkdir "$tmp/cfg"
cp testdata/plan/pytorchjob.yaml "$tmp/cfg/job.yaml"
printf 'rules:\n  CPU102: off\n' > "$tmp/cfg/.cpulint.yaml"
cp "$tmp/cfg/.cpulint.yaml" "$tmp/cfg.orig"
expect fix-output-config 2 "$BIN" compare $K -n fig -l cpulint.io/plan=p1 --throughput "$TP" --fix "$tmp/cfg/job.yaml" --output-file "$tmp/cfg/.cpulint.yaml"
has fix-output-config "--output-file $tmp/cfg/.cpulint.yaml is the configuration the lint of $tmp/cfg/job.yaml reads"
check fix-output-config-kept cmp -s "$tmp/cfg.orig" "$tmp/cfg/.cpulint.yaml"

# 6. compare --fix edits a command written as a block sequence or as a
# multi-line JSON array (issue 40, point 16): the best (t4-w2) kept
cat > "$tmp/block.yaml" <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: block}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: pytorch/pytorch:2.3.1
            command:
            - python
            - train.py
            - --workers
            - "6"
            env:
            - name: OMP_NUM_THREADS
              value: "1"
            resources:
              limits: {cpu: "8"}
YAML
expect fix-block 0 "$BIN" compare $K -n fig -l cpulint.io/plan=p1 --throughput "$TP" --fix "$tmp/block.yaml"
has fix-block "block.yaml: kept t4-w2 in 1 training container(s)"
check fix-block-workers grep -q '^            - "2"$' "$tmp/block.yaml"
check fix-block-threads grep -q '^              value: "4"' "$tmp/block.yaml"
check fix-block-flag grep -q '^            - --workers$' "$tmp/block.yaml"
python3 - "$tmp/json.json" <<'PY'
import json, sys
job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "json"},
       "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1, "template": {"spec": {"containers": [{
           "name": "pytorch", "image": "pytorch/pytorch:2.3.1",
           "command": ["python", "train.py", "--workers", "6"],
           "env": [{"name": "OMP_NUM_THREADS", "value": "1"}],
           "resources": {"limits": {"cpu": "8"}}}]}}}}}}
open(sys.argv[1], "w").write(json.dumps(job, indent=2) + "\n")
PY
expect fix-json 0 "$BIN" compare $K -n fig -l cpulint.io/plan=p1 --throughput "$TP" --fix "$tmp/json.json"
has fix-json "json.json: kept t4-w2 in 1 training container(s)"
python3 - "$tmp/json.json" <<'PY' && ok || bad "fix-json: the values"
import json, sys
c = json.load(open(sys.argv[1]))["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]
assert c["command"] == ["python", "train.py", "--workers", "2"], c["command"]
assert {"name": "OMP_NUM_THREADS", "value": "4"} in c["env"], c["env"]
PY

finish
