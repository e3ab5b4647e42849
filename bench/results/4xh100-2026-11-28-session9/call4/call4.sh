#!/bin/bash
# Session 9, call 4: host time of split launches, A = ae6b22a's libsplit.so (old/) against B = this
# pack's: ep forced over 4 GPUs (LOG=3, 60 iterations), 4 rounds, the order swapped each round; ep
# under the default scheduler with every GPU opened at start (LOG=3, 400 iterations); matmul over
# 4 GPUs, default, LOG=2, 2 runs (when the GPUs open).
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; A="--size large --device 1 --no-check"
G=1:0,1:1,1:2,1:3
summ() { grep "host time of launch" $1 | grep "(split)" | tail -${2:-40} | python3 -c "
import sys,re,statistics
vals={k:[] for k in ['reports','rdrv','prepare','describe','plan','run','drv','enq']}
for l in sys.stdin:
    m=re.search(r'reports (\d+) us .*?driver calls (\d+) us\), prepare (\d+) us, describe (\d+) us, plan (\d+) us, run (\d+) us \(driver calls (\d+) us, of which the sub-kernel enqueues (\d+) us', l)
    if m:
        for k,v in zip(vals, m.groups()): vals[k].append(int(v))
med={k:statistics.median(v) for k,v in vals.items() if v}
if med: print('n', len(vals['run']), med, 'above the enqueues:', med['reports']+med['describe']+med['plan']+med['run']-med['enq'], 'us; shim alone:', med['reports']-med['rdrv']+med['describe']+med['plan']+med['run']-med['drv'], 'us')
else: print('no split launch')
"; }
lib() { [ $1 = A ] && echo $PWD/old/libsplit.so || echo $PWD/libsplit/libsplit.so; }
{
for r in 1 2 3 4; do
  order="A B"; [ $((r % 2)) = 0 ] && order="B A"
  for v in $order; do
    E="LD_PRELOAD=$(lib $v) LIBSPLIT_DEVICES=$G LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c-$v"
    env $E LIBSPLIT_LOG=3 timeout 60 $B/ep $A --iters 60 > $o/ep-$v-$r.txt 2>&1
    echo "round $r $v forced, LOG=3: $(summ $o/ep-$v-$r.txt)"
  done
done
for v in A B B A; do
  E="LD_PRELOAD=$(lib $v) LIBSPLIT_DEVICES=$G LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/d-$v"
  env $E LIBSPLIT_LOG=3 timeout 60 $B/ep $A --iters 400 > $o/ep-default-$v.txt 2>&1
  echo "$v default, every GPU at start, LOG=3, 400 iterations: $(grep -o 'time_ms=[0-9.]*' $o/ep-default-$v.txt) split launches $(grep -c 'split over' $o/ep-default-$v.txt) host-timed $(grep 'host time of launch' $o/ep-default-$v.txt | grep -c '(split)') | $(summ $o/ep-default-$v.txt 200)"
done
timeout 60 $B/ep $A --iters 400 > $o/n.txt 2>&1; echo "native ep 400: $(grep -o 'time_ms=[0-9.]*' $o/n.txt)"
for r in 1 2; do
  timeout 60 $B/matmul $A --iters 100 > $o/n.txt 2>&1; echo "native matmul: $(grep -o 'time_ms=[0-9.]*' $o/n.txt)"
  LD_PRELOAD=$(lib B) LIBSPLIT_DEVICES=$G LIBSPLIT_LOG=2 LIBSPLIT_CACHE_DIR=/tmp/m-B timeout 60 $B/matmul $A --iters 100 > $o/matmul-$r.txt 2>&1
  echo "matmul 4 GPUs run $r: $(grep -o 'time_ms=[0-9.]*' $o/matmul-$r.txt) | $(grep -h ' opened in \|took .* ms to open' $o/matmul-$r.txt | cut -c1-90 | tr '\n' ';')"
done
rm -f $o/n.txt
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/*.txt; gunzip $o/summary.txt.gz $o/commit.txt.gz
tar czf $OUT/call4.tgz -C $o .
