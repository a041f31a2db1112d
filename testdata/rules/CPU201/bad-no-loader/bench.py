"""Times forward and backward passes of an MLP on random batches."""
import argparse
import time

import torch
from torch import nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()

    model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(),
                          nn.Linear(4096, 1024))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(args.batch_size, 1024)
    y = torch.randn(args.batch_size, 1024)
    start = time.perf_counter()
    for _ in range(args.steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    elapsed = time.perf_counter() - start
    print(f"{args.steps / elapsed:.1f} steps/s")


if __name__ == "__main__":
    main()
