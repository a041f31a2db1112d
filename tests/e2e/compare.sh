#!/bin/sh
# kubectl cpulint compare, end to end with real parts: `plan --jobs`
# writes the sweep of testdata/plan/pytorchjob.yaml; each manifest
# becomes the Pod its PyTorchJob would run (settings in its spec, the
# cpulint.io labels, a start and an end), served by the fake API server
# in three namespaces; a real Prometheus (Debian's package, run on
# 127.0.0.1 with its own data directory) scrapes
# testdata/prometheus/exporter.py, whose per-Pod series model the
# guidance's cases:
#
#   sweep-a  more workers raise throttling from 4% to 31% with no more
#            throughput (800 → 805 examples/s): keep 2; t4-w2 and t4-w4
#            tie, and the tie goes to fewer workers;
#   sweep-b  a clear winner (t2-w4, 1200 examples/s), and a setting that
#            uses 1.6 of 8 CPUs while the loop waits 45% of the time:
#            look at storage and decoding;
#   sweep-c  every setting of the plan, the workers past the budget
#            (t4-w8, 1100 examples/s) the best and the job as written
#            (t8-w6-current, 350) the worst: the winner's gain over it,
#            the chart in the terminal and as an SVG, one setting's name
#            full of markup (escaped);
#   sweep-d  `plan --jobs --repeat 3`: each setting run three times;
#            t4-w1's second run is an outlier (900 examples/s against
#            560 and 540) that one sweep alone would have crowned: the
#            median of its runs (560) loses to t4-w2's (800), and each
#            row shows its runs and their range.
#
# sweep-a and sweep-b run the plan's six settings inside the budget.
# Without --throughput the ranking is by throttling and says so; the
# Katib experiment of the plan is found by name; JSON carries the table
# and the verdict.
set -u
BIN=${BIN:?}
SUITE=compare
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

# The runs start at BIRTH and end 16 s later; Prometheus must be
# scraping before BIRTH (else the first seconds of each run are not in
# its data and the rates come out low), so BIRTH leaves it MARGIN
# seconds to start: 12, and on a machine so loaded that it was not
# scraping by then, the whole start again with 30 and then 60.
"$BIN" plan --jobs testdata/plan/pytorchjob.yaml > "$tmp/jobs.yaml" 2>/dev/null || bad "plan --jobs"
"$BIN" plan testdata/plan/pytorchjob.yaml > "$tmp/katib.yaml" 2>/dev/null || bad "plan"
"$BIN" plan --jobs --repeat 3 testdata/plan/pytorchjob.yaml > "$tmp/jobs3.yaml" 2>/dev/null || bad "plan --repeat 3"
scraping=
for MARGIN in 12 30 60; do
BIRTH=$(($(date +%s) + MARGIN))
END=$((BIRTH + 16))
rm -rf "$tmp/fx" "$tmp/data" "$tmp/exporter.port"
mkdir "$tmp/fx"
# figures per setting: throttled share, CPUs, threads, examples/s, wait
python3 - "$tmp/jobs.yaml" "$tmp/katib.yaml" "$tmp/fx" "$BIRTH" "$END" "$tmp/jobs3.yaml" > "$tmp/exporter.args" <<'PY'
import json, sys, time, yaml
jobs, katib, fx, birth, end = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
jobs3 = sys.argv[6]
figures = {
    "sweep-a": {"t1-w4": (0.03, 4.9, 14, 420, 0.05), "t2-w4": (0.05, 5.8, 18, 610, 0.05),
                "t4-w0": (0.02, 3.9, 16, 300, 0.15), "t4-w1": (0.03, 5.0, 22, 560, 0.10),
                "t4-w2": (0.04, 6.1, 28, 800, 0.03), "t4-w4": (0.31, 7.9, 40, 805, 0.02)},
    "sweep-b": {"t1-w4": (0.03, 5.0, 14, 610, 0.05), "t2-w4": (0.04, 6.4, 18, 1200, 0.02),
                "t4-w0": (0.01, 1.6, 12, 150, 0.45), "t4-w1": (0.03, 5.2, 22, 640, 0.10),
                "t4-w2": (0.05, 6.0, 28, 700, 0.06), "t4-w4": (0.20, 7.8, 40, 720, 0.03)},
    "sweep-c": {"t1-w4": (0.03, 5.0, 14, 610, 0.05), "t2-w4": (0.04, 6.4, 18, 800, 0.02),
                "t4-w0": (0.01, 3.9, 12, 300, 0.30), "t4-w1": (0.03, 5.2, 22, 640, 0.10),
                "t4-w2": (0.05, 6.0, 28, 700, 0.06), "t4-w4": (0.10, 7.8, 40, 900, 0.03),
                "t4-w8": (0.12, 7.9, 48, 1100, 0.01), "t8-w6-current": (0.62, 8.0, 60, 350, 0.05)},
    # (setting, run): plan --repeat 3
    "sweep-d": {("t4-w1", "1"): (0.03, 5.0, 22, 560, 0.10), ("t4-w1", "2"): (0.03, 5.1, 22, 900, 0.10),
                ("t4-w1", "3"): (0.03, 5.0, 22, 540, 0.10), ("t4-w2", "1"): (0.04, 6.1, 28, 800, 0.03),
                ("t4-w2", "2"): (0.04, 6.0, 28, 790, 0.03), ("t4-w2", "3"): (0.05, 6.2, 28, 810, 0.03)},
}
stamp = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
args = []
for ns, figs in figures.items():
    for job in yaml.safe_load_all(open(jobs3 if ns == "sweep-d" else jobs)):
        if job is None:
            continue
        tmpl = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]
        name = job["metadata"]["name"] + "-master-0"
        setting = tmpl["metadata"]["labels"]["cpulint.io/setting"]
        if ns == "sweep-d":
            setting = (setting, tmpl["metadata"]["labels"].get("cpulint.io/repeat"))
        if setting not in figs:
            continue
        labels = dict(tmpl["metadata"]["labels"])
        if ns == "sweep-c" and setting == "t4-w1":
            labels["cpulint.io/setting"] = 't4-w1<&"x>\x1b[31m'
        labels["training.kubeflow.org/job-name"] = job["metadata"]["name"]
        labels["training.kubeflow.org/replica-type"] = "master"
        spec = json.loads(json.dumps(tmpl["spec"]))
        if ns == "sweep-b" and setting == "t2-w4":
            # a second pool the plan set with this setting (issue 36)
            spec["containers"][0]["env"].append({"name": "OPENBLAS_NUM_THREADS", "value": "3"})
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": ns, "labels": labels,
                            "uid": "0000-%s-%s" % (ns, "-".join(setting) if ns == "sweep-d" else setting)},
               "spec": dict(spec, nodeName="gpu-node-1", restartPolicy="OnFailure"),
               "status": {"phase": "Succeeded", "startTime": stamp(birth),
                          "containerStatuses": [{"name": "pytorch", "ready": False, "restartCount": 0,
                              "image": "pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime",
                              "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                                  "startedAt": stamp(birth), "finishedAt": stamp(end)}}}]}}
        json.dump(pod, open("%s/%s-pod-%s.json" % (fx, ns, name), "w"), indent=1)
        thr, cpus, threads, ex, wait = figs[setting]
        args += ["--container", "%s/%s/pytorch=%s,%s,%s@%d" % (ns, name, thr, cpus, threads, birth),
                 "--app", "%s/%s=%s,%s@%d" % (ns, name, ex, wait, birth)]
exp = next(d for d in yaml.safe_load_all(open(katib)) if d)
exp["metadata"]["namespace"] = "sweep-a"
json.dump(exp, open("%s/sweep-a-experiment.json" % fx, "w"), indent=1)
print(" ".join(args))
PY
# shellcheck disable=SC2046
python3 testdata/prometheus/exporter.py --port-file "$tmp/exporter.port" \
	--timeout 240 $(cat "$tmp/exporter.args") &
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
YML
prometheus --config.file="$tmp/prometheus.yml" \
	--storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" \
	>"$tmp/prometheus.log" 2>&1 &
PROM_PID=$!
PROM="http://127.0.0.1:$PROM_PORT"

up=
while [ "$(date +%s)" -lt "$BIRTH" ]; do
	if curl -s "$PROM/api/v1/query" --data-urlencode 'query=up{job="cadvisor"}' | grep -q '"1"\]'; then
		up=yes
		break
	fi
	sleep 0.2
done
if [ -n "$up" ] && [ "$(date +%s)" -lt "$BIRTH" ]; then
	scraping=yes
	break
fi
echo "compare.sh: Prometheus was not scraping $MARGIN s after the start (a loaded machine); starting again" >&2
kill "$PROM_PID" "$EXP_PID" 2>/dev/null
wait "$PROM_PID" "$EXP_PID" 2>/dev/null
PROM_PID= EXP_PID=
done
[ -n "$scraping" ] && ok || { bad "Prometheus was not scraping before the runs started, even 60 s after the start"; finish; }

apiserver_start --fixtures "$tmp/fx" --timeout 200 || { bad "the fake API server"; finish; }
trap cleanup EXIT	# apiserver_start set its own EXIT trap
D=$APISERVER_DIR

# Wait until the runs have ended and Prometheus holds their whole life.
i=0
while [ $i -lt 90 ]; do
	n=$(curl -s "$PROM/api/v1/query" --data-urlencode \
		"query=count_over_time(train_examples_total{namespace=\"sweep-a\"}[1m])" \
		--data-urlencode "time=$END" | python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(int(min(float(x["value"][1]) for x in r)) if len(r) == 6 else 0)' 2>/dev/null)
	[ "$(date +%s)" -gt $((END + 2)) ] && [ "${n:-0}" -ge 8 ] 2>/dev/null && break
	sleep 1
	i=$((i + 1))
done
[ "${n:-0}" -ge 8 ] 2>/dev/null && ok || { bad "prometheus has no scrapes of the runs ($n)"; curl -s "$PROM/api/v1/query" --data-urlencode "query=count_over_time(train_examples_total[1m])" | head -c 600; head -c 300 "$tmp/exporter.args"; finish; }

K="--kubeconfig $D/kubeconfig --prometheus $PROM"
TP='sum(rate(train_examples_total{namespace="$namespace",pod="$pod"}[$window]))'
WT='sum(rate(train_loader_wait_seconds_total{namespace="$namespace",pod="$pod"}[$window]))'
ID=$(sed -n 's/^ *cpulint.io\/plan: //p' "$tmp/katib.yaml" | head -1)

# 1. sweep-a, JSON: the figures of each run over its life; more workers
# raised throttling without throughput: keep 2; the tie to fewer workers.
expect a-json 0 "$BIN" compare $K -n sweep-a -l "cpulint.io/plan=$ID" --throughput "$TP" --wait "$WT" -o json
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked_by"] == "throughput" and d["best"] == "t4-w2", (d["ranked_by"], d["best"])
rows = {r["setting"]: r for r in d["rows"]}
assert [r["setting"] for r in d["rows"]] == ["t1-w4", "t2-w4", "t4-w0", "t4-w1", "t4-w2", "t4-w4"], list(rows)
def near(a, b, tol): assert a is not None and abs(a - b) <= tol, (a, b)
def rel(a, b): assert a is not None and abs(a - b) <= 0.06 * b, (a, b)
r = rows["t4-w4"]
assert (r["threads"], r["workers"], r["pods"], r["cpu_budget"]) == (4, 4, 1, 8), r
near(r["throttled_pct"], 31, 1); rel(r["cpu_used"], 7.9); rel(r["examples_per_s"], 805)
rel(r["wait_pct"], 2); assert r["threads_measured"] == 40, r
assert r["window_s"] == 16, r
rel(rows["t4-w2"]["examples_per_s"], 800); near(rows["t4-w2"]["throttled_pct"], 4, 1)
kinds = [v["kind"] for v in d["verdict"]]
assert kinds == ["best", "workers"], d["verdict"]
w = d["verdict"][1]["message"]
assert w.startswith("more workers raised throttling from 4% to 31% without raising throughput") and w.endswith(": keep 2"), w
' && ok || { bad "sweep-a: table or verdict"; printf '%s\n' "$out" | head -40; }

# 2. the same as text
expect a-text 0 "$BIN" compare $K -n sweep-a -l "cpulint.io/plan=$ID" --throughput "$TP" --wait "$WT"
has a-text "SETTING          THREADS WORKERS  EXAMPLES/S   WAIT       CPU USED THROTTLED    PODS"
has a-text "  best: t4-w2 (4 threads, 2 workers): "
has a-text "more workers raised throttling from 4% to 31% without raising throughput"
lacks a-text "storage"

# 3. sweep-b: the clear winner, and loading stalls on little CPU
expect b 0 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --wait "$WT"
has b "  best: t2-w4 (2 threads, 4 workers): "
has b "t4-w0 (4 threads, 0 workers): CPU use 1."
has b " of 8 while loading waits 4"
has b "%: look at storage and decoding before adding threads"
lacks b "more workers raised"

# 4. without --throughput: ranked by throttling, then CPU use, said so
expect no-tp 0 "$BIN" compare $K -n sweep-a -l "cpulint.io/plan=$ID"
has no-tp "best: t4-w2 (4 threads, 2 workers), ranked by throttling, then CPU use (no --throughput figure)"
lacks no-tp "more workers raised"

# 5. the Katib experiment by name; jobs by TYPE/NAME
expect experiment 0 "$BIN" compare $K -n sweep-a experiment/resnet-cpulint-threads --throughput "$TP" -o json
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["rows"]) == 6 and d["best"] == "t4-w2" and d["plan"], d
' && ok || bad "experiment/NAME"
expect jobs 0 "$BIN" compare $K -n sweep-b pytorchjob/resnet-t4-w4 pytorchjob/resnet-t2-w4 --throughput "$TP"
has jobs "  best: t2-w4 (2 threads, 4 workers)"
[ "$(printf '%s\n' "$out" | grep -c '^t')" = 2 ] && ok || bad "jobs: not two rows"

# 6b. sweep-c: what the winner gains over the job as written, and the
# chart: text bars (no colour: not a terminal), an SVG that an XML parser
# reads, the same in -o html's page; a name full of markup is escaped.
expect c-text 0 "$BIN" compare $K -n sweep-c -l "cpulint.io/plan=$ID" --throughput "$TP" --wait "$WT" --plot "$tmp/c.svg"
has c-text "  best: t4-w8 (4 threads, 8 workers): "
has c-text "  t4-w8: 3."
has c-text "x your t8-w6 ("
has c-text "chart: examples/s (#) and throttled share of CFS periods (=) per setting"
printf '%s\n' "$out" | grep -q '^  t4-w8  *##############################  *1[0-9][0-9][0-9]\.[0-9]  |=  *|  *1[0-9]%  best$' && ok || { bad "c-text: the best's bar"; printf '%s\n' "$out" | grep -A12 '^chart'; }
printf '%s\n' "$out" | grep -q '^  t8-w6-current  *#\{9,10\}  *3[0-9][0-9]\.[0-9]  |======    |  6[0-9]%$' && ok || bad "c-text: the current setting's bar"
printf '%s' "$out" | grep -q "$(printf '\033')" && bad "c-text: colour without a terminal" || ok
python3 - "$tmp/c.svg" <<'PY' && ok || bad "c: the SVG"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert root.tag == ns + "svg", root.tag
groups = root.findall(ns + "g")
assert len(groups) == 8, len(groups)
best = [g for g in groups if "best" in g.get("class").split()]
assert len(best) == 1 and best[0].find(ns + "text").text == "t4-w8", best
names = [g.find(ns + "text").text for g in groups]
assert 't4-w1<&"x>\ufffd[31m' in names, names
assert all("\x1b" not in n for n in names)
PY
expect c-html 0 "$BIN" compare $K -n sweep-c -l "cpulint.io/plan=$ID" --throughput "$TP" -o html
printf '%s\n' "$out" | python3 -c '
import sys, xml.etree.ElementTree as ET
page = sys.stdin.read()
root = ET.fromstring(page.split("\n", 1)[1])
svg = root.find(".//{http://www.w3.org/2000/svg}svg")
assert svg is not None and len(svg.findall("{http://www.w3.org/2000/svg}g")) == 8
cells = [td.text for td in root.iter("td")]
assert "t4-w8" in cells and "t8-w6-current" in cells, cells
items = [li.text for li in root.iter("li")]
assert any(i.startswith("t4-w8: 3.") and "x your t8-w6 (" in i for i in items), items
' && ok || bad "c-html: the page"

# 6. keep the setting: sweep-b's best (t2-w4) written into a copy of the
# file planned from by the linter's own edits (CPU401's), the comment
# beside the first value saying which comparison chose it; --diff prints
# the hunk and writes nothing; the file then lints with no budget
# finding on the setting (CPU402's /dev/shm is a fix of its own).
mkdir "$tmp/keep"
cp testdata/plan/pytorchjob.yaml "$tmp/keep/job.yaml"
# the figure in the comment as N: it is measured (1200 give or take)
NOTE="# cpulint compare $ID: best t2-w4, N examples/s; kept by compare --fix"
norm() { sed -E -e 's/(best t[0-9]+-w[0-9]+), [0-9.]+ examples/\1, N examples/' -e 's/(measured: "t[0-9]+-w[0-9]+ on [0-9.]+ CPU: )[0-9]+ examples\/s, [0-9.]+x (t[0-9]+-w[0-9]+); plan ([a-z0-9-]+), [0-9-]+"/\1N examples\/s, Rx \2; plan \3, DATE"/'; }
expect keep-diff 1 env -C "$tmp/keep" "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --diff job.yaml
all=$(printf '%s\n' "$all" | norm)
lacks keep-diff "SETTING"
has keep-diff "--- a/job.yaml"
has keep-diff '-              command: ["python", "train.py", "--workers", "6", "--steps", "20000"]'
has keep-diff '+              command: ["python", "train.py", "--workers", "4", "--steps", "20000"]'
has keep-diff '-                  value: "8"'
has keep-diff "+                  value: \"2\"  $NOTE"
cmp -s testdata/plan/pytorchjob.yaml "$tmp/keep/job.yaml" && ok || bad "keep-diff wrote the file"
printf '%s\n' "$out" > "$tmp/keep.diff"
(cd "$tmp/keep" && cp job.yaml patched.yaml && patch -s patched.yaml < ../keep.diff) && ok || bad "keep-diff: patch does not apply it"
expect keep-fix 0 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --fix "$tmp/keep/job.yaml"
has keep-fix "  best: t2-w4 (2 threads, 4 workers): "
has keep-fix "job.yaml: kept t2-w4 in 1 training container(s)"
cmp -s "$tmp/keep/patched.yaml" "$tmp/keep/job.yaml" && ok || { bad "keep-fix: not the diff's text"; diff "$tmp/keep/patched.yaml" "$tmp/keep/job.yaml"; }
# byte-preserving: only the two lines changed, and the measurement
# recorded on the object (annotations: and its key, under metadata)
[ "$(diff testdata/plan/pytorchjob.yaml "$tmp/keep/job.yaml" | grep -c '^[<>]')" = 6 ] && ok || bad "keep-fix: more than two lines changed and two added"
grep -q "^  annotations:\$" "$tmp/keep/job.yaml" && ok || bad "keep-fix: no annotations"
norm < "$tmp/keep/job.yaml" | grep -q "^    cpulint.io/measured: \"t2-w4 on 8 CPU: N examples/s, Rx t[0-9]-w[0-9]; plan $ID, DATE\"\$" && ok || { bad "keep-fix: the measured annotation"; grep measured "$tmp/keep/job.yaml"; }
expect keep-lint 1 "$BIN" "$tmp/keep/job.yaml"
lacks keep-lint "CPU201"
lacks keep-lint "CPU202"
lacks keep-lint "CPU401"
has keep-lint "[CPU402 shm-missing]"
expect keep-again 0 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --fix "$tmp/keep/job.yaml"
has keep-again "job.yaml already holds t2-w4"
# the script beside the file reads the flag (argparse, then
# DataLoader(num_workers=args.workers)): the lint names the count as
# num_workers=6, and the word of the command is still the place kept
# (the lab's image job was refused for that name)
mkdir "$tmp/keep/py"
cp testdata/plan/pytorchjob.yaml "$tmp/keep/py/job.yaml"
cat > "$tmp/keep/py/train.py" <<'PY'
import argparse
import torch
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--workers", type=int, default=2)
p.add_argument("--steps", type=int, default=100)
args = p.parse_args()
data = TensorDataset(torch.zeros(64, 3))
loader = DataLoader(data, batch_size=8, num_workers=args.workers)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for (x,) in loader:
    opt.zero_grad()
    model(x).sum().backward()
    opt.step()
PY
expect keep-py-lint 1 "$BIN" "$tmp/keep/py/job.yaml"
has keep-py-lint "loader workers: num_workers=6"
expect keep-py 0 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --fix "$tmp/keep/py/job.yaml"
has keep-py "job.yaml: kept t2-w4 in 1 training container(s)"
grep -q '"--workers", "4", "--steps"' "$tmp/keep/py/job.yaml" && ok || bad "keep-py: the workers"
expect keep-py-again 1 "$BIN" "$tmp/keep/py/job.yaml"
lacks keep-py-again "CPU401"
# the winner's second pool (OPENBLAS_NUM_THREADS=3 in sweep-b's t2-w4
# Pod, as plan sets it with the setting) is kept where the file's env
# writes the variable as a count; a file without it is left alone (the
# keep-fix case above changed two lines)
mkdir "$tmp/keep/pool"
sed 's/^\( *\)- name: OMP_NUM_THREADS$/\1- name: OPENBLAS_NUM_THREADS\n\1  value: "16"\n&/' \
	testdata/plan/pytorchjob.yaml > "$tmp/keep/pool/job.yaml"
grep -q 'OPENBLAS_NUM_THREADS' "$tmp/keep/pool/job.yaml" && ok || bad "keep-pool: the input"
expect keep-pool 0 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --fix "$tmp/keep/pool/job.yaml"
has keep-pool "job.yaml: kept t2-w4 in 1 training container(s)"
grep -A1 'name: OPENBLAS_NUM_THREADS' "$tmp/keep/pool/job.yaml" | grep -q 'value: "3"' && ok || { bad "keep-pool: OPENBLAS_NUM_THREADS not kept at 3"; grep -A1 OPENBLAS "$tmp/keep/pool/job.yaml"; }
# a Polyaxonfile that sets no threads: both variables added to the run
# container's env, the flag changed
cp testdata/keep/polyaxonfile.yaml "$tmp/keep/polyaxonfile.yaml"
expect keep-px 0 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --fix "$tmp/keep/polyaxonfile.yaml"
diff testdata/keep/polyaxonfile.yaml "$tmp/keep/polyaxonfile.yaml" | norm > "$tmp/keep/px.diff"
{
	echo '8a9,11'
	echo '>   environment:'
	echo '>     annotations:'
	echo ">       cpulint.io/measured: \"t2-w4 on 8 CPU: N examples/s, Rx t4-w4; plan $ID, DATE\""
	echo '11c14,19'
	echo '<     command: ["python", "train.py", "--workers", "6", "--steps", "20000"]'
	echo '---'
	echo '>     env:'
	echo '>       - name: OMP_NUM_THREADS'
	echo '>         value: "2"'
	echo '>       - name: MKL_NUM_THREADS'
	echo ">         value: \"2\"  $NOTE"
	echo '>     command: ["python", "train.py", "--workers", "4", "--steps", "20000"]'
} > "$tmp/keep/px.want"
cmp -s "$tmp/keep/px.want" "$tmp/keep/px.diff" && ok || { bad "keep-px: the edit"; cat "$tmp/keep/px.diff"; }
expect keep-px-lint 0 "$BIN" "$tmp/keep/polyaxonfile.yaml"
# every replica of a PyTorchJob (sweep-a's best, t4-w2), in flow style:
# the values change, and no comment goes inside a flow collection (the
# re-parse check takes a replacement only as one value)
cp testdata/keep/masterworker.yaml "$tmp/keep/mw.yaml"
expect keep-mw 0 "$BIN" compare $K -n sweep-a -l "cpulint.io/plan=$ID" --throughput "$TP" --fix "$tmp/keep/mw.yaml"
has keep-mw "mw.yaml: kept t4-w2 in 2 training container(s)"
[ "$(grep -c 'command: \[python, train.py, --workers=2\]$' "$tmp/keep/mw.yaml")" = 2 ] && ok || bad "keep-mw: the workers"
[ "$(grep -c '{name: OMP_NUM_THREADS, value: "4"}' "$tmp/keep/mw.yaml")" = 2 ] && ok || bad "keep-mw: the threads"
grep -q '# cpulint compare' "$tmp/keep/mw.yaml" && bad "keep-mw: a comment" || ok
[ "$(diff testdata/keep/masterworker.yaml "$tmp/keep/mw.yaml" | grep -c '^[<>]')" = 10 ] && ok || bad "keep-mw: more than four lines changed and two added"
expect keep-mw-lint 1 "$BIN" "$tmp/keep/mw.yaml"
lacks keep-mw-lint "CPU401"
lacks keep-mw-lint "CPU202"
lacks keep-mw-lint "CPU201"
# refused, one line, exit 2, nothing written: the workers from a
# Polyaxon input; two jobs in one file; no workers flag; no training
# container; both flags
cp testdata/plan/polyaxonfile.yaml "$tmp/keep/px-input.yaml"
expect keep-px-input 2 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --fix "$tmp/keep/px-input.yaml"
has keep-px-input "px-input.yaml:14:"
has keep-px-input "(--workers 12) is not written there as a number compare --fix can change (a template or an input): make it 4 where it is set"
cmp -s testdata/plan/polyaxonfile.yaml "$tmp/keep/px-input.yaml" && ok || bad "keep-px-input: the file changed"
expect keep-two 2 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --fix testdata/keep/two.yaml
has keep-two "testdata/keep/two.yaml: several workloads with training containers (PyTorchJob a at line 2, PyTorchJob b at line 17): compare --fix keeps a setting in a file of one"
expect keep-noflag 2 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --diff testdata/keep/noflag.yaml
has keep-noflag 'testdata/keep/noflag.yaml: container "pytorch" sets no worker count compare --fix can edit: give its command a --workers style flag (--workers 4)'
expect keep-nothing 2 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --throughput "$TP" --fix testdata/keep/nothing.yaml
has keep-nothing "testdata/keep/nothing.yaml: no training container to keep the setting in"
expect keep-both 2 "$BIN" compare $K -n sweep-b -l "cpulint.io/plan=$ID" --fix a.yaml --diff a.yaml
has keep-both "give one of --fix FILE and --diff FILE"

# 7. sweep-d, plan --repeat 3: a setting's figure is the median of its
# runs, so t4-w1's one run of 900 does not win; each row says how many
# runs it had and their range, in JSON and as text.
ID3=$(sed -n 's/^ *cpulint.io\/plan: //p' "$tmp/jobs3.yaml" | head -1)
grep -q 'cpulint.io/repeat: "3"' "$tmp/jobs3.yaml" && ok || bad "plan --repeat 3 labels no third run"
expect d-json 0 "$BIN" compare $K -n sweep-d -l "cpulint.io/plan=$ID3" --throughput "$TP" --wait "$WT" -o json
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["best"] == "t4-w2", d["best"]
rows = {r["setting"]: r for r in d["rows"]}
assert sorted(rows) == ["t4-w1", "t4-w2"], list(rows)
def rel(a, b): assert a is not None and abs(a - b) <= 0.06 * b, (a, b)
r = rows["t4-w1"]
assert (r["runs"], r["pods"]) == (3, 3), r
rel(r["examples_per_s"], 560); rel(r["examples_per_s_min"], 540); rel(r["examples_per_s_max"], 900)
r = rows["t4-w2"]
assert (r["runs"], r["pods"]) == (3, 3), r
rel(r["examples_per_s"], 800); rel(r["examples_per_s_min"], 790); rel(r["examples_per_s_max"], 810)
' && ok || { bad "sweep-d: medians of the runs"; printf '%s\n' "$out" | head -40; }
expect d-text 0 "$BIN" compare $K -n sweep-d -l "cpulint.io/plan=$ID3" --throughput "$TP" --wait "$WT"
has d-text "PODS  RUNS  EXAMPLES/S RANGE"
has d-text "  best: t4-w2 (4 threads, 2 workers): "
has d-text ", the median of 3 runs (7"
printf '%s\n' "$out" | grep -Eq '^t4-w1 .* 3  5[0-9][0-9]\.[0-9]-9[0-9][0-9]\.[0-9]$' && ok || bad "d-text: t4-w1's runs and range"
expect d-html 0 "$BIN" compare $K -n sweep-d -l "cpulint.io/plan=$ID3" --throughput "$TP" --wait "$WT" -o html
has d-html "<th>runs</th><th>examples/s range</th>"
printf '%s\n' "$out" | grep -q '<td>t4-w1</td>.*<td>3</td><td>5[0-9][0-9]\.[0-9]-9[0-9][0-9]\.[0-9]</td></tr>' && ok || bad "d-html: t4-w1's runs and range"
# one run each (sweep-a): no RUNS column, and JSON says 1
expect a-runs 0 "$BIN" compare $K -n sweep-a -l "cpulint.io/plan=$ID" --throughput "$TP" --wait "$WT"
lacks a-runs "RUNS"

# 8. errors: one line, exit 2
expect no-prom 2 "$BIN" compare --kubeconfig "$D/kubeconfig" -n sweep-a -l "cpulint.io/plan=$ID"
has no-prom "give --prometheus URL"
expect no-pods 2 "$BIN" compare $K -n sweep-a -l "cpulint.io/plan=nothing"
has no-pods "no Pods of the runs to compare in namespace sweep-a"
expect bad-promql 2 "$BIN" compare $K -n sweep-a -l "cpulint.io/plan=$ID" --throughput 'sum(('
has bad-promql "prometheus $PROM: HTTP 400"
expect no-target 2 "$BIN" compare $K
has no-target "name the runs"
finish
