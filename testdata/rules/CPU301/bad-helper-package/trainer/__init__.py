"""Trainer package: what the task module and notebooks import."""
from .utils import default_workers, get_device

__all__ = ["default_workers", "get_device"]
