import glob

import numpy as np
import torch
from torch.utils.data import Dataset


class Snapshots(Dataset):
    def __init__(self, root):
        self.files = sorted(glob.glob(f"{root}/*.npz"))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        z = np.load(self.files[i])
        return torch.from_numpy(z["x"]), torch.from_numpy(z["y"])
