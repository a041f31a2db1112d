#!/usr/bin/env python3
"""gen-monorepo.py — the synthetic monorepo make bench lints.

    python3 tests/bench/gen-monorepo.py DIR PROJECTS [--seed S] [--pad N]

Writes PROJECTS projects under DIR/teams/teamNN/projNNNN/, four files
each: a Polyaxonfile v1.1 (polyaxonfile.yaml), one Kubernetes manifest
(pytorchjob.yaml, job.yaml or deployment.yaml), the entry script it runs
(train.py) and a module that script imports (data.py, augment.py or
pipeline.py).  About 10 MB at 2,000 projects (8,000 files).

The content is what a team's training repository holds: comments, env
lists, requests and limits, argparse options, DataLoader num_workers,
torch.set_num_threads.  About half of the projects are clean; the rest
carry the usual problems (no limit, OMP_NUM_THREADS missing or over the
budget, workers sized by os.cpu_count(), $(nproc) in a command, threads
set after the model is built, cv2 in the loader, no /dev/shm).

--pad N makes the files the size of a real repository's (issue 28): N
more helper functions in each Python file and 2N more comment lines at
the top of each YAML file (N = 20: about 5.5 KB a file, 45 MB at 2,000
projects); the findings are those of the same tree without it, lower
down.

Deterministic: project K's files depend only on the seed and K (a
random.Random seeded with the string "SEED-K"), so the tree of 500
projects is the first 500 projects of the tree of 4,000.  Prints one line:
"N projects, F files, B bytes".
"""

import argparse
import os
import random
import sys

MODELS = ["resnet50", "resnet18", "vit_b16", "bert_base", "gpt2_small",
          "efficientnet_b0", "unet", "wav2vec2", "dlrm", "mobilenet_v3",
          "t5_small", "convnext_tiny"]
DATASETS = ["imagenet-shard", "clicklogs", "wiki-dedup", "librispeech",
            "coco-crops", "retail-tx", "satellite-tiles", "support-chats"]
SCHEDULES = ["nightly", "weekly", "adhoc", "sweep", "ci"]


def q(v):
    """A YAML double-quoted scalar."""
    return '"%s"' % v


def env_block(indent, pairs):
    pad = " " * indent
    out = []
    for name, value in pairs:
        if len(name) + len(value) < 28:
            out.append("%s- {name: %s, value: %s}" % (pad, name, q(value)))
        else:
            out.append("%s- name: %s" % (pad, name))
            out.append("%s  value: %s" % (pad, q(value)))
    return out


class Project:
    """One project's choices, drawn from its own random stream."""

    def __init__(self, seed, k):
        r = random.Random("%s-%d" % (seed, k))
        self.k = k
        self.r = r
        self.team = "team%02d" % (k % 40)
        self.name = "proj%04d" % k
        self.model = r.choice(MODELS)
        self.dataset = r.choice(DATASETS)
        self.schedule = r.choice(SCHEDULES)
        self.cpu = r.choice([2, 4, 4, 8, 8, 8, 16, 16, 32])
        self.ranks = r.choice([1, 1, 2, 2, 4]) if self.cpu >= 4 else 1
        budget = max(1, self.cpu // self.ranks)
        self.clean = r.random() < 0.5
        # a clean project sizes threads and workers inside its budget
        self.threads = max(1, budget // 2)
        self.workers = max(0, budget - self.threads)
        self.problem = None
        if not self.clean:
            self.problem = r.choice([
                "no-limit", "omp-missing", "omp-over", "cpu-count",
                "nproc", "late-threads", "cv2", "no-shm", "threads-over",
                "workers-over"])
            if self.problem == "omp-over":
                self.threads = budget * r.choice([2, 4])
            elif self.problem == "workers-over":
                self.workers = budget * r.choice([2, 3])
            elif self.problem == "threads-over":
                self.threads = budget + r.choice([2, 4, 8])
        self.kind = r.choice(["pytorchjob", "job", "deployment"])
        self.module = r.choice(["data", "augment", "pipeline"])
        self.image = "registry.example.com/%s/%s:%s-cpu" % (
            self.team, self.model.replace("_", "-"),
            r.choice(["2.2.1", "2.3.0", "2.4.1"]))
        self.batch = r.choice([32, 64, 128, 256])
        self.lr = r.choice(["0.1", "0.01", "0.001", "3e-4"])
        self.epochs = r.choice([5, 10, 30, 90])
        self.filler = r.randint(0, 1)

    def has_omp(self):
        return self.problem != "omp-missing"

    def env(self):
        pairs = []
        if self.has_omp():
            pairs.append(("OMP_NUM_THREADS", str(self.threads)))
        if self.r.random() < 0.4:
            pairs.append(("MKL_NUM_THREADS", str(self.threads)))
        pairs.append(("PYTHONUNBUFFERED", "1"))
        pairs.append(("DATA_DIR", "/mnt/datasets/%s/%s" % (
            self.dataset, self.name)))
        if self.r.random() < 0.5:
            pairs.append(("WANDB_PROJECT", "%s-%s" % (self.team,
                                                      self.model)))
        pairs.append(("LOG_LEVEL", self.r.choice(["INFO", "DEBUG"])))
        return pairs

    def resources(self, indent):
        pad = " " * indent
        mem = "%dGi" % (self.cpu * 4)
        if self.problem == "no-limit":
            return ["%sresources:" % pad,
                    "%s  requests: {cpu: %s, memory: %s}" % (
                        pad, q(self.cpu), mem)]
        return ["%sresources:" % pad,
                "%s  requests: {cpu: %s, memory: %s}" % (pad, q(self.cpu),
                                                         mem),
                "%s  limits: {cpu: %s, memory: %s}" % (pad, q(self.cpu),
                                                       mem)]

    def launcher(self):
        if self.ranks > 1:
            return ["torchrun", "--nnodes=1",
                    "--nproc_per_node=%d" % self.ranks, "train.py"]
        return ["python", "train.py"]

    # -- the Polyaxonfile ---------------------------------------------------

    def polyaxonfile(self):
        r = self.r
        lines = [
            "# Polyaxonfile for %s (%s): %s training of %s on %s." % (
                self.name, self.team, self.schedule, self.model,
                self.dataset),
            "# Owned by the %s platform rota; see the team wiki before "
            "changing resources." % self.team,
            "version: 1.1",
            "kind: component",
            "name: %s-train" % self.name,
            "description: Trains %s on the %s dataset" % (self.model,
                                                         self.dataset),
            "tags: [%s, %s, %s]" % (self.team, self.model, self.schedule),
            "inputs:",
            "- {name: workers, type: int, value: %d, isOptional: true}" %
            self.workers,
            "- {name: lr, type: float, value: %s, isOptional: true}" %
            self.lr,
            "- {name: epochs, type: int, value: %d, isOptional: true}" %
            self.epochs,
            "- {name: batch_size, type: int, value: %d, isOptional: true}" %
            self.batch,
            "outputs:",
            "- {name: accuracy, type: float, isOptional: true}",
            "run:",
            "  kind: job",
            "  environment:",
            "    nodeSelector: {pool: cpu-%s}" % r.choice(["train", "batch"]),
            "    restartPolicy: Never",
            "  container:",
            "    image: %s" % self.image,
            "    workingDir: /code/%s" % self.name,
        ]
        cmd = self.launcher()
        if self.problem == "nproc":
            lines.append("    command: [sh, -c]")
            lines.append(
                "    args: [\"export OMP_NUM_THREADS=$(nproc) && %s "
                "--workers {{ workers }} --lr {{ lr }}\"]" % " ".join(cmd))
        else:
            lines.append("    command: [%s]" % ", ".join(cmd))
            lines.append("    args: [\"--workers={{ workers }}\", "
                         "\"--lr={{ lr }}\", \"--epochs={{ epochs }}\", "
                         "\"--batch-size={{ batch_size }}\"]")
        lines.append("    env:")
        lines += env_block(4, self.env())
        lines += self.resources(4)
        return "\n".join(lines) + "\n"

    # -- the Kubernetes manifest --------------------------------------------

    def pod_spec(self, indent, restart):
        pad = " " * indent
        cmd = self.launcher() + ["--workers", str(self.workers),
                                 "--epochs", str(self.epochs)]
        lines = ["%srestartPolicy: %s" % (pad, restart)] if restart else []
        lines += [
            "%scontainers:" % pad,
            "%s- name: trainer" % pad,
            "%s  image: %s" % (pad, self.image),
            "%s  imagePullPolicy: IfNotPresent" % pad,
        ]
        if self.problem == "nproc":
            lines.append("%s  command: [sh, -c, \"export OMP_NUM_THREADS="
                         "$(nproc) && exec %s\"]" % (pad, " ".join(cmd)))
        else:
            lines.append("%s  command: [%s]" % (pad, ", ".join(
                q(c) if c.isdigit() else c for c in cmd)))
        lines.append("%s  env:" % pad)
        lines += env_block(indent + 2, self.env())
        lines += self.resources(indent + 2)
        if self.problem != "no-shm":
            lines += ["%s  volumeMounts:" % pad,
                      "%s  - {name: dshm, mountPath: /dev/shm}" % pad,
                      "%s  - {name: data, mountPath: /mnt/datasets, "
                      "readOnly: true}" % pad,
                      "%svolumes:" % pad,
                      "%s- name: dshm" % pad,
                      "%s  emptyDir: {medium: Memory, sizeLimit: 2Gi}" % pad,
                      "%s- name: data" % pad,
                      "%s  persistentVolumeClaim: {claimName: datasets-ro}" %
                      pad]
        return lines

    def manifest(self):
        head = [
            "# %s: %s for %s (%s)." % (self.name, self.kind, self.model,
                                        self.team),
            "# Generated from the team template; edit resources here, "
            "not in the chart.",
        ]
        meta = [
            "metadata:",
            "  name: %s" % self.name,
            "  namespace: %s" % self.team,
            "  labels: {team: %s, app: %s, model: %s}" % (
                self.team, self.name, self.model.replace("_", "-")),
            "  annotations:",
            "    owner: %s-oncall@example.com" % self.team,
        ]
        if self.kind == "pytorchjob":
            lines = head + ["apiVersion: kubeflow.org/v1",
                            "kind: PyTorchJob"] + meta + [
                "spec:",
                "  runPolicy: {cleanPodPolicy: None, backoffLimit: 3}",
                "  pytorchReplicaSpecs:"]
            for role, n in (("Master", 1), ("Worker", self.r.choice(
                    [1, 3, 7]))):
                lines += ["    %s:" % role,
                          "      replicas: %d" % n,
                          "      restartPolicy: OnFailure",
                          "      template:",
                          "        metadata: {labels: {app: %s}}" %
                          self.name,
                          "        spec:"]
                lines += self.pod_spec(10, None)
            return "\n".join(lines) + "\n", "pytorchjob.yaml"
        if self.kind == "job":
            lines = head + ["apiVersion: batch/v1", "kind: Job"] + meta + [
                "spec:",
                "  backoffLimit: 2",
                "  ttlSecondsAfterFinished: 86400",
                "  template:",
                "    metadata: {labels: {app: %s}}" % self.name,
                "    spec:"]
            lines += self.pod_spec(6, "Never")
            return "\n".join(lines) + "\n", "job.yaml"
        lines = head + ["apiVersion: apps/v1", "kind: Deployment"] + meta + [
            "spec:",
            "  replicas: %d" % self.r.choice([1, 2]),
            "  selector: {matchLabels: {app: %s}}" % self.name,
            "  template:",
            "    metadata: {labels: {app: %s}}" % self.name,
            "    spec:"]
        lines += self.pod_spec(6, None)
        return "\n".join(lines) + "\n", "deployment.yaml"

    # -- the Python ---------------------------------------------------------

    def train_py(self):
        m = self.module
        late = self.problem == "late-threads"
        lines = [
            '"""Training entry point for %s (%s): %s on %s."""' % (
                self.name, self.team, self.model, self.dataset),
            "",
            "import argparse",
            "import logging",
            "import os",
            "import time",
            "",
            "import torch",
            "import torch.nn as nn",
            "import torch.nn.functional as F",
            "",
            "from %s import make_loader" % m,
            "",
            "log = logging.getLogger(%s)" % q(self.name),
            "",
            "",
            "def parse_args():",
            "    p = argparse.ArgumentParser(description=%s)" % q(
                "train " + self.model),
            "    p.add_argument(\"--workers\", type=int, default=%d,"
            % self.workers,
            "                   help=\"DataLoader worker processes\")",
            "    p.add_argument(\"--lr\", type=float, default=%s)" % self.lr,
            "    p.add_argument(\"--epochs\", type=int, default=%d)" %
            self.epochs,
            "    p.add_argument(\"--batch-size\", type=int, default=%d)" %
            self.batch,
            "    p.add_argument(\"--data-dir\", default=os.environ.get("
            "\"DATA_DIR\", \"/data\"))",
            "    return p.parse_args()",
            "",
            "",
            "class Net(nn.Module):",
            "    \"\"\"A small stand-in for %s.\"\"\"" % self.model,
            "",
            "    def __init__(self, width=%d, classes=%d):" % (
                self.r.choice([128, 256, 512]), self.r.choice([10, 100,
                                                               1000])),
            "        super().__init__()",
            "        self.fc1 = nn.Linear(784, width)",
            "        self.fc2 = nn.Linear(width, width)",
            "        self.out = nn.Linear(width, classes)",
            "",
            "    def forward(self, x):",
            "        x = F.relu(self.fc1(x))",
            "        x = F.relu(self.fc2(x))",
            "        return self.out(x)",
            "",
        ]
        for j in range(self.filler):
            lines += [
                "",
                "def metric_%d(pred, target):" % j,
                "    # top-%d agreement, logged every epoch" % (j + 1),
                "    k = min(%d, pred.shape[-1])" % (j + 1),
                "    top = pred.topk(k, dim=-1).indices",
                "    return (top == target.unsqueeze(-1)).any(-1)"
                ".float().mean().item()",
                "",
            ]
        lines += [
            "",
            "def train_epoch(model, loader, opt, epoch):",
            "    model.train()",
            "    start = time.monotonic()",
            "    for step, (x, y) in enumerate(loader):",
            "        opt.zero_grad()",
            "        loss = F.cross_entropy(model(x), y)",
            "        loss.backward()",
            "        opt.step()",
            "        if step % 100 == 0:",
            "            log.info(\"epoch %d step %d loss %.4f\", epoch, "
            "step, loss.item())",
            "    return time.monotonic() - start",
            "",
            "",
            "def main():",
            "    args = parse_args()",
            "    logging.basicConfig(level=os.environ.get(\"LOG_LEVEL\", "
            "\"INFO\"))",
        ]
        threads = "torch.set_num_threads(%d)" % self.threads
        if not late and self.problem != "omp-missing":
            lines.append("    " + threads)
        lines += [
            "    loader = make_loader(args.data_dir, args.batch_size, "
            "args.workers)",
            "    model = Net()",
        ]
        if late:
            lines.append("    model(torch.zeros(1, 784))  # warm-up")
            lines.append("    " + threads)
        lines += [
            "    opt = torch.optim.SGD(model.parameters(), lr=args.lr, "
            "momentum=0.9)",
            "    for epoch in range(args.epochs):",
            "        took = train_epoch(model, loader, opt, epoch)",
            "        log.info(\"epoch %d took %.1f s\", epoch, took)",
            "    torch.save(model.state_dict(), \"model.pt\")",
            "",
            "",
            "if __name__ == \"__main__\":",
            "    main()",
        ]
        return "\n".join(lines) + "\n"

    def module_py(self):
        cpu_count = self.problem == "cpu-count"
        cv2 = self.problem == "cv2"
        lines = [
            '"""Dataset and loader for %s (%s shards)."""' % (
                self.name, self.dataset),
            "",
            "import os",
            "",
        ]
        if cv2:
            lines.append("import cv2")
        lines += [
            "import torch",
            "from torch.utils.data import DataLoader, Dataset",
            "",
            "SHARD_SUFFIX = %s" % q(".pt"),
            "",
            "",
            "class ShardDataset(Dataset):",
            "    \"\"\"Tensors saved one file per sample under root.\"\"\"",
            "",
            "    def __init__(self, root, transform=None):",
            "        self.files = sorted(",
            "            os.path.join(root, f) for f in os.listdir(root)",
            "            if f.endswith(SHARD_SUFFIX))",
            "        self.transform = transform",
            "",
            "    def __len__(self):",
            "        return len(self.files)",
            "",
            "    def __getitem__(self, i):",
            "        x, y = torch.load(self.files[i])",
        ]
        if cv2:
            lines += ["        x = torch.from_numpy(cv2.GaussianBlur("
                      "x.numpy(), (3, 3), 0))"]
        lines += [
            "        if self.transform is not None:",
            "            x = self.transform(x)",
            "        return x.flatten(), y",
            "",
        ]
        for j in range(self.filler):
            lines += [
                "",
                "def jitter_%d(x, scale=%0.2f):" % (j, 0.05 * (j + 1)),
                "    # cheap augmentation; keeps the dtype",
                "    return x + scale * torch.randn_like(x)",
                "",
            ]
        lines += [
            "",
            "def make_loader(root, batch_size, workers):",
        ]
        if cpu_count:
            lines.append("    workers = os.cpu_count()  # use every core")
        lines += [
            "    return DataLoader(ShardDataset(root), batch_size=batch_size,",
            "                      shuffle=True, num_workers=workers,",
            "                      persistent_workers=workers > 0)",
        ]
        return "\n".join(lines) + "\n"


def pad_yaml(text, n, k):
    """text with n comment lines after its first (a comment too)."""
    first, rest = text.split("\n", 1)
    notes = ["# note %d of project %d: owners, the runbook, the dataset's "
             "licence and the on-call rota live in the team wiki." % (i, k)
             for i in range(n)]
    return "\n".join([first] + notes) + "\n" + rest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("projects", type=int)
    ap.add_argument("--seed", default="cpulint-bench")
    ap.add_argument("--pad", type=int, default=0)
    args = ap.parse_args()
    files = size = 0
    for k in range(args.projects):
        p = Project(args.seed, k)
        p.filler += args.pad
        d = os.path.join(args.dir, "teams", p.team, p.name)
        os.makedirs(d, exist_ok=True)
        manifest, mname = p.manifest()
        for name, text in (("polyaxonfile.yaml", p.polyaxonfile()),
                           (mname, manifest),
                           ("train.py", p.train_py()),
                           (p.module + ".py", p.module_py())):
            if args.pad and name.endswith(".yaml"):
                text = pad_yaml(text, args.pad * 2, k)
            data = text.encode()
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
            files += 1
            size += len(data)
    print("%d projects, %d files, %d bytes" % (args.projects, files, size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
