#!/usr/bin/env bash
set -euo pipefail
# One OpenMP thread per physical core of our 8-core dev box.
export OMP_NUM_THREADS=8
export MKL_NUM_THREADS=8
bash scripts/launch_ddp.sh "$@"
