#!/bin/bash
# Session 12, call 7 (4 H200): histogram and syrk, whose verdict keeps the fourth GPU closed after a
# first run that opened all three (call 6): the default against LIBSPLIT_OPEN_DEVICES=start, 2 warm-up
# runs, 4 rounds alternated with native (ab_settings.py).
set -u
cd "$(dirname "$0")"
o=$OUT/r; rm -rf $o; mkdir -p $o
cat COMMIT > $o/commit.txt
export OUT=$o
AB_WARMUP=2 timeout 280 python3 scripts/ab_settings.py histogram,syrk 1:0,1:1,1:2,1:3 4 g4b default= start=LIBSPLIT_OPEN_DEVICES=start > $o/ab.txt 2>&1
echo "ab rc=$?" >> $o/ab.txt
grep -E "SUMMARY|rc=" $o/ab.txt
gzip $o/ab.txt
cd $o && tar czf ../r.tgz . && cd .. && rm -rf r
