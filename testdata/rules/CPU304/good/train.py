"""DeepLabV3 on road scenes, one GPU."""
import argparse

import torch
from torch.utils.data import DataLoader
from torchvision.models.segmentation import deeplabv3_resnet50

from data.dataset import RoadSegDataset

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/data/roads")
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--epochs", type=int, default=40)
args = parser.parse_args()

loader = DataLoader(RoadSegDataset(args.data), batch_size=args.batch_size,
                    shuffle=True, num_workers=args.workers, pin_memory=True,
                    drop_last=True)
model = deeplabv3_resnet50(num_classes=19).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = torch.nn.CrossEntropyLoss(ignore_index=255)
for epoch in range(args.epochs):
    for image, mask in loader:
        out = model(image.cuda())["out"]
        loss = criterion(out, mask.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
