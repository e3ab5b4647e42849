#!/usr/bin/env python3
"""How split launches move data between devices: a control of the shim off
against on (--control PINNED: through the buffers' host copies against through
pinned staging memory; --control DEVICE_COPIES: through the host copies
against copy commands between devices of one platform).

usage: bench_moves.py BUILD_DIR --gpu-name H100 [--control PINNED] [--devices type:gpu] [--apps 2mm,nbody]
         [--size large] [--iters 10] [--gpu-share 0.95] [--repeats 3] [--out DIR]

The shim runs with LIBSPLIT_SCHEDULER=static, LIBSPLIT_WHOLE=0 and
LIBSPLIT_SYNC_PREPARE=1 (every launch split from the first), the device whose
name contains --gpu-name (any device: the app's) taking --gpu-share of the
work-groups and the others the rest in equal parts; the app itself is pointed
at that device (--device). After one uncounted warm-up run natively and under
the shim, LIBSPLIT_<control>=0 and =1 alternate; the table gives median
time_ms, median process wall time, and from the trace of each run the bytes
moved (to devices + back to the host) and the milliseconds spent moving them
(read-backs and copies before the kernels, plus the devices' writes) summed
over the run. The native row is the app alone on that device.
"""
import argparse
import csv
import os
import statistics
import subprocess
import tempfile

from bench_common import run_app


def trace_totals(path):
    """Bytes moved, and milliseconds spent moving them: reading back to the
    host what a device lacked (ms_gather) plus the devices' writes
    (ms_transfer), summed over the run."""
    moved, transfer_ms = 0, 0.0
    if not os.path.exists(path):
        return 0, 0.0
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            moved += int(row["bytes_to_device"]) + int(row["bytes_to_host"])
            transfer_ms += float(row["ms_transfer"] or 0) + float(row.get("ms_gather") or 0)
    return moved, transfer_ms


def device_order(build, env):
    """(all device names in the apps' order, names libsplit chose, in its order), from
    libsplit-info."""
    out = subprocess.run([os.path.join(build, "libsplit", "libsplit-info")], env=env,
                         capture_output=True, text=True).stdout
    every, chosen = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) > 1 and ":" in parts[0] and parts[0].replace(":", "").isdigit():
            name = line[line.index(parts[0]) + len(parts[0]):].strip()
            for word in ("chosen", "not chosen", "skipped"):
                name = name.split("  " + word)[0].strip()
            every.append(name)
            if "chosen:" in line and "not chosen" not in line:
                chosen.append(name)
    return every, chosen


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--gpu-name", required=True)
    p.add_argument("--control", default="PINNED", choices=["PINNED", "DEVICE_COPIES"])
    p.add_argument("--apps", default="2mm,3mm,gemm,jacobi-2d,fdtd-2d,nbody")
    p.add_argument("--size", default="large")
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--gpu-share", type=float, default=0.95)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out", default="")
    p.add_argument("--devices", default="", help="LIBSPLIT_DEVICES for the shim runs (e.g. type:gpu)")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="libsplit-bench-moves-")
    base = {k: v for k, v in os.environ.items() if not k.startswith("LIBSPLIT_")}
    if a.devices:
        base["LIBSPLIT_DEVICES"] = a.devices
    every, names = device_order(a.build, base)
    # The apps number the devices of all platforms in order, like libsplit-info.
    gpu = next(i for i, n in enumerate(every) if a.gpu_name in n)
    home = names.index(every[gpu]) if every[gpu] in names else 0
    rest = (1 - a.gpu_share) / max(1, len(names) - 1)
    shares = ",".join(f"{a.gpu_share if i == home else rest:.4f}" for i in range(len(names)))
    shim = os.path.join(a.build, "libsplit", "libsplit.so")
    head = (f"LIBSPLIT_{a.control}=0 against 1; devices {names}, shares {shares}, --size {a.size} --iters {a.iters}, "
            f"{a.repeats} runs each (median)\n")
    rows = ["| app | native time ms | time ms =0 | time ms =1 | ratio | wall s native / =0 / =1 "
            "| MB moved per run (=1) | transfer ms =0 | transfer ms =1 | PASS |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    print(head)
    print("\n".join(rows), flush=True)
    raw = []
    for app in a.apps.split(","):
        cmd = [os.path.join(a.build, "bench", "bin", app), "--size", a.size, "--iters", str(a.iters),
               "--device", str(gpu), "--no-check"]
        res = {k: {"ms": [], "wall": [], "mb": [], "tms": [], "ok": True} for k in ("native", "0", "1")}
        # Warm-up (drivers' kernel caches, libsplit-cc's cache), not counted.
        run_app(cmd, base)
        run_app(cmd, dict(base, LD_PRELOAD=shim, LIBSPLIT_CACHE_DIR=os.path.join(work, "cache"),
                      LIBSPLIT_SCHEDULER="static", LIBSPLIT_PROPORTIONS=shares, LIBSPLIT_WHOLE="0",
                      LIBSPLIT_SYNC_PREPARE="1"))
        for i in range(a.repeats):
            for mode in ("native", "0", "1"):
                env = dict(base)
                trace = os.path.join(work, f"{app}-{mode}-{i}.csv")
                if mode != "native":
                    env.update(LD_PRELOAD=shim, LIBSPLIT_CACHE_DIR=os.path.join(work, "cache"),
                               LIBSPLIT_SCHEDULER="static", LIBSPLIT_PROPORTIONS=shares,
                               LIBSPLIT_WHOLE="0", LIBSPLIT_SYNC_PREPARE="1", **{f"LIBSPLIT_{a.control}": mode},
                               LIBSPLIT_TRACE=trace, LIBSPLIT_WARMSTART="0")
                r = run_app(cmd, env)
                ok, ms, wall, err = r.ok, r.time_ms, r.wall, r.stderr
                mb, tms = trace_totals(trace)
                r = res[mode]
                r["ms"].append(ms); r["wall"].append(wall); r["mb"].append(mb / 1e6); r["tms"].append(tms)
                r["ok"] = r["ok"] and ok
                raw.append([app, mode, i, ms, f"{wall:.3f}", mb, f"{tms:.1f}", ok])
                if not ok:
                    print(f"  {app} {mode}: failed\n{err[-2000:]}", flush=True)
        med = {k: {f: statistics.median(v[f]) for f in ("ms", "wall", "mb", "tms")} for k, v in res.items()}
        ok = all(v["ok"] for v in res.values())
        row = (f"| {app} | {med['native']['ms']:.1f} | {med['0']['ms']:.1f} | {med['1']['ms']:.1f} | "
               f"{med['1']['ms'] / med['0']['ms']:.2f} | {med['native']['wall']:.2f} / {med['0']['wall']:.2f} / "
               f"{med['1']['wall']:.2f} | {med['1']['mb']:.1f} | {med['0']['tms']:.0f} | {med['1']['tms']:.0f} | "
               f"{'yes' if ok else 'NO'} |")
        rows.append(row)
        print(row, flush=True)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, f"{a.control.lower()}.md"), "w") as f:
            f.write(head + "\n" + "\n".join(rows) + "\n")
        with open(os.path.join(a.out, f"{a.control.lower()}.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["app", a.control.lower(), "run", "time_ms", "wall_s", "bytes_moved", "transfer_ms", "pass"])
            w.writerows(raw)


if __name__ == "__main__":
    main()
