#!/bin/bash
# Session 8, call 3A (32a3673): issue 23's table, --counts 4, 3 warm runs, default settings: matmul,syr2k,syrk,histogram,3mm
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
L=$PWD/libsplit/libsplit.so
timeout 560 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $L --device 1 --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 \
  --counts 4 --apps matmul,syr2k,syrk,histogram,3mm --preset large --iters 100 --repeat 3 --timeout 60 --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"; cat $o/scaling/scaling.md
gzip $o/*.log
tar czf $OUT/call3A.tgz -C $o .
