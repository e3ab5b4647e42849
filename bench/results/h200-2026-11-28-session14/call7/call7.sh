#!/bin/bash
# Session 14, call 7 (2 GPUs): the build at the opening (f0b0809) checked for output, every GPU opened at
# the app's context (LIBSPLIT_OPEN_DEVICES=start, so that medium loops split): 5 bench apps at medium,
# 300 iterations, with their CPU check, over 2 H200: twice plain, then LOG=3 + TRACE, then LOG=1.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; A="--size medium --device 1 --iters 300"
L=$PWD/libsplit/libsplit.so
for app in matmul histogram syrk gemm mandelbrot; do
  for mode in default default log3trace log1; do
    case $mode in
      default) X="" ;;
      log3trace) X="LIBSPLIT_LOG=3 LIBSPLIT_TRACE=$o/$app-trace.csv" ;;
      log1) X="LIBSPLIT_LOG=1" ;;
    esac
    r=$(env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c6 LIBSPLIT_OPEN_DEVICES=start $X timeout 120 $B/$app $A 2> $o/$app-$mode.err | grep -E '^(PASS|FAIL)|time_ms' | tr '\n' ' ')
    echo "$app $mode rc=$? $r splits=$(grep -c 'split over' $o/$app-$mode.err) once_open=$(grep -c 'built once open' $o/$app-$mode.err)"
  done
  gzip $o/$app-*.err $o/$app-trace.csv 2>/dev/null
done
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
