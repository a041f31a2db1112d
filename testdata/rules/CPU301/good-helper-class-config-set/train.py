"""Trains the leaf-disease classifier with the settings of config.CFG."""
import argparse

import torch
import torchvision
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

import config

parser = argparse.ArgumentParser()
parser.add_argument("--cpus", type=int, default=2)
args = parser.parse_args()
config.CFG.cpus = args.cpus

torch.manual_seed(config.CFG.seed)
train_set = datasets.ImageFolder("/data/leaves/train", transforms.Compose([
    transforms.RandomResizedCrop(config.CFG.size), transforms.ToTensor()]))
loader = DataLoader(train_set, batch_size=config.CFG.batch_size, shuffle=True,
                    num_workers=config.CFG.cpus, pin_memory=True)
model = getattr(torchvision.models, config.CFG.model_name)(num_classes=5).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=config.CFG.lr)
for epoch in range(config.CFG.epochs):
    for images, labels in loader:
        loss = torch.nn.functional.cross_entropy(model(images.cuda()),
                                                 labels.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
