"""A KFP v2 pipeline: split a manifest, fine-tune on one GPU, evaluate.

Shaped like kubeflow/pipelines' v2 samples: lightweight @dsl.component
functions with their imports inside, a @dsl.pipeline that sets each
task's resources with .set_cpu_limit() / .set_accelerator_limit().
"""
from kfp import compiler, dsl


@dsl.component(base_image="python:3.11")
def split_manifest(manifest: str, shards: int) -> list:
    import json

    rows = json.loads(manifest)
    return [rows[i::shards] for i in range(shards)]


@dsl.component(base_image="pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime",
               packages_to_install=["torchvision"])
def finetune(data_dir: str, epochs: int) -> float:
    import torch
    from torch.utils.data import DataLoader
    from torchvision import datasets, models, transforms

    data = datasets.ImageFolder(data_dir, transform=transforms.ToTensor())
    loader = DataLoader(data, batch_size=64, shuffle=True, num_workers=8)
    model = models.resnet50().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()),
                                                     y.cuda())
            loss.backward()
            opt.step()
            opt.zero_grad()
    return float(loss)


@dsl.component(base_image="pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime")
def evaluate(data_dir: str) -> float:
    import torch
    from torch.utils.data import DataLoader

    loader = DataLoader(torch.load(data_dir), batch_size=256, num_workers=2)
    return float(len(loader))


@dsl.pipeline(name="finetune-resnet")
def finetune_pipeline(manifest: str, data_dir: str, epochs: int = 3):
    split = split_manifest(manifest=manifest, shards=4)
    split.set_cpu_limit("1")
    train_task = finetune(data_dir=data_dir, epochs=epochs)
    train_task.set_cpu_limit("4").set_memory_limit("32G")
    train_task.set_accelerator_type("nvidia.com/gpu").set_accelerator_limit(1)
    train_task.after(split)
    evaluate(data_dir=data_dir).set_cpu_limit("2").set_env_variable(
        "OMP_NUM_THREADS", "1")


if __name__ == "__main__":
    compiler.Compiler().compile(finetune_pipeline, "pipeline.yaml")
