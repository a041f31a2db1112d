# Two data-parallel ranks (gloo) on batches in memory, no loader.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
model = DistributedDataParallel(torch.nn.Linear(512, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1000):
    model(torch.randn(32, 512)).sum().backward()
    opt.step()
