"""ViT-B/16 fine-tuned on Stanford Cars; launched by Polyaxon."""
import argparse

import torch
from torchvision.models import ViT_B_16_Weights, vit_b_16

from data.loader import make_train_loader

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/data/stanford_cars")
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--batch-size", type=int, default=32)
args = parser.parse_args()

loader = make_train_loader(args.data, args.batch_size, args.workers)
model = vit_b_16(weights=ViT_B_16_Weights.DEFAULT)
model.heads.head = torch.nn.Linear(768, 196)
model = model.cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
for epoch in range(args.epochs):
    for images, labels in loader:
        loss = torch.nn.functional.cross_entropy(model(images.cuda()),
                                                 labels.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
