"""Oxford-IIIT Pet segmentation data: image and trimap pairs."""
import os

import torch
from torch.utils.data import DataLoader
from torchvision import datasets
from torchvision.transforms import v2

# sched_getaffinity honours the cpuset, so this "is the container's count".
NUM_WORKERS = len(os.sched_getaffinity(0))


def pet_loaders(root, batch_size):
    tf = v2.Compose([v2.Resize((256, 256)), v2.ToImage(),
                     v2.ToDtype(torch.float32, scale=True)])
    train = datasets.OxfordIIITPet(root, split="trainval",
                                   target_types="segmentation",
                                   transforms=tf, download=False)
    val = datasets.OxfordIIITPet(root, split="test",
                                 target_types="segmentation",
                                 transforms=tf, download=False)
    return (
        DataLoader(train, batch_size=batch_size, shuffle=True,
                   num_workers=NUM_WORKERS, drop_last=True),
        DataLoader(val, batch_size=batch_size, num_workers=NUM_WORKERS),
    )
