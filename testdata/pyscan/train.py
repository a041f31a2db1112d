"""Train a classifier.

The docstring mentions os.cpu_count() and DataLoader(num_workers=8); text
inside strings never counts.
"""
import argparse
import os
import multiprocessing as mp

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import data_setup
from data_setup import create_dataloaders
from .pkg.data import make_loader

# NUM_WORKERS = os.cpu_count()  (a comment never counts)
NUM_WORKERS = os.cpu_count() // 2


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("-j", "--workers", type=int, default=4)
    parser.add_argument("--threads", dest="intra", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--amp", action="store_true")
    return parser.parse_args()


def main():
    args = get_args()
    model = nn.Linear(8, 2)
    torch.set_num_threads(args.intra)
    train = DataLoader(range(10), batch_size=args.batch_size,
                       num_workers=args.workers)
    test = data_setup.create_dataloaders("test", 16)
    val = create_dataloaders("val", 16, num_workers=args.workers)
    extra = make_loader(NUM_WORKERS)
    with mp.Pool(processes=mp.cpu_count()) as pool:
        pool.map(print, [1, 2])


if __name__ == "__main__":
    main()
