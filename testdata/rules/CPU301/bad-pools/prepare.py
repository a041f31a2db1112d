"""Downloads the image list and writes resized WebDataset shards."""
import argparse
import os
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import Pool

from shards import fetch, resize_and_pack


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--urls", default="/data/urls.txt")
    parser.add_argument("--out", default="/data/shards")
    parser.add_argument("--size", type=int, default=256)
    args = parser.parse_args()

    with open(args.urls) as f:
        urls = [line.strip() for line in f if line.strip()]

    # Downloads wait on the network, so one thread per CPU "is plenty".
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as ex:
        paths = list(ex.map(fetch, urls))

    chunks = [paths[i:i + 1000] for i in range(0, len(paths), 1000)]
    with Pool(os.cpu_count()) as pool:
        pool.starmap(resize_and_pack, [(c, args.out, n, args.size)
                                       for n, c in enumerate(chunks)])


if __name__ == "__main__":
    main()
