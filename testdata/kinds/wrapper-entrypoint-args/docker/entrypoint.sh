#!/bin/bash
# Activates the environment, tunes the thread pools, then runs the command.
set -e
source /opt/conda/etc/profile.d/conda.sh
conda activate detr
export OMP_NUM_THREADS=8
exec "$@"
