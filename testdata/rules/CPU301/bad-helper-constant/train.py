"""Trains the attention classifier with the settings of config.py."""
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from config import BATCH_SIZE, DATA_DIR, HOST_CPUS, LEARNING_RATE

train_set = datasets.MNIST(DATA_DIR, train=True, download=False,
                           transform=transforms.ToTensor())
loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True,
                    num_workers=HOST_CPUS, persistent_workers=True)
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10))
optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
for images, labels in loader:
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
