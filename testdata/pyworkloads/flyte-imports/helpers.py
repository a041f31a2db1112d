"""Helpers the prepare script and the flow's tasks import."""
import os

from torch.utils.data import DataLoader


def shard_paths(root, n):
    return [os.path.join(root, str(i)) for i in range(n)]


def make_loader(data, batch_size):
    return DataLoader(data, batch_size=batch_size, num_workers=6)
