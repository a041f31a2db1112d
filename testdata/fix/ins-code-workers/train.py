"""Two ranks, each with a loader of its own."""
import torch
from torch.utils.data import DataLoader


def main():
    loader = DataLoader(list(range(512)), batch_size=16, num_workers=6)
    for batch in loader:
        torch.tensor(batch).sum()


if __name__ == "__main__":
    main()
