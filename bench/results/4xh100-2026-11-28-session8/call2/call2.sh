#!/bin/bash
# Session 8, call 2 (062b87f): the profile kept once taken, moves of new slices charged once.
# mandelbrot over 4 GPUs (+CPU), LOG=1, 400 and 100 iterations beside native; bench_scaling
# --counts 4 for mandelbrot, matmul, 2mm, gemm, ep, nbody (2 warm runs). Every run --no-check.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --device 1 --no-check"
G=1:0,1:1,1:2,1:3
t() { grep -o 'time_ms[^ ]*' "$1" | head -1; }
ms() { echo $(( ($(date +%s%N)-$1)/1000000 )); }
{
for cfg in gpus gpus+cpu; do
  d=$G; [ $cfg = gpus+cpu ] && d=$G,0:0
  c=/tmp/c-mandel-$cfg
  echo "== mandelbrot LIBSPLIT_DEVICES=$d"
  s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/mandelbrot $A --iters 100 > $o/m-$cfg-cold.log 2>&1
  echo "cold rc=$? $(t $o/m-$cfg-cold.log) wall $(ms $s) ms split: $(grep -c 'split over' $o/m-$cfg-cold.log)"
  its="400 100 100"; [ $cfg = gpus+cpu ] && its="400"
  for it in $its; do
    s=$(date +%s%N); timeout 60 $B/mandelbrot $A --iters $it > $o/n.log 2>&1; echo "native iters $it $(t $o/n.log) wall $(ms $s) ms"
    s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=$d LIBSPLIT_LOG=1 LIBSPLIT_CACHE_DIR=$c timeout 60 $B/mandelbrot $A --iters $it > $o/m-$cfg-$it-$RANDOM.log 2>&1
    f=$(ls -t $o/m-$cfg-$it-*.log | head -1)
    echo "shim iters $it rc=$? $(t $f) wall $(ms $s) ms split: $(grep -c 'split over' $f) over 4: $(grep -c 'split over 4' $f) whole after a split: $(grep -c 'split lost' $f)"
    grep -h "split over" $f | tail -2 | cut -c1-330
  done
done
rm -f $o/n.log
} > $o/summary.txt 2>&1
cat $o/summary.txt
timeout 300 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $L --device 1 --gpus $G --cpu 0:0 \
  --counts 4 --apps mandelbrot,matmul,2mm,gemm,ep,nbody --preset large --iters 100 --repeat 2 --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"; tail -32 $o/scaling/scaling.md
gzip $o/*.log
tar czf $OUT/call2.tgz -C $o .
