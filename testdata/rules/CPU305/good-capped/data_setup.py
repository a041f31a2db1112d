"""Click-through features held in memory as tensors: no loader workers."""
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def make_loader(path, batch_size):
    arr = np.load(path)
    features = torch.from_numpy(arr["x"]).float()
    labels = torch.from_numpy(arr["y"]).float()
    data = TensorDataset(features, labels)
    return DataLoader(data, batch_size=batch_size,
                      sampler=DistributedSampler(data), num_workers=0)
