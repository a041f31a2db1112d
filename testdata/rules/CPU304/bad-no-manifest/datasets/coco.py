"""COCO-format detection samples: image, boxes and labels."""
import json
import os

import numpy as np
from torch.utils.data import Dataset

from .io import load_image


class CocoDetection(Dataset):
    def __init__(self, root, split, transforms=None):
        with open(os.path.join(root, "annotations",
                               f"instances_{split}.json")) as fh:
            coco = json.load(fh)
        self.root = os.path.join(root, split)
        self.images = coco["images"]
        self.boxes = {}
        for ann in coco["annotations"]:
            self.boxes.setdefault(ann["image_id"], []).append(ann)
        self.transforms = transforms

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        info = self.images[idx]
        image = load_image(os.path.join(self.root, info["file_name"]))
        anns = self.boxes.get(info["id"], [])
        boxes = np.array([a["bbox"] for a in anns], dtype=np.float32)
        labels = np.array([a["category_id"] for a in anns], dtype=np.int64)
        target = {"boxes": boxes.reshape(-1, 4), "labels": labels}
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target
