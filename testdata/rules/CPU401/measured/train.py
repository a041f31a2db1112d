# The lab's loader-heavy image job (issue 34): crops decoded and augmented
# with PIL in the DataLoader's workers, a small CNN, one CPU.
import argparse

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
args = parser.parse_args()


class Crops(Dataset):
    def __init__(self, files):
        self.files = files
        self.aug = transforms.Compose([transforms.RandomResizedCrop(96),
                                       transforms.ToTensor()])

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return self.aug(Image.open(self.files[i]).convert("RGB")), 0


loader = DataLoader(Crops([]), batch_size=32, num_workers=args.workers)
model = torch.nn.Conv2d(3, 8, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    model(x).sum().backward()
    opt.step()
