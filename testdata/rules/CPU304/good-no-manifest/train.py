"""Trains a RetinaNet detector on COCO-format data.

Run as `torchrun --nproc_per_node 8 train.py --data /data/coco`; the
repository holds no manifest, the cluster job is written elsewhere.
"""
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from torchvision.models.detection import retinanet_resnet50_fpn

import datasets.transforms as T
from datasets import CocoDetection
from utils.misc import collate_fn


def get_args():
    parser = argparse.ArgumentParser(description="RetinaNet training")
    parser.add_argument("--data", default="/data/coco")
    parser.add_argument("--img-size", type=int, default=640)
    parser.add_argument("-b", "--batch-size", type=int, default=8)
    parser.add_argument("-j", "--workers", type=int, default=6)
    parser.add_argument("--epochs", type=int, default=26)
    parser.add_argument("--lr", type=float, default=0.01)
    return parser.parse_args()


def main(args):
    dist.init_process_group("nccl")
    train_tf = T.Compose([
        T.LetterBox(args.img_size),
        T.RandomHSV(0.015, 0.7, 0.4),
        T.ToTensor(),
    ])
    dataset = CocoDetection(args.data, "train2017", transforms=train_tf)
    loader = DataLoader(
        dataset,
        batch_size=args.batch_size,
        sampler=DistributedSampler(dataset),
        num_workers=args.workers,
        collate_fn=collate_fn,
        pin_memory=True,
        drop_last=True,
    )
    model = retinanet_resnet50_fpn(num_classes=91).cuda()
    model = torch.nn.parallel.DistributedDataParallel(model)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=0.9,
                                weight_decay=1e-4)
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        model.train()
        for images, targets in loader:
            images = [img.cuda(non_blocking=True) for img in images]
            targets = [{k: v.cuda() for k, v in t.items()} for t in targets]
            losses = model(images, targets)
            loss = sum(losses.values())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main(get_args())
