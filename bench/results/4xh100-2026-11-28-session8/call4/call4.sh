#!/bin/bash
# Session 8, call 4 (32a3673): gemm over 4 GPUs + CPU ran whole (1.03x) in call 3B: cold + 3 warm runs, LOG=1, verdicts.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --iters 100 --device 1 --no-check"
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
ms() { echo $(( ($(date +%s%N)-$1)/1000000 )); }
{
for cfg in gpus+cpu gpus; do
d=1:0,1:1,1:2,1:3; [ $cfg = gpus+cpu ] && d=$d,0:0
c=/tmp/g-$cfg
for r in cold 1 2 3; do
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/gemm $A > $o/gemm-$cfg-$r.log 2>&1
  echo "$cfg $r rc=$? $(t $o/gemm-$cfg-$r.log) wall $(ms $s) ms split: $(grep -c 'split over' $o/gemm-$cfg-$r.log) lost: $(grep -c 'split lost\|showed no gain' $o/gemm-$cfg-$r.log) | $(grep -h 'opening\|kept whole' $c/sched/app-* | tr '\n' ' ' | cut -c1-200)"
  grep -h "whole (" $o/gemm-$cfg-$r.log | grep -v "not ready\|preparation" | sed 's/.*whole (//' | cut -c1-150 | sort | uniq -c | sort -rn | head -4
done
done
s=$(date +%s%N); timeout 60 $B/gemm $A > $o/n.log 2>&1; echo "native $(t $o/n.log) wall $(ms $s) ms"
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/*.log
tar czf $OUT/call4.tgz -C $o .
