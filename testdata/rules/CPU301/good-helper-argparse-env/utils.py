"""Helpers shared by the training and evaluation scripts."""
import os
import random
import sys

import numpy as np
import torch

IS_MAC = sys.platform == "darwin"


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def get_num_workers():
    """
    Determines the optimal number of workers for DataLoader.
    """
    if IS_MAC:
        return 0  # or 1, for PyTorch dataloader
    else:
        # Get the number of CPUs allocated by SLURM, default to 4 if not set
        return int(os.environ.get("SLURM_CPUS_PER_TASK", 4))
