"""General utilities."""
import glob
import os
from multiprocessing.pool import ThreadPool

# Threads for label caching: at most 8, one fewer than a small machine has.
NUM_THREADS = min(8, max(1, os.cpu_count() - 1))


def _read(path):
    with open(path) as fh:
        return [line.split() for line in fh]


def cache_labels(root, threads):
    files = sorted(glob.glob(os.path.join(root, "labels", "*.txt")))
    with ThreadPool(threads) as pool:
        return dict(zip(files, pool.imap(_read, files)))
