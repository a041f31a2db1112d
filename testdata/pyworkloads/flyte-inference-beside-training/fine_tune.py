"""Fine-tuning a segmentation model as a Flyte task, shaped like
unionai-examples' _blogs/sagemaker-inference/sam/tasks/fine_tune.py
(read with the fetch tool, nothing copied): the training loop, and a
helper the inference task imports."""
import numpy as np
import torch
from flytekit import Resources, task
from torch.optim import Adam
from torch.utils.data import DataLoader


def get_bounding_box(mask):
    ys, xs = np.where(mask > 0)
    return [int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())]


@task(requests=Resources(cpu="4", gpu="1", mem="20Gi"),
      limits=Resources(cpu="4"))
def fine_tune(epochs: int) -> torch.nn.Module:
    model = torch.nn.Conv2d(3, 1, 3).cuda()
    data = torch.utils.data.TensorDataset(torch.randn(64, 3, 32, 32))
    loader = DataLoader(data, batch_size=8, num_workers=2)
    opt = Adam(model.parameters(), lr=1e-4)
    for _ in range(epochs):
        for (x,) in loader:
            loss = model(x.cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model
