"""Imports ray and flytekit, declares nothing: a client script that looks
up results and starts a local Ray for a quick check.
"""
import ray
import ray.train
from flytekit.remote import FlyteRemote
from kfp import Client
from metaflow import Flow
from zenml.client import Client as ZenClient


def latest_accuracy(project: str) -> float:
    remote = FlyteRemote.for_sandbox()
    ex = remote.fetch_execution(project=project, domain="development",
                                name="latest")
    return float(ex.outputs["accuracy"])


def last_run() -> str:
    return str(Flow("TrainFlow").latest_run) + str(Client().list_runs())


if __name__ == "__main__":
    ray.init(num_cpus=2)
    print(latest_accuracy("ml"), last_run(), ZenClient().active_stack)
