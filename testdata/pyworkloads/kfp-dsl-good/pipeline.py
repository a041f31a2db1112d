"""The same pipeline sized right: the training task gets 8 CPUs, two
intra-op threads and six loader workers, and a memory-backed /dev/shm
through kfp-kubernetes; a helper of this file configures the GPU step.
"""
from kfp import dsl, kubernetes


@dsl.component(base_image="pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime")
def finetune(data_dir: str, epochs: int) -> float:
    import torch
    from torch.utils.data import DataLoader
    from torchvision import datasets, models, transforms

    data = datasets.ImageFolder(data_dir, transform=transforms.ToTensor())
    loader = DataLoader(data, batch_size=64, shuffle=True, num_workers=6)
    model = models.resnet50().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()),
                                                     y.cuda())
            loss.backward()
            opt.step()
    return float(loss)


def _configure_gpu_step(task: dsl.PipelineTask) -> None:
    """GPU, CPU and thread settings of a training step."""
    task.set_accelerator_type("nvidia.com/gpu")
    task.set_accelerator_limit(1)
    task.set_cpu_request("8")
    task.set_cpu_limit("8")
    task.set_env_variable("OMP_NUM_THREADS", "2")
    kubernetes.empty_dir_mount(task, volume_name="dshm",
                               mount_path="/dev/shm", medium="Memory")


@dsl.pipeline(name="finetune-resnet")
def finetune_pipeline(data_dir: str, epochs: int = 3):
    train_task = finetune(data_dir=data_dir, epochs=epochs)
    _configure_gpu_step(train_task)
