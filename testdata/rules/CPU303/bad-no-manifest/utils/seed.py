"""Seeding helpers for reproducible runs."""
import random

import numpy as np
import torch


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def seed_worker(worker_id, rank=0):
    """DataLoader worker_init_fn: a distinct, reproducible seed per worker."""
    seed = (torch.initial_seed() + rank) % 2**32
    np.random.seed(seed)
    random.seed(seed)
    # The tensor augmentations are heavy: give every worker a few threads.
    torch.set_num_threads(2)
