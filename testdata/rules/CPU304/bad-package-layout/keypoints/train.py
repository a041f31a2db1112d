"""Trains the keypoint model: run from the repository root as

    python -m keypoints.train --data /data/coco-kp
"""
import argparse

import torch
from torch.utils.data import DataLoader

from keypoints.data import KeypointCrops
from keypoints.model import PoseNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/coco-kp")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=140)
    args = parser.parse_args()
    loader = DataLoader(KeypointCrops(args.data), batch_size=64,
                        shuffle=True, num_workers=args.workers)
    model = PoseNet().cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for crops, heatmaps in loader:
            loss = ((model(crops.cuda()) - heatmaps.cuda()) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
