"""Elastic on Flyte sized right: 2 local ranks on 8 CPUs, one thread
each from the plugin's OMP_NUM_THREADS=1 and 3 loader workers per rank.
"""
import torch
from flytekit import Resources, task
from flytekitplugins.kfpytorch import Elastic
from torch.utils.data import DataLoader

NPROC = 2


@task(
    task_config=Elastic(nnodes=1, nproc_per_node=NPROC),
    requests=Resources(cpu="8", gpu="2"),
    limits=Resources(cpu="8", gpu="2"),
)
def train(epochs: int) -> float:
    torch.distributed.init_process_group("nccl")
    loader = DataLoader(torch.randn(4096, 16), batch_size=64, num_workers=3)
    model = torch.nn.Linear(16, 1).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(epochs):
        for x in loader:
            model(x.cuda()).sum().backward()
            opt.step()
    return 0.0
