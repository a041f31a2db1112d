"""Trains the tagger; prints what the host has before it starts."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from utils import describe_host, get_num_workers

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=2)
args = parser.parse_args()
print(f"host {describe_host()}: {get_num_workers()} CPUs, using {args.workers} workers")

data = TensorDataset(torch.randn(1024, 128), torch.randint(0, 5, (1024,)))
loader = DataLoader(data, batch_size=64, num_workers=args.workers)
model = torch.nn.Linear(128, 5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
