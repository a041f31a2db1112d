#!/bin/bash
# Mounted from the chart's ConfigMap at /scripts/train.sh.
set -euo pipefail
exec torchrun --nproc_per_node 4 /app/finetune.py "$@"
