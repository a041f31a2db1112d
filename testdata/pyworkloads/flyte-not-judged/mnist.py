"""Flyte's sandbox switch, as flytesnacks' pytorch_mnist example writes
it: the CPU request is one of two values chosen when the module loads,
so the file alone does not fix it.
"""
import os

import torch
from flytekit import Resources, task
from flytekitplugins.kfpytorch import PyTorch, Worker
from torch.utils.data import DataLoader

if os.getenv("SANDBOX"):
    cpu_request = "500m"
else:
    cpu_request = "1000m"


@task(
    task_config=PyTorch(worker=Worker(replicas=2)),
    requests=Resources(cpu=cpu_request, mem="4Gi"),
)
def mnist_pytorch_job(epochs: int) -> float:
    loader = DataLoader(torch.randn(1024, 8), batch_size=64, num_workers=4)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        model(x).sum().backward()
        opt.step()
    return 0.0
