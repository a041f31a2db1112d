"""Patch descriptors whitened with a PCA basis, a linear classifier."""
import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Descriptors(Dataset):
    def __init__(self, images, basis, mean):
        self.images = images
        self.basis = basis
        self.mean = mean

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        patches = self.images[i].reshape(-1, 192) - self.mean
        white = np.dot(patches, self.basis)
        return torch.from_numpy(np.maximum(white, 0).mean(axis=0)), i % 10


parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=2)
args = parser.parse_args()

images = np.random.rand(1000, 64, 192).astype(np.float32)
basis = np.random.rand(192, 64).astype(np.float32)
loader = DataLoader(Descriptors(images, basis, images.mean()),
                    batch_size=32, shuffle=True, num_workers=args.workers)
model = torch.nn.Linear(64, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
