"""Ray Train on CPUs: 8 workers of 2 CPUs each, four loader workers per
train worker on top of the 2 threads Ray gives it.
"""
import torch
from ray import train
from ray.train.torch import TorchTrainer
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def train_loop_per_worker(config):
    data = datasets.CIFAR10("/tmp/cifar", download=True,
                            transform=transforms.ToTensor())
    loader = DataLoader(data, batch_size=config["batch_size"],
                        num_workers=4)
    loader = train.torch.prepare_data_loader(loader)
    model = train.torch.prepare_model(torch.nn.Linear(3072, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.flatten(1)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


trainer = TorchTrainer(
    train_loop_per_worker,
    train_loop_config={"batch_size": 128},
    scaling_config=train.ScalingConfig(num_workers=8,
                                       resources_per_worker={"CPU": 2}),
)
trainer.fit()
