#!/usr/bin/env python3
"""Issue 10 before/after: time and bytes moved per launch of the apps whose
splitting issue 10 changed, each feature off ("before") against on ("after"),
under a forced split (LIBSPLIT_WHOLE=0, LIBSPLIT_SYNC_PREPARE=1: every launch
that may split is split from the first), per scheduler.

  app                                   feature (before = 0, after = 1)
  jacobi-1d jacobi-2d fdtd-2d
  convolution-2d convolution-3d         LIBSPLIT_OWNER_COMPUTES
  spmv                                  LIBSPLIT_INDIRECT
  histogram                             LIBSPLIT_REDUCTIONS (0: the kernel runs whole)

usage (from the repository root, build folder ./build):
  scripts/bench_issue10.py --pocl-devices "pthread basic" --size medium --out bench/results/X
  scripts/bench_issue10.py --build .devpack --device-name H100 --size large --out DIR  # GPU machine

For each app: one uncounted warm-up natively and under the shim (kernel and
libsplit-cc caches), then `--repeats` rounds of: native (the app alone on
--device, no shim), then for each scheduler before and after, alternating.
The table gives median time_ms, the native median, the mean bytes moved per
launch (trace columns bytes_to_device + bytes_to_host, summed over the
launch's devices) over all launches of all runs, and the mean and median
over the second half of each run's launches (steady state; the median shows
the typical launch, the mean the rare large moves), the launches split (more than one device
ran work-groups) per run, and whether every run PASSed. It is printed and
written, with a CSV of every run and the environment, to --out.
"""
import argparse
import csv
import datetime
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_common import run_app, trace_launches

ROOT = Path(__file__).resolve().parent.parent

STENCILS = ["jacobi-1d", "jacobi-2d", "fdtd-2d", "convolution-2d", "convolution-3d"]
FEATURE = {**{a: "OWNER_COMPUTES" for a in STENCILS}, "spmv": "INDIRECT", "histogram": "REDUCTIONS"}
DEFAULT_APPS = STENCILS + ["spmv", "histogram"]


def trace_stats(path):
    """Per-run figures from a LIBSPLIT_TRACE file: launches, launches split
    (work-groups on more than one device), bytes moved over all launches and
    over the second half of them."""
    launches = [l for _, l in trace_launches(path)]
    late = launches[len(launches) // 2:]
    return {
        "launches": len(launches),
        "split": sum(1 for l in launches if l.split()),
        "bytes": sum(l.bytes_moved for l in launches),
        "late_launches": len(late),
        "late_bytes": sum(l.bytes_moved for l in late),
        "late_each": [l.bytes_moved for l in late],
    }


DEVICE_NAMES_SNIPPET = r"""
import ctypes
cl = ctypes.CDLL("libOpenCL.so.1")
n = ctypes.c_uint(0)
if cl.clGetPlatformIDs(0, None, ctypes.byref(n)) == 0 and n.value:
    plats = (ctypes.c_void_p * n.value)()
    cl.clGetPlatformIDs(n.value, plats, None)
    for p in plats:
        d = ctypes.c_uint(0)
        if cl.clGetDeviceIDs(ctypes.c_void_p(p), ctypes.c_uint64(0xFFFFFFFF), 0, None, ctypes.byref(d)) or not d.value:
            continue
        devs = (ctypes.c_void_p * d.value)()
        cl.clGetDeviceIDs(ctypes.c_void_p(p), ctypes.c_uint64(0xFFFFFFFF), d.value, devs, None)
        for dev in devs:
            buf = ctypes.create_string_buffer(256)
            cl.clGetDeviceInfo(ctypes.c_void_p(dev), ctypes.c_uint(0x102B), 255, buf, None)  # CL_DEVICE_NAME
            print(buf.value.decode(errors="replace"))
"""


def device_names(env):
    """Names of the devices of all platforms, in the order the apps number them."""
    r = subprocess.run([sys.executable, "-c", DEVICE_NAMES_SNIPPET], env=env, capture_output=True, text=True)
    return r.stdout.splitlines()


def fmt_bytes(b):
    if b != b:  # nan
        return "-"
    for unit, scale in (("MB", 1e6), ("KB", 1e3)):
        if b >= scale:
            return f"{b / scale:.2f} {unit}"
    return f"{b:.0f} B"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(ROOT / "build"), help="build folder (default ./build)")
    p.add_argument("--shim", default="", help="libsplit.so (default BUILD/libsplit/libsplit.so)")
    p.add_argument("--cc", default="", help="libsplit-cc (default BUILD/passes/libsplit-cc when present)")
    p.add_argument("--bin-dir", default="", help="bench apps (default BUILD/bench/bin)")
    p.add_argument("--apps", default=",".join(DEFAULT_APPS))
    p.add_argument("--schedulers", default="uniform,broyden")
    p.add_argument("--device", type=int, default=0,
                   help="the apps' --device (index over the devices of all platforms)")
    p.add_argument("--device-name", default="",
                   help="instead of --device: the first device whose name contains this (e.g. H100)")
    p.add_argument("--pocl-devices", default=None, help="POCL_DEVICES for every run (default: as set)")
    p.add_argument("--libsplit-devices", default="", help="LIBSPLIT_DEVICES for the shim runs")
    p.add_argument("--size", default="medium")
    p.add_argument("--size-for", default="", help="per-app sizes, e.g. fdtd-2d=small,spmv=small")
    p.add_argument("--iters", type=int, default=0, help="--iters of every app (default: the app's own)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-check", action="store_true", help="pass --no-check to the apps")
    p.add_argument("--timeout", type=int, default=600, help="seconds per run")
    p.add_argument("--out", default="", help="folder for results.md, results.csv (default: print only)")
    a = p.parse_args()

    build = Path(a.build)
    shim = Path(a.shim or build / "libsplit" / "libsplit.so").resolve()
    bin_dir = Path(a.bin_dir or build / "bench" / "bin").resolve()
    cc = Path(a.cc).resolve() if a.cc else (build / "passes" / "libsplit-cc").resolve()
    apps = [x for x in a.apps.split(",") if x]
    for app in apps:
        if app not in FEATURE:
            sys.exit(f"{app}: no issue-10 feature known for it (known: {', '.join(FEATURE)})")
        if not (bin_dir / app).exists():
            sys.exit(f"{bin_dir / app} is missing: build the bench apps")
    if not shim.exists():
        sys.exit(f"{shim} is missing")
    sizes = {app: a.size for app in apps}
    for item in filter(None, a.size_for.split(",")):
        app, size = item.split("=")
        sizes[app] = size
    schedulers = [s for s in a.schedulers.split(",") if s]

    work = Path(tempfile.mkdtemp(prefix="libsplit-bench-issue10-"))
    base = {k: v for k, v in os.environ.items() if not k.startswith("LIBSPLIT_") and k != "LD_PRELOAD"}
    if a.pocl_devices is not None:
        base["POCL_DEVICES"] = a.pocl_devices
    names = device_names(base)
    if a.device_name:
        match = [i for i, n in enumerate(names) if a.device_name in n]
        if not match:
            sys.exit(f"no device named *{a.device_name}* among {names}")
        a.device = match[0]
    shim_base = dict(base, LD_PRELOAD=str(shim), LIBSPLIT_CACHE_DIR=str(work / "cache"),
                     LIBSPLIT_WHOLE="0", LIBSPLIT_SYNC_PREPARE="1", LIBSPLIT_WARMSTART="0")
    if cc.exists():
        shim_base["LIBSPLIT_CC"] = str(cc)
    if a.libsplit_devices:
        shim_base["LIBSPLIT_DEVICES"] = a.libsplit_devices

    # The devices as the shim sees them (libsplit-info next to the shim).
    info = shim.parent / "libsplit-info"
    devices_text = ""
    if info.exists():
        env = {k: v for k, v in shim_base.items() if k != "LD_PRELOAD"}
        devices_text = subprocess.run([str(info)], env=env, capture_output=True, text=True).stdout

    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    head = [
        f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}, commit {commit}",
        f"- command: `{' '.join(shlex.quote(x) for x in [Path(sys.argv[0]).name] + sys.argv[1:])}`",
        f"- devices (all platforms, in order): {', '.join(f'{i}: {n}' for i, n in enumerate(names))}",
        f"- POCL_DEVICES: `{base.get('POCL_DEVICES', '(unset)')}`, apps on --device {a.device}"
        + (f", LIBSPLIT_DEVICES `{a.libsplit_devices}`" if a.libsplit_devices else ""),
        "- shim runs: LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 LIBSPLIT_WARMSTART=0 LIBSPLIT_SCHEDULER=<scheduler>; "
        "before = LIBSPLIT_<feature>=0, after = 1 (the default)",
        f"- {a.repeats} runs of each configuration, before/after alternating; times: median time_ms (kernel loop); "
        "bytes: per launch (bytes_to_device + bytes_to_host of the trace, all devices): mean over all launches, mean "
        "and median over the second half of each run's launches; "
        "split: launches run on more than one device / launches, per run (median)",
    ]
    print("\n".join(head) + "\n", flush=True)
    columns = ["app", "size", "feature", "scheduler", "native ms", "before ms", "after ms", "after/before",
               "bytes/launch before", "after", "2nd half before", "after", "2nd half median before", "after",
               "split before", "split after", "PASS"]
    table = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    print("\n".join(table), flush=True)
    raw = []
    failures = []

    for app in apps:
        feature = FEATURE[app]
        cmd = [str(bin_dir / app), "--size", sizes[app], "--device", str(a.device)]
        if a.iters:
            cmd += ["--iters", str(a.iters)]
        if a.no_check:
            cmd.append("--no-check")
        # Warm-up, not counted: PoCL's / the driver's kernel cache, libsplit-cc's cache.
        warm = [str(bin_dir / app), "--size", sizes[app], "--device", str(a.device), "--iters", "1", "--no-check"]
        run_app(warm, base, a.timeout)
        run_app(warm, dict(shim_base, LIBSPLIT_SCHEDULER=schedulers[0]), a.timeout)

        native = []
        res = {(s, v): [] for s in schedulers for v in ("0", "1")}
        for i in range(a.repeats):
            r = run_app(cmd, base, a.timeout)
            status, ms, err = r.status, r.time_ms, r.stderr[-3000:]
            native.append(ms)
            raw.append([app, sizes[app], feature, "native", "", i, ms, status, "", "", "", "", "", ""])
            if status not in ("PASS", "SKIPPED"):
                failures.append(f"{app} native run {i}: {status}\n{err}")
            for sched in schedulers:
                for value in ("0", "1"):
                    trace = work / f"{app}-{sched}-{value}-{i}.csv"
                    env = dict(shim_base, LIBSPLIT_SCHEDULER=sched, LIBSPLIT_TRACE=str(trace),
                               **{f"LIBSPLIT_{feature}": value})
                    r = run_app(cmd, env, a.timeout)
                    status, ms, err = r.status, r.time_ms, r.stderr[-3000:]
                    t = trace_stats(trace)
                    res[(sched, value)].append((status, ms, t))
                    raw.append([app, sizes[app], feature, sched, value, i, ms, status, t["launches"], t["split"],
                                t["bytes"], t["late_launches"], t["late_bytes"],
                                statistics.median(t["late_each"]) if t["late_each"] else ""])
                    if status not in ("PASS", "SKIPPED"):
                        failures.append(f"{app} {sched} {feature}={value} run {i}: {status}\n{err}")

        def figures(runs):
            ms = [r[1] for r in runs if r[1] == r[1]]
            launches = sum(r[2]["launches"] for r in runs)
            late = sum(r[2]["late_launches"] for r in runs)
            return {
                "ms": statistics.median(ms) if ms else float("nan"),
                "bpl": sum(r[2]["bytes"] for r in runs) / launches if launches else float("nan"),
                "late": sum(r[2]["late_bytes"] for r in runs) / late if late else float("nan"),
                "late_median": statistics.median(sum((r[2]["late_each"] for r in runs), []) or [float("nan")]),
                "split": f"{statistics.median(r[2]['split'] for r in runs):.0f}/"
                         f"{statistics.median(r[2]['launches'] for r in runs):.0f}",
                "ok": all(r[0] in ("PASS", "SKIPPED") for r in runs),
            }

        native_ms = statistics.median([m for m in native if m == m] or [float("nan")])
        for sched in schedulers:
            b, f = figures(res[(sched, "0")]), figures(res[(sched, "1")])
            ok = b["ok"] and f["ok"] and all(r[7] in ("PASS", "SKIPPED") for r in raw
                                             if r[0] == app and r[3] == "native")
            row = [app, sizes[app], feature, sched, f"{native_ms:.1f}", f"{b['ms']:.1f}", f"{f['ms']:.1f}",
                   f"{f['ms'] / b['ms']:.2f}" if b["ms"] else "-", fmt_bytes(b["bpl"]), fmt_bytes(f["bpl"]),
                   fmt_bytes(b["late"]), fmt_bytes(f["late"]), fmt_bytes(b["late_median"]),
                   fmt_bytes(f["late_median"]), b["split"], f["split"], "yes" if ok else "NO"]
            line = "| " + " | ".join(row) + " |"
            table.append(line)
            print(line, flush=True)

    for failure in failures:
        print(f"\nFAILED: {failure}", file=sys.stderr)
    if a.out:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.md").write_text("\n".join(head) + "\n\n" + "\n".join(table) + "\n")
        with open(out / "results.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["app", "size", "feature", "scheduler", "value", "run", "time_ms", "status", "launches",
                        "launches_split", "bytes_moved", "late_launches", "late_bytes_moved",
                        "late_median_bytes_per_launch"])
            w.writerows(raw)
        if devices_text:
            (out / "devices.txt").write_text(devices_text)
        if failures:
            (out / "failures.txt").write_text("\n\n".join(failures) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
