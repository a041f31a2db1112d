"""ResNet-18 on Tiny-ImageNet; the script sizes its own thread pool."""
import torch

# Before any tensor work: 2 intra-op threads + 2 loader workers = 4 CPUs.
torch.set_num_threads(2)

from torchvision.models import resnet18  # noqa: E402

from data.loader import tiny_imagenet  # noqa: E402

loader = tiny_imagenet("/data/tiny-imagenet-200", batch_size=256)
model = resnet18(num_classes=200).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(30):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
