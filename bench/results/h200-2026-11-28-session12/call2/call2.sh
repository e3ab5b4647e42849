#!/bin/bash
# Session 12, call 2 (2 GPUs): the staging memory pinned by the background opener before the second
# GPU joins (new) against pinned by the first split that moves bytes (old = a9e06ca), and new with a
# 32 MiB staging (big: LIBSPLIT_INJECT_FAULTS=staging_bytes=33554432; 3mm's 8 MB gather pieces in one
# round): correctness at medium with the CPU check, then gemm, mandelbrot, 3mm, 2mm at large over
# 2 GPUs, 3 warm-up runs, 4 rounds alternating native / new / big / old (ab_settings.py); a LOG=2
# timestamped gemm run with its verdict stored (the same command line warmed up).
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so
{
for app in 3mm 2mm gemm mandelbrot; do
  for devs in 1:0,1:1 1:0,1:1,0:0; do
    r=$(env LD_PRELOAD=$L LIBSPLIT_DEVICES=$devs LIBSPLIT_CACHE_DIR=/tmp/c2chk timeout 120 $B/$app --size medium --device 1 --iters 10 2>&1 | grep -E "^(PASS|FAIL)")
    r2=$(env LD_PRELOAD=$L LIBSPLIT_DEVICES=$devs LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_CACHE_DIR=/tmp/c2chkf timeout 120 $B/$app --size medium --device 1 --iters 10 2>&1 | grep -E "^(PASS|FAIL)")
    echo "check $app $devs: default $r, forced split $r2"
  done
done
} > $o/check.txt 2>&1
cat $o/check.txt
A="--size large --device 1 --no-check --iters 100 --per-iter"
for i in 1 2; do env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c2g timeout 60 $B/gemm $A > /dev/null 2>&1; done
env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c2g LIBSPLIT_LOG=2 timeout 60 \
  python3 scripts/timestamp_run.py -- $B/gemm $A > $o/gemm-log2.txt 2>&1
grep -o 'time_ms=[0-9.]*' $o/gemm-log2.txt; grep -E "asks for|opened in|pinned staging:" $o/gemm-log2.txt
gzip $o/gemm-log2.txt
export OUT=$o
timeout 420 python3 scripts/ab_settings.py gemm,mandelbrot,3mm,2mm 1:0,1:1 4 g2 new= big=LIBSPLIT_INJECT_FAULTS=staging_bytes=33554432 old=LD_PRELOAD=$PWD/old/libsplit.so > $o/ab.txt 2>&1
echo "ab rc=$?" >> $o/ab.txt
grep -E "SUMMARY|rc=" $o/ab.txt
gzip $o/ab.txt
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
