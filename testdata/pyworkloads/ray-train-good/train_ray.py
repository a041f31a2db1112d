"""Ray Train sized right: each worker's 4 CPUs hold Ray's
OMP_NUM_THREADS=4... minus the loader: two threads, two workers.
"""
import torch
from ray.train import ScalingConfig
from ray.train.torch import TorchTrainer, prepare_data_loader
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def train_func(config):
    torch.set_num_threads(2)
    data = datasets.FashionMNIST(root="/tmp/data", train=True,
                                 download=True,
                                 transform=transforms.ToTensor())
    loader = prepare_data_loader(DataLoader(data, batch_size=64,
                                            num_workers=2))
    model = torch.nn.Linear(784, 10)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.flatten(1)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    trainer = TorchTrainer(
        train_loop_per_worker=train_func,
        scaling_config=ScalingConfig(num_workers=2,
                                     resources_per_worker={"CPU": 4}),
    )
    trainer.fit()
