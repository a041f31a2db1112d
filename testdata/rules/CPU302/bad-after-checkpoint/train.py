"""Trains a tabular MLP with DDP over gloo on CPU-only nodes.

    torchrun --nnodes 4 --nproc_per_node 1 train.py --threads 6
"""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from models import build_model
from tabular import make_loader


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/data/criteo")
    p.add_argument("--arch", default="mlp-512")
    p.add_argument("--threads", type=int, default=6)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--resume", default="")
    return p.parse_args()


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    dist.init_process_group("gloo")
    # Every rank takes rank 0's seed for the data order.
    seed = torch.tensor([args.seed], dtype=torch.int64)
    dist.broadcast(seed, src=0)
    if torch.cuda.is_available():
        print(f"{torch.cuda.device_count()} GPUs visible, not used")
    device = torch.device("cpu")
    model = build_model(args.arch).to(device)
    if args.resume:
        state = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(state["model"])

    # Pin the intra-op pool now that the model is ready.
    torch.set_num_threads(args.threads)

    model = DDP(model)
    loader = make_loader(args.data, int(seed.item()), args.workers,
                         rank=dist.get_rank(),
                         world=int(os.environ["WORLD_SIZE"]))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = torch.nn.BCEWithLogitsLoss()
    for epoch in range(args.epochs):
        for feats, labels in loader:
            loss = criterion(model(feats).squeeze(1), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
