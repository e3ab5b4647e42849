#!/bin/bash
# Session 9, call 3: host time of a forced split launch (ep over 4 GPUs, LOG=3), A = ae6b22a's
# libsplit.so (old/), B = this pack's (region parts once, owner computes' fast path, keys built
# once), alternated 3 times; then bench_scaling --counts 4 for 3mm, matmul, ep, nbody with B.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; A="--size large --device 1 --no-check"
G=1:0,1:1,1:2,1:3
summ() { grep "host time of launch" $1 | tail -40 | python3 -c "
import sys,re,statistics
vals={k:[] for k in ['reports','rdrv','prepare','describe','plan','run','drv','enq']}
for l in sys.stdin:
    m=re.search(r'reports (\d+) us .*?driver calls (\d+) us\), prepare (\d+) us, describe (\d+) us, plan (\d+) us, run (\d+) us \(driver calls (\d+) us, of which the sub-kernel enqueues (\d+) us', l)
    if m and '(split)' in l:
        for k,v in zip(vals, m.groups()): vals[k].append(int(v))
med={k:statistics.median(v) for k,v in vals.items() if v}
if med: print('n', len(vals['run']), med, 'shim above the enqueues:', med['reports']+med['describe']+med['plan']+med['run']-med['enq'], 'us; shim alone:', med['reports']-med['rdrv']+med['describe']+med['plan']+med['run']-med['drv'], 'us')
"; }
{
for r in 1 2 3; do
  for v in A B; do
    L=$PWD/libsplit/libsplit.so; [ $v = A ] && L=$PWD/old/libsplit.so
    E="LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c-$v"
    env $E LIBSPLIT_LOG=3 timeout 60 $B/ep $A --iters 60 > $o/ep-$v-$r.txt 2>&1
    echo "round $r $v LOG=3: $(summ $o/ep-$v-$r.txt)"
    env $E timeout 60 $B/ep $A --iters 400 > $o/ep-$v-$r-400.txt 2>&1
    echo "round $r $v 400 iterations, LOG=0: $(grep -o 'time_ms=[0-9.]*' $o/ep-$v-$r-400.txt)"
  done
  timeout 60 $B/ep $A --iters 400 > $o/n.txt 2>&1; echo "round $r native 400: $(grep -o 'time_ms=[0-9.]*' $o/n.txt)"
done
rm -f $o/*-400.txt $o/n.txt
} > $o/summary.txt 2>&1
cat $o/summary.txt
timeout 400 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --device 1 --gpus $G --cpu 0:0 \
  --counts 4 --apps 3mm,matmul,ep,nbody --preset large --iters 100 --repeat 2 --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"; tail -25 $o/scaling/scaling.md
gzip $o/*.txt $o/*.log; gunzip $o/summary.txt.gz
tar czf $OUT/call3.tgz -C $o .
