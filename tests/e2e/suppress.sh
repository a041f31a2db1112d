#!/bin/sh
# Suppression on the object: ignore-check.cpulint.io/<rule> annotations on
# an object's metadata and on its Pod template's (static and live), per-
# object ignores in .cpulint.yaml (kind, name and namespace globs), SARIF
# suppressions (inSource for annotations, external for the configuration,
# the reason as justification), and warnings for unknown rule ids in
# annotations, comments and the configuration.
set -u
SUITE=suppress
BIN=${BIN:?}
root=$(pwd)
schema=$root/testdata/reference/sarif/sarif-schema-2.1.0.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/lib.sh"

mkdir -p "$tmp/s" && cd "$tmp/s" || exit 1
cat > deploy.yaml <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tokenizer-a
  namespace: serving
  annotations:
    ignore-check.cpulint.io/CPU201: "OMP_NUM_THREADS comes from the image"
    ignore-check.cpulint.io/CPU2O2: "a typo"
spec:
  template:
    metadata:
      annotations:
        ignore-check.cpulint.io/cpu-limit-missing: "no limits on this cluster"
    spec:
      containers:
      - name: train
        image: x
        command: [torchrun, --nproc_per_node=1, train.py]
        resources: {requests: {cpu: "4"}}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tokenizer-b
  namespace: serving
spec:
  template:
    spec:
      containers:
      - name: train
        image: x
        command: [torchrun, --nproc_per_node=1, train.py]
        resources: {requests: {cpu: "4"}}
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: resnet, namespace: ml}
spec:
  pytorchReplicaSpecs:
    Master:
      template:
        metadata:
          annotations: {ignore-check.cpulint.io/CPU201: "the master only waits"}
        spec:
          containers:
          - {name: pytorch, image: x, command: [python, train.py], resources: {limits: {cpu: "4"}}}
    Worker:
      template:
        spec:
          containers:
          - {name: pytorch, image: x, command: [python, train.py], resources: {limits: {cpu: "4"}}}
YAML
cat > train.py <<'PY'
import os
from multiprocessing import Pool

pool = Pool(os.cpu_count())  # cpulint: disable=CPU3O1
other = Pool(os.cpu_count())  # cpulint: disable=CPU301 sized on purpose here
PY

# 1. annotations on the object and on its Pod template (by id or name)
# tokenizer-a's container is on line 16, tokenizer-b's on 30, the
# PyTorchJob's Master on 46 and its Worker on 51.
expect annotations 1 "$BIN" --no-config --fail-on note deploy.yaml train.py
lacks annotation-object "deploy.yaml:16:9: warning: OMP_NUM_THREADS is not set"
lacks annotation-template "deploy.yaml:19:"
has annotation-other-object "deploy.yaml:30:9: warning: OMP_NUM_THREADS is not set"
has annotation-other-template "deploy.yaml:33:37: note:"
lacks replica-master "deploy.yaml:46:"
has replica-worker "deploy.yaml:51:13: warning: OMP_NUM_THREADS is not set"
has annotation-summary "4 findings (0 errors, 3 warnings, 1 note), 4 suppressed"

# 2. unknown rule ids warn at their place; the exit status is unaffected
has unknown-annotation "deploy.yaml:8:5: warning: unknown rule \"CPU2O2\" in annotation ignore-check.cpulint.io/CPU2O2"
has unknown-comment "train.py:4:49: warning: unknown rule \"CPU3O1\" in a cpulint: comment"
lacks prose-after-list "\"sized\""
has prose-list-still-works "train.py:4:"
lacks prose-list-suppressed "train.py:5:"
expect unknown-exit 0 "$BIN" --no-config --fail-on error deploy.yaml
has unknown-exit-warns "warning: unknown rule \"CPU2O2\""

# 3. SARIF keeps suppressed findings with kind and justification
expect sarif 1 "$BIN" --no-config -o sarif --output-file a.sarif deploy.yaml
if python3 "$root/tests/validate-sarif.py" "$schema" a.sarif >/dev/null; then ok; else bad "sarif invalid"; fi
python3 - a.sarif <<'PY' && ok || bad "sarif suppressions"
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
sup = sorted((r["ruleId"], s["kind"], s["justification"])
             for r in res for s in r.get("suppressions", []))
assert sup == [("CPU102", "inSource", "no limits on this cluster"),
               ("CPU201", "inSource", "OMP_NUM_THREADS comes from the image"),
               ("CPU201", "inSource", "the master only waits")], sup
PY

# 4. per-object ignores in .cpulint.yaml: globs on name and namespace
cat > .cpulint.yaml <<'YAML'
ignore:
- rule: CPU102
  kind: deployment
  name: "tokenizer-*"
  namespace: serving
  reason: serving runs without CPU limits
- {rule: thread-env-missing, name: tokenizer-b, namespace: other}
- {rule: CPU201, kind: PyTorchJob}
- {rule: CPU2O3}
YAML
expect config 1 "$BIN" --fail-on note deploy.yaml
lacks config-glob "deploy.yaml:33:"
has config-namespace-mismatch "deploy.yaml:30:9: warning: OMP_NUM_THREADS is not set"
lacks config-kind "deploy.yaml:51:"
has config-unknown ".cpulint.yaml:9:10: warning: unknown rule \"CPU2O3\" in ignore"
has config-summary "5 suppressed"
expect config-sarif 1 "$BIN" -o sarif --output-file b.sarif deploy.yaml
if python3 "$root/tests/validate-sarif.py" "$schema" b.sarif >/dev/null; then ok; else bad "sarif invalid (config)"; fi
python3 - b.sarif <<'PY' && ok || bad "sarif external suppressions"
import json, sys
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
sup = sorted((r["ruleId"], s["kind"], s["justification"])
             for r in res for s in r.get("suppressions", []))
assert ("CPU102", "external", "serving runs without CPU limits") in sup, sup
assert ("CPU201", "external", "ignored by .cpulint.yaml:8") in sup, sup
PY
printf 'ignore:\n- {kind: Pod}\n' > bad.yaml
expect config-no-rule 2 "$BIN" --config bad.yaml deploy.yaml
has config-no-rule "bad.yaml:2:3: error: an ignore entry needs a rule"
printf 'ignore:\n- {rule: CPU102, nmae: x}\n' > bad.yaml
expect config-bad-key 2 "$BIN" --config bad.yaml deploy.yaml
has config-bad-key "unknown ignore key \"nmae\""
rm .cpulint.yaml
cd "$root"

# 5. live: the same annotations on a Pod, the same ignores for live objects
. tests/live/apiserver.sh
if command -v openssl >/dev/null 2>&1; then
	mkdir -p "$tmp/fx"
	cp testdata/apiserver/fixtures/default/* "$tmp/fx/"
	python3 - "$tmp/fx/ml-pod-train-0.json" <<'PY'
import json, sys
p = sys.argv[1]
o = json.load(open(p))
o["metadata"]["annotations"] = {
    "ignore-check.cpulint.io/thread-env-over-budget": "measured: fine",
    "ignore-check.cpulint.io/CPU5O1": "a typo",
}
json.dump(o, open(p, "w"), indent=2)
PY
	apiserver_start --fixtures "$tmp/fx" --timeout 120 || bad "server"
	D=$APISERVER_DIR
	expect live-annotation 1 "$BIN" --no-config --kubeconfig "$D/kubeconfig" pod/train-0
	lacks live-annotation "OMP_NUM_THREADS=16 x 4 ranks"
	has live-annotation-others "pod/ml/train-0[pytorch]: warning: throttled"
	has live-unknown "pod/ml/train-0: warning: unknown rule \"CPU5O1\" in annotation"
	printf 'ignore:\n- {rule: cpu-throttled, kind: pod, name: "train-*", namespace: ml, reason: known}\n' > "$tmp/live.yaml"
	expect live-config 1 "$BIN" --config "$tmp/live.yaml" --kubeconfig "$D/kubeconfig" -l app=resnet
	lacks live-config "[CPU501 cpu-throttled]"
	has live-config-summary "suppressed"
	expect live-sarif 1 "$BIN" --config "$tmp/live.yaml" --format sarif --kubeconfig "$D/kubeconfig" pod/train-0
	has live-sarif '"kind": "external"'
	has live-sarif '"justification": "known"'
	apiserver_stop
else
	bad "openssl is not installed (the fake API server needs it)"
fi

finish
