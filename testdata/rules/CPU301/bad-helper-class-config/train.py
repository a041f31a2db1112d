"""Trains the leaf-disease classifier with the settings of config.CFG."""
import torch
import torchvision
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from config import CFG

torch.manual_seed(CFG.seed)
train_set = datasets.ImageFolder("/data/leaves/train", transforms.Compose([
    transforms.RandomResizedCrop(CFG.size), transforms.ToTensor()]))
loader = DataLoader(train_set, batch_size=CFG.batch_size, shuffle=True,
                    num_workers=CFG.cpus, pin_memory=True)
model = getattr(torchvision.models, CFG.model_name)(num_classes=5).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=CFG.lr)
for epoch in range(CFG.epochs):
    for images, labels in loader:
        loss = torch.nn.functional.cross_entropy(model(images.cuda()),
                                                 labels.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
