"""A Flyte task whose loader comes from a module of the repository."""
import torch
from flytekit import Resources, task
from flytekitplugins.slurm import SlurmFunction
from helpers import make_loader


@task(requests=Resources(cpu="2", gpu="1"), limits=Resources(cpu="2"))
def train(epochs: int) -> float:
    loader = make_loader(torch.randn(4096, 8), 64)
    model = torch.nn.Linear(8, 1).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        model(x.cuda()).sum().backward()
        opt.step()
    return 0.0


@task(task_config=SlurmFunction(ssh_config={"host": "login"}))
def on_slurm() -> None:
    make_loader(torch.randn(8, 8), 4)
