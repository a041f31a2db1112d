#!/bin/bash
# Bind to the first six cores, one OpenMP thread per core.
set -e
export OMP_NUM_THREADS=6
export OMP_PLACES="{0:6}"
export OMP_PROC_BIND=close
taskset -c 0-5 python -u run_pretraining.py --train_batch_size 32 --num_workers 0
