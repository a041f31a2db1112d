"""Shard a corpus with process pools left at their default size.

multiprocessing.Pool() and ProcessPoolExecutor() with no size start one
worker per CPU of the node, as os.cpu_count() counts them; processes=None
is the same default.  CPU301 fires at each pool.
"""
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor


def shard(path):
    return path.upper()


def main(paths):
    with mp.Pool() as pool:
        pool.map(shard, paths)
    with mp.Pool(processes=None, maxtasksperchild=100) as pool:
        pool.map(shard, paths)
    with ProcessPoolExecutor() as ex:
        list(ex.map(shard, paths))


if __name__ == "__main__":
    main(["a", "b"])
