#!/bin/bash
# Session 9, call 6 (cc21202): issue 23's table, all 10 apps, --counts 4, 2 warm runs after a cache fill.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
timeout 580 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 --counts 4 \
  --apps matmul,syr2k,syrk,histogram,3mm,2mm,gemm,mandelbrot,ep,nbody --preset large --iters 100 --repeat 2 \
  --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"; cat $o/scaling/scaling.md
gzip $o/scaling.log
tar czf $OUT/call6.tgz -C $o .
