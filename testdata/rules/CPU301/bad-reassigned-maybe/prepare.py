"""Tokenizes a text corpus into shards before training (run alone).

The worker count is replaced only when the environment names one: on any
other run the pool is as large as the node.

    python prepare.py --corpus data/wiki.txt
"""
import argparse
import os
from multiprocessing import Pool


def tokenize(line):
    return line.lower().split()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", required=True)
    args = parser.parse_args()

    num_workers = os.cpu_count()
    if "PREP_WORKERS" in os.environ:
        num_workers = int(os.environ["PREP_WORKERS"])
    with open(args.corpus) as fh, Pool(num_workers) as pool:
        for i, toks in enumerate(pool.imap(tokenize, fh, chunksize=256)):
            if i % 100000 == 0:
                print(i, len(toks))


if __name__ == "__main__":
    main()
