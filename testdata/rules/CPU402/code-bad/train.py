"""ResNet-18 on ESC-50 log-mel spectrograms, fold 5 held out."""
import torch
from torchvision.models import resnet18

from data_setup import make_loaders

train_loader, val_loader = make_loaders("/data/ESC-50")
model = resnet18(num_classes=50)
model.conv1 = torch.nn.Conv2d(1, 64, 7, stride=2, padding=3, bias=False)
model = model.cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(60):
    for spec, target in train_loader:
        loss = torch.nn.functional.cross_entropy(model(spec.cuda()),
                                                 target.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
