#!/bin/sh
# Live mode reads kinds from the kinds table (lib/load/kinds.h), against
# the fake API server's `kinds` fixtures (testdata/apiserver/fixtures/
# kinds): a Pod whose top owner is a RayJob (KubeRay's submitter) or a
# plain JobSet is not a training pod by its owner's kind, as a file of
# that kind is not, and a Katib trial's Pod trains; before the table, any owner kind containing "Job"
# (but Job and CronJob) made the Pod's first container a training one.
# The types live mode names come from the table's rows too.
set -u
BIN=${BIN:?}
. tests/live/apiserver.sh
SUITE=live-kinds
tmp=$(mktemp -d)
. tests/lib.sh

apiserver_start --fixtures kinds --timeout 60 || { bad "server"; finish; }
K="--kubeconfig $APISERVER_DIR/kubeconfig"

# 1. KubeRay's submitter: Pod → Job → RayJob.  Ray's Pods never train
# (Ray sets each worker's OMP_NUM_THREADS); the submitter only runs
# `ray job submit`.
expect rayjob 0 "$BIN" $K -n ray -v pod/rayjob-sample-x7k2p
has rayjob-owner "pod/ray/rayjob-sample-x7k2p is owned by RayJob/ray/rayjob-sample"
lacks rayjob-silent "CPU201"
expect rayjob-json 0 "$BIN" $K -n ray -o json pod/rayjob-sample-x7k2p
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["findings"] == [] and d["budgets"] == [], d
' && ok || bad "rayjob: a training container in the JSON"

# 2. A JobSet's Pod: training on evidence (a launcher, GPUs, Python that
# trains), as the JobSet read from a file is; `python prep.py` in 2 CPUs
# is none.
expect jobset 0 "$BIN" $K -n data -v pod/tokenize-prep-0-0-q9w8e
has jobset-owner "is owned by JobSet/data/tokenize"
lacks jobset-silent "CPU201"
cat > "$tmp/jobset.yaml" <<'YML'
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: tokenize, namespace: data}
spec:
  replicatedJobs:
  - name: prep
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: prep
              image: python:3.11-slim
              command: ["python", "prep.py", "--shards", "64"]
              resources: {requests: {cpu: "2"}, limits: {cpu: "2"}}
YML
expect jobset-file 0 "$BIN" "$tmp/jobset.yaml"
lacks jobset-file-silent "CPU201"

# 3. A Katib trial's Pod: Pod -> Job -> Trial.  The trial is the
# training Katib tunes, so its primary container trains (as the
# Experiment read from a file says): 0.5 CPU and no OMP_NUM_THREADS is
# CPU201; Katib's metrics collector sidecar is not judged.
expect katib 1 "$BIN" $K -n kubeflow -v pod/random-lr-x7k2p9q-5kq2m
has katib-owner "is owned by Trial/kubeflow/random-lr-x7k2p9q"
has katib-cpu201 'OMP_NUM_THREADS is not set in container "training-container"'
lacks katib-sidecar 'container "metrics-logger-and-collector"'

# 4. The types live mode knows are the table's targets, by kubectl's
# names: a short name, a plural, a kind with its group.
expect short-name 2 "$BIN" $K -n ray cj/none
has short-name "cronjobs"
expect group-name 2 "$BIN" $K -n ray Deployment.apps/none
has group-name "deployments"
finish
