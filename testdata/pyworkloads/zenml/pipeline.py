"""ZenML: load, train, evaluate; the trainer asks for 4 CPUs and a GPU.

Shaped like zenml-io/zenml's examples: @step functions, a @pipeline that
wires them, ResourceSettings in the step's settings.
"""
import multiprocessing

import torch
from torch.utils.data import DataLoader, TensorDataset
from zenml import pipeline, step
from zenml.config import ResourceSettings


@step
def load_data() -> TensorDataset:
    return TensorDataset(torch.randn(1024, 32), torch.randint(0, 2, (1024,)))


@step(settings={"resources": ResourceSettings(cpu_count=4, gpu_count=1,
                                               memory="16GB")})
def train_model(data: TensorDataset) -> torch.nn.Module:
    loader = DataLoader(data, batch_size=32,
                        num_workers=multiprocessing.cpu_count())
    model = torch.nn.Linear(32, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return model


@step(settings={"resources": ResourceSettings(cpu_count=2)})
def evaluate(model: torch.nn.Module) -> float:
    with torch.no_grad():
        return float(model.weight.abs().mean())


@pipeline
def training_pipeline():
    data = load_data()
    model = train_model(data)
    evaluate(model)
