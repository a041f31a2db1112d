#!/bin/sh
# Linear time on large valid files: for each shape that was once
# quadratic (many env entries in one container, many documents with
# findings, many containers, many Polyaxon inputs, one script importing
# many modules, many scripts importing one module, a kind: List of
# one-line Pods whose findings carry edits, many torch.set_num_threads
# calls in one script, many DataLoaders in one script sized by
# os.cpu_count(), a minified JSON List of Pods, linted and --diff'ed,
# print calls nested in print calls: not Python past 200, still linear;
# many inline programs in one file: python -c strings, Argo script
# templates, a KFP pipeline's functions; many objects in block strings:
# Argo resource manifests, a Katib trial-template ConfigMap),
# linting twice the input
# must take less than 3.3 times as long (linear is 2, quadratic 4).  A
# ratio, not a time, so a slow or busy machine does not fail it (see
# ratio() below for how noise is kept out).
set -u
BIN=${BIN:?}
SUITE=scaling
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh

gen() {	# kind n file
python3 - "$@" <<'PY'
import sys
kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
w = open(out, "w").write if kind not in ("modules", "entries", "threads",
                                        "loaders") else None
job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j%d}\nspec:\n"
       "  template:\n    spec:\n      restartPolicy: Never\n"
       "      containers:\n      - name: train\n        image: x\n"
       "        command: [torchrun, --nproc_per_node, '4', t.py]\n"
       "        env: [{name: OMP_NUM_THREADS, value: '8'}]\n"
       "        resources: {limits: {cpu: '4'}}\n")
head = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
        "  restartPolicy: Never\n  containers:\n")
if kind == "env":
    w(head + "  - name: train\n    image: x\n    command: [torchrun, "
      "--nproc_per_node, '2', t.py]\n    resources: {limits: {cpu: '4'}}\n"
      "    env:\n")
    for i in range(n):
        w("    - {name: VAR_%d, value: 'v%d'}\n" % (i, i))
elif kind == "docs":
    for i in range(n):
        w("---\n" + job % i)
elif kind == "fixes":
    # documents whose findings carry edits: one edit parse of the file
    for i in range(n):
        w("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\n"
          "spec:\n  containers:\n  - name: t\n    image: pytorch\n"
          "    command: [torchrun, --nproc_per_node, '2', t.py]\n"
          "    resources: {requests: {cpu: '2'}}\n" % i)
elif kind == "containers":
    w(head)
    for i in range(n):
        w("  - name: c%d\n    image: x\n    command: [torchrun, "
          "--nproc_per_node, '2', t.py]\n    env: [{name: OMP_NUM_THREADS,"
          " value: '8'}]\n    resources: {limits: {cpu: '4'}}\n" % i)
elif kind == "modules":
    # one entry script importing n modules, each passed a CPU count
    import os
    os.makedirs(out)
    for i in range(n):
        open("%s/mod%d.py" % (out, i), "w").write(
            "import os\nfrom torch.utils.data import DataLoader\n"
            "def make%d(root, workers):\n"
            "    return DataLoader(root, num_workers=workers)\n"
            "NUM%d = os.cpu_count()\n" % (i, i))
    open(out + "/train.py", "w").write(
        "".join("from mod%d import make%d, NUM%d\n" % (i, i, i)
                for i in range(n)) + "if __name__ == '__main__':\n" +
        "".join("    make%d('x', NUM%d)\n" % (i, i) for i in range(n)))
elif kind == "entries":
    # n entry scripts importing one module with a cv2 Dataset
    import os
    os.makedirs(out)
    open(out + "/common.py", "w").write(
        "import cv2\nfrom torch.utils.data import DataLoader, Dataset\n"
        "class Frames(Dataset):\n    def __len__(self):\n        return 9\n"
        "    def __getitem__(self, i):\n        return cv2.imread(str(i))\n"
        "def build(root, workers):\n"
        "    return DataLoader(Frames(), num_workers=workers)\n")
    for i in range(n):
        open("%s/train%d.py" % (out, i), "w").write(
            "import os\nfrom common import build\n"
            "if __name__ == '__main__':\n"
            "    build('x', os.cpu_count() // %d)\n" % (i % 4 + 1))
elif kind == "list":
    # one kind: List, a one-line Pod per item, each finding with edits
    # (a flow style file: the edit's style is looked up in it)
    w("apiVersion: v1\nkind: List\nitems:\n")
    for i in range(n):
        w("- {apiVersion: v1, kind: Pod, metadata: {name: p%d}, spec: "
          "{containers: [{name: t, image: pytorch, command: [torchrun, "
          "--nproc_per_node, '2', t.py], resources: {requests: "
          "{cpu: '2'}}}]}}\n" % i)
elif kind == "json":
    # a minified JSON List on one line: positions along it are found
    # from the last one, not from the line's start
    import json
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": ""},
           "spec": {"containers": [{"name": "t", "image": "pytorch",
             "command": ["torchrun", "--nproc_per_node", "2", "t.py"],
             "resources": {"requests": {"cpu": "2"}}}]}}
    items = []
    for i in range(n):
        pod["metadata"]["name"] = "p%d" % i
        items.append(json.dumps(pod, separators=(",", ":")))
    w('{"apiVersion":"v1","kind":"List","items":[' + ",".join(items) +
      "]}")
elif kind == "prints":
    # print(print(...(os.cpu_count())...)): each print's arguments hold
    # the inner ones; they are read once, not once per print
    w("import os\n" + "print(" * n + "os.cpu_count()" + ")" * n + "\n")
elif kind in ("threads", "loaders"):
    # one script of n thread settings (what ran before each is looked
    # up), or of n DataLoaders sized by a CPU count each (which count
    # sizes each is looked up), run by one Pod
    import os
    os.makedirs(out)
    open(out + "/pod.yaml", "w").write(
        head + "  - name: t\n    image: pytorch\n    command: [torchrun, "
        "--nproc_per_node, '2', train.py]\n    resources: {limits: "
        "{cpu: '4'}}\n")
    with open(out + "/train.py", "w") as f:
        f.write("import os\nimport torch\n"
                "from torch.utils.data import DataLoader\n")
        for i in range(n):
            if kind == "threads":
                f.write("torch.set_num_threads(%d)\n" % (i % 8 + 1))
            else:
                f.write("d%d = DataLoader(ds, num_workers=os.cpu_count())\n"
                        % i)
elif kind in ("inlinepy", "argoscripts", "kfp"):
    # many inline programs in one file, each laid at its lines there:
    # python -c strings in Pods, Argo script templates' block sources,
    # the functions of a compiled KFP pipeline (each was padded with
    # the file's lines: memory and time grew with programs x lines)
    import json
    prog = ("import os\nimport torch\n"
            "from torch.utils.data import DataLoader\n"
            "torch.set_num_threads(8)\ntorch.set_num_threads(4)\n"
            "d = DataLoader(None, num_workers=os.cpu_count())\n")
    if kind == "argoscripts":
        w("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: "
          "{name: w}\nspec:\n  entrypoint: t0\n  templates:\n")
    elif kind == "kfp":
        w("# PIPELINE DEFINITION\n# Name: big\ndeploymentSpec:\n"
          "  executors:\n")
    for i in range(n):
        if kind == "inlinepy":
            w("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\n"
              "spec:\n  restartPolicy: Never\n  containers:\n  - name: t\n"
              "    image: pytorch\n    command: [python, -c, %s]\n"
              "    resources: {limits: {cpu: '4'}}\n"
              % (i, json.dumps(prog)))
        elif kind == "argoscripts":
            w("  - name: t%d\n    script:\n      image: pytorch\n"
              "      command: [python]\n      resources: {limits: "
              "{cpu: '4', nvidia.com/gpu: 1}}\n      source: |\n" % i +
              "".join("        " + l + "\n" for l in prog.splitlines()))
        else:
            fn = ("\nfrom kfp import *\nfrom kfp.dsl import *\n\n"
                  "def s%d():\n" % i + "".join(
                      "    " + l + "\n" for l in prog.splitlines()))
            w("    exec-s%d:\n      container:\n        args: "
              "[--executor_input, '{{$}}', --function_to_execute, s%d]\n"
              "        command: [sh, -ec, 'printf \"%%s\" \"$0\" > c.py; "
              "python3 -m kfp.dsl.executor_main --component_module_path "
              "c.py \"$@\"', %s]\n        image: pytorch/pytorch:2.3.1\n"
              "        resources: {cpuLimit: 4.0}\n"
              % (i, i, json.dumps(fn)))
    if kind == "kfp":
        w("pipelineInfo:\n  name: big\nroot:\n  dag:\n    tasks: {}\n"
          "schemaVersion: 2.1.0\nsdkVersion: kfp-2.7.0\n")
elif kind in ("argomanifests", "katibcm"):
    # many objects held in block strings of one file: Argo resource
    # templates' manifests, a Katib trial-template ConfigMap (each
    # block's place was found by counting lines from the file's start)
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j%d}\n"
           "spec:\n  template:\n    spec:\n      restartPolicy: Never\n"
           "      containers:\n      - name: training-container\n"
           "        image: x\n        command: [torchrun, "
           "--nproc_per_node, '4', t.py]\n"
           "        resources: {limits: {cpu: '2'}}\n")
    if kind == "argomanifests":
        w("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: "
          "{name: w}\nspec:\n  entrypoint: t0\n  templates:\n")
        for i in range(n):
            w("  - name: t%d\n    resource:\n      action: create\n"
              "      manifest: |\n" % i + "".join(
                  "        " + l + "\n" for l in (job % i).splitlines()))
    else:
        w("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "
          "trial-templates\n  labels: {katib.kubeflow.org/component: "
          "trial-templates}\ndata:\n")
        for i in range(n):
            w("  t%d.yaml: |-\n" % i + "".join(
                "    " + l + "\n" for l in (job % i).splitlines()))
elif kind == "inputs":
    w("version: 1.1\nkind: component\ninputs:\n")
    for i in range(n):
        w("- {name: in%d, type: int, value: %d, isOptional: true}\n" % (i, i))
    w("run:\n  kind: job\n  container:\n    image: x\n    command: [python,"
      " t.py, --workers, '{{ in%d }}']\n    resources: {limits: {cpu: '4'}}\n"
      % (n - 1))
PY
}

# The ratio of CPU time (user + system) of the doubled input to the
# single one, in hundredths: CPU time, not wall time, so other work on the
# machine counts less; one thread (-j 1), so the pool's start-up does not
# count; each time the best of five runs, taken alternately so a slow spell
# hits both sizes.  Noise only ever adds time, so a quadratic shape (ratio
# near 4) fails every attempt while a noisy linear one (ratio near 2) passes
# one of three; the last attempt's figures are printed.
ratio() {	# file1 file2 [extra flags]
	python3 - "$BIN" "$@" <<'PY'
import resource, subprocess, sys
def cpu(path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.argv[1], "--no-config", "-j", "1", "--format",
                    "json"] + sys.argv[4:] + [path],
                   stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + \
        (after.ru_stime - before.ru_stime)
for attempt in range(3):
    a = b = None
    for _ in range(5):
        t = cpu(sys.argv[2]); a = t if a is None else min(a, t)
        t = cpu(sys.argv[3]); b = t if b is None else min(b, t)
    a_ms, b_ms = max(1, int(a * 1000)), max(1, int(b * 1000))
    r = int(100 * b_ms / a_ms)
    if r < 330:
        break
print(a_ms, b_ms, r)
PY
}

# SCALING_SPECS="kind:n ..." runs only those shapes (when debugging one).
# jsondiff is the json shape with --unsafe-fixes --diff.
for spec in ${SCALING_SPECS:-env:25000 docs:2500 fixes:2500 containers:10000 \
    inputs:10000 modules:1500 entries:1500 list:3000 threads:40000 \
    loaders:40000 json:3000 jsondiff:3000 prints:60000 inlinepy:1500 \
    argoscripts:1500 kfp:1500 argomanifests:3000 katibcm:3000}; do
	kind=${spec%%:*} n=${spec#*:} shape=${spec%%:*} extra=
	case $kind in
	modules|entries|threads|loaders) ext= ;;
	json) ext=.json ;;
	prints) ext=.py ;;
	jsondiff) ext=.json shape=json extra="--unsafe-fixes --diff" ;;
	*) ext=.yaml ;;
	esac
	gen "$shape" "$n" "$tmp/$kind-1$ext"
	gen "$shape" $((n * 2)) "$tmp/$kind-2$ext"
	set -- $(ratio "$tmp/$kind-1$ext" "$tmp/$kind-2$ext" $extra)
	a=${1:-0} b=${2:-0} r=${3:-999}
	echo "scaling: $kind $n -> $((n * 2)): ${a} ms -> ${b} ms"
	check "$kind: twice the input took $b ms vs $a ms (ratio >= 3.3)" \
		[ "$r" -lt 330 ]
done
finish
