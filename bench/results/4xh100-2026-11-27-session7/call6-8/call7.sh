#!/bin/bash
# Session 7, call 7: launch + clFinish with a ~1 ms kernel (ep's length): per-launch wall, native vs shim
set -u
cd "$(dirname "$0")"
B=bench/bin; L=$PWD/libsplit/libsplit.so
C="--device 1 --items 134217728 --iters 400 --finish-every 1"
G=1:0,1:1,1:2,1:3
for r in 1 2; do
  echo "native: $(timeout 60 $B/launch_cost $C 2>&1 | tail -1)"
  echo "native --profiling: $(timeout 60 $B/launch_cost $C --profiling 2>&1 | tail -1)"
  echo "shim 4 GPUs default: $(LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_CACHE_DIR=/tmp/lc7 timeout 60 $B/launch_cost $C 2>&1 | tail -1)"
  echo "shim 1 GPU: $(LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0 LIBSPLIT_CACHE_DIR=/tmp/lc7 timeout 60 $B/launch_cost $C 2>&1 | tail -1)"
  echo "native --event: $(timeout 60 $B/launch_cost $C --event 2>&1 | tail -1)"
done
