"""Shard a corpus into token files with a process pool sized by the CPUs
Python 3.13 says it may use."""
import os
from concurrent.futures import ProcessPoolExecutor


def shard(i):
    return i


if __name__ == "__main__":
    with ProcessPoolExecutor(max_workers=os.process_cpu_count()) as ex:
        print(sum(ex.map(shard, range(1024))))
