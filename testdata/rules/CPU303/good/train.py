"""ConvNeXt-T with DDP, one rank per GPU, started by torchrun."""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torchvision.models import convnext_tiny

from data.loader import train_loader

parser = argparse.ArgumentParser()
parser.add_argument("data")
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--epochs", type=int, default=90)
args = parser.parse_args()

dist.init_process_group("nccl")
rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(rank)

loader = train_loader(args.data, args.batch_size, args.workers)
model = DDP(convnext_tiny().cuda(), device_ids=[rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=4e-3)
criterion = torch.nn.CrossEntropyLoss()
for epoch in range(args.epochs):
    loader.sampler.set_epoch(epoch)
    for images, target in loader:
        images, target = images.cuda(non_blocking=True), target.cuda()
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
