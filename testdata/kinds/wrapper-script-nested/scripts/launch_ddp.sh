#!/usr/bin/env bash
set -euo pipefail
GPUS=4
torchrun --standalone --nproc_per_node "$GPUS" pretrain.py "$@"
