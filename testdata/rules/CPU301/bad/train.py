"""ResNet-18 on CIFAR-10 with DistributedDataParallel, one rank per GPU."""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torchvision.models import resnet18

from data.loader import build_train_loader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/cifar10")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()

    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    loader = build_train_loader(args.data, args.batch_size)
    model = DDP(resnet18(num_classes=10).cuda(), device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for images, labels in loader:
            images, labels = images.cuda(), labels.cuda()
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
