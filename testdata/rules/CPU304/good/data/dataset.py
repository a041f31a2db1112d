"""Road-scene segmentation samples read and resized with OpenCV."""
import glob

import cv2
import numpy as np
import torch
from torch.utils.data import Dataset

# No OpenCV thread pool: the DataLoader workers already run in parallel,
# and each would otherwise start one OpenCV thread per node CPU.
cv2.setNumThreads(0)


class RoadSegDataset(Dataset):
    def __init__(self, root, split="train", size=512):
        self.images = sorted(glob.glob(f"{root}/{split}/img/*.png"))
        self.masks = [p.replace("/img/", "/mask/") for p in self.images]
        self.size = size

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        image = cv2.imread(self.images[idx], cv2.IMREAD_COLOR)
        image = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
        image = cv2.resize(image, (self.size, self.size),
                           interpolation=cv2.INTER_LINEAR)
        mask = cv2.imread(self.masks[idx], cv2.IMREAD_GRAYSCALE)
        mask = cv2.resize(mask, (self.size, self.size),
                          interpolation=cv2.INTER_NEAREST)
        image = torch.from_numpy(image.astype(np.float32) / 255.0)
        return image.permute(2, 0, 1), torch.from_numpy(mask).long()
