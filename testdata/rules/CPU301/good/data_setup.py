"""
DataLoaders for ImageFolder data.

The worker count is a parameter: do not default it to os.cpu_count(),
which counts the node's CPUs rather than the container's CPU limit.
"""
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def create_dataloaders(train_dir, test_dir, batch_size, num_workers):
    tf = transforms.Compose([transforms.Resize((64, 64)),
                             transforms.ToTensor()])
    train = datasets.ImageFolder(train_dir, transform=tf)
    test = datasets.ImageFolder(test_dir, transform=tf)
    return (
        DataLoader(train, batch_size=batch_size, shuffle=True,
                   num_workers=num_workers, pin_memory=True),
        DataLoader(test, batch_size=batch_size, num_workers=num_workers,
                   pin_memory=True),
        train.classes,
    )
