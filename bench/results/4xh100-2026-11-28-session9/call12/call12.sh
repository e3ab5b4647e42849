#!/bin/bash
# Session 9, call 12 (staging allowance from the kernels alone): 3mm over 2 GPUs
# opened at start, fresh cache, runs at LOG=1, 3, 3; 3mm and matmul over 4 GPUs (default), fresh
# cache, cold + warm; native beside.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --device 1 --no-check --iters 100"
t() { grep -o 'time_ms=[0-9.]*' "$1" | head -1; }
{
timeout 60 $B/3mm $A > $o/n.txt 2>&1; echo "native 3mm $(t $o/n.txt)"
for r in 1 2 3; do
  lv=3; [ $r = 1 ] && lv=1
  LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_OPEN_DEVICES=start LIBSPLIT_CACHE_DIR=/tmp/c12 LIBSPLIT_LOG=$lv \
    timeout 60 $B/3mm $A > $o/3mm-2gpus-$r.txt 2>&1
  echo "3mm 2 GPUs start, run $r LOG=$lv: $(t $o/3mm-2gpus-$r.txt) split: $(grep -c 'split over' $o/3mm-2gpus-$r.txt) declined: $(grep -c 'split declined' $o/3mm-2gpus-$r.txt) lost: $(grep -c 'split lost' $o/3mm-2gpus-$r.txt)"
done
for app in 3mm matmul; do
  for r in cold warm; do
    timeout 60 $B/$app $A > $o/n.txt 2>&1; echo "native $app $(t $o/n.txt)"
    LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1,1:2,1:3 LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=/tmp/c12-$app timeout 60 $B/$app $A > $o/$app-4gpus-$r.txt 2>&1
    echo "$app 4 GPUs $r: $(t $o/$app-4gpus-$r.txt) split: $(grep -c 'split over' $o/$app-4gpus-$r.txt) | $(sed -n 4p /tmp/c12-$app/sched/app-*)"
  done
done
rm -f $o/n.txt
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/*-*.txt
timeout 300 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $L --device 1 --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 \
  --counts 4 --apps 2mm,gemm,jacobi-2d,spmv,fdtd-2d,atax --preset large --iters 100 --repeat 1 --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"; head -16 $o/scaling/scaling.md; gzip $o/scaling.log
