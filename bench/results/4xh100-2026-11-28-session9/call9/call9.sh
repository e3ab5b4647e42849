#!/bin/bash
# Session 9, call 9: where 3mm's third product spends its time over 2 GPUs (opened at start):
# LOG=3 host times by stage and LIBSPLIT_TRACE, 100 iterations.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --device 1 --no-check --iters 100"
E="LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c9"
env $E timeout 60 $B/3mm $A > /dev/null 2>&1   # fills the cache
env $E LIBSPLIT_LOG=3 LIBSPLIT_TRACE=$o/trace.csv timeout 60 $B/3mm $A > $o/3mm-log3.txt 2>&1
{
grep -o 'time_ms=[0-9.]*' $o/3mm-log3.txt
for k in 0 1 2; do
  echo "== launches with id % 3 == $k (split)"
  grep "host time of launch" $o/3mm-log3.txt | awk -v k=$k '{if ($6 % 3 == k) print}' > $o/k$k.txt
  python3 scripts/host_times.py $o/k$k.txt --last 20
done
grep "split over" $o/3mm-log3.txt | tail -3 | cut -c1-300
} > $o/summary.txt 2>&1
rm -f $o/k?.txt
cat $o/summary.txt
gzip $o/3mm-log3.txt $o/trace.csv 2>/dev/null
ls -la $o
