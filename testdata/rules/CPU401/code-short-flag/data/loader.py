"""ImageNet train/val loaders with the usual augmentations."""
import os

import torch
from torchvision import datasets, transforms

normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406],
                                 std=[0.229, 0.224, 0.225])


def imagenet_loaders(root, batch_size, workers):
    train = datasets.ImageFolder(os.path.join(root, "train"),
                                 transforms.Compose([
                                     transforms.RandomResizedCrop(224),
                                     transforms.RandomHorizontalFlip(),
                                     transforms.ToTensor(),
                                     normalize,
                                 ]))
    val = datasets.ImageFolder(os.path.join(root, "val"),
                               transforms.Compose([
                                   transforms.Resize(256),
                                   transforms.CenterCrop(224),
                                   transforms.ToTensor(),
                                   normalize,
                               ]))
    train_loader = torch.utils.data.DataLoader(
        train, batch_size=batch_size, shuffle=True,
        num_workers=workers, pin_memory=True)
    val_loader = torch.utils.data.DataLoader(
        val, batch_size=batch_size, shuffle=False,
        num_workers=workers, pin_memory=True)
    return train_loader, val_loader
