# A compute-only job: wide layers on batches in memory, no loader.
import torch

model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(),
                            torch.nn.Linear(4096, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1000):
    x = torch.randn(16, 4096)
    model(x).sum().backward()
    opt.step()
