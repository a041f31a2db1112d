"""LR-ASPP segmentation of Oxford-IIIT Pet trimaps on one GPU."""
import torch
from torch import nn
from torchvision.models.segmentation import lraspp_mobilenet_v3_large

from data_setup import pet_loaders

train_loader, val_loader = pet_loaders("/data/pets", batch_size=16)
model = lraspp_mobilenet_v3_large(num_classes=3).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(20):
    for images, masks in train_loader:
        images = images.cuda()
        masks = masks.squeeze(1).long().cuda() - 1
        loss = criterion(model(images)["out"], masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
torch.save(model.state_dict(), "/output/lraspp-pets.pt")
