#!/bin/bash
set -e
export OMP_NUM_THREADS=8
source /opt/conda/bin/activate
exec "$@"
