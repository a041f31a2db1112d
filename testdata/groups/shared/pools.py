"""Loader pools, sized from the node's CPU count."""
import os

from torch.utils.data import DataLoader

WORKERS = os.cpu_count()


def make_loader(root):
    return DataLoader(root, batch_size=64, num_workers=WORKERS)
