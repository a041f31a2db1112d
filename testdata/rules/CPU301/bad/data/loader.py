"""DataLoaders for the CIFAR-10 DDP example."""
import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

# Half the machine for data loading, the other half for the model.
NUM_WORKERS = os.cpu_count() // 2

MEAN = (0.4914, 0.4822, 0.4465)
STD = (0.2470, 0.2435, 0.2616)


def build_train_loader(root, batch_size):
    transform = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    dataset = datasets.CIFAR10(root, train=True, transform=transform)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=DistributedSampler(dataset),
        num_workers=NUM_WORKERS,
        pin_memory=True,
        persistent_workers=True,
    )
