"""Fine-tunes a ViT-B/16 on the labelled defect images."""
import argparse

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--data", default="/data/defects")
    args = parser.parse_args()

    tf = transforms.Compose([transforms.Resize(224), transforms.ToTensor()])
    train = datasets.ImageFolder(args.data, transform=tf)
    loader = DataLoader(train, batch_size=64, shuffle=True)

    model = models.vit_b_16(weights="IMAGENET1K_V1").cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-5)
    for _ in range(args.epochs):
        for images, labels in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(images.cuda()),
                                                     labels.cuda())
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
