"""Helpers shared by the training and evaluation scripts."""
import multiprocessing
import random

import numpy as np
import torch


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def get_num_workers():
    try:
        return multiprocessing.cpu_count() // 2  # Use half of the available CPUs
    except NotImplementedError:
        return 4  # Default fallback
