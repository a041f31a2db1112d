#!/bin/sh
# kubectl cpulint plan: for each input of testdata/plan/ the plan is valid
# for its engine (tests/plan-check.py: Polyaxon's operation schema,
# Katib's CRD and the webhook's rules, labelled plain manifests), the
# settings vary one knob at a time inside the budget, and linting the
# plan with the tool itself finds no rule the input did not already
# fire (and never CPU202/CPU401: every setting fits the budget).
set -u
BIN=${BIN:?}
SUITE=plan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh

rules() { "$BIN" --no-config -o json "$@" 2>/dev/null | python3 -c '
import json, sys
print(" ".join(sorted({f["rule"] for f in json.load(sys.stdin)["findings"]})))'; }

# no_new INPUT PLAN: the plan fires no rule the input did not
no_new() {
	before=$(rules "$1") after=$(rules "$2")
	for r in $after; do
		case " $before " in *" $r "*) ;; *) bad "$2: new finding $r (input: $before)"; return ;; esac
	done
	case " $after " in *" CPU401 "*|*" CPU202 "*) bad "$2: over the budget: $after"; return ;; esac
	ok
}

for f in pytorchjob job trainjob; do
	expect "$f-katib" 0 "$BIN" plan "testdata/plan/$f.yaml"
	printf '%s\n' "$out" > "$tmp/$f-katib.yaml"
	has "$f-katib" "Katib Experiment, 6 settings (threads, then workers)"
	python3 tests/plan-check.py katib "$tmp/$f-katib.yaml" && ok || bad "$f: Katib plan invalid"
	no_new "testdata/plan/$f.yaml" "$tmp/$f-katib.yaml"
	expect "$f-jobs" 0 "$BIN" plan --jobs "testdata/plan/$f.yaml"
	printf '%s\n' "$out" > "$tmp/$f-jobs.yaml"
	python3 tests/plan-check.py jobs "$tmp/$f-jobs.yaml" && ok || bad "$f: manifests invalid"
	no_new "testdata/plan/$f.yaml" "$tmp/$f-jobs.yaml"
done

# The PyTorchJob's budget: 8 CPUs, 1 rank, suggested 4 threads + 4
# workers: threads 1, 2, 4 at 4 workers, then workers 0, 1, 2 at 4
# threads, each once, every one within 8 per rank.
python3 - "$tmp/pytorchjob-jobs.yaml" <<'PY' && ok || bad "pytorchjob: the settings"
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
got = []
for d in docs:
    c = d["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in c["env"]}
    assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"]
    w = c["command"][c["command"].index("--workers") + 1]
    got.append((int(env["OMP_NUM_THREADS"]), int(w)))
    assert d["metadata"]["labels"]["cpulint.io/setting"] == "t%d-w%d" % got[-1]
assert got == [(4, 4), (1, 4), (2, 4), (4, 0), (4, 1), (4, 2)], got
assert all(t + w <= 8 for t, w in got)
PY

# A shell string's --num-workers is set inside the string; --segment sets
# the script's own --max-steps.
expect job-segment 0 "$BIN" plan --jobs --segment max-steps=200 testdata/plan/job.yaml
has job-segment "eval.py --num-workers 3 --max-steps 200"
has job-segment "cpulint.io/setting: t1-w3"

# --max caps each knob.
expect max 0 "$BIN" plan --jobs --max 2 testdata/plan/pytorchjob.yaml
has max "Jobs, 4 settings"
lacks max "value: \"4\""

# Polyaxon: the command's own input carries the workers; --segment sets
# the epochs input; the settings are run inputs.
expect polyaxon 0 "$BIN" plan --segment epochs=1 testdata/plan/polyaxonfile.yaml
printf '%s\n' "$out" > "$tmp/polyaxon.yaml"
python3 tests/plan-check.py polyaxon "$tmp/polyaxon.yaml" && ok || bad "polyaxon plan invalid"
no_new testdata/plan/polyaxonfile.yaml "$tmp/polyaxon.yaml"
python3 - "$tmp/polyaxon.yaml" <<'PY' && ok || bad "polyaxon: matrix and params"
import sys, yaml
op = yaml.safe_load(open(sys.argv[1]))
assert op["params"] == {"epochs": {"value": 1}}, op["params"]
rows = [(v["cpulint_threads"], v["workers"], v["cpulint_setting"]) for v in op["matrix"]["values"]]
assert rows == [(3, 3, "t3-w3"), (1, 3, "t1-w3"), (2, 3, "t2-w3"), (3, 0, "t3-w0"), (3, 1, "t3-w1"), (3, 2, "t3-w2")], rows
c = op["component"]["run"]["container"]
assert "--workers={{ workers }}" in c["args"], c["args"]
assert {"name": "OMP_NUM_THREADS", "value": "{{ cpulint_threads }}"} in c["env"]
PY

# A v1.1 operation holding its component: its own fields are kept; one
# that runs a component by reference, or has a matrix, is refused.
cat > "$tmp/op.yaml" <<'YML'
version: 1.1
kind: operation
name: tune
queue: gpu-pool
component:
  inputs:
  - {name: steps, type: int, value: 1000}
  run:
    kind: job
    container:
      image: pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime
      command: ["python", "train.py", "--num-workers", "2", "--steps", "{{ steps }}"]
      resources: {limits: {cpu: 4}}
YML
expect op 0 "$BIN" plan --segment steps=50 --output-file "$tmp/op-plan.yaml" "$tmp/op.yaml"
[ -z "$out" ] && ok || bad "op: --output-file: the plan went to stdout"
python3 tests/plan-check.py polyaxon "$tmp/op-plan.yaml" && ok || bad "op: plan invalid"
grep -q '^queue: gpu-pool$' "$tmp/op-plan.yaml" && grep -q -- '- --num-workers$' "$tmp/op-plan.yaml" &&
	grep -q -- "- '{{ cpulint_workers }}'$" "$tmp/op-plan.yaml" && ok || bad "op: fields or workers input"
sed 's/^queue: gpu-pool$/matrix: {kind: mapping, values: [{steps: 1}]}/' "$tmp/op.yaml" > "$tmp/op-matrix.yaml"
expect op-matrix 2 "$BIN" plan "$tmp/op-matrix.yaml"
has op-matrix "the operation has a matrix already: plan its component"
# (an operation that runs its component by pathRef holds no container:
# nothing to plan in it; plan the component's file)
printf 'version: 1.1\nkind: operation\npathRef: ./component.yaml\n' > "$tmp/op-ref.yaml"
expect op-ref 2 "$BIN" plan "$tmp/op-ref.yaml"
has op-ref "no training container in the files named: nothing to plan"

# The checker is not vacuous: a trialParameter nothing uses is refused.
sed 's/reference: workers/reference: nothing/' "$tmp/pytorchjob-katib.yaml" > "$tmp/broken.yaml"
if python3 tests/plan-check.py katib "$tmp/broken.yaml" >/dev/null; then bad "the checker took a broken plan"; else ok; fi

# What no plan is written for: one line each, exit 2.
cat > "$tmp/legacy.yaml" <<'YML'
version: 1
kind: experiment
environment:
  resources:
    cpu: {requests: 2, limits: 4}
run:
  cmd: python train.py --workers 4
YML
expect legacy 2 "$BIN" plan "$tmp/legacy.yaml"
has legacy "a Polyaxonfile of version 1"
expect segment-missing 2 "$BIN" plan --segment steps=5 testdata/plan/polyaxonfile.yaml
has segment-missing "the component has no input \"steps\""
expect segment-bad 2 "$BIN" plan --segment steps testdata/plan/polyaxonfile.yaml
has segment-bad "--segment takes NAME=VALUE"
# --segment never sets a knob the plan sweeps (issue 40, point 15): the
# runs would all take its value, and the plan would fire CPU401.
for seg in workers=99 num-workers=99 num_workers=99; do
	expect "segment-knob-$seg" 2 "$BIN" plan --jobs --segment "$seg" testdata/plan/pytorchjob.yaml
	has "segment-knob-$seg" "--segment $seg: that is a knob the plan sweeps itself"
	check "segment-knob-$seg-no-plan" [ -z "$out" ]
done
expect segment-knob-katib 2 "$BIN" plan --segment workers=99 testdata/plan/pytorchjob.yaml
has segment-knob-katib "that is a knob the plan sweeps itself"
expect segment-knob-polyaxon 2 "$BIN" plan --segment workers=99 testdata/plan/polyaxonfile.yaml
has segment-knob-polyaxon "--segment workers=99: that is a knob the plan sweeps itself"
expect segment-knob-input 2 "$BIN" plan --segment cpulint_threads=64 testdata/plan/polyaxonfile.yaml
has segment-knob-input "that is a knob the plan sweeps itself"
# A Job without a CPU budget, next to one with: the other's plan is
# written, and the run says why the first has none (exit 2).
expect no-budget 2 "$BIN" plan testdata/example/eval-job.yaml testdata/plan/pytorchjob.yaml
has no-budget "eval-job.yaml:11: Job/resnet-eval: no CPU budget to plan in"
has no-budget "kind: Experiment"
# A command that exports OMP_NUM_THREADS itself would override the plan.
sed 's/torchrun --nproc/export OMP_NUM_THREADS=$(nproc); torchrun --nproc/' testdata/plan/job.yaml > "$tmp/exports.yaml"
expect exports 2 "$BIN" plan "$tmp/exports.yaml"
has exports "the command sets OMP_NUM_THREADS or MKL_NUM_THREADS itself"
cat > "$tmp/deploy.yaml" <<'YML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  selector: {matchLabels: {app: t}}
  template:
    metadata: {labels: {app: t}}
    spec:
      containers:
      - name: t
        image: x
        command: ["torchrun", "--nproc_per_node=1", "train.py"]
        resources: {limits: {cpu: "4"}}
YML
expect deploy 2 "$BIN" plan "$tmp/deploy.yaml"
has deploy "not a PyTorchJob, TrainJob, Job or v1.1 Polyaxonfile"
expect none 2 "$BIN" plan
has none "name the Polyaxonfiles or manifests"
expect help 0 "$BIN" plan --help
has help "--segment NAME=VALUE"
finish
