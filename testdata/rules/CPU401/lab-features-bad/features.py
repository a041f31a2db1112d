"""features.py: a loader whose __getitem__ does numpy linear algebra per
sample, shaped like classic feature extraction (the lab's second pool,
issue 36; tests/lab/README.md says how the lab runs it).

Owns: its synthetic images (made here, nothing downloaded), the
DataLoader whose workers cut each crop into 8x8 patches, whiten them with
a fixed PCA basis and project them (float32 np.dot and np.linalg on every
sample: BLAS calls large enough for OpenBLAS to run them on its own
threads), a small classifier over the pooled features, and its counters
(metrics.py).  Settings are read as users read them: the loader workers
from --workers (default os.cpu_count()), torch's threads from
OMP_NUM_THREADS, OpenBLAS's own threads from OPENBLAS_NUM_THREADS (left
unset, OpenBLAS starts one per core it sees, in every worker).
"""
import argparse
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import metrics

PATCH, STRIDE, CROP, DIMS = 8, 4, 96, 64


def patches(crop):
    """(n, PATCH*PATCH*3) float32 rows of a crop's overlapping patches."""
    v = np.lib.stride_tricks.sliding_window_view(crop, (PATCH, PATCH, 3))[::STRIDE, ::STRIDE, 0]
    return v.reshape(-1, PATCH * PATCH * 3)


class Patches(Dataset):
    def __init__(self, count=32, size=128, length=10**7):
        rng = np.random.default_rng(0)
        self.images = [rng.random((size, size, 3), dtype=np.float32) for _ in range(count)]
        # the whitening basis, fitted once on patches of the data set
        sample = np.concatenate([patches(im[:CROP, :CROP]) for im in self.images[:8]])
        self.mean = sample.mean(axis=0)
        cov = np.dot((sample - self.mean).T, sample - self.mean) / len(sample)
        vals, vecs = np.linalg.eigh(cov)
        self.zca = (vecs / np.sqrt(vals + 1e-2)).dot(vecs.T).astype(np.float32)
        self.proj = rng.standard_normal((self.zca.shape[0], DIMS)).astype(np.float32)
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        im = self.images[i % len(self.images)]
        y, x = random.randint(0, im.shape[0] - CROP), random.randint(0, im.shape[1] - CROP)
        p = patches(im[y:y + CROP, x:x + CROP]) - self.mean
        p = p / (np.linalg.norm(p, axis=1, keepdims=True) + 1e-3)
        cov = np.dot(p.T, p) / len(p)               # the crop's own statistics
        white = np.dot(np.dot(p, self.zca), cov + np.eye(len(cov), dtype=np.float32))
        feats = np.maximum(np.dot(white, self.proj), 0)
        pooled = np.concatenate([feats.mean(axis=0), feats.max(axis=0)])
        return torch.from_numpy(pooled.astype(np.float32)), i % 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--steps", type=int, default=20000)
    args = ap.parse_args()
    metrics.serve()
    loader = DataLoader(Patches(), batch_size=args.batch_size,
                        shuffle=True, num_workers=args.workers)
    net = nn.Sequential(nn.Linear(2 * DIMS, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    seconds, stop = metrics.deadline(), None
    it = iter(loader)
    for step in range(args.steps):
        t0 = time.time()
        x, y = next(it)
        waited = time.time() - t0
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        metrics.add(len(y), waited)
        if step == 2:
            metrics.mark("warm")
            stop = time.time() + seconds if seconds else None
        if stop and time.time() >= stop:
            break
    metrics.finish()


if __name__ == "__main__":
    main()
