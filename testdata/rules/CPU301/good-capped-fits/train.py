"""Trains a small detector (YOLO-style layout, run without a manifest).

    python train.py --data coco128 --workers 8
"""
import argparse

import torch

from utils.dataloaders import create_dataloader
from utils.general import NUM_THREADS, cache_labels


def parse_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=str, default="coco128")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--workers", type=int, default=8,
                        help="max dataloader workers (per RANK in DDP)")
    parser.add_argument("--epochs", type=int, default=100)
    return parser.parse_args()


def train(opt):
    cache_labels(opt.data, NUM_THREADS)
    loader = create_dataloader(opt.data, opt.imgsz, opt.batch_size,
                               workers=opt.workers, shuffle=True)
    model = torch.hub.load("ultralytics/yolov5", "yolov5s", autoshape=False)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937)
    for epoch in range(opt.epochs):
        for imgs, targets in loader:
            loss = model(imgs.float() / 255).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    train(parse_opt())
