#!/usr/bin/env python3
"""Trains with a loader sized from the machine — café, naïve."""
from __future__ import annotations

import os
from multiprocessing import (
    cpu_count,
)

import torch
from torch.utils.data import DataLoader

torch.set_num_threads(8)


def main():
    data = list(range(1000))
    loader = DataLoader(data, batch_size=32, num_workers=os.cpu_count())
    pool_size = cpu_count()
    for batch in loader:
        torch.tensor(batch).sum()
    return pool_size


if __name__ == "__main__":
    main()
