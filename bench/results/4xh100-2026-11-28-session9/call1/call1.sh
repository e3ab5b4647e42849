#!/bin/bash
# Session 9, call 1: why 3mm's split stops in a run whose GPUs open at the first context
# (3mm 4 GPUs: fresh cache, 3 runs, LOG=2; 2 GPUs opened at start), gemm 4 GPUs + CPU 3 runs.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --device 1 --no-check --iters 100"
G=1:0,1:1,1:2,1:3
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
ms() { echo $(( ($(date +%s%N)-$1)/1000000 )); }
run() { # name devices cache app [env...]
  local n=$1 d=$2 c=$3 app=$4; shift 4
  local s=$(date +%s%N)
  env LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=2 LIBSPLIT_CACHE_DIR=$c "$@" timeout 60 $B/$app $A > $o/$n.log 2>&1
  echo "$n rc=$? $(t $o/$n.log) wall $(ms $s) ms opened: $(grep -c ' opened in ' $o/$n.log) split: $(grep -c 'split over' $o/$n.log) | $(cat $c/sched/app-* 2>/dev/null | sed -n '4,6p' | tr '\n' ' ' | cut -c1-200)"
}
{
nvidia-smi -L | head -4
for app in 3mm gemm; do timeout 60 $B/$app $A > $o/n.log 2>&1; echo "native $app $(t $o/n.log)"; done
for r in 1 2 3; do run 3mm-4gpus-$r $G /tmp/c3 3mm; done
timeout 60 $B/3mm $A > $o/n.log 2>&1; echo "native 3mm $(t $o/n.log)"
run 3mm-2gpus-start 1:0,1:1 /tmp/c3b 3mm LIBSPLIT_OPEN_DEVICES=start
run 3mm-2gpus-start2 1:0,1:1 /tmp/c3b 3mm LIBSPLIT_OPEN_DEVICES=start
for r in 1 2 3; do run gemm-4gpus-cpu-$r $G,0:0 /tmp/cg gemm; done
timeout 60 $B/gemm $A > $o/n.log 2>&1; echo "native gemm $(t $o/n.log)"
rm -f $o/n.log
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/*.log
tar czf $OUT/call1.tgz -C $o .
