"""Fine-tunes ResNet-50 on CPU-only nodes: DDP over gloo, one rank a Pod."""
import argparse

import torch

# Size the intra-op pool before anything runs: 4 threads + 2 loader
# workers fill the 8-CPU limit of each Pod.
torch.set_num_threads(4)

import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
from torchvision.models import ResNet50_Weights, resnet50  # noqa: E402

from data_setup import make_loader  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/data/pets")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--epochs", type=int, default=10)
    return p.parse_args()


def main():
    args = parse_args()
    dist.init_process_group("gloo")

    model = resnet50(weights=ResNet50_Weights.DEFAULT)
    model.fc = torch.nn.Linear(model.fc.in_features, 37)
    model = DDP(model)

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
