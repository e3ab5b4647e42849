#!/bin/bash
# Session 12, call 1 (2 GPUs). (a) issue 26's table with 2 pocld servers on loopback, one H200 each,
# against the same 2 H200 used locally (bench_remote.py --servers 2 --gpus-per-server 1), matmul,
# syr2k, histogram, 2 rounds. (b) where gemm and mandelbrot lose against their steady split at 100
# iterations: after 2 warm-up runs (a stored verdict), one LOG=2 run with --per-iter, timestamped.
# (The warm-ups ran without --per-iter, a command line of its own: the LOG=2 runs had no verdict.)
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi --query-gpu=name,pci.bus_id --format=csv > $o/gpus.txt 2>&1
B=bench/bin; A="--size large --device 1 --no-check --iters 100"
L=$PWD/libsplit/libsplit.so
for app in gemm mandelbrot 3mm; do
  for i in 1 2; do env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c1 timeout 60 $B/$app $A > /dev/null 2>&1; done
  timeout 60 $B/$app $A --per-iter > $o/$app-native.txt 2>&1
  env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c1 LIBSPLIT_LOG=2 timeout 60 \
    python3 scripts/timestamp_run.py -- $B/$app $A --per-iter > $o/$app-log2.txt 2>&1
  grep -ho 'time_ms=[0-9.]*' $o/$app-native.txt $o/$app-log2.txt | tr '\n' ' '; echo " $app"
  gzip $o/$app-log2.txt
done
cp /tmp/c1/sched/app-* $o/ 2>/dev/null
timeout 420 python3 scripts/bench_remote.py --bin-dir bench/bin --shim $L --pocl-remote pocl-remote/install \
  --servers 2 --gpus-per-server 1 --apps matmul,syr2k,histogram --preset large --iters 100 --repeat 2 \
  --out $o/remote > $o/remote.log 2>&1
echo "remote rc=$?"
cat $o/remote/remote.md 2>/dev/null; tail -5 $o/remote.log
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
