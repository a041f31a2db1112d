"""
Trains TinyVGG on the pizza/steak/sushi images with device-agnostic code.
"""
import argparse

import torch
from torch import nn
from torchvision import transforms

import data_setup

parser = argparse.ArgumentParser(description="Train TinyVGG.")
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--data", default="/data/pizza_steak_sushi")
args = parser.parse_args()

device = "cuda" if torch.cuda.is_available() else "cpu"

data_transform = transforms.Compose([
    transforms.Resize((64, 64)),
    transforms.ToTensor(),
])

# Workers are left to data_setup's default.
train_dataloader, test_dataloader, class_names = data_setup.create_dataloaders(
    train_dir=f"{args.data}/train",
    test_dir=f"{args.data}/test",
    transform=data_transform,
    batch_size=args.batch_size,
)

model = nn.Sequential(
    nn.Conv2d(3, 10, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(10, 10, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(10 * 16 * 16, len(class_names)),
).to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

for epoch in range(args.epochs):
    model.train()
    for X, y in train_dataloader:
        X, y = X.to(device), y.to(device)
        loss = loss_fn(model(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")

torch.save(model.state_dict(), "/output/tinyvgg.pth")
