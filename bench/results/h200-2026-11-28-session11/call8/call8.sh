#!/bin/bash
# Session 11, call 8 (2 GPUs + CPU): gemm's one whole run in call 7's "2 GPUs + CPU" column: new
# (HEAD) against old (7028a3a), fresh caches, 5 runs each in turn, LOG=1; time_ms, split launch
# count and the stored opening verdict after each run.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; A="--size large --device 1 --no-check --iters 100"
lib() { [ $1 = old ] && echo $PWD/old/libsplit.so || echo $PWD/libsplit/libsplit.so; }
{
for i in 1 2 3 4 5; do
  for v in new old; do
    env LD_PRELOAD=$(lib $v) LIBSPLIT_DEVICES=1:0,1:1,0:0 LIBSPLIT_CACHE_DIR=/tmp/c8-$v LIBSPLIT_LOG=1 timeout 60 $B/gemm $A > $o/gemm-$v-$i.txt 2>&1
    echo "$v run $i: $(grep -o 'time_ms=[0-9.]*' $o/gemm-$v-$i.txt) split $(grep -c 'split over' $o/gemm-$v-$i.txt) | $(sed -n 4,5p /tmp/c8-$v/sched/app-* 2>/dev/null | tr '\n' ' ' | cut -c1-220)"
  done
done
} > $o/summary.txt 2>&1
cat $o/summary.txt
cd $o && tar czf logs.tgz gemm-*.txt && rm -f gemm-*.txt
