#!/bin/bash
# Session 11, call 4 (2 GPUs): does opening every device at the app's first context cost wall
# time, and what does it give the loop? scripts/ab_settings.py: default (the stored opening
# verdict) against LIBSPLIT_OPEN_DEVICES=start, ep, gemm, mandelbrot, 2mm over 2 GPUs,
# fresh caches, 3 warm-up runs each, then 4 rounds alternating native / default / start.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
export OUT=$o
timeout 560 python3 scripts/ab_settings.py ep,gemm,mandelbrot,2mm 1:0,1:1 4 g2 default= start=LIBSPLIT_OPEN_DEVICES=start > $o/ab.txt 2>&1
echo "ab rc=$?" >> $o/ab.txt
grep SUMMARY $o/ab.txt
gzip $o/ab.txt
