"""DeepLabV3 on road scenes, one GPU; overlays of a few validation images."""
import argparse

import torch
from torch.utils.data import DataLoader
from torchvision.models.segmentation import deeplabv3_resnet50

from data.dataset import RoadSegDataset
from visualize import save_overlay

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/data/roads")
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--epochs", type=int, default=40)
args = parser.parse_args()

loader = DataLoader(RoadSegDataset(args.data), batch_size=args.batch_size,
                    shuffle=True, num_workers=args.workers, pin_memory=True,
                    drop_last=True)
val_set = RoadSegDataset(args.data, split="val")
model = deeplabv3_resnet50(num_classes=19).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = torch.nn.CrossEntropyLoss(ignore_index=255)


def evaluate(epoch):
    model.eval()
    with torch.no_grad():
        for i in range(4):
            image, _ = val_set[i]
            pred = model(image[None].cuda())["out"].argmax(1)[0].cpu()
            save_overlay(image, pred, f"/output/epoch{epoch:03d}-{i}.png")
    model.train()


for epoch in range(args.epochs):
    for image, mask in loader:
        out = model(image.cuda())["out"]
        loss = criterion(out, mask.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    evaluate(epoch)
