#!/bin/bash
# Session 9, call 2: 3mm judged over the cycle of its key's roles. 3mm on 2 GPUs opened at start and
# on 4 GPUs (fresh cache, 4 runs, LOG=1) beside native; then bench_scaling for 3mm, 2mm, gemm.
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
  env LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c "$@" timeout 60 $B/$app $A > $o/$n.log 2>&1
  echo "$n rc=$? $(t $o/$n.log) wall $(ms $s) ms opened: $(grep -c ' opened in ' $o/$n.log) split: $(grep -c 'split over' $o/$n.log) lost: $(grep -c 'split lost' $o/$n.log) | $(cat $c/sched/app-* 2>/dev/null | sed -n '4,6p' | tr '\n' ' ' | cut -c1-200)"
}
{
nvidia-smi -L | head -4
timeout 60 $B/3mm $A > $o/n.log 2>&1; echo "native 3mm $(t $o/n.log)"
run 3mm-2gpus-start 1:0,1:1 /tmp/c3b 3mm LIBSPLIT_OPEN_DEVICES=start
for r in 1 2 3 4; do
  run 3mm-4gpus-$r $G /tmp/c3 3mm
  timeout 60 $B/3mm $A > $o/n.log 2>&1; echo "native 3mm $(t $o/n.log)"
done
rm -f $o/n.log
} > $o/summary.txt 2>&1
cat $o/summary.txt
timeout 420 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $L --device 1 --gpus $G --cpu 0:0 \
  --counts 2,4 --apps 3mm,2mm,gemm --preset large --iters 100 --repeat 2 --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"; tail -30 $o/scaling/scaling.md
gzip $o/*.log
tar czf $OUT/call2.tgz -C $o .
