#!/bin/sh
# The effective budget live (issue 35, section 5), against the fake API
# server's `budget` fixtures (testdata/apiserver/fixtures/budget), through
# the real kubectl as `kubectl cpulint …` and directly:
# - a controller with no Pods yet is judged with its namespace's
#   LimitRanges (GET /api/v1/namespaces/NS/limitranges, once), their
#   default named as the budget's source, their max enforced (CPU104);
# - a controller whose Pods run is not given them again (no LimitRange
#   read); a 403 on the list is one note, and the template is judged
#   without them;
# - a Pod resized in place (Kubernetes 1.33+) is judged on the CPU its
#   status says was allocated, and the message says "resized" with both
#   values; its twin whose status equals its spec is not.
set -u
BIN=${BIN:?}
. tests/live/apiserver.sh
SUITE=live-budget
tmp=$(mktemp -d)
. tests/lib.sh

command -v kubectl >/dev/null 2>&1 || { bad "kubectl is not on PATH"; finish; }
mkdir -p "$tmp/bin" "$tmp/home"
cp "$BIN" "$tmp/bin/kubectl-cpulint"
export PATH="$tmp/bin:$PATH" HOME="$tmp/home"
unset KUBECONFIG
apiserver_start --fixtures budget --timeout 120 || { bad "server"; finish; }
D=$APISERVER_DIR
limitranges() {	# how many LIST requests of research's LimitRanges
	grep -c '"path": "/api/v1/namespaces/research/limitranges"' \
		"$D/requests.jsonl"
}

# 0. the server lists LimitRanges as the real one does
kubectl --kubeconfig "$D/kubeconfig" get limitranges -n research -o json \
	> "$tmp/lr.json" 2>"$tmp/lr.err"
python3 - "$tmp/lr.json" <<'PY' && ok || { bad "limitranges list"; cat "$tmp/lr.err"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "List" or d["kind"] == "LimitRangeList", d["kind"]
assert d["items"][0]["metadata"]["name"] == "cpu-bounds"
assert d["items"][0]["spec"]["limits"][0]["max"]["cpu"] == "4"
PY
n0=$(limitranges)

# 1. a Job with no Pods yet and no resources: the LimitRange's default
expect job-template 1 kubectl cpulint job/segment -n research --kubeconfig "$D/kubeconfig"
has job-budget 'job/research/segment[train]: error: 1 rank x (2 intra-op threads + 4 loader workers) = 6 busy threads on a budget of 2 CPUs from LimitRange "cpu-bounds" (container "train") [CPU401 cpu-oversubscribed]'
lacks job-no-cpu101 "CPU101"
n1=$(limitranges)
check job-read-limitranges [ "$n1" = $((n0 + 1)) ]

# 2. a PyTorchJob with no Pods asking above the max: rejected at admission
expect pytorchjob-max 1 "$BIN" --kubeconfig "$D/kubeconfig" -n research pytorchjob/vit-large
has pytorchjob-cpu104 'pytorchjob/research/vit-large/Worker[pytorch]: error: container "pytorch" has a CPU limit of 8, above the max of 4 in LimitRange "cpu-bounds": admission rejects its Pods, so the job never starts [CPU104 limitrange-rejected]'

# 3. both in one run: the namespace's LimitRanges are read once
n2=$(limitranges)
expect both 1 "$BIN" --kubeconfig "$D/kubeconfig" -n research job/segment pytorchjob/vit-large
has both-cpu104 "CPU104"
has both-cpu401 'from LimitRange "cpu-bounds"'
check both-read-once [ "$(limitranges)" = $((n2 + 1)) ]

# 4. a Job whose Pods run: they carry what admission gave them, so no
# LimitRange is read, and the running Pod's resize is what is judged
n3=$(limitranges)
expect job-with-pods 1 "$BIN" --kubeconfig "$D/kubeconfig" -n research job/embed-train
check job-with-pods-no-limitranges [ "$(limitranges)" = "$n3" ]
lacks job-with-pods-no-lr-name "LimitRange"

# 5. in-place resize: the allocated 4 CPUs, not the spec's 8
expect resized 1 kubectl cpulint pod/embed-train-0 -n research --kubeconfig "$D/kubeconfig"
has resized-message 'pod/research/embed-train-0[train]: error: OMP_NUM_THREADS=8 x 1 rank = 8 threads on a budget of 4 CPUs as resized in place, not the spec'"'"'s 8 (container "train") [CPU202 thread-env-over-budget]'
has resized-fix 'set OMP_NUM_THREADS to "4"'
expect resized-json 1 "$BIN" --kubeconfig "$D/kubeconfig" -n research -o json pod/embed-train-0
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = [x for x in d["budgets"] if x["object"] == "pod/research/embed-train-0"][0]
assert b["cpu_limit"] in (4, "4", 4.0), b
' && ok || bad "resized budget in json"
expect not-resized 0 "$BIN" --kubeconfig "$D/kubeconfig" -n research pod/embed-train-1
lacks not-resized-word "resized"
has not-resized-clean "no findings"
check pods-no-limitranges [ "$(limitranges)" = "$n3" ]
apiserver_stop

# 6. no RBAC to list LimitRanges: one note, the template judged without
apiserver_start --fixtures budget --deny list:limitranges:research --timeout 60 || { bad "server 2"; finish; }
D=$APISERVER_DIR
expect denied 1 "$BIN" --kubeconfig "$D/kubeconfig" -n research job/segment
has denied-note "job/research/segment: no Pods yet, and the LimitRanges of namespace research were not read ("
has denied-cpu101 "CPU101"
apiserver_stop
rm -rf "$tmp"
finish
