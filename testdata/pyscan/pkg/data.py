import torch.utils.data as tud


def make_loader(workers, init=None):
    return tud.DataLoader([], num_workers=workers, worker_init_fn=init)
