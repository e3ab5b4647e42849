#!/bin/bash
# Session 7, call 3 (call 1 again on a fresh machine: on the first one native nbody itself hung in its start-up):
# health check; nbody on 4 GPUs cold + 5 warm alternated with native (LOG=2, per-iteration times);
# 3mm's lost verdict retried (12 runs on one cache)
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --iters 100 --device 1"
G=1:0,1:1,1:2,1:3
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
ms() { echo $(( ($(date +%s%N)-$1)/1000000 )); }
{
nvidia-smi -L
s=$(date +%s%N); timeout 30 $B/ep $A > $o/health.log 2>&1; echo "health: native ep rc=$? $(t $o/health.log) wall $(ms $s) ms"
if ! grep -q time_ms $o/health.log; then echo "machine unhealthy, stop"; exit 0; fi
for cfg in gpus gpus+cpu; do
  d=$G; [ $cfg = gpus+cpu ] && d=$G,0:0
  c=/tmp/nb-$cfg; n=5; [ $cfg = gpus+cpu ] && n=2
  echo "== nbody LIBSPLIT_DEVICES=$d"
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=2 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/nbody $A --per-iter > $o/nb-$cfg-cold.log 2>&1
  echo "cold rc=$? $(t $o/nb-$cfg-cold.log) wall $(ms $s) ms"
  for r in $(seq 1 $n); do
    s=$(date +%s%N); timeout 60 $B/nbody $A --per-iter > $o/nb-native-$cfg-$r.log 2>&1; echo "native $r $(t $o/nb-native-$cfg-$r.log) wall $(ms $s) ms"
    s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=2 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/nbody $A --per-iter > $o/nb-$cfg-$r.log 2>&1
    echo "shim $r rc=$? $(t $o/nb-$cfg-$r.log) wall $(ms $s) ms opened: $(grep -c ' opened in ' $o/nb-$cfg-$r.log) split: $(grep -c 'split over' $o/nb-$cfg-$r.log)"
  done
  cat $c/sched/app-* | tail -3
done
echo "== 3mm lost-verdict retry, 4 GPUs, one cache, LOG=1"
c=/tmp/r3
for r in $(seq 1 12); do
  if [ $((r % 3)) = 1 ]; then timeout 60 $B/3mm $A > $o/n.log 2>&1; echo "native $(t $o/n.log)"; fi
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/3mm $A > $o/3mm-$r.log 2>&1
  echo "run $r rc=$? $(t $o/3mm-$r.log) wall $(ms $s) ms split: $(grep -c 'split over' $o/3mm-$r.log) | $(grep -h 'opening\|kept whole' $c/sched/app-* | tr '\n' ' ' | cut -c1-200)"
done
} > $o/summary.txt 2>&1
cat $o/summary.txt
rm -f $o/n.log; gzip $o/*.log
tar czf $OUT/call3.tgz -C $o .
