#!/bin/bash
# Session 8, call 1 (88579c1): the work profile on mandelbrot over 4 GPUs (+CPU): cold + warm runs
# alternated with native, LOG=1, the last split lines; 400 iterations for the steady state;
# 3mm's lost-verdict retry (7b19daa) over 10 runs; bench_scaling --counts 4. Every run --no-check.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --device 1 --no-check"
G=1:0,1:1,1:2,1:3
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
ms() { echo $(( ($(date +%s%N)-$1)/1000000 )); }
{
nvidia-smi -L | head -4
for cfg in gpus gpus+cpu; do
  d=$G; [ $cfg = gpus+cpu ] && d=$G,0:0
  c=/tmp/c-mandel-$cfg
  echo "== mandelbrot LIBSPLIT_DEVICES=$d"
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/mandelbrot $A --iters 100 > $o/m-$cfg-cold.log 2>&1
  echo "cold rc=$? $(t $o/m-$cfg-cold.log) wall $(ms $s) ms opened: $(grep -c ' opened in ' $o/m-$cfg-cold.log) split: $(grep -c 'split over' $o/m-$cfg-cold.log)"
  for it in 100 100 400; do
    s=$(date +%s%N); timeout 60 $B/mandelbrot $A --iters $it > $o/n.log 2>&1; echo "native iters $it $(t $o/n.log) wall $(ms $s) ms"
    s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/mandelbrot $A --iters $it > $o/m-$cfg-$it.log 2>&1
    echo "shim iters $it rc=$? $(t $o/m-$cfg-$it.log) wall $(ms $s) ms opened: $(grep -c ' opened in ' $o/m-$cfg-$it.log) split: $(grep -c 'split over' $o/m-$cfg-$it.log) over 4: $(grep -c 'split over 4' $o/m-$cfg-$it.log)"
    grep -h "split over" $o/m-$cfg-$it.log | tail -4 | cut -c1-330
  done
done
echo "== 3mm lost-verdict retry, 4 GPUs, one cache, LOG=1"
c=/tmp/r3
for r in $(seq 1 10); do
  if [ $((r % 3)) = 1 ]; then timeout 60 $B/3mm $A --iters 100 > $o/n.log 2>&1; echo "native $(t $o/n.log)"; fi
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/3mm $A --iters 100 > $o/3mm-$r.log 2>&1
  echo "run $r rc=$? $(t $o/3mm-$r.log) wall $(ms $s) ms halves: $(grep -c 'two halves' $o/3mm-$r.log) opened: $(grep -c ' opened in ' $o/3mm-$r.log) split: $(grep -c 'split over' $o/3mm-$r.log) | $(grep -h 'opening\|kept whole' $c/sched/app-* | tr '\n' ' ' | cut -c1-160)"
done
rm -f $o/n.log
} > $o/summary.txt 2>&1
cat $o/summary.txt
timeout 330 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $L --device 1 --gpus $G --cpu 0:0 \
  --counts 4 --apps mandelbrot,matmul,histogram,syrk --preset large --iters 100 --repeat 3 --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"; tail -30 $o/scaling/scaling.md
gzip $o/*.log
tar czf $OUT/call1.tgz -C $o .
