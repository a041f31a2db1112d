"""Small helpers shared by training and evaluation."""


def collate_fn(batch):
    return tuple(zip(*batch))
