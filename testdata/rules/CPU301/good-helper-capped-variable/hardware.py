"""Pick the fastest available hardware and DataLoader worker count."""
import os

import torch


def get_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def get_num_workers():
	suggested_workers = 0
	if hasattr(os, "sched_getaffinity"):
		try:
			suggested_workers = len(os.sched_getaffinity(0))
		except Exception:
			pass
	if suggested_workers == 0:
		cpu_count = os.cpu_count()
		if cpu_count is not None:
			suggested_workers = cpu_count
	return min(8, suggested_workers)
