"""Tokenizes a text corpus into shards before training (run alone).

The CPU count is read for the log line's context, then the worker count
is replaced by the one the config gives: the pool never sees the count.

    python prepare.py --corpus data/wiki.txt --out shards/
"""
import argparse
import json
import os
from multiprocessing import Pool


def tokenize(line):
    return line.lower().split()


def load_config(path):
    with open(path) as fh:
        return json.load(fh)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--config", default="prepare.json")
    args = parser.parse_args()

    cpus = os.cpu_count()
    print(f"node has {cpus} CPUs")
    cpus = load_config(args.config)["processes"]

    num_workers = os.cpu_count()
    num_workers = 4
    with open(args.corpus) as fh, Pool(num_workers) as pool:
        for i, toks in enumerate(pool.imap(tokenize, fh, chunksize=256)):
            if i % 100000 == 0:
                print(i, len(toks), "of", cpus)


def shard_writer(out, threads=os.cpu_count()):
    threads = 2
    return out, threads


if __name__ == "__main__":
    main()
