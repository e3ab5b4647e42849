#!/bin/bash
# Session 10, call 1: the teardown-priced verdict (new) against 05b16e1 (old), 4 GPUs, wall
# time with and without the drivers' discovery; 1 GPU + CPU start-up timelines.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt 2>/dev/null
nvidia-smi -q | grep -i -A1 "persistence mode" | head -4 > $o/persistence.txt 2>&1
export OUT=$o
timeout 420 python3 ab_wall.py gemm,mandelbrot,2mm,3mm 1:0,1:1,1:2,1:3 4 g4 > $o/ab4.txt 2>&1
echo "ab rc=$?" >> $o/ab4.txt
grep SUMMARY $o/ab4.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --device 1 --no-check --iters 100"
for app in mandelbrot syrk; do
  c=/tmp/tl-$app
  for i in 1 2; do env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,0:0 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/$app $A > /dev/null 2>&1; done
  for r in 1 2; do
    timeout 60 python3 scripts/timestamp_run.py -- $B/$app $A > $o/tl-$app-native-$r.txt 2>&1
    timeout 60 python3 scripts/timestamp_run.py -- env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0 LIBSPLIT_CACHE_DIR=$c-gpu LIBSPLIT_LOG=2 $B/$app $A > $o/tl-$app-gpu-$r.txt 2>&1
    timeout 60 python3 scripts/timestamp_run.py -- env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,0:0 LIBSPLIT_CACHE_DIR=$c LIBSPLIT_LOG=2 $B/$app $A > $o/tl-$app-cpu-$r.txt 2>&1
  done
  for f in $o/tl-$app-*; do echo "$(basename $f): $(grep -o 'time_ms=[0-9.]*' $f) $(grep -o 'discovery_ms=[0-9.]*' $f) $(tail -1 $f)"; done
done
cd $o && tar czf tl.tgz tl-*.txt && rm -f tl-*.txt
