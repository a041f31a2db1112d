"""images.py: a loader-heavy image classification job, written the way
users write one (the lab's first workload, tests/lab/README.md).

Owns: its synthetic data set (JPEG bytes made here, so nothing is
downloaded), the DataLoader whose workers decode with PIL and augment with
OpenCV in __getitem__, a small CNN trained on 96 px crops, and its
counters (metrics.py).  Settings are read as users read them: the
intra-op threads from OMP_NUM_THREADS (torch reads it itself), the loader
workers from --workers whose default is os.cpu_count(); OpenCV's own
threads are left at its default, as most scripts leave them.
"""
import argparse
import io
import os
import random
import time

import cv2
import numpy as np
import torch
import torch.nn as nn
from PIL import Image
from torch.utils.data import DataLoader, Dataset

import metrics


class JpegImages(Dataset):
    def __init__(self, count=64, size=320, length=10**7):
        rng = np.random.default_rng(0)
        self.blobs = []
        for _ in range(count):
            arr = rng.integers(0, 255, (size, size, 3), dtype=np.uint8)
            arr = cv2.GaussianBlur(arr, (9, 9), 3)
            buf = io.BytesIO()
            Image.fromarray(arr).save(buf, format="JPEG", quality=90)
            self.blobs.append(buf.getvalue())
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        img = Image.open(io.BytesIO(self.blobs[i % len(self.blobs)])).convert("RGB")
        img = img.rotate(random.uniform(-10, 10))
        arr = np.asarray(img)
        arr = cv2.resize(arr, (128, 128), interpolation=cv2.INTER_AREA)
        arr = cv2.GaussianBlur(arr, (5, 5), 1.0)
        hsv = cv2.cvtColor(arr, cv2.COLOR_RGB2HSV)
        hsv[..., 1] = cv2.add(hsv[..., 1], random.randint(0, 20))
        arr = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)
        y, x = random.randint(0, 32), random.randint(0, 32)
        arr = arr[y:y + 96, x:x + 96]
        if random.random() < 0.5:
            arr = cv2.flip(arr, 1)
        t = torch.from_numpy(np.ascontiguousarray(arr)).permute(2, 0, 1).float() / 255.0
        return (t - 0.5) / 0.25, i % 10


def model():
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--steps", type=int, default=20000)
    args = ap.parse_args()
    metrics.serve()
    loader = DataLoader(JpegImages(), batch_size=args.batch_size,
                        shuffle=True, num_workers=args.workers)
    net = model()
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
