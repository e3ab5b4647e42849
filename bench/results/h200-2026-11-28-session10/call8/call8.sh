#!/bin/bash
# Session 10, call 8: issue 23's 4-GPU table at HEAD (--counts 4, 2 warm runs), wall time with and
# without the drivers' discovery.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi --query-gpu=name --format=csv,noheader > $o/gpus.txt
timeout 370 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 --counts 4 \
  --apps matmul,syr2k,histogram,3mm,2mm,gemm,mandelbrot --preset large --iters 100 --repeat 2 \
  --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"
cat $o/scaling/scaling.md 2>/dev/null | head -40
gzip $o/scaling.log
