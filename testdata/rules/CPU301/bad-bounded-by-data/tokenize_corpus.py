"""Tokenizes a text corpus into fixed-length shards for pre-training.

The pool is bounded by the number of input files, not by a setting: with
hundreds of files it is one process per node CPU, whatever the limit.
"""
import argparse
import glob
import os
from multiprocessing import Pool

from tokenizers import Tokenizer


def encode_file(path, out_dir, tokenizer_path):
    tok = Tokenizer.from_file(tokenizer_path)
    with open(path, encoding="utf-8") as fh:
        ids = [i for line in fh for i in tok.encode(line).ids]
    out = os.path.join(out_dir, os.path.basename(path) + ".ids")
    with open(out, "w") as fh:
        fh.write(" ".join(map(str, ids)))
    return len(ids)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="/data/corpus")
    parser.add_argument("--out", default="/data/shards")
    parser.add_argument("--tokenizer", default="tokenizer.json")
    args = parser.parse_args()
    files = sorted(glob.glob(os.path.join(args.corpus, "*.txt")))
    with Pool(min(len(files), os.cpu_count())) as pool:
        total = sum(pool.starmap(encode_file, [(f, args.out, args.tokenizer)
                                               for f in files]))
    print(f"{total} tokens in {len(files)} files")


if __name__ == "__main__":
    main()
