"""Pick the hardware and the DataLoader worker count."""
import os

import torch


def get_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def default_workers():
    return os.cpu_count()
