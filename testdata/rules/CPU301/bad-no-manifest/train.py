"""Fine-tunes a ViT on a folder of labelled images.

    python train.py --data /data/flowers --epochs 10
"""
import argparse
import logging
import os

import torch
from torch import nn

from config import DECODE_PROCS
from data.loaders import build_loaders, decode_all

logger = logging.getLogger(__name__)


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/flowers")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=3e-4)
    return parser.parse_args()


def main():
    args = parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    decode_all(args.data, DECODE_PROCS)
    # Half the machine for loading, the other half for the model.
    train_loader, val_loader = build_loaders(
        args.data, args.batch_size, os.cpu_count() // 2)
    model = torch.hub.load("facebookresearch/deit:main",
                           "deit_small_patch16_224", pretrained=True)
    model.head = nn.Linear(model.head.in_features, 102)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        model.train()
        for images, labels in train_loader:
            images, labels = images.to(device), labels.to(device)
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        logger.info("epoch %d: loss %.4f", epoch, loss.item())


if __name__ == "__main__":
    main()
