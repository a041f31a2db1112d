"""Pick the fastest available hardware and DataLoader worker count."""
import os

import torch


def get_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def get_num_workers():
    """DataLoader workers: the CPUs this process may run on, at most 8."""
    if hasattr(os, "sched_getaffinity"):
        cpus = len(os.sched_getaffinity(0))
    else:
        cpus = os.cpu_count() or 1
    return min(8, cpus)
