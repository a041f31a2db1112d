"""A tabular job whose loader keeps its workers between epochs."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=4)
    args = p.parse_args()
    ds = TensorDataset(torch.randn(4096, 64), torch.randn(4096, 1))
    # persistent_workers=True: torch raises ValueError with num_workers=0,
    # so the fewest workers this loader takes is one.
    loader = DataLoader(ds, batch_size=64, num_workers=args.workers,
                        persistent_workers=True)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(3):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
