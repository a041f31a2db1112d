"""EfficientNet-B0 on Food-101, one GPU; class weights with numpy."""
import argparse

import numpy as np
import torch
from torchvision.models import EfficientNet_B0_Weights, efficientnet_b0

import data_setup

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/data/food101")
parser.add_argument("--workers", type=int, default=2,
                    help="DataLoader worker processes")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()

train_dl, test_dl = data_setup.create_dataloaders(
    args.data, args.batch_size, num_workers=args.workers)

counts = np.bincount(np.array(train_dl.dataset._labels), minlength=101)
weights = torch.from_numpy(np.linalg.norm(counts) / counts).float()
model = efficientnet_b0(weights=EfficientNet_B0_Weights.DEFAULT)
model.classifier[1] = torch.nn.Linear(1280, 101)
model = model.cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loss_fn = torch.nn.CrossEntropyLoss(weight=weights.cuda())
for epoch in range(args.epochs):
    for X, y in train_dl:
        loss = loss_fn(model(X.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
