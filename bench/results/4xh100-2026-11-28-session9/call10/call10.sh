#!/bin/bash
# Session 9, call 10: 3mm over 2 GPUs opened at start, one fresh cache: run 1 and 2 at LOG=1, run 3 at
# LOG=3; the key's stored decision after each run. Why call 9's warm LOG=3 run declined every split.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --device 1 --no-check --iters 100"
c=/tmp/c10; rm -rf $c
E="LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=$c"
{
for r in 1 2 3; do
  lv=1; [ $r = 3 ] && lv=3
  env $E LIBSPLIT_LOG=$lv timeout 60 $B/3mm $A > $o/run$r.txt 2>&1
  echo "== run $r LOG=$lv: $(grep -o 'time_ms=[0-9.]*' $o/run$r.txt) split: $(grep -c 'split over' $o/run$r.txt) declined: $(grep -c 'split declined' $o/run$r.txt) lost: $(grep -c 'split lost' $o/run$r.txt)"
  grep -m3 "split declined\|its split lost" $o/run$r.txt | cut -c1-250
  for f in $c/sched/*.txt; do echo "-- $(basename $f)"; cat $f; done
done
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/run?.txt
