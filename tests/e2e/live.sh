#!/bin/sh
# Live mode end to end: the built binary on PATH as kubectl-cpulint, run by
# the real kubectl as `kubectl cpulint …` against the fake API server
# (HTTPS, its own CA), and directly for the cases kubectl does not change.
# Covers auth kinds, KUBECONFIG merging, contexts and namespaces, paging,
# every error status, ConfigMap env, throttling, the no-permission note,
# that Secrets are never read and that the token is never printed.
set -u
BIN=${BIN:?}
root=$(pwd)
. tests/live/apiserver.sh
SUITE=live
tmp=$(mktemp -d)
ALL_OUTPUT=$tmp/all-output
. tests/lib.sh
lines() {	# name count: stderr has exactly count lines
	n=$(printf '%s' "$err" | grep -c '')
	if [ "$n" = "$2" ]; then ok; else
		bad "$1: $n stderr lines, expected $2"
		printf '%s\n' "$err" | head -5
	fi
}

command -v kubectl >/dev/null 2>&1 || { bad "kubectl is not on PATH"; finish; }
mkdir -p "$tmp/bin" "$tmp/home"
cp "$BIN" "$tmp/bin/kubectl-cpulint"
export PATH="$tmp/bin:$PATH" HOME="$tmp/home"
unset KUBECONFIG
apiserver_start --generate-pods 1200 --timeout 280 || { bad "server"; finish; }
D=$APISERVER_DIR
TOKEN=$(cat "$D/token")
SERVER="https://127.0.0.1:$APISERVER_PORT"

# 1. kubectl runs the plugin; findings with ConfigMap env and throttling
expect kubectl-plugin 1 kubectl cpulint pod/train-0 --kubeconfig "$D/kubeconfig"
has kubectl-plugin "pod/ml/train-0[pytorch]: error: OMP_NUM_THREADS=16 x 4 ranks = 64 threads on a budget of 8 CPUs"
has configmapkeyref "MKL_NUM_THREADS=16 x 4 ranks"
has throttling "pod/ml/train-0[pytorch]: warning: throttled in 42.0% of CFS periods since it started"
has shm "DataLoader workers (--workers 8)"
grep -q '"path": "/api/v1/namespaces/ml/configmaps/resnet-env"' "$D/requests.jsonl" && ok || bad "configmap resnet-env not read"
grep -q '"path": "/api/v1/namespaces/ml/pods/train-0"' "$D/requests.jsonl" && ok || bad "pod not read"
if grep -q 'secrets' "$D/requests.jsonl"; then bad "a Secret was requested"; else ok; fi

# 2. the fake is faithful: kubectl get returns the object the plugin read
kubectl --kubeconfig "$D/kubeconfig" get pod train-0 -n ml -o json > "$tmp/kubectl.json" 2>/dev/null
curl -s --cacert "$D/ca.crt" -H "Authorization: Bearer $TOKEN" \
	"$SERVER/api/v1/namespaces/ml/pods/train-0" > "$tmp/plugin.json"
python3 - "$tmp/kubectl.json" "$tmp/plugin.json" <<'PY' && ok || bad "kubectl get differs from the object the plugin reads"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a == b and a["metadata"]["name"] == "train-0"
PY

# 3. sampling window, text and JSON live fields, SARIF logical locations
expect sample 1 kubectl cpulint pytorchjob/resnet --sample 1s --kubeconfig "$D/kubeconfig"
has sample "throttled in 42.0% of CFS periods over the last 1s (2520 of 6000"
has sample-pods "pod/ml/train-1[pytorch]: warning: throttled in 37.0%"
has sample-template "pytorchjob/ml/resnet/Worker[pytorch]: error:"
expect json 1 "$BIN" --kubeconfig "$D/kubeconfig" -o json pod/train-0
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = [x for x in d["findings"] if x["rule"] == "CPU501"][0]
assert f["object"] == "pod/ml/train-0" and f["container"] == "pytorch" and f["file"] is None, f
' && ok || bad "json live fields"
expect sarif 1 "$BIN" --kubeconfig "$D/kubeconfig" -o sarif --output-file "$tmp/live.sarif" pod/train-0
python3 "$root/tests/validate-sarif.py" "$root/testdata/reference/sarif/sarif-schema-2.1.0.json" "$tmp/live.sarif" >/dev/null && ok || bad "live sarif invalid"
grep -q '"fullyQualifiedName": "pod/ml/train-0/pytorch"' "$tmp/live.sarif" && ok || bad "no logicalLocations"

# 3b. measurements: threads, CPUs used and throttling per container
expect measured 1 kubectl cpulint pod/train-0 --kubeconfig "$D/kubeconfig"
has measured "    measured (cadvisor, since start): 97 threads, 7.9 CPUs used, throttled 42% of periods"
has cpu503-fires "pod/ml/train-0[pytorch]: warning: used 7.90 CPUs of its 8-CPU limit (99%) since it started and was throttled in 42.0% of periods (from cAdvisor; threshold 10%): it is bound by its CPU limit [CPU503 cpu-limit-bound]"
has cpu503-fix "either raise resources.limits.cpu to \"96\" so the 96 busy threads the spec starts (4 rank(s) x (16 thread(s) + 8 worker(s))) can all run, or keep 8 CPUs and reduce concurrency to per rank OMP_NUM_THREADS=\"1\" and 1 loader worker(s) (8 busy threads)"
lacks cpu502-silent "CPU502"
has cpu501-source "periods, from cAdvisor; threshold 10%) [CPU501 cpu-throttled]"
expect measured-sample 1 "$BIN" --kubeconfig "$D/kubeconfig" --sample 1s pod/train-1
has measured-sample "    measured (cadvisor, 1 s): 260 threads, "
has cpu502-fires "pod/ml/train-1[pytorch]: warning: 260 threads measured (cAdvisor, over the last 1s) where the spec accounts for 168: 4 ranks x (16 threads + 8 workers) = 96 busy plus 72 runtime helper threads; throttled in 37.0% of periods (threshold 10%) [CPU502 threads-over-budget]"
lacks cpu503-silent "CPU503"
expect measured-json 1 "$BIN" --kubeconfig "$D/kubeconfig" --sample 1s -o json pytorchjob/resnet
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = {(x["object"], x["container"]): x for x in d["budgets"]}
m = b[("pod/ml/train-0", "pytorch")]["measured"]
assert m["source"] == "cadvisor" and m["window_s"] == 1, m
assert m["threads"] == 97 and abs(m["cpu_used"] - 7.9) < 1.2, m
assert abs(m["throttled_pct"] - 42) < 0.5, m
m = b[("pod/ml/train-1", "pytorch")]["measured"]
assert m["threads"] == 260 and abs(m["cpu_used"] - 3.0) < 0.6, m
t = b[("pytorchjob/ml/resnet/Worker", "pytorch")]
assert "measured" not in t and t["ranks"] == 4, t
' && ok || bad "json budgets with measurements"

# 3c. a Prometheus that is down or answers an error: one line, exit 2,
# the findings from the spec still reported
expect prom-down 2 "$BIN" --kubeconfig "$D/kubeconfig" --prometheus http://user:secret@127.0.0.1:9/ pod/train-0
has prom-down "pod/ml/train-0[pytorch]: error: OMP_NUM_THREADS=16 x 4 ranks"
[ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && ok || bad "prom-down: not one line: $err"
has prom-down "prometheus http://127.0.0.1:9/"
lacks prom-down "secret"
lacks prom-down "measured ("
expect prom-error 2 env CPULINT_PROMETHEUS_URL="https://127.0.0.1:$APISERVER_PORT" "$BIN" --kubeconfig "$D/kubeconfig" --prometheus-insecure-skip-tls-verify pod/train-0
[ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && ok || bad "prom-error: not one line: $err"
has prom-error "prometheus https://127.0.0.1:$APISERVER_PORT: HTTP 40"
has prom-error "CPU401 cpu-oversubscribed"

# 4. owners, selectors, namespaces, paging
# (the tokenizer server sizes its workers from $(nproc) under a 2-CPU
# limit: no sign of training, but the command is its own evidence)
expect deploy 1 "$BIN" --kubeconfig "$D/kubeconfig" -n serving -v deploy/tokenizer
has deploy-owner "pod/serving/tokenizer-5d8f7c9b6d-q7x2k is owned by Deployment/serving/tokenizer"
has deploy-cpu204 "--workers is sized from \$(nproc)"
lacks deploy-cpu201 "CPU201"
expect selector 1 "$BIN" --kubeconfig "$D/kubeconfig" -l app=resnet
has selector "pod/ml/train-1[pytorch]"
: > "$D/requests.jsonl"
expect all-namespaces 1 kubectl cpulint -A --kubeconfig "$D/kubeconfig"
pages=$(grep -c '"path": "/api/v1/pods"' "$D/requests.jsonl")
[ "$pages" -ge 3 ] && ok || bad "-A over 1,200 pods used $pages page(s)"
grep -q 'continue' "$D/requests.jsonl" && ok || bad "no continue token used"
has all-namespaces "pod/ml/train-0[pytorch]"
expect bare-name 1 "$BIN" --kubeconfig "$D/kubeconfig" -n ml train-1
has bare-name "pod/ml/train-1[pytorch]"
expect context-cert 1 "$BIN" --kubeconfig "$D/kubeconfig" --context fake-cert pod/train-0
has context-cert "pod/ml/train-0[pytorch]"
expect cert-file 1 "$BIN" --kubeconfig "$D/kubeconfig-cert" pod/train-0
expect cert-data-token 1 "$BIN" --kubeconfig "$D/kubeconfig-token" pod/train-0

# 4b. a TrainJob is linted merged with the runtime it names: the runtime is
# read, the trainer's resources (limit 8, no GPU) make the torch plugin's
# numProcPerNode auto 8 ranks, and findings name the TrainJob
: > "$D/requests.jsonl"
expect trainjob 1 "$BIN" --kubeconfig "$D/kubeconfig" -n ml trainjob/llama-ft
grep -q '"path": "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed"' "$D/requests.jsonl" && ok || bad "the TrainJob's runtime was not read"
has trainjob "trainjob/ml/llama-ft/node[node]: error: 8 ranks x (1 intra-op thread + 12 loader workers)"
if printf '%s\n' "$all" | grep -q 'OMP_NUM_THREADS is not set'; then bad "CPU201 with 8 torchrun ranks"; else ok; fi

# 5. KUBECONFIG merging and tokenFile
sed -e "s|^current-context:.*|current-context: fake-cert|" "$D/kubeconfig" > "$tmp/second"
printf 'apiVersion: v1\nkind: Config\ncurrent-context: merged\ncontexts:\n- name: merged\n  context: {cluster: fake, user: tf, namespace: ml}\nusers:\n- name: tf\n  user: {tokenFile: tok}\n' > "$tmp/first"
printf '%s\n' "$TOKEN" > "$tmp/tok"
grep -q '^- cluster:\|^  name: fake$' "$D/kubeconfig" || true
cluster=$(python3 -c 'import yaml,sys; c=yaml.safe_load(open(sys.argv[1])); print([x["name"] for x in c["clusters"] if x["cluster"]["server"].startswith("https://127.0.0.1")][0])' "$D/kubeconfig")
sed -i "s/cluster: fake,/cluster: $cluster,/" "$tmp/first"
expect merged 1 env KUBECONFIG="$tmp/missing:$tmp/first:$D/kubeconfig" kubectl cpulint pod/train-0
has merged "pod/ml/train-0[pytorch]"
grep -q '"auth": "token"' "$D/requests.jsonl" && ok || bad "tokenFile auth not used"
# 5b. a token file with a CR LF inside (sent, it would add a request
# header): refused before any request, one line naming the file, never
# the token
printf '%s\r\nX-Evil: injected\n' "$TOKEN" > "$tmp/tok-crlf"
sed "s|tokenFile: tok|tokenFile: tok-crlf|" "$tmp/first" > "$tmp/first-crlf"
: > "$D/requests.jsonl"
expect token-crlf 2 env KUBECONFIG="$tmp/first-crlf:$D/kubeconfig" "$BIN" pod/train-0
lines token-crlf 1
has token-crlf "token file $tmp/tok-crlf: holds a control character"
lacks token-crlf "X-Evil"
[ -s "$D/requests.jsonl" ] && bad "token-crlf: a request was made" || ok

# 6. an exec credential plugin (a script that prints an ExecCredential)
cat > "$tmp/bin/fake-cred" <<EOF2
#!/bin/sh
[ -n "\$KUBERNETES_EXEC_INFO" ] || exit 3
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}\n' "$TOKEN"
EOF2
chmod +x "$tmp/bin/fake-cred"
printf 'apiVersion: v1\nkind: Config\ncurrent-context: ex\ncontexts:\n- name: ex\n  context: {cluster: %s, user: ex, namespace: ml}\nusers:\n- name: ex\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: fake-cred\n      interactiveMode: Never\n' "$cluster" > "$tmp/exec-only"
expect exec 1 env KUBECONFIG="$tmp/exec-only:$D/kubeconfig" "$BIN" -v pod/train-0
has exec "pod/ml/train-0[pytorch]"
# ... and one whose token holds a CR LF: refused, the plugin named
cat > "$tmp/bin/crlf-cred" <<EOF2
#!/bin/sh
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s\\\\r\\\\nX-Evil: 1"}}\n' "$TOKEN"
EOF2
chmod +x "$tmp/bin/crlf-cred"
sed 's/command: fake-cred/command: crlf-cred/' "$tmp/exec-only" > "$tmp/exec-crlf"
expect exec-crlf 2 env KUBECONFIG="$tmp/exec-crlf:$D/kubeconfig" "$BIN" pod/train-0
lines exec-crlf 1
has exec-crlf 'exec plugin "crlf-cred" for user "ex" returned a token that holds a control character'
lacks exec-crlf "X-Evil"
# A plugin that hangs, with a child of its own: --request-timeout bounds
# it, and the whole process group goes (no orphan keeps running).
cat > "$tmp/bin/hang-cred" <<EOF2
#!/bin/sh
sleep 300 &
echo \$! > "$tmp/hang-child.pid"
sleep 300
EOF2
chmod +x "$tmp/bin/hang-cred"
sed 's/command: fake-cred/command: hang-cred/' "$tmp/exec-only" > "$tmp/exec-hang"
t0=$(date +%s)
expect exec-hang 2 env KUBECONFIG="$tmp/exec-hang:$D/kubeconfig" "$BIN" --request-timeout 2s pod/train-0
t1=$(date +%s)
has exec-hang "did not finish within 2000 ms"
[ $((t1 - t0)) -lt 20 ] && ok || bad "a hanging plugin held the run $((t1 - t0)) s"
child=$(cat "$tmp/hang-child.pid" 2>/dev/null)
gone() {	# the process is gone, or dead and waiting to be reaped
	! kill -0 "$1" 2>/dev/null ||
		[ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ]
}
i=0
while [ -n "$child" ] && ! gone "$child" && [ $i -lt 20 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -n "$child" ] && gone "$child"; then ok; else
	bad "the plugin's child $child outlived the timeout"
	[ -n "$child" ] && kill "$child" 2>/dev/null
fi
# --live-timeout bounds the plugin too (it had its own 60 s): killed with
# its children when the run's time limit runs out, the plugin named by its
# command, never its arguments or environment.
rm -f "$tmp/hang-child.pid"
printf '      args: [--secret-arg=SEKRIT-ARG]\n      env: [{name: PLUGIN_ENV, value: SEKRIT-ENV}]\n' >> "$tmp/exec-hang"
expect exec-live-timeout 2 env KUBECONFIG="$tmp/exec-hang:$D/kubeconfig" "$BIN" --live-timeout 2s pod/train-0
lines exec-live-timeout 1
has exec-live-timeout 'exec plugin "hang-cred" for user "ex" did not finish within the run'"'"'s time limit of 2 s (--live-timeout) and was killed'
lacks exec-live-timeout "SEKRIT"
child=$(cat "$tmp/hang-child.pid" 2>/dev/null)
i=0
while [ -n "$child" ] && ! gone "$child" && [ $i -lt 20 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -n "$child" ] && gone "$child"; then ok; else
	bad "exec-live-timeout: the plugin's child $child outlived the run"
	[ -n "$child" ] && kill "$child" 2>/dev/null
fi

# 7. errors: one line each, naming context and server, exit 2
# A position in a KUBECONFIG file names that file (its path outlives the
# merge, not freed with the list that KUBECONFIG was split into).
sed 's/cluster: [^,]*,/cluster: undefined-cluster,/' "$tmp/exec-only" > "$tmp/no-cluster"
expect undefined-cluster 2 env KUBECONFIG="$tmp/no-cluster" "$BIN" pod/train-0
has undefined-cluster "$tmp/no-cluster:5:3: error: context \"ex\": cluster \"undefined-cluster\" is not defined"
expect not-found 2 "$BIN" --kubeconfig "$D/kubeconfig" pod/nope
lines not-found 1
has not-found 'context "fake-token"'
has not-found "$SERVER"
expect unauthorized 2 "$BIN" --kubeconfig "$D/kubeconfig" --context fake-bad-token pod/train-0
lines unauthorized 1
has unauthorized "unauthorized"
expect tls 2 "$BIN" --kubeconfig "$D/kubeconfig" --context fake-wrong-ca pod/train-0
lines tls 1
has tls 'context "fake-wrong-ca"'
expect no-context 2 "$BIN" --kubeconfig "$D/kubeconfig" --context nope pod/train-0
lines no-context 1
expect missing-kubeconfig 2 "$BIN" --kubeconfig "$tmp/none" pod/train-0
lines missing-kubeconfig 1
apiserver_stop
apiserver_start --deny list:pods:restricted --deny get:nodes/proxy --deny get:clustertrainingruntimes --delay /api/v1/namespaces/ml/pods/slow=3 --timeout 120 || { bad "server 2"; finish; }
D=$APISERVER_DIR
TOKEN2=$(cat "$D/token")
expect forbidden 2 "$BIN" --kubeconfig "$D/kubeconfig" -n restricted -l app=x
lines forbidden 1
has forbidden "forbidden"
has forbidden "list"
expect no-permission 1 "$BIN" --kubeconfig "$D/kubeconfig" pod/train-0
has no-permission "throttling was not measured on node gpu-node-1"
has no-permission "nodes/proxy"
has no-permission "--prometheus URL would measure"
if printf '%s\n' "$out" | grep -q CPU501; then bad "CPU501 without counters"; else ok; fi
expect trainjob-alone 1 "$BIN" --kubeconfig "$D/kubeconfig" -n ml trainjob/llama-ft
has trainjob-alone 'note: trainjob/ml/llama-ft: its ClusterTrainingRuntime "torch-distributed" was not read'
has trainjob-alone "trainjob/ml/llama-ft[node]: warning: DataLoader workers (--dataloader-workers 12)"
expect timeout 2 "$BIN" --kubeconfig "$D/kubeconfig" --request-timeout 1s pod/slow
lines timeout 1
has timeout "time"
apiserver_stop
expect unreachable 2 "$BIN" --kubeconfig "$tmp/second" --context fake-token pod/train-0
lines unreachable 1
has unreachable "$SERVER"

# 7b. -A over 20 Running Pods on 20 nodes: one cAdvisor read per node, the
# node map freed without use-after-free (ASan runs this under make asan).
mkdir -p "$tmp/empty-fixtures"
apiserver_start --fixtures "$tmp/empty-fixtures" --generate-pods 20 --pod-nodes 20 --timeout 120 || { bad "server 3"; finish; }
D=$APISERVER_DIR
: > "$D/requests.jsonl"
expect many-nodes 0 "$BIN" --kubeconfig "$D/kubeconfig" -A
reads=$(grep -c 'proxy/metrics/cadvisor' "$D/requests.jsonl")
[ "$reads" = 20 ] && ok || bad "20 nodes read $reads times"
apiserver_stop

# 7b'. MPIJobs (testdata/apiserver/fixtures/mpi): each worker Pod runs the
# job's slotsPerWorker ranks (read once for both workers), as a manifest's
# MPIJob does; the launcher's mpirun -np starts its ranks in the workers,
# so the launcher Pod runs none, unless runLauncherAsNode makes it a node
# too.  Without RBAC on MPIJobs the ranks are unknown, never 1, and a note
# says why.
apiserver_start --fixtures mpi --timeout 120 || { bad "server mpi"; finish; }
D=$APISERVER_DIR
: > "$D/requests.jsonl"
expect mpi-workers 1 kubectl cpulint -n hpc -l training.kubeflow.org/job-name=horovod --kubeconfig "$D/kubeconfig"
has mpi-workers 'horovod-worker-0[worker]: warning: OMP_NUM_THREADS is not set in container "worker": each of its 4 ranks'
has mpi-workers '(2 Pods)'
has mpi-workers 'add env OMP_NUM_THREADS: "1" (per-rank budget floor(4 / 4) = 1 CPU(s)'
lacks mpi-launcher 'horovod-launcher'
has mpi-workers '1 finding (0 errors, 1 warning, 0 notes)'
reads=$(grep -c '"path": "/apis/kubeflow.org/v2beta1/namespaces/hpc/mpijobs/horovod"' "$D/requests.jsonl")
[ "$reads" = 1 ] && ok || bad "the MPIJob was read $reads times, not once"
expect mpi-launcher-node 1 "$BIN" --kubeconfig "$D/kubeconfig" -n hpc -l training.kubeflow.org/job-name=allreduce
has mpi-launcher-node 'pod/hpc/allreduce-launcher[mpi]: warning: OMP_NUM_THREADS is not set in container "mpi": each of its 2 ranks'
has mpi-launcher-node 'pod/hpc/allreduce-worker-0[mpi]: warning: OMP_NUM_THREADS is not set in container "mpi": each of its 2 ranks'
: > "$D/requests.jsonl"
expect mpijob-target 1 "$BIN" --kubeconfig "$D/kubeconfig" -n hpc mpijob/horovod mpijob/horovod
reads=$(grep -c '"path": "/apis/kubeflow.org/v2beta1/namespaces/hpc/mpijobs/horovod"' "$D/requests.jsonl")
[ "$reads" = 2 ] && ok || bad "mpijob target: the MPIJob was read $reads times, not once per name"
has mpijob-target 'mpijob/hpc/horovod/Worker[worker]: warning: OMP_NUM_THREADS is not set in container "worker": each of its 4 ranks'
has mpijob-target 'mpijob/hpc/horovod/horovod-worker-0[worker]: warning'
lacks mpijob-target 'horovod-launcher'
expect mpijob-missing 2 "$BIN" --kubeconfig "$D/kubeconfig" -n hpc mpijob/nope
has mpijob-missing 'not found: mpijobs.kubeflow.org "nope" in namespace "hpc"'
has mpijob-missing 'request GET /apis/kubeflow.org/v2beta1/namespaces/hpc/mpijobs/nope'
expect mpi-json 1 "$BIN" --kubeconfig "$D/kubeconfig" -n hpc -o json -l training.kubeflow.org/job-name=horovod
printf '%s' "$out" | python3 -c '
import json, sys
b = json.load(sys.stdin)["budgets"]
assert [(x["container"], x["ranks"]) for x in b] == [("worker", 4)], b
' && ok || bad "mpi-json: one budget entry, the workers, 4 ranks"
apiserver_stop
apiserver_start --fixtures mpi --deny get:mpijobs:hpc --timeout 120 || { bad "server mpi 2"; finish; }
D=$APISERVER_DIR
expect mpi-denied 1 "$BIN" --kubeconfig "$D/kubeconfig" -n hpc -l training.kubeflow.org/job-name=horovod
has mpi-denied 'the rank count (slotsPerWorker (unknown)) is not known here'
has mpi-denied 'note: mpijob/hpc/horovod was not read (forbidden'
has mpi-denied "its worker Pods' ranks (slotsPerWorker) are unknown"
lacks mpi-denied 'each of its 1 rank'
apiserver_stop

# 7b''. Optional fields left out (testdata/apiserver/fixtures/optional):
# owner references without `controller` (a Job's Pods, and the Job's own
# reference to an Argo Workflow) are read, grouped and followed, never
# dereferenced as present (a crash before; make asan runs this too).
apiserver_start --fixtures default --fixtures optional --timeout 120 || { bad "server optional"; finish; }
D=$APISERVER_DIR
expect no-controller 1 "$BIN" --kubeconfig "$D/kubeconfig" -n ml -v -l app=loose
has no-controller 'pod/ml/loose-a1b2c is owned by Workflow/ml/loose-wf'
has no-controller 'workflow/ml/loose-wf[train]: warning: OMP_NUM_THREADS is not set in container "train"'
has no-controller '(2 Pods) [CPU201 thread-env-missing]'
has no-controller 'measured (cadvisor, since start): 4 threads'
expect no-controller-pod 1 kubectl cpulint pod/loose-d3e4f -n ml --kubeconfig "$D/kubeconfig"
has no-controller-pod 'pod/ml/loose-d3e4f[train]: warning: OMP_NUM_THREADS is not set'
apiserver_stop

# 7b'''. Out-of-range cAdvisor figures (testdata/apiserver/fixtures/measure)
# are unknown, never warnings: 5 throttled periods per period, a CPU-time
# counter at +Inf and 2.5 threads (weird-0); 500 CPUs on a 32-CPU node
# (machine_cpu_cores) and 1e9 threads (weird-1, whose 30% is sane).  A
# note names each figure and its source, with -v and in JSON.
apiserver_start --fixtures default --fixtures measure --timeout 120 || { bad "server measure"; finish; }
D=$APISERVER_DIR
expect cadvisor-range 1 "$BIN" --kubeconfig "$D/kubeconfig" -n ml -v -l app=measure
lacks cadvisor-range "500.0%"
lacks cadvisor-range "1000000000 threads"
lacks cadvisor-range "500.00 CPUs"
lacks cadvisor-range "pod/ml/weird-0[train]: warning"
has cadvisor-range "pod/ml/weird-1[train]: warning: throttled in 30.0% of CFS periods since it started"
has cadvisor-range "kubectl-cpulint: pod/ml/weird-0[train]: measured: throttled share unknown: 5 ("
has cadvisor-range "of nodes/gpu-node-1/proxy/metrics/cadvisor (a share of periods is 0 to 1)"
has cadvisor-range "kubectl-cpulint: pod/ml/weird-0[train]: measured: CPU used unknown: a sample of container_cpu_usage_seconds_total from nodes/gpu-node-1/proxy/metrics/cadvisor is not a count"
has cadvisor-range "kubectl-cpulint: pod/ml/weird-1[train]: measured: CPU used unknown: 500 CPUs from container_cpu_usage_seconds_total of nodes/gpu-node-1/proxy/metrics/cadvisor (more than twice the node's 32 CPUs)"
has cadvisor-range "    measured (cadvisor, since start): throttled 30% of periods"
expect cadvisor-range-json 1 "$BIN" --kubeconfig "$D/kubeconfig" -n ml -o json -l app=measure
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = {x["object"]: x["measured"] for x in d["budgets"]}
w0, w1 = b["pod/ml/weird-0"], b["pod/ml/weird-1"]
assert w0["throttled_pct"] is None and w0["cpu_used"] is None and w0["threads"] is None, w0
assert any("container_threads from nodes/gpu-node-1/proxy/metrics/cadvisor is 2.5 (not a whole number of threads)" in n for n in w0["notes"]), w0
assert w1["cpu_used"] is None and w1["threads"] is None and abs(w1["throttled_pct"] - 30) < 0.5, w1
assert any("is 1e+09 (above 4194304" in n for n in w1["notes"]), w1
assert "notes" not in b["pod/ml/young-0"], b
' && ok || bad "cadvisor-range-json: nulls and notes"
apiserver_stop

# 7b''''. A pids limit (testdata/apiserver/fixtures/pids): cAdvisor's
# container_threads_max of a Pod's cgroup is the kubelet's podPidsLimit;
# CPU407 counts the threads each process starts against it (tok-0: pools
# sized to the node's 32 CPUs), and is silent under it (tok-1).
apiserver_start --fixtures default --fixtures pids --timeout 120 || { bad "server pids"; finish; }
D=$APISERVER_DIR
expect pids 1 "$BIN" --kubeconfig "$D/kubeconfig" -n ml -l app=pids
has pids "pod/ml/tok-0[train]: note: 9 processes (1 rank + 8 loader workers) start at least 64 threads: 1 x (32 intra-op, the node's CPUs + 8 helpers) + 8 x 2 + 8, against a pids limit of 64 threads (the Pod's cgroup: the kubelet's podPidsLimit, cAdvisor container_threads_max); 61 measured now"
lacks pids "pod/ml/tok-1[train]: note"
apiserver_stop

# 7c. a server that echoes the Authorization header, and a password in the
# server URL: neither is ever shown, in errors or with -v.
apiserver_start --echo-auth --deny get:pods:ml --timeout 120 || { bad "server 4"; finish; }
D=$APISERVER_DIR
TOKEN3=$(cat "$D/token")
expect echo-auth 2 "$BIN" --kubeconfig "$D/kubeconfig" -v pod/train-0
has echo-auth "Authorization: Bearer [redacted]"
lacks echo-auth "$TOKEN3"
sed "s|server: https://127.0.0.1:|server: https://admin:pw-S3CRET-9@127.0.0.1:|" "$D/kubeconfig" > "$tmp/userinfo"
grep -q 'pw-S3CRET-9' "$tmp/userinfo" && ok || bad "no userinfo in the test kubeconfig"
expect userinfo 2 "$BIN" --kubeconfig "$tmp/userinfo" -v pod/train-0
lacks userinfo "pw-S3CRET-9"
has userinfo "server https://[redacted]@127.0.0.1:"
apiserver_stop

# 7d. limits: 429 retries stay within --request-timeout; a server whose
# lists never end is left after a few empty pages.
apiserver_start --endless-continue --retry-after 10 --too-many /api/v1/namespaces/ml/pods/train-0=10 --delay /api/v1/namespaces/ml/pods/slow=6 --delay /api/v1/query=6 --timeout 120 || { bad "server 5"; finish; }
D=$APISERVER_DIR
t0=$(date +%s)
expect live-timeout 2 "$BIN" --kubeconfig "$D/kubeconfig" --live-timeout 2s pod/slow
t1=$(date +%s)
[ $((t1 - t0)) -lt 5 ] && ok || bad "--live-timeout 2s took $((t1 - t0)) s"
has live-timeout "timeout: connected, but no answer before the run's time limit of 2s (--live-timeout) ran out"
lacks live-timeout "cannot connect"
# Prometheus queries are part of the run: within --live-timeout, and a
# server that connected but does not answer is told from one that does
# not connect (this one answers the query after 6 s).
expect prom-live-timeout 2 "$BIN" --kubeconfig "$D/kubeconfig" --prometheus "https://127.0.0.1:$APISERVER_PORT" --prometheus-insecure-skip-tls-verify --live-timeout 3s pod/train-1
has prom-live-timeout "prometheus https://127.0.0.1:$APISERVER_PORT: timeout: connected, but no answer before the run's time limit (--live-timeout) ran out"
has prom-live-timeout "pod/ml/train-1[pytorch]: error:"
expect live-timeout-bad 2 "$BIN" --kubeconfig "$D/kubeconfig" --live-timeout soon pod/slow
has live-timeout-bad "--live-timeout takes a duration"

t0=$(date +%s)
expect retry-timeout 2 "$BIN" --kubeconfig "$D/kubeconfig" --request-timeout 2s pod/train-0
t1=$(date +%s)
[ $((t1 - t0)) -lt 8 ] && ok || bad "429 retries took $((t1 - t0)) s with --request-timeout 2s"
has retry-timeout "too many requests"
: > "$D/requests.jsonl"
expect endless-pages 2 "$BIN" --kubeconfig "$D/kubeconfig" -A
has endless-pages "pages in a row with no items"
pages=$(grep -c '"path": "/api/v1/pods"' "$D/requests.jsonl")
[ "$pages" -le 4 ] && ok || bad "followed $pages empty pages"
apiserver_stop

# 8. never a token, not even with -v
for t in "$TOKEN" "$TOKEN2" "$TOKEN3"; do
	if grep -qF -- "$t" "$tmp/all-output"; then bad "a token was printed"; else ok; fi
done
rm -rf "$tmp"
finish
