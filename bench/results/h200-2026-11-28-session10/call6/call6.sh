#!/bin/bash
# Session 10, call 6: short-kernel apps (where settled splits are sampled) over 2 GPUs, the shim of
# 05b16e1 (old/) against HEAD, bench_scaling.py --counts 2 without the CPU, 3 warm runs each.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi --query-gpu=name --format=csv,noheader > $o/gpus.txt
APPS=atax,bicg,gesummv,mvt,jacobi-1d,jacobi-2d,fdtd-2d,spmv
for v in new old; do
  lib=$PWD/libsplit/libsplit.so; [ $v = old ] && lib=$PWD/old/libsplit.so
  timeout 280 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $lib --device 1 --gpus 1:0,1:1 --counts 2 \
    --apps $APPS --preset large --iters 100 --repeat 3 --out $o/$v > $o/$v.log 2>&1
  echo "$v rc=$?"; head -14 $o/$v/scaling.md
done
gzip $o/*.log
