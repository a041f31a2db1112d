"""Trains the classifier (python -m trainer.task)."""
import argparse

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms

from . import default_workers, get_device


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/flowers")
    parser.add_argument("--workers", type=int, default=default_workers())
    args = parser.parse_args()
    device = get_device()
    data = datasets.ImageFolder(args.data, transform=transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.ToTensor()]))
    loader = DataLoader(data, batch_size=64, shuffle=True,
                        num_workers=args.workers)
    model = models.resnet18(num_classes=len(data.classes)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for images, labels in loader:
        loss = torch.nn.functional.cross_entropy(model(images.to(device)),
                                                 labels.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
