"""Dataloaders."""
import os

import torch
from torch.utils.data import DataLoader, Dataset


class LoadImagesAndLabels(Dataset):
    def __init__(self, path, img_size=640):
        self.files = sorted(os.listdir(path))
        self.img_size = img_size

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        return torch.zeros(3, self.img_size, self.img_size), torch.zeros(0, 6)


def create_dataloader(path, imgsz, batch_size, workers=8, shuffle=False):
    dataset = LoadImagesAndLabels(path, imgsz)
    batch_size = min(batch_size, len(dataset))
    nd = torch.cuda.device_count()  # number of CUDA devices
    # The configured worker count, on a machine with fewer CPUs fewer.
    nw = min([os.cpu_count() // max(nd, 1),
              batch_size if batch_size > 1 else 0, workers])
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle,
                      num_workers=nw, pin_memory=True)
