#!/bin/bash
# Session 10, call 7: the apps of issue 23's stall list at 30 iterations over 2 GPUs (+ CPU), the
# first runs after a cache fill included (bench_scaling.py: one untimed fill, then 3 rounds).
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi --query-gpu=name --format=csv,noheader > $o/gpus.txt
timeout 560 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1 --cpu 0:0 --counts 2 \
  --apps atax,bicg,gesummv,mvt,jacobi-1d,fdtd-2d,convolution-2d,convolution-3d,aes128,spmv --preset large --iters 30 \
  --repeat 3 --out $o/stall > $o/stall.log 2>&1
echo "rc=$?"; cat $o/stall/scaling.md | head -30
gzip $o/stall.log
