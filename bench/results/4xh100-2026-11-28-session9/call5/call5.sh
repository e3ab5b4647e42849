#!/bin/bash
# Session 9, call 5 (code of the pack, B): matmul and 3mm over 4 GPUs, fresh cache, cold + 2 warm runs
# beside native (LOG=1, the verdicts); host time of ep forced over 4 GPUs, A (ae6b22a) against B,
# 3 rounds, each process pinned to the cores of NUMA node 0.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; A="--size large --device 1 --no-check"
G=1:0,1:1,1:2,1:3
t() { grep -o 'time_ms=[0-9.]*' "$1" | head -1; }
summ() { grep "host time of launch" $1 | grep "(split)" | tail -40 | python3 -c "
import sys,re,statistics
vals={k:[] for k in ['reports','rdrv','prepare','describe','plan','run','drv','enq']}
for l in sys.stdin:
    m=re.search(r'reports (\d+) us .*?driver calls (\d+) us\), prepare (\d+) us, describe (\d+) us, plan (\d+) us, run (\d+) us \(driver calls (\d+) us, of which the sub-kernel enqueues (\d+) us', l)
    if m:
        for k,v in zip(vals, m.groups()): vals[k].append(int(v))
med={k:statistics.median(v) for k,v in vals.items() if v}
if med: print('n', len(vals['run']), med, 'above the enqueues:', med['reports']+med['describe']+med['plan']+med['run']-med['enq'], 'us; shim alone:', med['reports']-med['rdrv']+med['describe']+med['plan']+med['run']-med['drv'], 'us')
"; }
lib() { [ $1 = A ] && echo $PWD/old/libsplit.so || echo $PWD/libsplit/libsplit.so; }
{
lscpu | grep -i "numa\|model name"
for app in matmul 3mm; do
  for r in cold 1 2; do
    timeout 60 $B/$app $A --iters 100 > $o/n.txt 2>&1; echo "native $app $(t $o/n.txt)"
    LD_PRELOAD=$(lib B) LIBSPLIT_DEVICES=$G LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=/tmp/v-$app timeout 60 $B/$app $A --iters 100 > $o/$app-$r.txt 2>&1
    echo "$app 4 GPUs $r: $(t $o/$app-$r.txt) split: $(grep -c 'split over' $o/$app-$r.txt) over 4: $(grep -c 'split over 4' $o/$app-$r.txt) | $(sed -n '4,5p' /tmp/v-$app/sched/app-* | tr '\n' ' ' | cut -c1-190)"
  done
done
NODE0=$(lscpu -p=CPU,NODE | grep -v '^#' | awk -F, '$2==0{print $1}' | paste -sd, -)
for r in 1 2 3; do
  order="A B"; [ $((r % 2)) = 0 ] && order="B A"
  for v in $order; do
    env LD_PRELOAD=$(lib $v) LIBSPLIT_DEVICES=$G LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c-$v LIBSPLIT_LOG=3 \
      taskset -c $NODE0 timeout 60 $B/ep $A --iters 60 > $o/ep-$v-$r.txt 2>&1
    echo "round $r $v forced, LOG=3, node 0: $(summ $o/ep-$v-$r.txt)"
  done
done
rm -f $o/n.txt
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/*.txt; gunzip $o/summary.txt.gz $o/commit.txt.gz
tar czf $OUT/call5.tgz -C $o .
