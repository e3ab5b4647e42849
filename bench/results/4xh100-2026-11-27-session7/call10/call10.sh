#!/bin/bash
# Session 7, call 10: halves before an opening (7a1f346) on apps with several kernels: --counts 4, no CPU, 2 warm runs
set -u
cd "$(dirname "$0")"
o=$OUT/r10; mkdir -p $o
timeout 270 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1,1:2,1:3 --counts 4 --apps 2mm,gemm,histogram,syrk --preset large --iters 100 --repeat 2 --out $o/scaling > $o/scaling.log 2>&1
echo "rc=$?"; cat $o/scaling/scaling.md
