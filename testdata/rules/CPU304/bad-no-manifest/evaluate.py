"""Evaluates a RetinaNet checkpoint on COCO val2017 (one GPU)."""
import argparse

import torch
from torch.utils.data import DataLoader
from torchvision.models.detection import retinanet_resnet50_fpn

import datasets.transforms as T
from datasets import CocoDetection
from utils.misc import collate_fn


@torch.no_grad()
def evaluate(checkpoint, root, img_size=640):
    tf = T.Compose([T.LetterBox(img_size), T.ToTensor()])
    dataset = CocoDetection(root, "val2017", transforms=tf)
    loader = DataLoader(dataset, batch_size=16, num_workers=4,
                        collate_fn=collate_fn)
    model = retinanet_resnet50_fpn(num_classes=91)
    model.load_state_dict(torch.load(checkpoint, map_location="cpu"))
    model.eval().cuda()
    results = []
    for images, targets in loader:
        results.extend(model([img.cuda() for img in images]))
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    parser.add_argument("--data", default="/data/coco")
    args = parser.parse_args()
    print(len(evaluate(args.checkpoint, args.data)))
