"""Shard a corpus with pools sized by the job's setting.

The process pools take their size from --workers; the thread pool's
default is capped (min(32, CPUs + 4)) and its threads wait on I/O, so
CPU301 is silent.
"""
import argparse
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor


def shard(path):
    return path.upper()


def main(paths, workers):
    with mp.Pool(processes=workers) as pool:
        pool.map(shard, paths)
    with ProcessPoolExecutor(max_workers=workers) as ex:
        list(ex.map(shard, paths))
    with ThreadPoolExecutor() as ex:
        list(ex.map(open, paths))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    main(["a", "b"], parser.parse_args().workers)
