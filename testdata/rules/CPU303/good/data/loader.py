"""Augmented ImageNet-style loaders with reproducible worker seeds."""
import random

import numpy as np
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def seed_worker(worker_id):
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    # One torch thread per worker (the DataLoader's own default, stated
    # here so that nobody raises it): workers give the parallelism.
    torch.set_num_threads(1)


def train_loader(root, batch_size, workers):
    tf = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ColorJitter(0.4, 0.4, 0.4),
        transforms.ToTensor(),
    ])
    data = datasets.ImageFolder(root, transform=tf)
    g = torch.Generator()
    g.manual_seed(0)
    return DataLoader(data, batch_size=batch_size,
                      sampler=DistributedSampler(data),
                      num_workers=workers, worker_init_fn=seed_worker,
                      generator=g, pin_memory=True)
