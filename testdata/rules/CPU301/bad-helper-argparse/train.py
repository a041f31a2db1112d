"""Fine-tunes a small grid model on ARC-style tasks."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

import utils

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--num-workers", type=int,
                    default=utils.get_num_workers())
args = parser.parse_args()

utils.set_seed(0)
data = TensorDataset(torch.randn(512, 900), torch.randint(0, 10, (512,)))
loader = DataLoader(data, batch_size=args.batch_size, shuffle=True,
                    num_workers=args.num_workers, pin_memory=True)
model = torch.nn.Sequential(torch.nn.Linear(900, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 10)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
for epoch in range(args.epochs):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
