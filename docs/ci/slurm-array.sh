#!/bin/bash
# Slurm job array: one shard per task, then a dependent merge job.
#   sbatch docs/ci/slurm-array.sh && sbatch --dependency=afterok:<id> --wrap \
#     "kdbgen merge $SHARED/kdb $SHARED/shards/*"
#SBATCH --job-name=miopen-kdb
#SBATCH --array=1-16
#SBATCH --cpus-per-task=16
#SBATCH --mem=16G
set -euo pipefail
SHARED=${SHARED:-/nfs/kdbgen}
kdbgen build --miopen-src "$SHARED/MIOpen" \
    --targets gfx900,gfx906,gfx908,gfx90a,gfx942,gfx1030 \
    --cache-dir "$SHARED/cache" -j "$SLURM_CPUS_PER_TASK" \
    --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" -o "$SHARED/shards/$SLURM_ARRAY_TASK_ID"
