#!/bin/bash
# Session 11, call 3 (2 GPUs): where the process-to-process spread of a split launch's host time
# comes from. ep under the default scheduler over 2 GPUs (both open at start, 400 launches,
# LOG=3), code 04c1619, 6 processes per CPU placement, placements alternated: the 16 cores of
# NUMA node 0 (as calls 1-2), two cores of node 0, one core. Also whether perf is there.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; A="--size large --device 1 --no-check"
G=1:0,1:1
NODE0=$(lscpu -p=CPU,NODE | grep -v '^#' | awk -F, '$2==0{print $1}' | paste -sd, -)
TWO=$(echo $NODE0 | cut -d, -f3,4); ONE=$(echo $NODE0 | cut -d, -f5)
{
echo "perf: $(command -v perf || echo none); paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)"
echo "governor: $(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo n/a)"
echo "node0 $NODE0 two $TWO one $ONE"
env LD_PRELOAD=$PWD/libsplit/libsplit.so LIBSPLIT_DEVICES=$G LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c3d \
  timeout 60 $B/ep $A --iters 50 > /dev/null 2>&1
for r in 1 2 3 4 5 6; do
  for p in node two one; do
    case $p in node) cpus=$NODE0;; two) cpus=$TWO;; one) cpus=$ONE;; esac
    env LD_PRELOAD=$PWD/libsplit/libsplit.so LIBSPLIT_DEVICES=$G LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c3d LIBSPLIT_LOG=3 \
      taskset -c $cpus timeout 60 $B/ep $A --iters 400 > $o/ep-$p-$r.txt 2>&1
    echo "round $r $p: $(grep -o 'time_ms=[0-9.]*' $o/ep-$p-$r.txt) | $(python3 scripts/host_times.py $o/ep-$p-$r.txt --last 200 --kind split | tail -1)"
  done
done
} > $o/summary.txt 2>&1
cat $o/summary.txt
cd $o && tar czf logs.tgz ep-*.txt && rm -f ep-*.txt
