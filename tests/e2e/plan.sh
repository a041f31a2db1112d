#!/bin/sh
# kubectl cpulint plan: for each input of testdata/plan/ the plan is valid
# for its engine (tests/plan-check.py: Polyaxon's operation schema and
# the runs' labels, Katib's CRD and the webhook's rules with one knob per
# Experiment, labelled plain manifests), the settings vary one knob at a
# time around the suggestion (workers past the budget when the job has a
# loader) and include the job as written, and linting the plan with the
# tool itself finds no rule the input did not already fire but CPU401
# (workers past the budget, on purpose), and never CPU202 from a setting
# the plan chose (its threads stay inside the budget).
set -u
BIN=${BIN:?}
SUITE=plan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh

rules() { "$BIN" --no-config -o json "$@" 2>/dev/null | python3 -c '
import json, sys
print(" ".join(sorted({f["rule"] for f in json.load(sys.stdin)["findings"]})))'; }

# no_new INPUT PLAN: the plan fires no rule the input did not, but
# CPU401 for workers past the budget
no_new() {
	before=$(rules "$1") after=$(rules "$2")
	for r in $after; do
		case " $before CPU401 " in *" $r "*) ;; *) bad "$2: new finding $r (input: $before)"; return ;; esac
	done
	ok
}

# chosen_fit JOBS: linted one by one, no setting the plan chose (all but
# the job as written) sets threads over the budget (CPU202)
chosen_fit() {
	python3 - "$1" "$tmp/one.yaml" <<'PY' > "$tmp/settings.txt"
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
for i, d in enumerate(docs):
    s = d["metadata"]["labels"]["cpulint.io/setting"]
    yaml.safe_dump(d, open("%s.%d" % (sys.argv[2], i), "w"))
    print(i, s)
PY
	while read -r i s; do
		case $s in *-current) continue ;; esac
		case " $(rules "$tmp/one.yaml.$i") " in
		*" CPU202 "*) bad "$1: $s: threads over the budget"; return ;;
		esac
	done < "$tmp/settings.txt"
	ok
}

for f in pytorchjob job trainjob; do
	expect "$f-katib" 0 "$BIN" plan "testdata/plan/$f.yaml"
	printf '%s\n' "$out" > "$tmp/$f-katib.yaml"
	has "$f-katib" "Katib Experiments (one per knob), "
	python3 tests/plan-check.py katib "$tmp/$f-katib.yaml" && ok || bad "$f: Katib plan invalid"
	no_new "testdata/plan/$f.yaml" "$tmp/$f-katib.yaml"
	expect "$f-jobs" 0 "$BIN" plan --jobs "testdata/plan/$f.yaml"
	printf '%s\n' "$out" > "$tmp/$f-jobs.yaml"
	python3 tests/plan-check.py jobs "$tmp/$f-jobs.yaml" && ok || bad "$f: manifests invalid"
	no_new "testdata/plan/$f.yaml" "$tmp/$f-jobs.yaml"
	chosen_fit "$tmp/$f-jobs.yaml"
done
expect pytorchjob-katib 0 "$BIN" plan testdata/plan/pytorchjob.yaml
has pytorchjob-katib "Katib Experiments (one per knob), 8 settings (threads, then workers, then the job as written, t8-w6-current)"

# Katib runs exactly the planned settings: the trials of its Experiments
# (a grid each, one knob varying) are the plan's, once each.
python3 - "$tmp/pytorchjob-katib.yaml" <<'PY' && ok || bad "pytorchjob: Katib trials"
import itertools, sys, yaml
trials = []
for e in yaml.safe_load_all(open(sys.argv[1])):
    if not e:
        continue
    p = {x["name"]: [int(v) for v in x["feasibleSpace"]["list"]] for x in e["spec"]["parameters"]}
    trials += list(itertools.product(p["threads"], p["workers"]))
assert sorted(trials) == sorted([(4, 4), (1, 4), (2, 4), (4, 0), (4, 1), (4, 2), (4, 8), (8, 6)]), trials
PY

# The PyTorchJob's budget: 8 CPUs, 1 rank, suggested 4 threads + 4
# workers: threads 1, 2, 4 at 4 workers, then workers 0, 1, 2 at 4
# threads and past the budget (a loader: up to 4 + max(2, 8 / 2) = 8),
# each once, then the job as written (8 threads, 6 workers).
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
    assert d["metadata"]["labels"]["cpulint.io/setting"].startswith("t%d-w%d" % got[-1])
assert got == [(4, 4), (1, 4), (2, 4), (4, 0), (4, 1), (4, 2), (4, 8), (8, 6)], got
assert docs[-1]["metadata"]["labels"]["cpulint.io/setting"] == "t8-w6-current"
assert all(t <= 4 for t, w in got[:-1])
PY

# A second pool (issue 36): the lab's features job, OpenBLAS in each
# loader worker's __getitem__ at 16.  The loader computes per sample, so
# the suggestion leans to the workers (t1-w2 on 2 CPUs, as for a decoding
# loader) and the workers' knob goes past the budget (t1-w4).  Every
# setting also sets OPENBLAS_NUM_THREADS, to the share its own budget
# gives each process that runs the pool: 1 where 1 thread and W > 0
# workers share 2 CPUs, the rank's 2 - 1 + 1 = 2 at no workers (the
# pipeline runs in the rank); so what runs is what compare --fix keeps,
# and no setting but those past the budget fires a rule (CPU202 would,
# at 16).
expect features-jobs 0 "$BIN" plan --jobs testdata/plan/features/job.yaml
printf '%s\n' "$out" > "$tmp/features-jobs.yaml"
python3 tests/plan-check.py jobs "$tmp/features-jobs.yaml" && ok || bad "features: manifests invalid"
no_new testdata/plan/features/job.yaml "$tmp/features-jobs.yaml"
cp testdata/plan/features/train.py "$tmp/"	# linked: numpy in the workers
chosen_fit "$tmp/features-jobs.yaml"
rm "$tmp/train.py"
python3 - "$tmp/features-jobs.yaml" <<'PY' && ok || bad "features: OPENBLAS_NUM_THREADS per setting"
import sys, yaml
got = {}
for d in yaml.safe_load_all(open(sys.argv[1])):
    if not d:
        continue
    c = d["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in c["env"]}
    got[d["metadata"]["labels"]["cpulint.io/setting"]] = env["OPENBLAS_NUM_THREADS"]
assert got == {"t1-w2": "1", "t1-w0": "2", "t1-w1": "1", "t1-w4": "1"}, got
PY
lacks features-jobs 'value: "16"'
# Katib: a grid parameter of its own would pair every size with every
# setting, so the workers' Experiment is split where the size differs:
# each Experiment sets OPENBLAS_NUM_THREADS as a literal.
expect features-katib 0 "$BIN" plan testdata/plan/features/job.yaml
printf '%s\n' "$out" > "$tmp/features-katib.yaml"
has features-katib "each setting also sets OPENBLAS_NUM_THREADS to the share"
python3 tests/plan-check.py katib "$tmp/features-katib.yaml" && ok || bad "features: Katib plan invalid"
python3 - "$tmp/features-katib.yaml" <<'PY' && ok || bad "features: Katib trials and their OpenBLAS size"
import itertools, sys, yaml
trials = {}
for e in yaml.safe_load_all(open(sys.argv[1])):
    if not e:
        continue
    p = {x["name"]: [int(v) for v in x["feasibleSpace"]["list"]] for x in e["spec"]["parameters"]}
    c = e["spec"]["trialTemplate"]["trialSpec"]["spec"]["template"]["spec"]["containers"][0]
    env = {x["name"]: x["value"] for x in c["env"]}
    for t in itertools.product(p["threads"], p["workers"]):
        assert t not in trials, t
        trials[t] = env["OPENBLAS_NUM_THREADS"]
assert trials == {(1, 2): "1", (1, 0): "2", (1, 1): "1", (1, 4): "1"}, trials
PY
# Polyaxon: the size is a run input beside the threads, set per row.
expect features-polyaxon 0 "$BIN" plan testdata/plan/features/polyaxonfile.yaml
printf '%s\n' "$out" > "$tmp/features-polyaxon.yaml"
python3 tests/plan-check.py polyaxon "$tmp/features-polyaxon.yaml" && ok || bad "features: polyaxon plan invalid"
python3 - "$tmp/features-polyaxon.yaml" <<'PY' && ok || bad "features: polyaxon rows"
import sys, yaml
op = yaml.safe_load(open(sys.argv[1]))
rows = [(v["cpulint_threads"], v["workers"], v["cpulint_openblas_num_threads"]) for v in op["matrix"]["values"]]
assert rows == [(1, 2, 1), (1, 0, 2), (1, 1, 1), (1, 4, 1)], rows
c = op["component"]["run"]["container"]
assert {"name": "OPENBLAS_NUM_THREADS", "value": "{{ cpulint_openblas_num_threads }}"} in c["env"], c["env"]
assert any(i["name"] == "cpulint_openblas_num_threads" for i in op["component"]["inputs"])
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
assert rows == [(3, 3, "t3-w3"), (1, 3, "t1-w3"), (2, 3, "t2-w3"), (3, 0, "t3-w0"), (3, 1, "t3-w1"), (3, 2, "t3-w2"), (3, 4, "t3-w4"), (3, 6, "t3-w6")], rows
labels = op["component"]["run"]["environment"]["labels"]
assert labels == {"cpulint.io/plan": op["name"], "cpulint.io/setting": "{{ cpulint_setting }}"}, labels
c = op["component"]["run"]["container"]
assert "--workers={{ workers }}" in c["args"], c["args"]
assert {"name": "OMP_NUM_THREADS", "value": "{{ cpulint_threads }}"} in c["env"]
PY

# The lab's 1-CPU image job (issue 34: t2-w4 218 examples/s, t1-w0 409,
# t1-w1 373, t1-w2 449): the plan reaches t1-w2 and runs the job as
# written beside it; before, it wrote t1-w0 alone.
expect lab-jobs 0 "$BIN" plan --jobs testdata/rules/CPU401/decode-one-cpu-bad/job.yaml
has lab-jobs "Jobs, 5 settings (threads, then workers, then the job as written, t2-w4-current)"
[ "$(printf '%s\n' "$out" | sed -n 's/^ *cpulint.io\/setting: //p' | sort -u | tr '\n' ' ')" = "t1-w0 t1-w1 t1-w2 t1-w4 t2-w4-current " ] && ok || bad "lab-jobs: the settings"
# The same job on half a CPU (the lab's 0.5-CPU rows): one thread per
# rank, the workers varied past the budget, and the job as written; it
# said "no CPU budget to plan in" before
mkdir -p "$tmp/half"
sed 's/cpu: "1"/cpu: "500m"/' testdata/rules/CPU401/decode-one-cpu-bad/job.yaml > "$tmp/half/job.yaml"
cp testdata/rules/CPU401/decode-one-cpu-bad/train.py "$tmp/half/"
grep -q 'cpu: "500m"' "$tmp/half/job.yaml" && ok || bad "half: the budget not changed"
expect lab-half-katib 0 "$BIN" plan "$tmp/half/job.yaml"
has lab-half-katib "under 1 (each rank still runs one thread) per rank, split by the suggestion into 1 thread(s) and 0 loader worker(s)"
expect lab-half 0 "$BIN" plan --jobs "$tmp/half/job.yaml"
has lab-half "Jobs, 4 settings (threads, then workers, then the job as written, t2-w4-current)"
[ "$(printf '%s\n' "$out" | sed -n 's/^ *cpulint.io\/setting: //p' | sort -u | tr '\n' ' ')" = "t1-w0 t1-w1 t1-w2 t2-w4-current " ] && ok || bad "lab-half: the settings"
expect lab-katib 0 "$BIN" plan testdata/rules/CPU401/decode-one-cpu-bad/job.yaml
has lab-katib "split by the suggestion into 1 thread(s) and 2 loader worker(s) (the larger share to the workers: the code decodes images)"
printf '%s\n' "$out" > "$tmp/lab-katib.yaml"
python3 tests/plan-check.py katib "$tmp/lab-katib.yaml" && ok || bad "lab: Katib plan invalid"

# A budget with nothing to compare says so, with the budget that would:
# one CPU, a compute job with no loader and no thread setting of its own.
mkdir "$tmp/compute"
printf 'import torch\nmodel = torch.nn.Linear(8, 8)\nfor _ in range(10):\n    model(torch.randn(4, 8)).sum().backward()\n' > "$tmp/compute/train.py"
cat > "$tmp/compute/job.yaml" <<'YML'
apiVersion: batch/v1
kind: Job
metadata: {name: dense}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime
        command: ["python", "train.py"]
        resources: {limits: {cpu: "1"}}
YML
expect nothing 2 "$BIN" plan "$tmp/compute/job.yaml"
has nothing "Job/dense: nothing to compare: a budget of 1 CPU(s) per rank fits one setting (1 thread(s)) and the job as written is that setting or not one the plan can set; a comparison is worth running from 2 CPUs per rank (resources.limits.cpu \"2\" for 1 rank(s))"
lacks nothing "kind: Experiment"
# --max 1 asks for the one setting; a thread count written over the
# budget is run beside the fix, so the comparison is worth it
expect nothing-max 0 "$BIN" plan --jobs --max 1 "$tmp/compute/job.yaml"
has nothing-max "Jobs, 1 settings (threads)"
sed 's/        resources:/        env: [{name: OMP_NUM_THREADS, value: "4"}]\n        resources:/' "$tmp/compute/job.yaml" > "$tmp/compute/four.yaml"
expect nothing-four 0 "$BIN" plan --jobs "$tmp/compute/four.yaml"
has nothing-four "Jobs, 2 settings (threads, then the job as written, t4-current)"

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
has deploy "not a Job, PyTorchJob, TrainJob or v1.1 Polyaxonfile"
expect none 2 "$BIN" plan
has none "name the Polyaxonfiles or manifests"
# --repeat N: every setting N times, each run labelled with its number,
# valid for each engine (Katib: a third parameter, no knob)
for e in jobs katib polyaxon; do
	case $e in
	jobs) in=testdata/plan/pytorchjob.yaml flag=--jobs ;;
	katib) in=testdata/plan/pytorchjob.yaml flag= ;;
	polyaxon) in=testdata/plan/polyaxonfile.yaml flag= ;;
	esac
	# shellcheck disable=SC2086
	expect "repeat-$e" 0 "$BIN" plan $flag --repeat 3 --output-file "$tmp/r3-$e.yaml" "$in"
	has "repeat-$e" "each run 3 times"
	python3 tests/plan-check.py "$e" "$tmp/r3-$e.yaml" && ok || bad "$e: plan --repeat 3 invalid"
	# shellcheck disable=SC2086
	"$BIN" plan $flag --output-file "$tmp/r1-$e.yaml" "$in" 2>/dev/null
	python3 - "$e" "$tmp/r1-$e.yaml" "$tmp/r3-$e.yaml" <<'PY' && ok || bad "$e: --repeat 3 is not three runs of each setting"
import sys, yaml
e, one, three = sys.argv[1], *[[d for d in yaml.safe_load_all(open(p)) if d] for p in sys.argv[2:]]
if e == "jobs":
    assert len(three) == 3 * len(one), (len(one), len(three))
    first = [d["metadata"]["labels"]["cpulint.io/setting"] for d in three[:len(one)]]
    assert first == [d["metadata"]["labels"]["cpulint.io/setting"] for d in one], first
    assert {d["metadata"]["labels"]["cpulint.io/repeat"] for d in three[:len(one)]} == {"1"}
elif e == "katib":
    assert [d["spec"]["maxTrialCount"] for d in three] == [3 * d["spec"]["maxTrialCount"] for d in one]
else:
    assert len(three[0]["matrix"]["values"]) == 3 * len(one[0]["matrix"]["values"])
PY
done
expect repeat-bad 2 "$BIN" plan --repeat 10 testdata/plan/pytorchjob.yaml
has repeat-bad "a number from 1 to 9"
expect help 0 "$BIN" plan --help
has help "--segment NAME=VALUE"
has help "--repeat N"
finish
