"""Logging helpers."""
import logging

logger = logging.getLogger(__name__)


def log_host(cpus, gpus):
    logger.info("host: %d CPUs, %d GPUs", cpus, gpus)
