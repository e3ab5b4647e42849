#!/bin/bash
# Session 12, call 8 (4 H200): the opening verdict weighed by join time (new = 88f0782) against the
# whole-run count (old = 095bb87), histogram, syrk, 3mm, 2mm, gemm, mandelbrot over 4 GPUs, fresh
# caches, 3 warm-up runs (the first opens on demand and stores the verdict), 3 rounds alternated
# with native (ab_settings.py; LD_PRELOAD as the setting).
set -u
cd "$(dirname "$0")"
o=$OUT/r; rm -rf $o; mkdir -p $o
cat COMMIT > $o/commit.txt
export OUT=$o
AB_WARMUP=3 timeout 400 python3 scripts/ab_settings.py histogram,syrk,3mm,2mm,gemm,mandelbrot 1:0,1:1,1:2,1:3 3 g4v new= old=LD_PRELOAD=$PWD/old/libsplit.so > $o/ab.txt 2>&1
echo "ab rc=$?" >> $o/ab.txt
grep -E "SUMMARY|rc=" $o/ab.txt
for f in /tmp/ab-g4v-*/sched/app-*; do echo "$f: $(sed -n 4,5p $f | tr '\n' ' ')"; done > $o/verdicts.txt 2>&1
gzip $o/ab.txt
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
