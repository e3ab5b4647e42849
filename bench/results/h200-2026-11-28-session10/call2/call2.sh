#!/bin/bash
# Session 10, call 2: issue 23 table on 2 GPUs at HEAD (3 warm runs, --counts 2), wall time with and
# without the drivers' discovery.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi --query-gpu=name --format=csv,noheader > $o/gpus.txt
timeout 570 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1 --cpu 0:0 --counts 2 \
  --apps matmul,syr2k,histogram,syrk,3mm,2mm,gemm,mandelbrot,ep,nbody --preset large --iters 100 --repeat 3 \
  --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"
cat $o/scaling/scaling.md 2>/dev/null | head -40
gzip $o/scaling.log
