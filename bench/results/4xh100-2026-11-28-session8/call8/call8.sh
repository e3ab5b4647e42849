#!/bin/bash
# Session 8, call 8 (45d21a3: the profile's report cost cut to 3-4 us): mandelbrot over 4 GPUs at 400
# iterations (2 runs beside native); host time of ep's split launches forced over 4 GPUs (LOG=3).
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --device 1 --no-check"
G=1:0,1:1,1:2,1:3
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
{
c=/tmp/c8
LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_CACHE_DIR=$c timeout 60 $B/mandelbrot $A --iters 100 > /dev/null 2>&1
for r in 1 2; do
  timeout 60 $B/mandelbrot $A --iters 400 > $o/n.log 2>&1; echo "native 400 $(t $o/n.log)"
  LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/mandelbrot $A --iters 400 > $o/m-$r.log 2>&1
  echo "4 GPUs 400 run $r $(t $o/m-$r.log) split: $(grep -c 'split over' $o/m-$r.log) over 4: $(grep -c 'split over 4' $o/m-$r.log) lost: $(grep -c 'split lost\|showed no gain' $o/m-$r.log)"
  grep -h "split over" $o/m-$r.log | tail -1 | cut -c1-330
done
echo "== ep forced over 4 GPUs, LOG=3, 60 iterations"
LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_WHOLE=0 LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_LOG=3 LIBSPLIT_CACHE_DIR=/tmp/c8ep timeout 60 $B/ep $A --iters 60 > $o/ep-log3.txt 2>&1
grep "host time of launch" $o/ep-log3.txt | tail -40 | python3 -c "
import sys,re,statistics
vals={k:[] for k in ['reports','prepare','describe','plan','run','drv','enq']}
for l in sys.stdin:
    m=re.search(r'reports (\d+) us .*?prepare (\d+) us, describe (\d+) us, plan (\d+) us, run (\d+) us \(driver calls (\d+) us, of which the sub-kernel enqueues (\d+) us', l)
    if m and '(split)' in l:
        for k,v in zip(vals, m.groups()): vals[k].append(int(v))
print('split launches', len(vals['run']), {k:statistics.median(v) for k,v in vals.items() if v})
"
grep -o "time_ms=[0-9.]*" $o/ep-log3.txt
rm -f $o/n.log
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/*.log $o/*.txt 2>/dev/null; gunzip $o/summary.txt.gz
tar czf $OUT/call8.tgz -C $o .
