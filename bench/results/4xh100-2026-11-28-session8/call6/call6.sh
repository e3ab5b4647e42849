#!/bin/bash
# Session 8, call 6 (32a3673): mandelbrot over 4 GPUs (+CPU) at 400 iterations with the recurring-transfer
# balancing; at 100 iterations with LIBSPLIT_OPEN_DEVICES=start (every GPU opened at the app's context).
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --device 1 --no-check"
G=1:0,1:1,1:2,1:3
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
ms() { echo $(( ($(date +%s%N)-$1)/1000000 )); }
{
for cfg in gpus gpus+cpu; do
  d=$G; [ $cfg = gpus+cpu ] && d=$G,0:0
  c=/tmp/c6-$cfg
  LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_CACHE_DIR=$c timeout 60 $B/mandelbrot $A --iters 100 > /dev/null 2>&1
  for r in 1 2; do
    s=$(date +%s%N); timeout 60 $B/mandelbrot $A --iters 400 > $o/n.log 2>&1; echo "native 400 $(t $o/n.log) wall $(ms $s) ms"
    s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/mandelbrot $A --iters 400 > $o/m-$cfg-$r.log 2>&1
    echo "$cfg 400 run $r $(t $o/m-$cfg-$r.log) wall $(ms $s) ms split: $(grep -c 'split over' $o/m-$cfg-$r.log) over 4: $(grep -c 'split over 4' $o/m-$cfg-$r.log) lost: $(grep -c 'split lost\|showed no gain' $o/m-$cfg-$r.log)"
    grep -h "split over" $o/m-$cfg-$r.log | tail -1 | cut -c1-330
  done
done
c=/tmp/c6-start
for r in 1 2; do
  s=$(date +%s%N); timeout 60 $B/mandelbrot $A --iters 100 > $o/n.log 2>&1; echo "native 100 $(t $o/n.log) wall $(ms $s) ms"
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/mandelbrot $A --iters 100 > $o/start-$r.log 2>&1
  echo "open=start 100 run $r $(t $o/start-$r.log) wall $(ms $s) ms split: $(grep -c 'split over' $o/start-$r.log) over 4: $(grep -c 'split over 4' $o/start-$r.log), first split at launch $(grep -m1 'split over' $o/start-$r.log | awk '{print $3}'), first over 4 at $(grep -m1 'split over 4' $o/start-$r.log | awk '{print $3}')"
done
rm -f $o/n.log
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/*.log
tar czf $OUT/call6.tgz -C $o .
