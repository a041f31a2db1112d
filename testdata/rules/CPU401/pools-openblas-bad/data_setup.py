"""Food-101 DataLoaders; the worker count comes from the caller."""
from torch.utils.data import DataLoader
from torchvision import datasets
from torchvision.models import EfficientNet_B0_Weights


def create_dataloaders(root, batch_size, num_workers):
    tf = EfficientNet_B0_Weights.DEFAULT.transforms()
    train = datasets.Food101(root, split="train", transform=tf)
    test = datasets.Food101(root, split="test", transform=tf)
    train_dl = DataLoader(train, batch_size=batch_size, shuffle=True,
                          num_workers=num_workers, pin_memory=True)
    test_dl = DataLoader(test, batch_size=batch_size,
                         num_workers=num_workers, pin_memory=True)
    return train_dl, test_dl
