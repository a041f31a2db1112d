"""Person crops with their keypoint heatmaps."""
import json

import cv2
import numpy as np
import torch
from torch.utils.data import Dataset


class KeypointCrops(Dataset):
    def __init__(self, root, size=256):
        with open(f"{root}/annotations.json") as fh:
            self.items = json.load(fh)
        self.root = root
        self.size = size

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        item = self.items[i]
        img = cv2.imread(f"{self.root}/{item['file']}")
        x, y, w, h = item["bbox"]
        crop = cv2.resize(img[y:y + h, x:x + w], (self.size, self.size))
        heat = np.zeros((17, self.size // 4, self.size // 4), np.float32)
        return (torch.from_numpy(crop).permute(2, 0, 1).float() / 255,
                torch.from_numpy(heat))
