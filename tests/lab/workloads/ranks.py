"""ranks.py: data-parallel training with two ranks in one container
(torchrun --nproc_per_node 2, gloo), written the way users write one (the
lab's third workload, tests/lab/README.md).

Owns: one rank's model wrapped in DistributedDataParallel over gloo,
batches made in memory, and the rank's counters (metrics.py; each rank
serves its own endpoint at METRICS_PORT + its local rank, as a job's
ranks each expose theirs; under the lab it writes LAB_COUNTERS.N, rank 0
LAB_COUNTERS itself).  Threads per rank come from OMP_NUM_THREADS.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import metrics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--steps", type=int, default=100000)
    args = ap.parse_args()
    rank = int(os.environ.get("LOCAL_RANK", "0"))
    if os.environ.get("METRICS_PORT"):
        os.environ["METRICS_PORT"] = str(int(os.environ["METRICS_PORT"]) + rank)
    for var in ("LAB_STATUS", "LAB_COUNTERS"):
        if rank and os.environ.get(var):
            os.environ[var] += ".%d" % rank
    metrics.serve()
    dist.init_process_group("gloo")
    torch.manual_seed(rank)
    net = DistributedDataParallel(nn.Sequential(
        nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
        nn.Linear(1024, 10)))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(args.batch_size, 512)
    y = torch.randint(0, 10, (args.batch_size,))
    # float64: an epoch in float32 is only good to 128 s
    seconds, stop = metrics.deadline(), torch.zeros(1, dtype=torch.float64)
    for step in range(args.steps):
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()
        metrics.add(args.batch_size, 0.0)
        if step == 2:
            metrics.mark("warm")
            stop[0] = time.time() + seconds if seconds else 0
            dist.broadcast(stop, 0)
        if step > 2 and stop[0] and step % 5 == 0:
            # every rank stops at the same step, as a job's ranks do
            done = torch.tensor([1.0 if time.time() >= float(stop[0]) else 0.0])
            dist.all_reduce(done, op=dist.ReduceOp.MAX)
            if done[0]:
                break
    metrics.finish()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
