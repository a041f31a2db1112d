"""Criteo-style rows as tensors."""
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Rows(Dataset):
    def __init__(self, root):
        self.x = np.load(f"{root}/features.npy", mmap_mode="r")
        self.y = np.load(f"{root}/labels.npy", mmap_mode="r")

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return (torch.from_numpy(np.array(self.x[i], dtype=np.float32)),
                torch.tensor(float(self.y[i])))


def make_loader(root, seed, workers, rank, world):
    data = Rows(root)
    sampler = DistributedSampler(data, num_replicas=world, rank=rank,
                                 seed=seed)
    return DataLoader(data, batch_size=4096, sampler=sampler,
                      num_workers=workers)
