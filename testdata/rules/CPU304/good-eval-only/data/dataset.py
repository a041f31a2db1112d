"""Road-scene segmentation samples read and resized with Pillow."""
import glob

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset


class RoadSegDataset(Dataset):
    def __init__(self, root, split="train", size=512):
        self.images = sorted(glob.glob(f"{root}/{split}/img/*.png"))
        self.masks = [p.replace("/img/", "/mask/") for p in self.images]
        self.size = size

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        size = (self.size, self.size)
        image = Image.open(self.images[idx]).convert("RGB").resize(
            size, Image.BILINEAR)
        mask = Image.open(self.masks[idx]).resize(size, Image.NEAREST)
        image = torch.from_numpy(np.asarray(image, dtype=np.float32) / 255.0)
        return image.permute(2, 0, 1), torch.from_numpy(np.array(mask)).long()
