#!/bin/bash
# Session 7, call 2: call 1's cold nbody run under the shim hung (120 s timeout), the native run after it took 164 s of wall
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
B=bench/bin; L=$PWD/libsplit/libsplit.so; A="--size large --iters 100 --device 1"
{
ps aux | grep -v grep | grep -E 'nbody|bench' | head
nvidia-smi --query-gpu=index,persistence_mode,utilization.gpu,memory.used --format=csv
s=$(date +%s%N); $B/nbody $A | tail -2; echo "native wall $(( ($(date +%s%N)-s)/1000000 )) ms"
s=$(date +%s%N); timeout 15 $B/ep $A | tail -1; echo "native ep wall $(( ($(date +%s%N)-s)/1000000 )) ms"
s=$(date +%s%N); LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1,1:2,1:3 LIBSPLIT_LOG=2 LIBSPLIT_CACHE_DIR=/tmp/c2 timeout -s QUIT 60 $B/nbody $A > $o/nb-cold.log 2>&1
echo "shim cold rc=$? wall $(( ($(date +%s%N)-s)/1000000 )) ms"; tail -3 $o/nb-cold.log
} > $o/summary.txt 2>&1
cat $o/summary.txt
gzip $o/*.log; tar czf $OUT/call2.tgz -C $o .
