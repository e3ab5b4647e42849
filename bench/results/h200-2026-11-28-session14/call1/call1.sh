#!/bin/bash
# Session 14, call 1 (4 GPUs): issue 23's table, bench_scaling.py --counts 4 (1 GPU + CPU, 4 GPUs,
# 4 GPUs + CPU against one GPU natively), 10 apps, 3 runs; then opening_bound.py over the 4 GPUs
# with L from the table's native runs.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi --query-gpu=name,pci.bus_id --format=csv > $o/gpus.txt 2>&1; nproc >> $o/gpus.txt
date +%s > $o/t0
timeout 470 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 --counts 4 \
  --apps matmul,syr2k,histogram,syrk,3mm,2mm,gemm,mandelbrot,ep,nbody --preset large --iters 100 --repeat 3 \
  --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$? $(( $(date +%s) - $(cat $o/t0) )) s"
timeout 100 python3 scripts/opening_bound.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --devices 1:0,1:1,1:2,1:3 --apps matmul,syr2k,histogram,syrk,3mm,2mm,gemm,mandelbrot \
  --scaling-csv $o/scaling/scaling.csv --out $o/bound > $o/bound.log 2>&1
echo "bound rc=$? $(( $(date +%s) - $(cat $o/t0) )) s"
rm -rf $o/bound/cache
cat $o/scaling/scaling.md 2>/dev/null | head -40
cat $o/bound/bound.md; tail -3 $o/bound.log
gzip $o/scaling.log $o/bound/*-log2.txt
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
