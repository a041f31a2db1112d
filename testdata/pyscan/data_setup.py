import os

from torch.utils.data import DataLoader

NUM_WORKERS = os.cpu_count()


def create_dataloaders(name, batch_size, num_workers=NUM_WORKERS):
    loader = DataLoader(name, batch_size=batch_size, shuffle=True,
                        num_workers=num_workers, pin_memory=True)
    return loader
