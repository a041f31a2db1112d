#!/usr/bin/env python3
"""gen-realtree.py — a tree shaped like real repositories, for make bench.

    python3 tests/bench/gen-realtree.py DIR PROJECTS [--seed S]

Issue 39: on an independent tree of 2,000 small projects (48 MB, 8,000
files) the tool ran at 3.0 x its floors where gen-monorepo.py's tree gave
1.4 x.  That tree was not made here; this one has its shape: four files a
project on average, about 24 KB a project, of the kinds a team's
repository holds, not only what the tool judges:

  - manifests of several kinds, often several documents in one file
    (Deployment + Service + ConfigMap, Job, CronJob, StatefulSet,
    PyTorchJob), Kustomizations, Helm values files that are not objects;
  - Polyaxonfiles (v1.1 and legacy), with inputs and templates;
  - Python: training scripts with argparse, models, loops and helpers
    (6 to 30 KB), serving apps, packages of modules with tests;
  - shell wrappers (run.sh), READMEs, requirements.txt, a Dockerfile,
    JSON configs, CSV samples, notebooks (.ipynb);
  - some large files: one project in fifty holds one of a 400 KB CRD
    bundle (100 documents), a 380 KB generated *_pb2.py, a 360 KB
    package-lock style JSON or a 280 KB CSV.

At 2,000 projects: 8,000 files, 50 MB (48 MiB), 2,400 of them YAML.

About half the projects carry a problem the tool reports.  Deterministic:
project K depends only on the seed and K.  Prints one line: "N projects,
F files, B bytes".
"""

import argparse
import json
import os
import random
import sys

MODELS = ["resnet50", "vit_b16", "bert_base", "gpt2_small", "unet",
          "wav2vec2", "dlrm", "t5_small", "convnext_tiny", "yolov5s"]
WORDS = ("the a data model batch shard epoch loss metric rank worker queue "
         "cache checkpoint tensor gradient optimizer schedule warmup decay "
         "token image audio frame sample label split index buffer").split()


def sentence(r, n):
    return " ".join(r.choice(WORDS) for _ in range(n)).capitalize() + "."


class Proj:
    def __init__(self, seed, k):
        r = random.Random("%s-real-%d" % (seed, k))
        self.r, self.k = r, k
        self.org = "org%02d" % (k % 25)
        self.name = "%s-%s-%d" % (r.choice(MODELS).replace("_", "-"),
                                  r.choice(["train", "svc", "exp", "lab",
                                            "pipe"]), k)
        self.cpu = r.choice([1, 2, 4, 4, 8, 8, 16, 32])
        self.ranks = r.choice([1, 1, 2, 4]) if self.cpu >= 4 else 1
        budget = max(1, self.cpu // self.ranks)
        self.threads = max(1, budget // 2)
        self.workers = max(0, budget - self.threads)
        self.problem = r.choice([None, None, None, "nolimit", "omp",
                                 "cpucount", "nproc", "over"])
        if self.problem == "over":
            self.threads = budget * 2
        self.wrapped = r.random() < 0.3
        self.image = "ghcr.io/%s/%s:%d.%d" % (self.org, self.name,
                                              r.randint(0, 3),
                                              r.randint(0, 20))

    # -- YAML ---------------------------------------------------------------

    def resources(self, pad):
        lim = "" if self.problem == "nolimit" else \
            ", limits: {cpu: \"%d\", memory: %dGi}" % (self.cpu,
                                                       self.cpu * 4)
        return ["%sresources: {requests: {cpu: \"%d\", memory: %dGi}%s}" %
                (pad, self.cpu, self.cpu * 4, lim)]

    def container(self, pad, train=True):
        r = self.r
        if train and self.wrapped:
            cmd = ["sh", "run.sh"]
        elif train and self.ranks > 1:
            cmd = ["torchrun", "--nproc_per_node=%d" % self.ranks,
                   "train.py"]
        else:
            cmd = ["python", "train.py" if train else "app.py"]
        lines = ["%s- name: %s" % (pad, "trainer" if train else "app"),
                 "%s  image: %s" % (pad, self.image)]
        if self.problem == "nproc" and train:
            lines.append("%s  command: [bash, -c, \"OMP_NUM_THREADS=$(nproc)"
                         " exec %s\"]" % (pad, " ".join(cmd)))
        else:
            lines.append("%s  command: [%s]" % (pad, ", ".join(cmd)))
        lines.append("%s  env:" % pad)
        if self.problem != "omp":
            lines.append("%s  - {name: OMP_NUM_THREADS, value: \"%d\"}" % (
                pad, self.threads))
        for i in range(r.randint(2, 8)):
            lines.append("%s  - {name: %s_%d, value: \"%s\"}" % (
                pad, r.choice(["FEATURE", "TUNE", "LOG", "CACHE"]), i,
                r.choice(WORDS)))
        lines += self.resources(pad + "  ")
        lines += ["%s  volumeMounts: [{name: dshm, mountPath: /dev/shm}]" %
                  pad,
                  "%s  ports: [{containerPort: %d}]" % (pad,
                                                        r.randint(80, 9000))]
        return lines

    def meta(self, kind, api, suffix=""):
        return ["---", "apiVersion: %s" % api, "kind: %s" % kind,
                "metadata:", "  name: %s%s" % (self.name, suffix),
                "  namespace: %s" % self.org,
                "  labels: {app: %s, team: %s}" % (self.name, self.org),
                "  annotations:",
                "    description: \"%s\"" % sentence(self.r, 12)]

    def template(self, pad, train, restart):
        return (["%stemplate:" % pad,
                 "%s  metadata: {labels: {app: %s}}" % (pad, self.name),
                 "%s  spec:" % pad] +
                (["%s    restartPolicy: %s" % (pad, restart)]
                 if restart else []) +
                ["%s    containers:" % pad] +
                self.container(pad + "    ", train) +
                ["%s    volumes: [{name: dshm, emptyDir: {medium: Memory}}]"
                 % pad])

    def manifests(self):
        r = self.r
        kind = r.choice(["deploy", "job", "cron", "sts", "pytorchjob"])
        out = ["# %s: %s" % (self.name, sentence(r, 10))]
        if kind == "deploy":
            out += self.meta("Deployment", "apps/v1") + [
                "spec:", "  replicas: %d" % r.randint(1, 5),
                "  selector: {matchLabels: {app: %s}}" % self.name]
            out += self.template("  ", False, None)
        elif kind == "job":
            out += self.meta("Job", "batch/v1") + ["spec:",
                                                  "  backoffLimit: 2"]
            out += self.template("  ", True, "Never")
        elif kind == "cron":
            out += self.meta("CronJob", "batch/v1") + [
                "spec:", "  schedule: \"%d 3 * * *\"" % r.randint(0, 59),
                "  jobTemplate:", "    spec:"]
            out += self.template("      ", True, "OnFailure")
        elif kind == "sts":
            out += self.meta("StatefulSet", "apps/v1") + [
                "spec:", "  serviceName: %s" % self.name, "  replicas: 2",
                "  selector: {matchLabels: {app: %s}}" % self.name]
            out += self.template("  ", True, None)
        else:
            out += self.meta("PyTorchJob", "kubeflow.org/v1") + [
                "spec:", "  pytorchReplicaSpecs:"]
            for role in ("Master", "Worker"):
                out += ["    %s:" % role, "      replicas: %d" % (
                    1 if role == "Master" else r.choice([1, 3]))]
                out += self.template("      ", True, "OnFailure")
        out += self.meta("Service", "v1", "-svc") + [
            "spec:", "  selector: {app: %s}" % self.name,
            "  ports: [{port: 80, targetPort: 8080}]"]
        out += self.meta("ConfigMap", "v1", "-config") + ["data:"]
        for i in range(r.randint(10, 60)):
            out.append("  key_%d: \"%s\"" % (i, sentence(r, 8)))
        return "\n".join(out) + "\n"

    def polyaxonfile(self):
        r = self.r
        if r.random() < 0.3:
            return "\n".join([
                "version: 1", "kind: experiment",
                "environment:", "  resources:", "    cpu:",
                "      requests: %d" % self.cpu] +
                ([] if self.problem == "nolimit" else
                 ["      limits: %d" % self.cpu]) +
                ["build:", "  image: %s" % self.image,
                 "run:", "  cmd: python train.py --workers %d" %
                 self.workers]) + "\n"
        out = ["# %s" % sentence(r, 14), "version: 1.1", "kind: component",
               "name: %s" % self.name, "inputs:"]
        for name, v in (("workers", self.workers), ("epochs", 10),
                        ("lr", 0.001)):
            out.append("- {name: %s, type: %s, value: %s}" % (
                name, "float" if name == "lr" else "int", v))
        out += ["run:", "  kind: job", "  container:",
                "    image: %s" % self.image,
                "    command: [python, train.py, --workers, "
                "\"{{ workers }}\", --epochs, \"{{ epochs }}\"]",
                "    env:"]
        if self.problem != "omp":
            out.append("    - {name: OMP_NUM_THREADS, value: \"%d\"}" %
                       self.threads)
        out += self.resources("    ")
        return "\n".join(out) + "\n"

    def values(self):
        r = self.r
        out = ["# Default values for %s." % self.name,
               "replicaCount: %d" % r.randint(1, 4),
               "image:", "  repository: %s" % self.image.split(":")[0],
               "  tag: latest", "ingress:", "  enabled: false",
               "  hosts:"]
        for i in range(r.randint(20, 80)):
            out += ["  - host: h%d.%s.example.com" % (i, self.org),
                    "    paths: [{path: /%s, pathType: Prefix}]" %
                    r.choice(WORDS)]
        return "\n".join(out) + "\n"

    def kustomization(self):
        return ("apiVersion: kustomize.config.k8s.io/v1beta1\n"
                "kind: Kustomization\nnamespace: %s\nresources:\n"
                "- k8s.yaml\nimages:\n- name: app\n  newTag: \"%d\"\n" %
                (self.org, self.k))

    # -- Python -------------------------------------------------------------

    def helpers(self, n):
        r = self.r
        out = []
        for i in range(n):
            w = r.choice(WORDS)
            out += ["", "",
                    "def %s_%s_%d(items, scale=%d):" % (
                        r.choice(["load", "merge", "scale", "pack", "emit"]),
                        w, i, r.randint(1, 9)),
                    "    \"\"\"%s\"\"\"" % sentence(r, 10),
                    "    out = []",
                    "    for j, item in enumerate(items):",
                    "        if j %% %d == 0:" % r.randint(2, 7),
                    "            out.append(item * scale + j)",
                    "        elif isinstance(item, dict):",
                    "            out.append({k: v for k, v in "
                    "item.items() if k != %r})" % w,
                    "    return out"]
        return out

    def train_py(self):
        r = self.r
        workers = "os.cpu_count()" if self.problem == "cpucount" else \
            "args.workers"
        out = ["#!/usr/bin/env python3",
               "\"\"\"%s\"\"\"" % sentence(r, 20),
               "import argparse", "import os", "import time", "",
               "import torch", "import torch.nn as nn",
               "from torch.utils.data import DataLoader, Dataset", "",
               "from pkg import pipeline"]
        out += self.helpers(r.randint(4, 28))
        out += ["", "", "class Shards(Dataset):",
                "    def __init__(self, n):", "        self.n = n",
                "    def __len__(self):", "        return self.n",
                "    def __getitem__(self, i):",
                "        return torch.randn(3, 32, 32), i % 10",
                "", "", "def main():",
                "    p = argparse.ArgumentParser()",
                "    p.add_argument('--workers', type=int, default=%d)" %
                self.workers,
                "    p.add_argument('--epochs', type=int, default=10)",
                "    args = p.parse_args()",
                "    torch.set_num_threads(%d)" % self.threads,
                "    loader = DataLoader(Shards(1024), batch_size=64,",
                "                        num_workers=%s)" % workers,
                "    model = nn.Linear(3 * 32 * 32, 10)",
                "    opt = torch.optim.SGD(model.parameters(), lr=0.1)",
                "    for epoch in range(args.epochs):",
                "        for x, y in loader:",
                "            loss = nn.functional.cross_entropy(",
                "                model(x.flatten(1)), y)",
                "            opt.zero_grad()", "            loss.backward()",
                "            opt.step()", "", "",
                "if __name__ == '__main__':", "    main()"]
        return "\n".join(out) + "\n"

    def module_py(self):
        r = self.r
        out = ["\"\"\"%s\"\"\"" % sentence(r, 12), "import json",
               "import logging", "", "log = logging.getLogger(__name__)"]
        out += self.helpers(r.randint(4, 26))
        return "\n".join(out) + "\n"

    def app_py(self):
        r = self.r
        out = ["from flask import Flask, jsonify", "", "app = Flask("
               "__name__)"]
        for i in range(r.randint(10, 40)):
            out += ["", "", "@app.route('/v1/%s/%d')" % (r.choice(WORDS), i),
                    "def route_%d():" % i,
                    "    return jsonify({'ok': True, 'n': %d})" % i]
        return "\n".join(out) + "\n"

    def test_py(self):
        out = ["import pytest", "from . import pipeline"]
        for i in range(self.r.randint(10, 40)):
            out += ["", "", "def test_case_%d():" % i,
                    "    assert pipeline.scale_%d([1, 2], 2) is not None" %
                    i]
        return "\n".join(out) + "\n"

    # -- noise --------------------------------------------------------------

    def readme(self):
        r = self.r
        out = ["# %s" % self.name, "", sentence(r, 30), "", "## Usage", "",
               "```sh", "kubectl apply -k .", "python train.py --workers 4",
               "```", ""]
        for i in range(r.randint(6, 40)):
            out += ["## %s" % sentence(r, 3), "", sentence(r, 40), ""]
        return "\n".join(out) + "\n"

    def run_sh(self):
        r = self.r
        lines = ["#!/bin/sh", "# %s" % sentence(r, 10), "set -eu",
                 "export PYTHONUNBUFFERED=1"]
        if self.problem == "nproc":
            lines.append("export OMP_NUM_THREADS=$(nproc)")
        for i in range(r.randint(5, 40)):
            lines.append("echo \"step %d: %s\"" % (i, sentence(r, 6)))
        lines.append("exec %s train.py \"$@\"" % (
            "torchrun --nproc_per_node=%d" % self.ranks if self.ranks > 1
            else "python"))
        return "\n".join(lines) + "\n"

    def noise(self):
        r = self.r
        c = r.choice(["req", "docker", "json", "csv", "ipynb"])
        if c == "req":
            return "requirements.txt", "".join(
                "%s==%d.%d\n" % (w, r.randint(0, 9), r.randint(0, 30))
                for w in r.sample(WORDS, 12))
        if c == "docker":
            return "Dockerfile", ("FROM python:3.11-slim\nWORKDIR /app\n"
                                  "COPY . .\nRUN pip install -r "
                                  "requirements.txt\nCMD [\"python\", "
                                  "\"train.py\"]\n")
        if c == "json":
            return "config.json", json.dumps(
                {"model": self.name, "lr": 0.001,
                 "layers": [{"name": "l%d" % i, "width": r.randint(8, 512)}
                            for i in range(r.randint(20, 120))]},
                indent=2) + "\n"
        if c == "csv":
            return "sample.csv", "".join(
                "%d,%s,%f\n" % (i, r.choice(WORDS), r.random())
                for i in range(r.randint(50, 300)))
        cells = [{"cell_type": "code", "source": ["import torch\n",
                                                  "x = torch.ones(%d)\n" % i],
                  "outputs": [{"text": [sentence(r, 30)]}]}
                 for i in range(r.randint(10, 40))]
        return "explore.ipynb", json.dumps({"cells": cells, "nbformat": 4})

    def large(self):
        """One large file: (name, text)."""
        r = self.r
        c = self.k // 50 % 4
        if c == 0:
            docs = []
            for i in range(100):
                props = "\n".join(
                    "              f%d: {type: %s, description: \"%s\"}" % (
                        j, r.choice(["string", "integer", "boolean"]),
                        sentence(r, 6)) for j in range(40))
                docs.append(
                    "---\napiVersion: apiextensions.k8s.io/v1\n"
                    "kind: CustomResourceDefinition\nmetadata:\n"
                    "  name: r%d.%s.example.com\nspec:\n  group: "
                    "%s.example.com\n  names: {kind: R%d, plural: r%d}\n"
                    "  scope: Namespaced\n  versions:\n  - name: v1\n"
                    "    served: true\n    storage: true\n    schema:\n"
                    "      openAPIV3Schema:\n        type: object\n"
                    "        properties:\n          spec:\n"
                    "            type: object\n            properties:\n"
                    "%s\n" % (i, self.org, self.org, i, i, props))
            return "crds.yaml", "".join(docs)
        if c == 1:
            out = ["# Generated by the protocol buffer compiler.",
                   "from google.protobuf import descriptor as _descriptor",
                   "DESCRIPTOR = _descriptor.FileDescriptor(name='x.proto')"]
            for i in range(3000):
                out.append("_M%d = _descriptor.Descriptor(name='M%d', "
                           "full_name='pkg.M%d', fields=[%s])" % (
                               i, i, i, ", ".join("'f%d'" % j
                                                  for j in range(8))))
            return "api_pb2.py", "\n".join(out) + "\n"
        if c == 2:
            pk = {"name": self.name, "lockfileVersion": 3, "packages": {
                "node_modules/p%d" % i: {
                    "version": "%d.%d.%d" % (r.randint(0, 9),
                                             r.randint(0, 20),
                                             r.randint(0, 9)),
                    "resolved": "https://registry.example.com/p%d.tgz" % i,
                    "integrity": "sha512-%032x" % r.getrandbits(128)}
                for i in range(2000)}}
            return "package-lock.json", json.dumps(pk, indent=2) + "\n"
        return "data/train.csv", "".join(
            "%d,%s,%s,%f\n" % (i, r.choice(WORDS), r.choice(WORDS),
                               r.random()) for i in range(10000))

    def files(self):
        """[(relative path, text)]: four files, a fifth when large."""
        r = self.r
        shape = r.choice(["polyaxon", "k8s", "k8s", "package", "service"])
        if shape == "polyaxon":
            fs = [("polyaxonfile.yaml", self.polyaxonfile()),
                  ("train.py", self.train_py()),
                  ("pkg/pipeline.py", self.module_py()),
                  ("run.sh", self.run_sh()) if self.wrapped else
                  ("README.md", self.readme())]
        elif shape == "k8s":
            fs = [("k8s.yaml", self.manifests()),
                  ("train.py", self.train_py()),
                  ("pkg/pipeline.py", self.module_py()),
                  ("run.sh", self.run_sh()) if self.wrapped else
                  self.noise()]
        elif shape == "package":
            fs = [("train.py", self.train_py()),
                  ("pkg/pipeline.py", self.module_py()),
                  ("pkg/test_pipeline.py", self.test_py()),
                  ("job.yaml", self.manifests())]
        else:
            fs = [("app.py", self.app_py()),
                  ("chart/values.yaml", self.values()),
                  ("chart/deploy.yaml", self.manifests()),
                  ("README.md", self.readme())]
        if self.k % 50 == 49:
            fs[-1] = self.large()
        return fs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("projects", type=int)
    ap.add_argument("--seed", default="cpulint-bench")
    args = ap.parse_args()
    files = size = 0
    for k in range(args.projects):
        p = Proj(args.seed, k)
        d = os.path.join(args.dir, p.org, p.name)
        for rel, text in p.files():
            path = os.path.join(d, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            data = text.encode()
            with open(path, "wb") as f:
                f.write(data)
            files += 1
            size += len(data)
    print("%d projects, %d files, %d bytes" % (args.projects, files, size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
