#!/bin/bash
# Session 12, call 4 (4 H200, the machine of call 3): the 2-GPU columns of issue 23's table at
# 095bb87, 10 apps, bench_scaling.py --counts 2 (GPUs 1:0,1:1; 2 GPUs, 2 GPUs + CPU), 2 runs each,
# to merge with call 3's 4-GPU columns (--merge) into one scaling plot.
set -u
cd "$(dirname "$0")"
o=$OUT/r; rm -rf $o; mkdir -p $o
cat COMMIT > $o/commit.txt
timeout 570 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1 --cpu 0:0 --counts 2 \
  --apps matmul,syr2k,histogram,syrk,3mm,2mm,gemm,mandelbrot,ep,nbody --preset large --iters 100 --repeat 2 \
  --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"
cat $o/scaling/scaling.md 2>/dev/null | head -16
gzip $o/scaling.log
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
