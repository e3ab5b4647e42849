#!/bin/bash
# Session 7, call 9: matmul and mandelbrot on 1 GPU + CPU: process wall +133..+270 ms over native (call4). LOG=2 timeline, warm
set -u
cd "$(dirname "$0")"
o=$OUT/r9; mkdir -p $o
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --iters 100 --device 1 --no-check"
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
ms() { echo $(( ($(date +%s%N)-$1)/1000000 )); }
{
for app in matmul mandelbrot; do
  LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,0:0 LIBSPLIT_CACHE_DIR=/tmp/c9-$app timeout 60 $B/$app $A > /dev/null 2>&1
  for r in 1 2; do
    s=$(date +%s%N); timeout 60 $B/$app $A > $o/n.log 2>&1; echo "$app native $(t $o/n.log) wall $(ms $s) ms"
    s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,0:0 LIBSPLIT_LOG=2 LIBSPLIT_CACHE_DIR=/tmp/c9-$app timeout 60 $B/$app $A > $o/$app-$r.log 2>&1
    echo "$app shim GPU+CPU $(t $o/$app-$r.log) wall $(ms $s) ms"
  done
  grep -v "macro sets\|whole (scheduler chose device 0) |\|whole (partition-ready" $o/$app-2.log | cut -c1-230 | grep -v "^iter" | head -60
  cat /tmp/c9-$app/sched/app-* | tail -2
done
} > $o/summary.txt 2>&1
rm -f $o/n.log; gzip $o/*.log
cat $o/summary.txt
