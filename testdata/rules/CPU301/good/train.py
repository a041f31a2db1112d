"""
Trains TinyVGG; the CPU counts only go to the log.

Workers come from --workers (the job sets it from its CPU budget), never
from multiprocessing.cpu_count().
"""
import argparse
import logging
import multiprocessing
import os

import psutil
import torch
from torch import nn

import data_setup

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("train")

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--epochs", type=int, default=5)
args = parser.parse_args()

# Report what the node looks like next to what the job was given;
# os.cpu_count() is the node's count, not the quota.
print(f"node CPUs: {os.cpu_count()}, loader workers: {args.workers}")
log.info("multiprocessing sees %d CPUs", multiprocessing.cpu_count())
n_physical = psutil.cpu_count(logical=False)
log.info(f"physical cores on the node: {n_physical}")

train_dl, test_dl, classes = data_setup.create_dataloaders(
    "/data/train", "/data/test", args.batch_size, num_workers=args.workers)

model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 64 * 64, len(classes)))
model = model.cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(args.epochs):
    for X, y in train_dl:
        loss = loss_fn(model(X.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    log.info("epoch %d done", epoch)
