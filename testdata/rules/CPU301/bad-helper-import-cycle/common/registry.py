"""Model registry; imports the data helpers (a cycle with common.data)."""
from .data import loader_workers

MODELS = {}
DEFAULT_WORKERS = loader_workers
