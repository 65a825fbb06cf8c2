#!/bin/bash
# Slurm: tools/slurm/kdbgen-slurm-build submits the shard array and the merge as one chain,
# resubmits shards that did not finish, verifies the merged kdbs and fails on any fault
# (docs/packaging.md, "Slurm"). This file's former job (16 shards of every architecture of a
# MIOpen 3.2/3.3 tree on a shared folder), through it:
exec "$(dirname "$0")/../../tools/slurm/kdbgen-slurm-build" --shards 16 --shared "${SHARED:-/nfs/kdbgen}" \
    --miopen-src "${SHARED:-/nfs/kdbgen}/MIOpen" --targets gfx900,gfx906,gfx908,gfx90a,gfx942,gfx1030 \
    --cpus-per-task 16 --mem 16G "$@"
