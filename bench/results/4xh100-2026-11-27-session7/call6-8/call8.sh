#!/bin/bash
# Session 7, call 8: ep's per-iteration cost under the shim, LOG=0: 4 GPUs (default, and no openings), 1 GPU, native
set -u
cd "$(dirname "$0")"
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --iters 100 --device 1 --no-check --per-iter"
G=1:0,1:1,1:2,1:3
s() { awk -F'ms=' '/^iter=/{split($1,a,"="); i=a[2]+0; if (i>=10) {n++; t+=$2}} /time_ms/{tm=$0} END{printf "%s mean iter 10-99 %.4f ms", tm, t/n}' ; }
LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_CACHE_DIR=/tmp/ep8 $B/ep $A > /dev/null 2>&1
for r in 1 2; do
  echo "native: $($B/ep $A 2>&1 | s)"
  echo "shim 4 GPUs: $(LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_CACHE_DIR=/tmp/ep8 $B/ep $A 2>&1 | s)"
  echo "shim 4 GPUs, budget 0: $(LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_EXPLORE_BUDGET=0 LIBSPLIT_CACHE_DIR=/tmp/ep8 $B/ep $A 2>&1 | s)"
  echo "shim 1 GPU: $(LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0 LIBSPLIT_CACHE_DIR=/tmp/ep8 $B/ep $A 2>&1 | s)"
  echo "shim 1 GPU + CPU: $(LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,0:0 LIBSPLIT_CACHE_DIR=/tmp/ep8 $B/ep $A 2>&1 | s)"
done
