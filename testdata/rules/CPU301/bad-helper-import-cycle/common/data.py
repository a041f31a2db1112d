"""Data settings; the registry imports back from here."""
import os

from . import registry


def loader_workers():
    registry.MODELS.setdefault("tiny", None)
    return os.cpu_count()
