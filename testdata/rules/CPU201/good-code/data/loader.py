"""Tiny-ImageNet loaders: two workers, the rest of the budget is torch's."""
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def tiny_imagenet(root, batch_size):
    tf = transforms.Compose([transforms.RandomCrop(64, padding=4),
                             transforms.RandomHorizontalFlip(),
                             transforms.ToTensor()])
    data = datasets.ImageFolder(f"{root}/train", transform=tf)
    return DataLoader(data, batch_size=batch_size, shuffle=True,
                      num_workers=2, pin_memory=True)
