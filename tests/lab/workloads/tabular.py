"""tabular.py — the lab's smallest loop, for the check that every setting
the tool writes runs (tests/lab/runnable.py): rows of floats through a
DataLoader that keeps its workers between epochs (persistent_workers=True,
which torch refuses with num_workers=0: ValueError), a small MLP, --steps
batches and out.  --workers defaults to os.cpu_count(), as such scripts
write it; threads from OMP_NUM_THREADS (torch reads it)."""
import argparse
import os

import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=os.cpu_count())
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(2048, 32), torch.randn(2048, 1))
    loader = DataLoader(ds, batch_size=64, shuffle=True,
                        num_workers=args.workers, persistent_workers=True)
    model = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    step = 0
    while step < args.steps:
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step == args.steps:
                break
    print("steps", step)


if __name__ == "__main__":
    main()
