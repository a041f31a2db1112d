"""Segmentation training; workers default to the CPUs the container may use."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from tools.system import available_cpus

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=max(1, available_cpus() - 1))
parser.add_argument("--steps", type=int, default=1000)
args = parser.parse_args()

data = TensorDataset(torch.randn(256, 3, 64, 64), torch.randint(0, 2, (256, 64, 64)))
loader = DataLoader(data, batch_size=16, num_workers=args.workers)
model = torch.nn.Conv2d(3, 2, 3, padding=1)
optimizer = torch.optim.Adam(model.parameters())
for step, (x, y) in zip(range(args.steps), loader):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
