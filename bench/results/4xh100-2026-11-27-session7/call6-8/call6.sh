#!/bin/bash
# Session 7, call 6: ep-like loop (launch + clFinish each time): the shim's per-iteration cost on 4 GPUs, LOG=0
set -u
cd "$(dirname "$0")"
B=bench/bin; L=$PWD/libsplit/libsplit.so
C="--device 1 --items 1048576 --iters 5000 --finish-every 1"
G=1:0,1:1,1:2,1:3
for r in 1 2; do
  echo "native: $(timeout 60 $B/launch_cost $C 2>&1 | tail -1)"
  echo "native --profiling: $(timeout 60 $B/launch_cost $C --profiling 2>&1 | tail -1)"
  echo "native --profiling --flush: $(timeout 60 $B/launch_cost $C --profiling --flush 2>&1 | tail -1)"
  echo "shim 4 GPUs default: $(LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_CACHE_DIR=/tmp/lc6 timeout 60 $B/launch_cost $C 2>&1 | tail -1)"
  echo "shim 1 GPU: $(LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0 LIBSPLIT_CACHE_DIR=/tmp/lc6 timeout 60 $B/launch_cost $C 2>&1 | tail -1)"
done
