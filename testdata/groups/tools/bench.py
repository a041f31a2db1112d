"""A benchmark run by hand, no workload: linted on its own."""
from workers import WORKERS
from torch.utils.data import DataLoader

if __name__ == "__main__":
    DataLoader([], num_workers=WORKERS)
