import logging
import os
import psutil
import torch.multiprocessing as mp
from torch import multiprocessing
from torch.utils.data import DataLoader

logger = logging.getLogger(__name__)


def report():
    """Returns os.cpu_count() for the log."""
    print(os.cpu_count())  # os.cpu_count() sizes nothing here
    logger.info("%d cpus", psutil.cpu_count(logical=False))
    n = os.cpu_count()
    print(f"running on {n} cpus")
    k = mp.cpu_count()
    m = multiprocessing.cpu_count()
    loader = DataLoader([], num_workers=0)
    return k + m
