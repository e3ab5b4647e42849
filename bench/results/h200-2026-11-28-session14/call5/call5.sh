#!/bin/bash
# Session 14, call 5 (4 GPUs). (a) issue 23's 4-GPU table for the dense four with the build started
# at the opening (f0b0809): bench_scaling.py --counts 4, 3 runs. (b) issue 26's table over 4 H200
# through 2 pocld servers (2 GPUs each), matmul, syr2k, histogram, 2 rounds.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi --query-gpu=name,pci.bus_id --format=csv > $o/gpus.txt 2>&1; nproc >> $o/gpus.txt
date +%s > $o/t0
timeout 200 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 \
  --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 --counts 4 --apps matmul,syr2k,histogram,syrk --preset large --iters 100 --repeat 3 \
  --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$? $(( $(date +%s) - $(cat $o/t0) )) s"
cat $o/scaling/scaling.md 2>/dev/null | head -12
timeout 300 python3 scripts/bench_remote.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --pocl-remote pocl-remote/install \
  --servers 2 --gpus-per-server 2 --apps matmul,syr2k,histogram --preset large --iters 100 --repeat 2 \
  --out $o/remote > $o/remote.log 2>&1
echo "remote rc=$? $(( $(date +%s) - $(cat $o/t0) )) s"
cat $o/remote/remote.md 2>/dev/null | head -8; tail -3 $o/remote.log
gzip $o/scaling.log $o/remote.log
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
