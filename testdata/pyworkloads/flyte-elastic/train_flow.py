"""Fine-tunes a ResNet with torch elastic on Flyte, then plots the loss.

Shaped like flytesnacks' kfpytorch_plugin examples (PyTorch and Elastic
task configs on @task, a @workflow wiring the tasks).
"""
import os
import typing

import flytekit
import torch
from flytekit import Resources, task, workflow
from flytekitplugins.kfpytorch import Elastic, PyTorch, Worker
from torch import nn, optim
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def make_loader(root: str, batch_size: int) -> DataLoader:
    data = datasets.CIFAR10(root, train=True, download=True,
                            transform=transforms.ToTensor())
    return DataLoader(data, batch_size=batch_size, shuffle=True,
                      num_workers=8)


def train_epoch(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()


@task(
    task_config=Elastic(nnodes=1, nproc_per_node=4),
    requests=Resources(cpu="4", mem="16Gi"),
    container_image="ghcr.io/example/train:1.0",
)
def train_elastic(epochs: int) -> float:
    torch.distributed.init_process_group("gloo")
    model = nn.parallel.DistributedDataParallel(nn.Linear(3072, 10))
    opt = optim.SGD(model.parameters(), lr=0.01)
    loader = make_loader(flytekit.current_context().working_directory, 64)
    for _ in range(epochs):
        train_epoch(model, loader, opt)
    return 0.0


@task(task_config=PyTorch(worker=Worker(replicas=2)))
def train_replicas(epochs: int) -> float:
    model = nn.Linear(3072, 10)
    opt = optim.SGD(model.parameters(), lr=0.01)
    for _ in range(epochs):
        x = torch.randn(64, 3072)
        loss = model(x).sum()
        loss.backward()
        opt.step()
    return 0.0


@task(requests=Resources(cpu="1", mem="1Gi"))
def plot_loss(losses: typing.List[float]) -> str:
    path = os.path.join(flytekit.current_context().working_directory,
                        "loss.txt")
    with open(path, "w") as f:
        f.write("\n".join(str(x) for x in losses))
    return path


@workflow
def training_wf(epochs: int = 2) -> str:
    a = train_elastic(epochs=epochs)
    b = train_replicas(epochs=epochs)
    return plot_loss(losses=[a, b])
