#!/usr/bin/env python3
"""A/B of shim settings (one build) against native, for questions like "does
opening every device at start cost wall time?": per app, fresh caches per
variant, warm-up runs (cold, then verdict-setting), then rounds alternating
native / each variant. Prints time_ms, wall, wall less discovery, the verdict.
usage: scripts/ab_settings.py APPS DEVICES ROUNDS TAG NAME=K=V,K=V ... (NAME= : no setting)
  e.g. scripts/ab_settings.py ep,gemm 1:0,1:1 4 x default= start=LIBSPLIT_OPEN_DEVICES=start
Run from the folder holding bench/bin and libsplit/ (a device pack or a build);
AB_ITERS (100) and AB_WARMUP (3) set the runs; OUT gets ab-TAG.json."""
import os, sys, statistics, glob, json
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import run_app

root = os.getcwd()
apps, devices, rounds, tag = sys.argv[1].split(","), sys.argv[2], int(sys.argv[3]), sys.argv[4]
variants = {}
for v in sys.argv[5:]:
    name, _, kv = v.partition("=")
    variants[name] = dict(x.split("=", 1) for x in kv.split(",") if "=" in x)
iters = os.environ.get("AB_ITERS", "100")
out = {}
for app in apps:
    args = [f"{root}/bench/bin/{app}", "--size", "large", "--device", "1", "--no-check", "--iters", iters]
    def env(name):
        e = dict(os.environ)
        if name is None:
            return e
        e.update(LD_PRELOAD=f"{root}/libsplit/libsplit.so", LIBSPLIT_DEVICES=devices,
                 LIBSPLIT_CACHE_DIR=f"/tmp/ab-{tag}-{name}-{app}")
        e.update(variants[name])
        return e
    def verdict(name):
        f = glob.glob(f"/tmp/ab-{tag}-{name}-{app}/sched/app-*")
        return open(f[0]).read().splitlines()[3][:160] if f else "-"
    for b in variants:
        for w in range(int(os.environ.get("AB_WARMUP", "3"))):
            r = run_app(args, env(b))
            print(f"{app} {b} warm-up {w}: {r.time_ms:.1f} ms wall {r.wall:.3f} less discovery {r.wall - r.discovery:.3f} | {verdict(b)}", flush=True)
    order = ["native"] + list(variants)
    rows = {k: [] for k in order}
    for i in range(rounds):
        sh = i % len(order)
        for name in order[sh:] + order[:sh]:
            r = run_app(args, env(None if name == "native" else name))
            rows[name].append((r.time_ms, r.wall, r.wall - r.discovery, r.status))
            print(f"{app} {name} round {i}: {r.time_ms:.1f} ms wall {r.wall:.3f} less discovery {r.wall - r.discovery:.3f} {r.status}", flush=True)
    n = rows["native"]
    mt = statistics.median(x[0] for x in n); mw = statistics.median(x[1] for x in n); mr = statistics.median(x[2] for x in n)
    for name in variants:
        v = rows[name]
        print(f"SUMMARY {app} {name}: {mt / statistics.median(x[0] for x in v):.2f}x time_ms (max run {max(x[0] for x in v) / mt:.2f}x native), wall {1000 * (statistics.median(x[1] for x in v) - mw):+.0f} ms, "
              f"less discovery {1000 * (statistics.median(x[2] for x in v) - mr):+.0f} ms (native {mt:.1f} ms, wall {mw:.3f}) | {verdict(name)}", flush=True)
    out[app] = rows
json.dump(out, open(os.environ.get("OUT", "/tmp") + f"/ab-{tag}.json", "w"))
