import cv2
import torch
from torch.utils.data import Dataset, DataLoader
from torchvision import transforms


def read_rgb(path):
    img = cv2.imread(path)
    return cv2.cvtColor(img, cv2.COLOR_BGR2RGB)


class Resize:
    def __call__(self, img):
        return cv2.resize(img, (224, 224))


class Images(Dataset):
    def __init__(self, paths, transform=None):
        self.paths = paths
        self.transform = transform

    def __getitem__(self, i):
        img = self.load(i)
        return self.transform(img)

    def load(self, i):
        return read_rgb(self.paths[i])

    def __len__(self):
        return len(self.paths)


def seed_worker(worker_id):
    torch.set_num_threads(2)


def show(path):
    cv2.imshow("x", cv2.imread(path))


tf = transforms.Compose([Resize(), transforms.ToTensor()])
loader = DataLoader(Images(["a.png"], transform=tf), num_workers=4,
                    worker_init_fn=seed_worker)
fast = DataLoader(Images([]), num_workers=2,
                  worker_init_fn=lambda _: torch.set_num_threads(1))
