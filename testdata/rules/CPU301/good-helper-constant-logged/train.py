"""Trains the attention classifier with the settings of config.py."""
import logging

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

import config

log = logging.getLogger(__name__)
log.info("host has %d CPUs", config.HOST_CPUS)

train_set = datasets.MNIST(config.DATA_DIR, train=True, download=False,
                           transform=transforms.ToTensor())
loader = DataLoader(train_set, batch_size=config.BATCH_SIZE, shuffle=True,
                    num_workers=2, persistent_workers=True)
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10))
optimizer = torch.optim.Adam(model.parameters(), lr=config.LEARNING_RATE)
for images, labels in loader:
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
