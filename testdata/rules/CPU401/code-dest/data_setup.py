"""Text-classification batches from pre-tokenized shards."""
import glob

import torch
from torch.utils.data import DataLoader, Dataset


class ShardDataset(Dataset):
    def __init__(self, pattern):
        self.files = sorted(glob.glob(pattern))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        shard = torch.load(self.files[i])
        return shard["input_ids"], shard["labels"]


def build_loader(pattern, batch_size, workers):
    return DataLoader(ShardDataset(pattern), batch_size=batch_size,
                      shuffle=True, num_workers=workers,
                      persistent_workers=workers > 0)
