# -*- coding: utf-8 -*-
"""Trains the CRNN text recognizer."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from utils import *

parser = argparse.ArgumentParser()
parser.add_argument("--batchSize", type=int, default=64)
parser.add_argument("--niter", type=int, default=25)
opt = parser.parse_args()

converter = strLabelConverter(alphabet)
data = TensorDataset(torch.randn(512, nc, imgH, 100))
loader = DataLoader(data, batch_size=opt.batchSize, shuffle=True,
                    num_workers=int(N_CPU))
model = torch.nn.Conv2d(nc, 16, 3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(opt.niter):
    for (images,) in loader:
        loss = model(images).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
