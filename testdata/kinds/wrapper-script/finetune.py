"""Fine-tunes BERT on a text classification set."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    data = TensorDataset(torch.randn(1024, 128), torch.randint(0, 2, (1024,)))
    loader = DataLoader(data, batch_size=32, num_workers=args.workers)
    model = torch.nn.Linear(128, 2)
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(args.epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
