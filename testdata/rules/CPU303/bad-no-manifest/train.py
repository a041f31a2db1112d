#!/usr/bin/env python3
"""ImageNet training with reproducible data order (one process per GPU).

    torchrun --nproc_per_node=4 train.py /data/imagenet --workers 4
"""
import argparse
import os
from functools import partial

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, models, transforms

from utils.seed import seed_worker

parser = argparse.ArgumentParser(description="ImageNet training")
parser.add_argument("data", metavar="DIR")
parser.add_argument("--model", default="resnet50")
parser.add_argument("-b", "--batch-size", type=int, default=128)
parser.add_argument("-j", "--workers", type=int, default=4)
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--seed", type=int, default=42)


def main():
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    tf = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
    ])
    train_set = datasets.ImageFolder(os.path.join(args.data, "train"), tf)
    g = torch.Generator()
    g.manual_seed(args.seed)
    loader = DataLoader(
        train_set,
        batch_size=args.batch_size,
        sampler=DistributedSampler(train_set, seed=args.seed),
        num_workers=args.workers,
        worker_init_fn=partial(seed_worker, rank=rank),
        generator=g,
        pin_memory=True,
    )
    model = models.__dict__[args.model]().cuda()
    model = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss().cuda()
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for images, target in loader:
            output = model(images.cuda(non_blocking=True))
            loss = criterion(output, target.cuda(non_blocking=True))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
