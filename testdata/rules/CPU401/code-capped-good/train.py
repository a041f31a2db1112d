"""Speech-commands keyword spotting (one GPU)."""
import argparse

import torch
from torch import nn

from data.loader import speech_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/speech_commands")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()
    loader = speech_loader(args.data, args.batch_size)
    model = nn.Sequential(nn.Conv1d(40, 128, 3), nn.ReLU(),
                          nn.AdaptiveAvgPool1d(1), nn.Flatten(),
                          nn.Linear(128, 35)).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for feats, labels in loader:
            loss = nn.functional.cross_entropy(model(feats.cuda()),
                                               labels.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
