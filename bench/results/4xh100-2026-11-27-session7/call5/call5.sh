#!/bin/bash
# Session 7, call 5: ep on 4 GPUs 0.98x (steady iteration 1.22-1.24 ms against 1.21): what the shim does, LOG=2
set -u
cd "$(dirname "$0")"
o=$OUT/r5; mkdir -p $o
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --iters 100 --device 1 --no-check --per-iter"
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
{
for r in cold 1 2; do
  timeout 60 $B/ep $A > $o/n.log 2>&1; echo "native $(t $o/n.log)"
  LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1,1:2,1:3 LIBSPLIT_LOG=2 LIBSPLIT_CACHE_DIR=/tmp/ep5 timeout 60 $B/ep $A > $o/ep-$r.log 2>&1
  echo "shim $r $(t $o/ep-$r.log)"; grep -v "macro sets\|^iter=\|launch [0-9]* .* whole (scheduler chose device 0) |\|whole (partition-ready" $o/ep-$r.log | cut -c1-200 | head -30
  cat /tmp/ep5/sched/app-* 2>/dev/null | tail -2
done
LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1,1:2,1:3 LIBSPLIT_LOG=3 LIBSPLIT_CACHE_DIR=/tmp/ep5 timeout 60 $B/ep $A > $o/ep-log3.log 2>&1
echo "LOG=3 $(t $o/ep-log3.log)"; grep "host time of launch" $o/ep-log3.log | tail -5 | cut -c1-330
} > $o/summary.txt 2>&1
cat $o/summary.txt
