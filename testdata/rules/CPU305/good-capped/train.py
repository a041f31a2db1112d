"""A wide-and-deep CTR model trained with DDP over gloo on CPU."""
import argparse
import os

import torch

# All the cores, but never more than 8: more hurt on the workstation.
torch.set_num_threads(min(8, os.cpu_count()))

import torch.distributed as dist  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

from data_setup import make_loader  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/data/ctr/train.npz")
parser.add_argument("--batch-size", type=int, default=4096)
parser.add_argument("--epochs", type=int, default=5)
args = parser.parse_args()

dist.init_process_group("gloo")
loader = make_loader(args.data, args.batch_size)
model = DDP(nn.Sequential(nn.Linear(256, 512), nn.ReLU(),
                          nn.Linear(512, 256), nn.ReLU(),
                          nn.Linear(256, 1)))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(args.epochs):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = loss_fn(model(x).squeeze(1), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
dist.destroy_process_group()
