#!/bin/bash
# Session 11, call 5 (2 GPUs): why 3mm's steady split over 2 GPUs reaches 1.68x where the dense
# apps reach 1.97x: 3mm at large, 100 iterations, default, LOG=2, after 2 warm-up runs (the
# verdict opens the second GPU at the first context); native beside it.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; A="--size large --device 1 --no-check --iters 100"
L=$PWD/libsplit/libsplit.so
for i in 1 2; do env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c5 timeout 60 $B/3mm $A > /dev/null 2>&1; done
timeout 60 $B/3mm $A --per-iter > $o/native.txt 2>&1
env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c5 LIBSPLIT_LOG=2 timeout 60 $B/3mm $A --per-iter > $o/3mm-log2.txt 2>&1
grep -o 'time_ms=[0-9.]*' $o/native.txt $o/3mm-log2.txt
grep "^libsplit: launch" $o/3mm-log2.txt | tail -9
cat /tmp/c5/sched/app-* 2>/dev/null | head -6
gzip $o/3mm-log2.txt
