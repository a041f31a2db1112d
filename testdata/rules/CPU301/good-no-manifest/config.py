"""Settings shared by the scripts of this project."""
import os

IMAGE_SIZE = 224
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
# Decoding JPEGs to the cache is CPU bound: at most 4 processes, fewer on
# a small machine.
DECODE_PROCS = min(4, os.cpu_count())
