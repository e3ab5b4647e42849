#!/bin/bash
# Session 12, call 5 (4 H200): does an opening cost the app anything on H200? The default (the stored
# verdict opens the GPUs that paid: one of three for 3mm, 2mm, gemm, mandelbrot) against
# LIBSPLIT_OPEN_DEVICES=start (all three at the app's first context), 3 warm-up runs, 3 rounds
# alternated with native (ab_settings.py, GPUs 1:0-1:3); then one LOG=2 timestamped gemm run with
# start: the launches' cadence while the three GPUs open.
set -u
cd "$(dirname "$0")"
o=$OUT/r; rm -rf $o; mkdir -p $o
cat COMMIT > $o/commit.txt
export OUT=$o
AB_WARMUP=3 timeout 480 python3 scripts/ab_settings.py 3mm,2mm,gemm,mandelbrot 1:0,1:1,1:2,1:3 3 g4 default= start=LIBSPLIT_OPEN_DEVICES=start > $o/ab.txt 2>&1
echo "ab rc=$?" >> $o/ab.txt
grep -E "SUMMARY|rc=" $o/ab.txt
env LD_PRELOAD=$PWD/libsplit/libsplit.so LIBSPLIT_DEVICES=1:0,1:1,1:2,1:3 LIBSPLIT_CACHE_DIR=/tmp/ab-g4-start-gemm LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_LOG=2 \
  timeout 60 python3 scripts/timestamp_run.py -- bench/bin/gemm --size large --device 1 --no-check --iters 100 > $o/gemm-start-log2.txt 2>&1
grep -E "time_ms|opened in|pinned staging:" $o/gemm-start-log2.txt
gzip $o/ab.txt $o/gemm-start-log2.txt
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
