"""Experiment settings for the spectral-patchify MNIST runs."""
import os

# Data
DATA_DIR = "/data/mnist"
BATCH_SIZE = 256
HOST_CPUS = os.cpu_count()

# Training
TRAINING_ITERATIONS = 100_000
LEARNING_RATE = 0.001
