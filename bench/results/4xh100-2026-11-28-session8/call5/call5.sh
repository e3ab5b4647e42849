#!/bin/bash
# Session 8, call 5 (32a3673): where 1 GPU + CPU loses ~300 ms of process wall time (matmul, syr2k in call 3A):
# timelines (timestamp_run.py) natively, 1 GPU, 1 GPU + CPU; LOG=0 and LOG=2; warm cache.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --iters 100 --device 1 --no-check"
T="python3 scripts/timestamp_run.py --"
{
for app in matmul syr2k; do
  echo "=== $app native"; $T $B/$app $A 2>&1 | tail -4
  for d in 1:0 1:0,0:0; do
    c=/tmp/t-$app-$d
    LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_CACHE_DIR=$c timeout 60 $B/$app $A > /dev/null 2>&1
    for r in 1 2; do
      echo "=== $app $d LOG=0 run $r"; LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_CACHE_DIR=$c $T $B/$app $A 2>&1 | tail -4
    done
    echo "=== $app $d LOG=2"; LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_CACHE_DIR=$c LIBSPLIT_LOG=2 $T $B/$app $A > $o/$app-$d-log2.txt 2>&1
    grep -v "launch [0-9]* \|probe of" $o/$app-$d-log2.txt | head -60
    tail -3 $o/$app-$d-log2.txt
  done
  echo "=== $app native again"; $T $B/$app $A 2>&1 | tail -4
done
} > $o/summary.txt 2>&1
cat $o/summary.txt | cut -c1-200
tar czf $OUT/call5.tgz -C $o .
