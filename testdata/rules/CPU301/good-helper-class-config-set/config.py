"""Competition settings, shared by train.py and infer.py."""
import os


class CFG:
    seed = 42
    model_name = "resnet18"
    size = 256
    batch_size = 32
    epochs = 10
    lr = 1e-4
    # all the cores of the machine for decoding images
    cpus = os.cpu_count()
