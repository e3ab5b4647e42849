#!/bin/bash
# Session 12, call 6 (4 H200): how many GPUs the stored verdict opens, run after run: matmul,
# histogram, syrk over 4 GPUs (no CPU), a fresh cache each, 5 runs, the verdict after each run and
# the run's split launches by device count (LOG=1).
set -u
cd "$(dirname "$0")"
o=$OUT/r; rm -rf $o; mkdir -p $o
cat COMMIT > $o/commit.txt
L=$PWD/libsplit/libsplit.so
for app in matmul histogram syrk; do
  c=/tmp/c6-$app; rm -rf $c
  for run in 1 2 3 4 5; do
    env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1,1:2,1:3 LIBSPLIT_CACHE_DIR=$c LIBSPLIT_LOG=1 timeout 60 \
      bench/bin/$app --size large --device 1 --no-check --iters 100 > $o/$app-$run.log 2>&1
    t=$(grep -o 'time_ms=[0-9.]*' $o/$app-$run.log)
    s=$(grep -o 'split over [0-9] devices' $o/$app-$run.log | sort | uniq -c | tr '\n' ';')
    v=$(sed -n 4,5p $c/sched/app-* 2>/dev/null | tr '\n' ' ')
    echo "$app run $run: $t | $s | $v"
    gzip $o/$app-$run.log
  done
done | tee $o/summary.txt
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
