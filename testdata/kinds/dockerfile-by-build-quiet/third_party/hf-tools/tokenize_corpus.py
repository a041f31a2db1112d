import os

import torch
from torch.utils.data import DataLoader

loader = DataLoader(range(100), num_workers=os.cpu_count())
for batch in loader:
    torch.save(batch, "/data/out.pt")
