"""Shared code; re-exports what the scripts use."""
from .data import loader_workers
from .registry import MODELS
