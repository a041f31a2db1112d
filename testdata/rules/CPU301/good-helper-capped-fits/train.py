"""Trains a ResNet on the image folder."""
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from hardware import get_device, get_num_workers
from model import Resnet

device = get_device()
data = datasets.ImageFolder("/data/train", transform=transforms.ToTensor())
loader = DataLoader(data, batch_size=128, shuffle=True,
                    num_workers=get_num_workers(), pin_memory=True)
model = Resnet(len(data.classes)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for images, labels in loader:
    loss = torch.nn.functional.cross_entropy(model(images.to(device)),
                                             labels.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
