#!/bin/bash
# Session 11, call 7 (2 GPUs): issue 23's table at the session's final code, 10 apps,
# bench_scaling.py --counts 2 (1 GPU + CPU, 2 GPUs, 2 GPUs + CPU against one GPU natively), 2 runs.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
timeout 560 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1 --cpu 0:0 --counts 2 \
  --apps matmul,syr2k,histogram,syrk,3mm,2mm,gemm,mandelbrot,ep,nbody --preset large --iters 100 --repeat 2 \
  --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"
cat $o/scaling/scaling.md 2>/dev/null
gzip $o/scaling.log
