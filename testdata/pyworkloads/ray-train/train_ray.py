"""Ray Train: data-parallel ResNet training, 4 workers with a GPU each.

Shaped like ray-project/ray's TorchTrainer examples
(train_loop_per_worker, ScalingConfig, prepare_data_loader).
"""
import os

import ray.train.torch
import torch
from ray.train import ScalingConfig
from ray.train.torch import TorchTrainer
from torch.utils.data import DataLoader
from torchvision import datasets, models, transforms


def train_func(config):
    data = datasets.FashionMNIST(root="/tmp/data", train=True,
                                 download=True,
                                 transform=transforms.ToTensor())
    loader = DataLoader(data, batch_size=config["batch_size"],
                        shuffle=True, num_workers=os.cpu_count())
    loader = ray.train.torch.prepare_data_loader(loader)
    model = ray.train.torch.prepare_model(models.resnet18(num_classes=10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(config["epochs"]):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


scaling_config = ScalingConfig(num_workers=4, use_gpu=True,
                               resources_per_worker={"CPU": 2, "GPU": 1})
trainer = TorchTrainer(train_func,
                       train_loop_config={"batch_size": 64, "epochs": 2},
                       scaling_config=scaling_config)
result = trainer.fit()
