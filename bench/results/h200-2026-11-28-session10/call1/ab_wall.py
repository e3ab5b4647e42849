#!/usr/bin/env python3
"""A/B of the shim builds against native: per app, fresh caches, warm-up runs
(cold, then verdict-setting), then rounds alternating native / each build.
Prints time_ms, wall, wall less discovery and the stored verdict."""
import os, sys, statistics, glob, json
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts"))
from bench_common import run_app

root = os.path.dirname(os.path.abspath(__file__))
apps = sys.argv[1].split(",")
devices = sys.argv[2]
rounds = int(sys.argv[3])
builds = {"new": f"{root}/libsplit/libsplit.so", "old": f"{root}/old/libsplit.so"}
tag = sys.argv[4] if len(sys.argv) > 4 else "x"
out = {}
for app in apps:
    args = [f"{root}/bench/bin/{app}", "--size", "large", "--device", "1", "--no-check", "--iters", "100"]
    def env(build):
        e = dict(os.environ)
        if build is None:
            return e
        e.update(LD_PRELOAD=builds[build], LIBSPLIT_DEVICES=devices, LIBSPLIT_CACHE_DIR=f"/tmp/ab-{tag}-{build}-{app}")
        return e
    def verdict(build):
        f = glob.glob(f"/tmp/ab-{tag}-{build}-{app}/sched/app-*")
        return open(f[0]).read().splitlines()[3][:160] if f else "-"
    for b in builds:
        for w in range(3):
            r = run_app(args, env(b))
            print(f"{app} {b} warm-up {w}: {r.time_ms:.1f} ms wall {r.wall:.3f} | {verdict(b)}", flush=True)
    rows = {k: [] for k in ["native"] + list(builds)}
    order = ["native"] + list(builds)
    for i in range(rounds):
        sh = i % len(order)
        for name in order[sh:] + order[:sh]:
            r = run_app(args, env(None if name == "native" else name))
            rows[name].append((r.time_ms, r.wall, r.wall - r.discovery, r.status))
            print(f"{app} {name} round {i}: {r.time_ms:.1f} ms wall {r.wall:.3f} less discovery {r.wall - r.discovery:.3f} {r.status}", flush=True)
    n = rows["native"]
    mt = statistics.median(x[0] for x in n); mw = statistics.median(x[1] for x in n); mr = statistics.median(x[2] for x in n)
    for name in builds:
        v = rows[name]
        print(f"SUMMARY {app} {name}: {mt / statistics.median(x[0] for x in v):.2f}x time_ms, wall {1000 * (statistics.median(x[1] for x in v) - mw):+.0f} ms, "
              f"less discovery {1000 * (statistics.median(x[2] for x in v) - mr):+.0f} ms (native {mt:.1f} ms, wall {mw:.3f}) | {verdict(name)}", flush=True)
    out[app] = rows
json.dump(out, open(os.environ.get("OUT", "/tmp") + f"/ab-{tag}.json", "w"))
