#!/bin/bash
# Session 11, call 6 (2 GPUs): the all-gather moved with every device's copies in flight together
# (new, data/device_moves.cpp) against one after the other (old = 7028a3a): correctness of 3mm,
# 2mm, matmul at medium with the CPU check (2 GPUs, and 2 GPUs + CPU), then 3mm, 2mm, syrk at
# large over 2 GPUs, 3 warm-up runs, 4 rounds alternating native / new / old
# (scripts/ab_settings.py with LD_PRELOAD as the setting); a LOG=2 run of 3mm (new).
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
cat COMMIT > $o/commit.txt
B=bench/bin; L=$PWD/libsplit/libsplit.so
{
for app in 3mm 2mm matmul; do
  for devs in 1:0,1:1 1:0,1:1,0:0; do
    r=$(env LD_PRELOAD=$L LIBSPLIT_DEVICES=$devs LIBSPLIT_CACHE_DIR=/tmp/c6chk timeout 120 $B/$app --size medium --device 1 --iters 10 2>&1 | grep -E "^(PASS|FAIL)")
    r2=$(env LD_PRELOAD=$L LIBSPLIT_DEVICES=$devs LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_CACHE_DIR=/tmp/c6chkf timeout 120 $B/$app --size medium --device 1 --iters 10 2>&1 | grep -E "^(PASS|FAIL)")
    echo "check $app $devs: default $r, forced split $r2"
  done
done
} > $o/check.txt 2>&1
cat $o/check.txt
export OUT=$o
timeout 400 python3 scripts/ab_settings.py 3mm,2mm,syrk 1:0,1:1 4 g2 new= old=LD_PRELOAD=$PWD/old/libsplit.so > $o/ab.txt 2>&1
echo "ab rc=$?" >> $o/ab.txt
grep SUMMARY $o/ab.txt
env LD_PRELOAD=$L LIBSPLIT_DEVICES=1:0,1:1 LIBSPLIT_CACHE_DIR=/tmp/ab-g2-new-3mm LIBSPLIT_LOG=2 timeout 60 $B/3mm --size large --device 1 --no-check --iters 100 --per-iter > $o/3mm-log2.txt 2>&1
grep "^iter=" $o/3mm-log2.txt | tail -2; grep -c "with the other devices' moves" $o/3mm-log2.txt
gzip $o/ab.txt $o/3mm-log2.txt
