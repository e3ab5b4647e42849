#!/bin/bash
# Session 8, call 7 (32a3673 shim, bench_scaling of 8dba6eb: each round starts one configuration later):
# is 1 GPU + CPU's +50-309 ms of wall time in call 3 an order effect? matmul and syr2k, --counts 4, 4 rounds.
set -u
cd "$(dirname "$0")"
o=$OUT/r; mkdir -p $o
L=$PWD/libsplit/libsplit.so
timeout 400 python3 scripts/bench_scaling.py --bin-dir bench/bin --shim $L --device 1 --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 \
  --counts 4 --apps matmul,syr2k --preset large --iters 100 --repeat 4 --timeout 60 --out $o/scaling > $o/scaling.log 2>&1
echo "scaling rc=$?"; cat $o/scaling/scaling.md
python3 - $o/scaling/scaling.csv <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
by = collections.defaultdict(list)
for r in rows: by[(r["app"], r["config"])].append((int(r["rep"]), float(r["wall_s"])))
for k, v in sorted(by.items()): print(k, " ".join(f"rep{rep}:{w:.3f}" for rep, w in sorted(v)))
PY
tar czf $OUT/call7.tgz -C $o .
