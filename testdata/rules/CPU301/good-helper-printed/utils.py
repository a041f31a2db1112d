"""Helpers for the training scripts."""
import os
import platform


def get_num_workers():
    return os.cpu_count()


def describe_host():
    return f"{platform.node()} ({platform.machine()})"
