#!/bin/bash
# Session 7, call 1: nbody on 4 GPUs (0.95x last session): cold, then 5 warm runs alternated with
# native, LOG=2 + per-iteration times; 3mm's lost verdict retried (10 runs on one cache); ep alternated
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi -L > $o/gpus.txt 2>&1
B=bench/bin
L=$PWD/libsplit/libsplit.so
A="--size large --iters 100 --device 1"
G=1:0,1:1,1:2,1:3
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
{
for cfg in "$G" "$G,0:0"; do
  c=/tmp/nb$RANDOM
  echo "== nbody LIBSPLIT_DEVICES=$cfg cache $c"
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$cfg LIBSPLIT_LOG=2 LIBSPLIT_CACHE_DIR=$c timeout 120 $B/nbody $A --per-iter > $o/nb-$cfg-cold.log 2>&1
  echo "cold $(t $o/nb-$cfg-cold.log) wall $(( ($(date +%s%N)-s)/1000000 )) ms"
  for r in 1 2 3 4 5; do
    s=$(date +%s%N); $B/nbody $A --per-iter > $o/nb-native-$r.log 2>&1; echo "native $r $(t $o/nb-native-$r.log) wall $(( ($(date +%s%N)-s)/1000000 )) ms"
    s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$cfg LIBSPLIT_LOG=2 LIBSPLIT_CACHE_DIR=$c timeout 120 $B/nbody $A --per-iter > $o/nb-$cfg-$r.log 2>&1
    echo "shim $r $(t $o/nb-$cfg-$r.log) wall $(( ($(date +%s%N)-s)/1000000 )) ms opened: $(grep -c ' opened in ' $o/nb-$cfg-$r.log) split: $(grep -c 'split over' $o/nb-$cfg-$r.log)"
  done
  cat $c/sched/app-* | tail -3
done
echo "== 3mm lost-verdict retry, 4 GPUs, one cache, LOG=1"
c=/tmp/r3
for r in $(seq 1 12); do
  if [ $((r % 3)) = 1 ]; then echo "native $(t <($B/3mm $A))"; fi
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 120 $B/3mm $A > $o/3mm-$r.log 2>&1
  echo "run $r $(t $o/3mm-$r.log) wall $(( ($(date +%s%N)-s)/1000000 )) ms split: $(grep -c 'split over' $o/3mm-$r.log) | $(grep -h 'opening\|kept whole' $c/sched/app-* | tr '\n' ' ' | cut -c1-220)"
done
echo "== ep alternated, 4 GPUs"
c=/tmp/ep; LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_CACHE_DIR=$c $B/ep $A > /dev/null 2>&1
for r in 1 2 3; do echo "native $(t <($B/ep $A)) shim $(t <(LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_CACHE_DIR=$c $B/ep $A 2>&1))"; done
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/*.log
tar czf $OUT/call1.tgz -C $o .
rm -rf $o
