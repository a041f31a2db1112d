"""dense.py: a compute-heavy job with no loader, written the way users
write one (the lab's second workload, tests/lab/README.md).

Owns: a stack of wide linear and convolution layers trained on batches
made in memory, so the only CPU knob is the intra-op thread pool, read
from OMP_NUM_THREADS by torch itself; and its counters (metrics.py).
"""
import argparse
import time

import torch
import torch.nn as nn

import metrics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--steps", type=int, default=100000)
    args = ap.parse_args()
    metrics.serve()
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
        nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(8),
        nn.Flatten(), nn.Linear(32 * 64, 1024), nn.ReLU(),
        nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(args.batch_size, 3, 48, 48)
    y = torch.randint(0, 10, (args.batch_size,))
    seconds, stop = metrics.deadline(), None
    for step in range(args.steps):
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()
        metrics.add(args.batch_size, 0.0)
        if step == 2:
            metrics.mark("warm")
            stop = time.time() + seconds if seconds else None
        if stop and time.time() >= stop:
            break
    metrics.finish()


if __name__ == "__main__":
    main()
