#!/bin/sh
# Live mode at scale against the fake API server: the Pods of one owner
# with one spec give one finding naming the owner with their count (text,
# JSON, SARIF), measured figures are the most throttled Pod's and name it,
# each owner is read once, Pods of different specs or without an owner
# are never merged, and -A over 10,000 generated Pods stays within a
# memory bound (a resource bound, not a timing: no time is asserted).
set -u
BIN=${BIN:?}
root=$(pwd)
. tests/live/apiserver.sh
SUITE=livescale
tmp=$(mktemp -d)
. tests/lib.sh
# Under AddressSanitizer or ThreadSanitizer (make asan, make tsan) memory
# is the sanitizer's (TSan's shadow alone is several times the heap): the
# peak RSS bound holds for plain builds only.
rss_max=131072
grep -qE '__asan_init|__tsan_init' "$BIN" 2>/dev/null && rss_max=2097152

# Fixtures: Deployment web → ReplicaSet web-abc → Pods web-abc-1..3 (one
# spec, throttled 20%, 50%, 30%) and web-abc-4 (another CPU limit); solo-a
# and solo-b, no owner, the same spec as web's.
mkdir -p "$tmp/fx"
python3 - "$tmp/fx" <<'PY' || bad "fixtures"
import json, os, sys
d = sys.argv[1]
def put(name, obj):
    with open(os.path.join(d, name), "w") as f:
        json.dump(obj, f, indent=1)
put("node.json", {"apiVersion": "v1", "kind": "Node",
                  "metadata": {"name": "n1"}})
put("dep.json", {"apiVersion": "apps/v1", "kind": "Deployment",
                 "metadata": {"name": "web", "namespace": "scale",
                              "uid": "d0000000-0000-4000-8000-000000000001"},
                 "spec": {"replicas": 4,
                          "selector": {"matchLabels": {"app": "web"}},
                          "template": {"spec": {}}}})
put("rs.json", {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": "web-abc", "namespace": "scale",
                             "uid": "r0000000-0000-4000-8000-000000000001",
                             "ownerReferences": [{
                                 "apiVersion": "apps/v1",
                                 "kind": "Deployment", "name": "web",
                                 "uid": "d0000000-0000-4000-8000-000000000001",
                                 "controller": True}]},
                "spec": {"replicas": 4, "template": {"spec": {}}}})
def pod(name, cpu, owned, i):
    meta = {"name": name, "namespace": "scale",
            "uid": "p0000000-0000-4000-8000-%012d" % i,
            "labels": {"app": "web" if owned else "solo",
                       "pod-template-hash": "abc"}}
    if owned:
        meta["ownerReferences"] = [{
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "name": "web-abc",
            "uid": "r0000000-0000-4000-8000-000000000001",
            "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": "n1", "containers": [{
                "name": "app", "image": "pytorch/pytorch:2.3.0",
                "command": ["torchrun", "--nproc_per_node=8", "train.py",
                            "--num-workers", "4"],
                "resources": {"requests": {"cpu": cpu},
                              "limits": {"cpu": cpu}}}]},
            "status": {"phase": "Running", "containerStatuses": [{
                "name": "app", "state": {"running": {
                    "startedAt": "2025-03-01T00:00:00Z"}}}]}}
for i, (name, cpu, owned) in enumerate([
        ("web-abc-1", "4", True), ("web-abc-2", "4", True),
        ("web-abc-3", "4", True), ("web-abc-4", "2", True),
        ("solo-a", "4", False), ("solo-b", "4", False)]):
    put("pod-%s.json" % name, pod(name, cpu, owned, i))
put("_throttling.json", {"ratios": {"scale/web-abc-1/app": 0.2,
                                    "scale/web-abc-2/app": 0.5,
                                    "scale/web-abc-3/app": 0.3}})
PY
apiserver_start --fixtures "$tmp/fx" --timeout 280 || { bad "server"; finish; }
D=$APISERVER_DIR
K="--kubeconfig $D/kubeconfig"

# 1. text: one finding per problem of the owner's Pods, with their count;
# the other spec and the Pods without an owner stand alone
: > "$D/requests.jsonl"
expect text 1 "$BIN" $K -n scale pods
has text-owner "deployment/scale/web/web-abc-1[app]: error: 8 ranks x (1 intra-op thread + 4 loader workers) = 40 busy threads on a budget of 4 CPUs (container \"app\") (3 Pods) [CPU401 cpu-oversubscribed]"
n=$(printf '%s\n' "$out" | grep -c 'CPU401')
[ "$n" = 4 ] && ok || bad "CPU401 $n times, expected 4 (web x3 once, web-abc-4, solo-a, solo-b)"
has other-spec "pod/scale/web-abc-4[app]: error: 8 ranks x (1 intra-op thread + 4 loader workers) = 40 busy threads on a budget of 2 CPUs"
has solo-a "pod/scale/solo-a[app]: error:"
has solo-b "pod/scale/solo-b[app]: error:"
lacks no-pod-name-of-group "pod/scale/web-abc-2[app]"
lacks no-count-alone "solo-a[app]: error: 8 ranks x (1 intra-op thread + 4 loader workers) = 40 busy threads on a budget of 4 CPUs (container \"app\") ("
# measured: the most throttled of the three, named
has worst "deployment/scale/web/web-abc-1[app]: warning: throttled in 50.0% of CFS periods since it started"
has worst-named "(3 Pods; measured: the most throttled, pod/scale/web-abc-2) [CPU501 cpu-throttled]"
# each owner read once
rs=$(grep -c '"path": "/apis/apps/v1/namespaces/scale/replicasets/web-abc"' "$D/requests.jsonl")
[ "$rs" = 1 ] && ok || bad "ReplicaSet web-abc read $rs times"
if grep -q 'deployments' "$D/requests.jsonl"; then
	bad "the Deployment was read (the ReplicaSet names it)"
else ok; fi
expect budget 1 "$BIN" $K -n scale --budget pods
has budget-row "deployment/scale/web/web-abc-1 (3 Pods)  app  limit 4 (request 4)"
has budget-measured "throttled 50% of periods (pod/scale/web-abc-2, the most throttled of 3 Pods)"

# 2. JSON: pods on the shared findings only
expect json 1 "$BIN" $K -n scale -o json pods
printf '%s\n' "$out" > "$tmp/scale.json"
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = d["findings"]
web = [x for x in f if x["object"] == "deployment/scale/web/web-abc-1"]
assert web and all(x["pods"] == 3 for x in web), web
assert all("(3 Pods" in x["message"] for x in web), web
rest = [x for x in f if x["object"] != "deployment/scale/web/web-abc-1"]
assert rest and all("pods" not in x for x in rest), rest
assert {x["object"] for x in rest} == {"pod/scale/web-abc-4",
    "pod/scale/solo-a", "pod/scale/solo-b"}, rest
b = [x for x in d["budgets"] if x["object"] == "deployment/scale/web/web-abc-1"]
assert len(b) == 1 and b[0]["pods"] == 3, b
assert b[0]["measured"]["pod"] == "pod/scale/web-abc-2", b
assert b[0]["measured"]["throttled_pct"] == 50, b
assert len(d["budgets"]) == 4, d["budgets"]
' && ok || bad "json pods"

# 3. SARIF: the count in the result properties; the log validates
expect sarif 1 "$BIN" $K -n scale -o sarif --output-file "$tmp/s.sarif" pods
python3 "$root/tests/validate-sarif.py" "$root/testdata/reference/sarif/sarif-schema-2.1.0.json" "$tmp/s.sarif" >/dev/null && ok || bad "sarif invalid"
python3 - "$tmp/s.sarif" <<'PY' && ok || bad "sarif pods"
import json, sys
rs = json.load(open(sys.argv[1]))["runs"][0]["results"]
shared = [r for r in rs if r.get("properties", {}).get("pods") == 3]
assert len(shared) >= 3, shared
alone = [r for r in rs if "pods" not in r.get("properties", {})]
assert len(alone) >= 3, alone
PY

# 4. two owners' Pods through a controller target: the same grouping
expect deploy 1 "$BIN" $K -n scale deploy/web
has deploy "deployment/scale/web/web-abc-1[app]: error:"
apiserver_stop

# 5. a server that writes list items before kind and metadata (valid
# JSON Kubernetes never writes): read whole, the same report
apiserver_start --fixtures "$tmp/fx" --items-first --timeout 120 || { bad "server items-first"; finish; }
D=$APISERVER_DIR
expect items-first 1 "$BIN" --kubeconfig "$D/kubeconfig" -n scale -o json pods
printf '%s\n' "$out" > "$tmp/items-first.json"
# (the same but for the throttling counters, which move with each read)
python3 - "$tmp/scale.json" "$tmp/items-first.json" <<'PY' && ok || bad "items-first: another report"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda d: sorted((f["object"], f["rule"], f.get("pods", 0))
                       for f in d["findings"])
assert key(a) == key(b) and len(key(a)) == 9, (key(a), key(b))
PY
apiserver_stop

# 6. Pods of 100 containers on 3 nodes: pages passing 2 MiB make the next
# pages smaller, each node's metrics are read once (and let go before the
# next); the report is one finding per Deployment and problem
apiserver_start --generate-pods 600 --training --containers-per-pod 100 --pod-nodes 3 --timeout 200 || { bad "server wide"; finish; }
D=$APISERVER_DIR
: > "$D/requests.jsonl"
/usr/bin/time -f '%M' -o "$tmp/rss" "$BIN" --kubeconfig "$D/kubeconfig" -A > "$tmp/wide.txt" 2> "$tmp/wide.err"
rc=$?
[ "$rc" = 1 ] && ok || { bad "wide: exit $rc"; head -3 "$tmp/wide.err"; }
rss=$(tail -1 "$tmp/rss")
[ "$rss" -lt "$rss_max" ] && ok || bad "wide: peak RSS $rss KiB >= $rss_max KiB"
grep -q '"path": "/api/v1/pods".*limit=500' "$D/requests.jsonl" && ok || bad "wide: no first page of 500"
small=$(grep '"path": "/api/v1/pods"' "$D/requests.jsonl" | grep -c 'limit=[1-4]\{0,1\}[0-9]\{1,2\}[^0-9]')
[ "$small" -ge 1 ] && ok || bad "wide: no smaller page after a large one"
grep -q '^deployment/gen-b/gen-train-001\[main\]: error: .* (100 Pods) \[CPU401' "$tmp/wide.txt" && ok || bad "wide: no aggregated CPU401"
reads=$(grep -c 'proxy/metrics/cadvisor' "$D/requests.jsonl")
distinct=$(grep -o '"path": "[^"]*proxy/metrics/cadvisor"' "$D/requests.jsonl" | sort -u | wc -l)
grep -q 'nodes/gen-node-002/proxy/metrics/cadvisor' "$D/requests.jsonl" && [ "$reads" = "$distinct" ] && ok || bad "wide: $reads metrics reads for $distinct nodes"
grep -q '^    measured (cadvisor, .*, the most throttled of 100 Pods)$' "$tmp/wide.txt" && ok || bad "wide: no measured line naming the most throttled Pod"
# (the default fixtures add their own: among them the tokenizer server's
# CPU204, its --workers $(nproc) under a 2-CPU limit)
n=$(grep -c '^[a-z].*: \(error\|warning\|note\): ' "$tmp/wide.txt")
grep -q '^[a-z]*/serving/tokenizer.*\[CPU204' "$tmp/wide.txt" && ok || bad "wide: no CPU204 for the tokenizer server"
[ "$n" -le 25 ] && ok || bad "wide: $n findings for 6 Deployments and the fixtures"
apiserver_stop

# 7. -A over 10,000 generated training Pods (100 per Deployment): a
# finding per Deployment and problem, each ReplicaSet read once, memory
# bounded (a page's text and one Pod, not the list)
apiserver_start --generate-pods 10000 --training --timeout 280 || { bad "server 2"; finish; }
D=$APISERVER_DIR
: > "$D/requests.jsonl"
/usr/bin/time -f '%M' -o "$tmp/rss" "$BIN" --kubeconfig "$D/kubeconfig" -A > "$tmp/big.txt" 2> "$tmp/big.err"
rc=$?
[ "$rc" = 1 ] && ok || { bad "10,000 Pods: exit $rc"; head -3 "$tmp/big.err"; }
rss=$(tail -1 "$tmp/rss")
[ "$rss" -lt "$rss_max" ] && ok || bad "10,000 Pods: peak RSS $rss KiB >= $rss_max KiB"
grep -q '^deployment/gen-a/gen-train-000\[main\]: error: .* (100 Pods) \[CPU401' "$tmp/big.txt" && ok || bad "no aggregated CPU401 for gen-a/gen-train-000"
n=$(grep -c 'CPU401' "$tmp/big.txt")
[ "$n" -le 110 ] && ok || bad "$n CPU401 findings for 102 Deployments"
reads=$(grep -c '/replicasets/' "$D/requests.jsonl")
distinct=$(grep -o '"path": "[^"]*/replicasets/[^"]*"' "$D/requests.jsonl" | sort -u | wc -l)
[ "$reads" = "$distinct" ] && [ "$reads" -ge 100 ] && ok || bad "ReplicaSets read $reads times for $distinct"
apiserver_stop

finish
