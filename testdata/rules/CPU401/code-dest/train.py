"""A small transformer classifier on pre-tokenized shards."""
import argparse

import torch
from torch import nn

from data_setup import build_loader

parser = argparse.ArgumentParser()
parser.add_argument("--shards", default="/data/shards/train-*.pt")
# Named for the operators' runbooks; stored as args.loader_workers.
parser.add_argument("--loader-procs", dest="loader_workers", type=int,
                    default=2)
parser.add_argument("--batch-size", type=int, default=1)
args = parser.parse_args()

loader = build_loader(args.shards, args.batch_size, args.loader_workers)
layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, batch_first=True)
model = nn.Sequential(nn.Embedding(30522, 256),
                      nn.TransformerEncoder(layer, num_layers=4)).cuda()
head = nn.Linear(256, 2).cuda()
optimizer = torch.optim.AdamW(list(model.parameters()) +
                              list(head.parameters()), lr=3e-4)
for ids, labels in loader:
    ids, labels = ids.squeeze(0).cuda(), labels.squeeze(0).cuda()
    logits = head(model(ids).mean(dim=1))
    loss = nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
