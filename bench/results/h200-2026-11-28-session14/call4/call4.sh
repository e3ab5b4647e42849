#!/bin/bash
# Session 14, call 4 (2 GPUs). (a) The build of a GPU's program started the moment its context
# opens (new, uncommitted change on top of COMMIT) against the build started by the first launch
# after the opening (old = COMMIT): matmul, syr2k, histogram, syrk over 2 H200, default settings,
# 2 warm-up runs each, then 3 rounds native / old / new; one LOG=2 stamped run of each build for
# syrk and matmul. (b) issue 26's table over 2 H200 through 2 pocld servers (one GPU each), 2 rounds.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; A="--size large --device 1 --no-check --iters 100"
declare -A LIB=([old]=$PWD/old/libsplit.so [new]=$PWD/libsplit/libsplit.so)
for app in matmul syr2k histogram syrk; do
  for v in old new; do for i in 1 2; do
    env LD_PRELOAD=${LIB[$v]} LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c-$v timeout 60 $B/$app $A > /dev/null 2>&1
  done; done
  for r in 1 2 3; do
    t=$(timeout 60 $B/$app $A | grep -o 'time_ms=[0-9.]*'); echo "$app native $r $t" >> $o/ab.txt
    for v in old new; do
      t=$(env LD_PRELOAD=${LIB[$v]} LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c-$v timeout 60 $B/$app $A | grep -o 'time_ms=[0-9.]*')
      echo "$app $v $r $t" >> $o/ab.txt
    done
  done
done
cat $o/ab.txt
for app in syrk matmul; do for v in old new; do
  env LD_PRELOAD=${LIB[$v]} LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/c-$v LIBSPLIT_LOG=2 timeout 60 \
    python3 scripts/timestamp_run.py -- $B/$app $A > $o/$app-$v-log2.txt 2>&1
  echo "$app $v: $(grep -o 'time_ms=[0-9.]*' $o/$app-$v-log2.txt) first split: $(grep -m1 'split over' $o/$app-$v-log2.txt | cut -c1-60)"
  grep -E 'opened in|once open|is wanted' $o/$app-$v-log2.txt | cut -c1-120
  gzip $o/$app-$v-log2.txt
done; done
timeout 300 python3 scripts/bench_remote.py --bin-dir bench/bin --shim $PWD/libsplit/libsplit.so --pocl-remote pocl-remote/install \
  --servers 2 --gpus-per-server 1 --apps matmul,syr2k,histogram --preset large --iters 100 --repeat 2 \
  --out $o/remote > $o/remote.log 2>&1
echo "remote rc=$?"
cat $o/remote/remote.md 2>/dev/null; tail -3 $o/remote.log; gzip $o/remote.log
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
