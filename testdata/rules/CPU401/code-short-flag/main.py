"""ImageNet training in the style of pytorch/examples, one GPU."""
import argparse

import torch
import torchvision.models as models

from data.loader import imagenet_loaders

parser = argparse.ArgumentParser(description="PyTorch ImageNet Training")
parser.add_argument("data", metavar="DIR", help="path to dataset")
parser.add_argument("-a", "--arch", metavar="ARCH", default="resnet18")
parser.add_argument("-j", "--workers", default=4, type=int, metavar="N",
                    help="number of data loading workers (default: 4)")
parser.add_argument("--epochs", default=90, type=int, metavar="N")
parser.add_argument("-b", "--batch-size", default=256, type=int,
                    metavar="N")
parser.add_argument("--lr", "--learning-rate", default=0.1, type=float,
                    dest="lr")


def main():
    args = parser.parse_args()
    model = models.__dict__[args.arch]().cuda()
    criterion = torch.nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9,
                                weight_decay=1e-4)
    train_loader, val_loader = imagenet_loaders(args.data, args.batch_size,
                                                args.workers)
    for epoch in range(args.epochs):
        model.train()
        for images, target in train_loader:
            images = images.cuda(non_blocking=True)
            target = target.cuda(non_blocking=True)
            loss = criterion(model(images), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
