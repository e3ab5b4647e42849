#!/usr/bin/env python3
"""Bytes moved per launch and kernel-loop time of the stencil apps under the
shim, per scheduler and per variant of owner computes; prints a markdown
table (bench/results/*-locality/, *-cycle-partition/).

usage: bench_locality.py BUILD_DIR [--apps a,b] [--schedulers s,t]
         [--variants off,on | off,record,joint | NAME:VAR=V;VAR=V,...]
         [--env VAR=V ...] [--iters N] [--devices "pthread basic"] [--device N]
         [--size medium] [--repeats 3] [--raw FILE.csv] [--no-native] [--no-check]

Variants (LIBSPLIT_* settings of a run): off = LIBSPLIT_OWNER_COMPUTES=0
(each kernel split on its own), on = LIBSPLIT_OWNER_COMPUTES=1 (the
default), record = on with LIBSPLIT_CYCLE_PARTITION=record, joint = on with
LIBSPLIT_CYCLE_PARTITION=joint; any other as NAME:VAR=V;VAR=V (names
without the LIBSPLIT_ prefix are given it). --env settings (e.g.
LIBSPLIT_WHOLE=0) go to every shim run.

Each configuration runs `repeats` times, its variants alternating (the
order rotated at each repeat, so that none always runs first). One row per
variant: the median time_ms (and the lowest and highest), and over the
second half of the launches of every run (balanced): the median and mean
bytes moved per launch (trace columns bytes_to_device + bytes_to_host), the
mean kernel time per launch (the slowest device's ms_kernel: what a cycle
of launches waits for) and the idle share (over those launches, the sum of
the slowest device's kernel time minus each device's own, over the devices'
total of the slowest's: 0 when every device finishes each launch together);
over all launches, the median per run of partition changes (launches whose
groups per device differ from the previous launch's).
The native row is the app alone on its device 0 under the same
POCL_DEVICES. --raw writes one line per run.
"""
import argparse
import os
import statistics
import tempfile

from bench_common import run_app, trace_launches

PRESETS = {
    "off": {"LIBSPLIT_OWNER_COMPUTES": "0"},
    "on": {"LIBSPLIT_OWNER_COMPUTES": "1"},
    "record": {"LIBSPLIT_OWNER_COMPUTES": "1", "LIBSPLIT_CYCLE_PARTITION": "record"},
    "joint": {"LIBSPLIT_OWNER_COMPUTES": "1", "LIBSPLIT_CYCLE_PARTITION": "joint"},
}


def parse_variants(text):
    out = []
    for item in text.split(","):
        if ":" not in item:
            out.append((item, PRESETS[item]))
            continue
        name, settings = item.split(":", 1)
        env = {}
        for kv in filter(None, settings.split(";")):
            k, v = kv.split("=", 1)
            env[k if k.startswith("LIBSPLIT_") else "LIBSPLIT_" + k] = v
        out.append((name, env))
    return out


def late_launches(trace):
    """Over the second half of the launches: (bytes, slowest device's kernel
    ms, per-device kernel ms) of each; and the partition changes of the run."""
    launches = [l for _, l in trace_launches(trace)]
    changes = sum(1 for a, b in zip(launches, launches[1:]) if a.groups != b.groups)
    out = [(l.bytes_moved, max(l.kernel_ms.values()), list(l.kernel_ms.values()))
           for l in launches[len(launches) // 2:]]
    return out, changes


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--apps", default="jacobi-1d,jacobi-2d,fdtd-2d,convolution-2d,convolution-3d")
    p.add_argument("--schedulers", default="auto,adaptive,dynamic")
    p.add_argument("--variants", default="off,on")
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--iters", type=int)
    p.add_argument("--devices", default="pthread basic",
                   help="POCL_DEVICES ('' leaves it unset: the GPU machine)")
    p.add_argument("--device", type=int, default=0, help="the apps' --device (the app's own device)")
    p.add_argument("--no-check", action="store_true", help="pass --no-check to the apps")
    p.add_argument("--size", default="medium")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--raw")
    p.add_argument("--no-native", action="store_true")
    a = p.parse_args()
    variants = parse_variants(a.variants)
    extra = dict(kv.split("=", 1) for kv in a.env)
    work = tempfile.mkdtemp(prefix="libsplit-bench-locality-")
    base = {k: v for k, v in os.environ.items() if not k.startswith("LIBSPLIT_")}
    if a.devices:
        base["POCL_DEVICES"] = a.devices
    shim = os.path.join(a.build, "libsplit", "libsplit.so")
    raw = open(a.raw, "w", newline="") if a.raw else None
    if raw:
        raw.write("app,scheduler,variant,repeat,pass,time_ms,bytes_median,bytes_mean,kernel_ms_per_launch,idle_share,"
                  "partition_changes\n")
    iters = ["--iters", str(a.iters)] if a.iters else []
    print(f"POCL_DEVICES=\"{a.devices}\", --size {a.size} {' '.join(iters)}, {a.repeats} runs each"
          + (f", {' '.join(a.env)}" if a.env else "") + "\n")
    print("| app | scheduler | variant | time ms median | (min-max) | bytes/launch median | mean | "
          "kernel ms/launch | idle % | partition changes | PASS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for app in a.apps.split(","):
        cmd = [os.path.join(a.build, "bench", "bin", app), "--size", a.size, "--device", str(a.device)] + iters
        if a.no_check:
            cmd.append("--no-check")
        if not a.no_native:
            native = [run_app(cmd, base).time_ms for _ in range(a.repeats)]
            print(f"| {app} | native (device {a.device}) | | {statistics.median(native):.0f} | "
                  f"({min(native):.0f}-{max(native):.0f}) | | | | | | |", flush=True)
        for sched in a.schedulers.split(","):
            res = {name: {"times": [], "late": [], "changes": [], "ok": True} for name, _ in variants}
            for i in range(a.repeats):
                order = variants[i % len(variants):] + variants[:i % len(variants)]
                for name, settings in order:
                    trace = os.path.join(work, f"{app}-{sched}-{name}-{i}.csv")
                    env = dict(base, LD_PRELOAD=shim, LIBSPLIT_CACHE_DIR=os.path.join(work, "cache"),
                               LIBSPLIT_SCHEDULER=sched, LIBSPLIT_TRACE=trace, LIBSPLIT_WARMSTART="0")
                    env.update(extra)
                    env.update(settings)
                    run = run_app(cmd, env)
                    ok, ms = run.ok, run.time_ms
                    late, changes = late_launches(trace)
                    r = res[name]
                    r["times"].append(ms)
                    r["late"].extend(late)
                    r["changes"].append(changes)
                    r["ok"] &= ok
                    if raw:
                        b = [x[0] for x in late]
                        raw.write(f"{app},{sched},{name},{i},{int(ok)},{ms:.3f},"
                                  f"{statistics.median(b) if b else 0:.0f},{statistics.mean(b) if b else 0:.0f},"
                                  f"{statistics.mean(x[1] for x in late) if late else 0:.4f},"
                                  f"{idle_share(late):.4f},{changes}\n")
                        raw.flush()
            for name, _ in variants:
                r = res[name]
                t, late = r["times"], r["late"]
                b = [x[0] for x in late]
                med = statistics.median(b) if b else 0
                mean = statistics.mean(b) if b else 0
                kern = statistics.mean(x[1] for x in late) if late else 0
                print(f"| {app} | {sched} | {name} | {statistics.median(t):.0f} | ({min(t):.0f}-{max(t):.0f}) | "
                      f"{med:.0f} | {mean:.0f} | {kern:.2f} | {100 * idle_share(late):.1f} | "
                      f"{statistics.median(r['changes']):.0f} | "
                      f"{'yes' if r['ok'] else 'NO'} |", flush=True)


def idle_share(late):
    """Device time idle waiting for the launch's slowest device, over the
    devices' total (each counted at the slowest's time)."""
    idle = sum(sum(x[1] - d for d in x[2]) for x in late)
    total = sum(x[1] * len(x[2]) for x in late)
    return idle / total if total else 0.0


if __name__ == "__main__":
    main()
