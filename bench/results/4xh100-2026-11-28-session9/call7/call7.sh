#!/bin/bash
# Session 9, call 7: is libsplit's staging buffer (pinned in one GPU's context) pinned for the
# other GPUs, each in a context of its own? host_bandwidth natively: GPU 1 (index 2) through memory
# pinned by GPU 0's context (index 1), as it is and registered in GPU 1's context; GPU 0 alone.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
{
echo "== host_bandwidth --device 1 (GPU 0, its own pinned memory)"
timeout 120 bench/bin/host_bandwidth --device 1 --repeat 7
echo "== host_bandwidth --device 2 --pinned-by 1 (GPU 1; memory pinned by GPU 0's context)"
timeout 120 bench/bin/host_bandwidth --device 2 --pinned-by 1 --repeat 7
echo "== host_bandwidth --device 4 --pinned-by 1 (GPU 3)"
timeout 120 bench/bin/host_bandwidth --device 4 --pinned-by 1 --repeat 7
} > $o/summary.txt 2>&1
cat $o/summary.txt
