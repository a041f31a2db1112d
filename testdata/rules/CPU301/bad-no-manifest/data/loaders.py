"""Train and validation loaders over an ImageFolder layout."""
import os
from concurrent.futures import ProcessPoolExecutor

from PIL import Image
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from config import IMAGE_SIZE, MEAN, STD


def _decode(path):
    with Image.open(path) as im:
        im.convert("RGB").resize((IMAGE_SIZE, IMAGE_SIZE)).save(
            path + ".cache.png")


def decode_all(root, procs):
    paths = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
             if f.endswith(".jpg")]
    with ProcessPoolExecutor(procs) as pool:
        list(pool.map(_decode, paths, chunksize=64))


def build_loaders(root, batch_size, workers, distributed=False):
    train_tf = transforms.Compose([
        transforms.RandomResizedCrop(IMAGE_SIZE),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    val_tf = transforms.Compose([
        transforms.Resize(IMAGE_SIZE + 32),
        transforms.CenterCrop(IMAGE_SIZE),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    train_set = datasets.ImageFolder(os.path.join(root, "train"), train_tf)
    val_set = datasets.ImageFolder(os.path.join(root, "val"), val_tf)
    train_loader = DataLoader(train_set, batch_size, shuffle=True,
                              num_workers=workers, pin_memory=True,
                              drop_last=True)
    val_loader = DataLoader(val_set, batch_size, shuffle=False,
                            num_workers=workers)
    return train_loader, val_loader
