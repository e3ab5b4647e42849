#!/bin/bash
# Session 12, call 3 (4 H200): issue 23's table at 095bb87, 10 apps, bench_scaling.py --counts 4
# (1 GPU + CPU, 4 GPUs, 4 GPUs + CPU against one GPU natively), 2 runs each.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi --query-gpu=name,pci.bus_id --format=csv > $o/gpus.txt 2>&1; nproc >> $o/gpus.txt
timeout 570 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 --counts 4 \
  --apps matmul,syr2k,histogram,syrk,3mm,2mm,gemm,mandelbrot,ep,nbody --preset large --iters 100 --repeat 2 \
  --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"
cat $o/scaling/scaling.md 2>/dev/null | head -40
gzip $o/scaling.log
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
