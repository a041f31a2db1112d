"""Fine-tunes ResNet-50 on CPU-only nodes: DDP over gloo, one rank a Pod."""
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torchvision.models import ResNet50_Weights, resnet50

from data_setup import make_loader


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/data/pets")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--epochs", type=int, default=10)
    return p.parse_args()


def main():
    args = parse_args()
    dist.init_process_group("gloo")

    model = resnet50(weights=ResNet50_Weights.DEFAULT)
    model.fc = torch.nn.Linear(model.fc.in_features, 37)
    model = DDP(model)

    # Pin the intra-op pool now that the model is ready.
    torch.set_num_threads(args.threads)

    loader = make_loader(args.data, args.batch_size, args.workers)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for images, labels in loader:
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
