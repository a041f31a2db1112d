"""Surface-field regression on simulation snapshots (one GPU)."""
import argparse

import torch
from torch.utils.data import DataLoader

from utils.restrict_omp import dl_worker_init_fn
from utils.snapshots import Snapshots


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/snapshots")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=50)
    args = parser.parse_args()
    loader = DataLoader(Snapshots(args.data), batch_size=32, shuffle=True,
                        num_workers=args.workers,
                        worker_init_fn=dl_worker_init_fn)
    model = torch.nn.Sequential(torch.nn.Conv2d(4, 64, 3, padding=1),
                                torch.nn.GELU(),
                                torch.nn.Conv2d(64, 4, 3, padding=1)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
