"""Batch inference with the fine-tuned model: a GPU task that imports a
helper from the module of the training task, and trains nothing (no
loader, no backward, no optimizer).  Not judged for thread env."""
import numpy as np
import torch
from flytekit import Resources, task

from fine_tune import get_bounding_box


@task(requests=Resources(gpu="1", mem="20Gi"))
def batch_predict(model: torch.nn.Module) -> list:
    masks = [np.ones((32, 32)) for _ in range(4)]
    boxes = [get_bounding_box(m) for m in masks]
    model.eval()
    with torch.no_grad():
        out = model(torch.randn(4, 3, 32, 32).cuda())
    return [boxes, out.cpu().numpy().tolist()]
