#!/usr/bin/env bash
# Starts one rank per GPU of the node.
set -euo pipefail
export NCCL_DEBUG=WARN
exec torchrun --standalone --nproc_per_node 2 finetune.py --workers 1 "$@"
