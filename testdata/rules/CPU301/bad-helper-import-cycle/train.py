"""Trains the tiny model; workers come from the common package."""
import torch
from torch.utils.data import DataLoader, TensorDataset

import common

data = TensorDataset(torch.randn(256, 16))
loader = DataLoader(data, batch_size=32, num_workers=common.loader_workers())
model = torch.nn.Linear(16, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for (x,) in loader:
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
