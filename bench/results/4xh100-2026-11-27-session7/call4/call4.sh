#!/bin/bash
# Session 7, call 4: halves before an opening (7a1f346). nbody on 4 GPUs (+CPU): cold + warm runs
# alternated with native, LOG=1; matmul must still open and split; 3mm's lost verdict retried;
# bench_scaling --counts 4 for nbody, matmul, mandelbrot, ep. Every run --no-check (nbody's CPU check takes minutes)
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --iters 100 --device 1 --no-check"
G=1:0,1:1,1:2,1:3
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
ms() { echo $(( ($(date +%s%N)-$1)/1000000 )); }
{
nvidia-smi -L | head -4
for app in nbody matmul; do for cfg in gpus gpus+cpu; do
  [ $app = matmul ] && [ $cfg = gpus+cpu ] && continue
  d=$G; [ $cfg = gpus+cpu ] && d=$G,0:0
  c=/tmp/c-$app-$cfg; n=4; [ $cfg = gpus+cpu ] && n=2; [ $app = matmul ] && n=2
  echo "== $app LIBSPLIT_DEVICES=$d"
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/$app $A > $o/$app-$cfg-cold.log 2>&1
  echo "cold rc=$? $(t $o/$app-$cfg-cold.log) wall $(ms $s) ms halves: $(grep -c 'two halves' $o/$app-$cfg-cold.log) opened: $(grep -c ' opened in ' $o/$app-$cfg-cold.log) split: $(grep -c 'split over' $o/$app-$cfg-cold.log)"
  grep -h "two halves" $o/$app-$cfg-cold.log | cut -c1-220
  for r in $(seq 1 $n); do
    s=$(date +%s%N); timeout 60 $B/$app $A > $o/n.log 2>&1; echo "native $r $(t $o/n.log) wall $(ms $s) ms"
    s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/$app $A > $o/$app-$cfg-$r.log 2>&1
    echo "shim $r rc=$? $(t $o/$app-$cfg-$r.log) wall $(ms $s) ms halves: $(grep -c 'two halves' $o/$app-$cfg-$r.log) opened: $(grep -c ' opened in ' $o/$app-$cfg-$r.log) split: $(grep -c 'split over' $o/$app-$cfg-$r.log)"
  done
  grep -h "opening\|kept whole" $c/sched/app-* | cut -c1-200
done; done
echo "== 3mm lost-verdict retry, 4 GPUs, one cache, LOG=1"
c=/tmp/r3
for r in $(seq 1 10); do
  if [ $((r % 3)) = 1 ]; then timeout 60 $B/3mm $A > $o/n.log 2>&1; echo "native $(t $o/n.log)"; fi
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$G LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/3mm $A > $o/3mm-$r.log 2>&1
  echo "run $r rc=$? $(t $o/3mm-$r.log) wall $(ms $s) ms halves: $(grep -c 'two halves' $o/3mm-$r.log) opened: $(grep -c ' opened in ' $o/3mm-$r.log) split: $(grep -c 'split over' $o/3mm-$r.log) | $(grep -h 'opening\|kept whole' $c/sched/app-* | tr '\n' ' ' | cut -c1-160)"
done
rm -f $o/n.log
} > $o/summary.txt 2>&1
cat $o/summary.txt
timeout 300 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $L --device 1 --gpus $G --cpu 0:0 \
  --counts 4 --apps nbody,matmul,mandelbrot,ep --preset large --iters 100 --repeat 3 --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"; tail -30 $o/scaling/scaling.md
gzip $o/*.log
tar czf $OUT/call4.tgz -C $o .
