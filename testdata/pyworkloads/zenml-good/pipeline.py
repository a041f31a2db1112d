"""ZenML sized right: the trainer's 4 CPUs are its thread count, with no
loader workers to share them.
"""
import os

import torch
from torch.utils.data import DataLoader, TensorDataset
from zenml import pipeline, step
from zenml.config import ResourceSettings

os.environ.setdefault("OMP_NUM_THREADS", "4")

resources = ResourceSettings(cpu_count=4, gpu_count=1)


@step(settings={"resources": resources})
def train_model() -> torch.nn.Module:
    data = TensorDataset(torch.randn(1024, 32), torch.randint(0, 2, (1024,)))
    loader = DataLoader(data, batch_size=32)
    model = torch.nn.Linear(32, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return model


@pipeline
def training_pipeline():
    train_model()
