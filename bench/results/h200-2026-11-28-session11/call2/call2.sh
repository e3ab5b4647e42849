#!/bin/bash
# Session 11, call 2 (2 GPUs): host time of split launches, A (bef1101, session start) against
# B (HEAD: slice bytes memoized, IntervalSet ranges read in place, index flags per kernel),
# alternated 8 rounds on NUMA node 0: ep forced split (LOG=3, 60 launches), ep under the default
# scheduler with both GPUs open at start (LOG=3 and LOG=0, 400 launches); then a 2-GPU table
# sanity check of B (4 apps, 2 runs).
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
nvidia-smi --query-gpu=name --format=csv,noheader > $o/gpus.txt
B=bench/bin; A="--size large --device 1 --no-check"
G=1:0,1:1
lib() { [ $1 = A ] && echo $PWD/old/libsplit.so || echo $PWD/libsplit/libsplit.so; }
t() { grep -o 'time_ms=[0-9.]*' "$1" | head -1; }
NODE0=$(lscpu -p=CPU,NODE | grep -v '^#' | awk -F, '$2==0{print $1}' | paste -sd, -)
{
for r in 1 2 3 4 5 6 7 8; do
  order="A B"; [ $((r % 2)) = 0 ] && order="B A"
  for v in $order; do
    env LD_PRELOAD=$(lib $v) LIBSPLIT_DEVICES=$G LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c3f-$v LIBSPLIT_LOG=3 \
      taskset -c $NODE0 timeout 60 $B/ep $A --iters 60 > $o/epf-$v-$r.txt 2>&1
    echo "round $r $v forced LOG=3: $(python3 scripts/host_times.py $o/epf-$v-$r.txt --last 40 --kind split | tr '\n' ' ')"
    env LD_PRELOAD=$(lib $v) LIBSPLIT_DEVICES=$G LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c3d-$v LIBSPLIT_LOG=3 \
      taskset -c $NODE0 timeout 60 $B/ep $A --iters 400 > $o/epd-$v-$r.txt 2>&1
    echo "round $r $v default LOG=3: $(t $o/epd-$v-$r.txt) split $(grep -c 'split over' $o/epd-$v-$r.txt) untimed $(grep -c 'times not read' $o/epd-$v-$r.txt) | $(python3 scripts/host_times.py $o/epd-$v-$r.txt --last 200 --kind split | tr '\n' ' ')"
    env LD_PRELOAD=$(lib $v) LIBSPLIT_DEVICES=$G LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c3d-$v \
      taskset -c $NODE0 timeout 60 $B/ep $A --iters 400 > $o/n.txt 2>&1
    echo "round $r $v default LOG=0: $(t $o/n.txt)"
  done
  taskset -c $NODE0 timeout 60 $B/ep $A --iters 400 > $o/n.txt 2>&1; echo "round $r native: $(t $o/n.txt)"
done
} > $o/summary.txt 2>&1
cat $o/summary.txt
cd $o && rm -f n.txt && tar czf logs.tgz ep*-*.txt && rm -f ep*-*.txt
