#!/usr/bin/env python3
"""Bytes moved per launch and kernel-loop time of the stencil apps under the
shim, with owner computes off and on (LIBSPLIT_OWNER_COMPUTES=0/1), per
scheduler; prints a markdown table (bench/results/*-locality/).

usage: bench_locality.py BUILD_DIR [--apps a,b] [--schedulers s,t]
         [--devices "pthread basic"] [--size medium] [--repeats 3]

Each configuration runs `repeats` times, off and on alternating; the table
gives the median time_ms and, over the second half of the launches of every
run (balanced), the median and mean bytes moved per launch (trace columns
bytes_to_device + bytes_to_host). The native row is the app alone on its
device 0 under the same POCL_DEVICES.
"""
import argparse
import csv
import os
import statistics
import subprocess
import tempfile


def run(cmd, env):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    lines = r.stdout.splitlines()
    ok = "PASS" in lines
    ms = next((float(l.split("=")[1]) for l in lines if l.startswith("time_ms=")), float("nan"))
    return ok, ms


def late_bytes(trace):
    per = {}
    with open(trace, newline="") as f:
        for row in csv.DictReader(f):
            launch = int(row["launch"])
            per[launch] = per.get(launch, 0) + int(row["bytes_to_device"]) + int(row["bytes_to_host"])
    launches = sorted(per)
    return [per[l] for l in launches[len(launches) // 2:]]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--apps", default="jacobi-1d,jacobi-2d,fdtd-2d,convolution-2d,convolution-3d")
    p.add_argument("--schedulers", default="auto,adaptive,dynamic")
    p.add_argument("--devices", default="pthread basic")
    p.add_argument("--size", default="medium")
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="libsplit-bench-locality-")
    base = {k: v for k, v in os.environ.items() if not k.startswith("LIBSPLIT_")}
    base["POCL_DEVICES"] = a.devices
    shim = os.path.join(a.build, "libsplit", "libsplit.so")
    print(f"POCL_DEVICES=\"{a.devices}\", --size {a.size}, {a.repeats} runs each\n")
    print("| app | scheduler | time ms (off) | time ms (on) | bytes/launch median (off) | (on) | bytes/launch mean (off) | (on) | PASS |")
    print("|---|---|---|---|---|---|---|---|---|")
    for app in a.apps.split(","):
        cmd = [os.path.join(a.build, "bench", "bin", app), "--size", a.size]
        native = [run(cmd, base)[1] for _ in range(a.repeats)]
        print(f"| {app} | native (device 0) | {statistics.median(native):.0f} | | | | | | |")
        for sched in a.schedulers.split(","):
            res = {"0": ([], [], True), "1": ([], [], True)}
            for i in range(a.repeats):
                for oc in ("0", "1"):
                    trace = os.path.join(work, f"{app}-{sched}-{oc}-{i}.csv")
                    env = dict(base, LD_PRELOAD=shim, LIBSPLIT_CACHE_DIR=os.path.join(work, "cache"),
                               LIBSPLIT_SCHEDULER=sched, LIBSPLIT_OWNER_COMPUTES=oc, LIBSPLIT_TRACE=trace,
                               LIBSPLIT_WARMSTART="0")
                    ok, ms = run(cmd, env)
                    times, moved, all_ok = res[oc]
                    times.append(ms)
                    moved.extend(late_bytes(trace) if os.path.exists(trace) else [])
                    res[oc] = (times, moved, all_ok and ok)
            t0, b0, ok0 = res["0"]
            t1, b1, ok1 = res["1"]
            med = lambda v: statistics.median(v) if v else 0
            mean = lambda v: statistics.mean(v) if v else 0
            print(f"| {app} | {sched} | {med(t0):.0f} | {med(t1):.0f} | {med(b0):.0f} | {med(b1):.0f} | "
                  f"{mean(b0):.0f} | {mean(b1):.0f} | {'yes' if ok0 and ok1 else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
