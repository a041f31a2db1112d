"""Stanford Cars loaders for the fine-grained classification run."""
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

TRAIN_TF = transforms.Compose([
    transforms.RandomResizedCrop(224, scale=(0.5, 1.0)),
    transforms.RandomHorizontalFlip(),
    transforms.ToTensor(),
])


def make_train_loader(root, batch_size, num_workers):
    data = datasets.StanfordCars(root, split="train", transform=TRAIN_TF)
    return DataLoader(data, batch_size=batch_size, shuffle=True,
                      num_workers=num_workers, pin_memory=True,
                      drop_last=True)
