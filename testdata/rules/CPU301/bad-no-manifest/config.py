"""Settings shared by the scripts of this project."""
import os

IMAGE_SIZE = 224
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
# Decoding JPEGs to the cache is CPU bound: one process per CPU.
DECODE_PROCS = os.cpu_count()
