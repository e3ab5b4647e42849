#!/usr/bin/env python3
"""The no-regret check: each bench app natively on the device it chose versus
the same binary under the shim with DEFAULT settings (no LIBSPLIT_* variable
but the cache directory), side by side in one run, several repetitions, medians.

For every app and preset it measures, alternating native and shim runs:
  - time_ms, the app's own kernel-loop time (what the issue's guarantee is about);
  - the process wall time, start to exit, with a warm libsplit cache, and once
    with a cold one (empty LIBSPLIT_CACHE_DIR).
It prints a markdown table with the ratios shim/native and writes it, with a
CSV of every run, to --out.

  scripts/bench_vs_native.py --bin-dir build/bench/bin --shim build/libsplit/libsplit.so \
      --device 1 --preset medium,large --iters 30 --repeat 3 --out results/
"""
import argparse
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import ALL_APPS as APPS


def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LIBSPLIT_")}
    env.update(extra)
    return env


def run_once(exe, args, env, timeout, log_path=None):
    start = time.monotonic()
    try:
        proc = subprocess.run([str(exe)] + args, env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - start, "timeout"
    wall = time.monotonic() - start
    if log_path:
        log_path.write_text(proc.stdout + proc.stderr)
    time_ms = None
    status = "PASS" if proc.returncode == 0 else f"exit {proc.returncode}"
    for line in proc.stdout.splitlines():
        if line.startswith("time_ms="):
            time_ms = float(line.split("=", 1)[1])
        if line.strip() == "FAIL":
            status = "FAIL"
    if time_ms is None and status == "PASS":
        status = "no time_ms"
    return time_ms, wall, status


def parse_extra_env(text):
    """KEY=VALUE pairs separated by commas; a comma not followed by KEY= belongs
    to the value (LIBSPLIT_DEVICES=1:0,0:0 is one variable: split at every comma
    it named the H100 alone, and the shim forwarded every call)."""
    env = {}
    for item in re.split(r",(?=[A-Za-z_][A-Za-z0-9_]*=)", text):
        if not item:
            continue
        key, eq, value = item.partition("=")
        if not eq or not key:
            sys.exit(f"bench_vs_native: --extra-env: '{item}' is not KEY=VALUE")
        env[key] = value
    return env


def split_summary(exe, args, env, timeout):
    """One more shim run with LIBSPLIT_LOG=1: how many launches were split and
    the share of work-groups each runtime device took in them."""
    try:
        proc = subprocess.run([str(exe)] + args, env={**env, "LIBSPLIT_LOG": "1"},
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    launches = split = probes = 0
    groups = {}
    for line in proc.stderr.splitlines():
        if line.startswith("libsplit: probe of launch"):
            probes += 1
        if not line.startswith("libsplit: launch "):
            continue
        launches += 1
        if " split over " not in line:
            continue
        split += 1
        for part in line.split("| ")[1:]:
            words = part.split()
            if len(words) >= 3 and words[0].startswith("dev") and words[2] == "groups":
                groups[words[0]] = groups.get(words[0], 0) + int(words[1])
    total = sum(groups.values())
    shares = " ".join(f"{d} {100 * g / total:.0f}%" for d, g in sorted(groups.items())) if total else ""
    return f"{split}/{launches} split{' (' + shares + ')' if shares else ''}, {probes} probes"


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", required=True, type=Path)
    ap.add_argument("--shim", required=True, type=Path)
    ap.add_argument("--cc", type=Path, help="libsplit-cc (sets LIBSPLIT_CC; default: the shim finds it)")
    ap.add_argument("--device", type=int, default=0, help="the device the app chooses (--device of the apps)")
    ap.add_argument("--apps", default=",".join(APPS))
    ap.add_argument("--preset", default="medium,large")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="keep the apps' CPU reference check")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--extra-env", default="",
                    help="KEY=VALUE,... added to the shim runs only (a value may hold commas: "
                         "LIBSPLIT_DEVICES=1:0,0:0,LIBSPLIT_LOG=1)")
    ap.add_argument("--logs", action="store_true",
                    help="shim runs with LIBSPLIT_LOG=1, their output kept in OUT/logs/ "
                         "(to explain an outlier; the log lines cost a little host time)")
    a = ap.parse_args()
    if not a.shim.exists():
        sys.exit(f"bench_vs_native: {a.shim} does not exist")
    a.out.mkdir(parents=True, exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="libsplit-cache-"))
    shim_env = {"LD_PRELOAD": str(a.shim.resolve()), "LIBSPLIT_CACHE_DIR": str(cache)}
    if a.cc:
        shim_env["LIBSPLIT_CC"] = str(a.cc.resolve())
    shim_env.update(parse_extra_env(a.extra_env))
    logs = a.out / "logs" if a.logs else None
    if logs:
        logs.mkdir(exist_ok=True)
        shim_env["LIBSPLIT_LOG"] = "1"
    rows = []
    # "shim max ms": the slowest warm run, which the median hides (a one-off
    # stall of the first warm run on 2 H100, 2026-11-25).
    table = ["| app | preset | native ms | shim ms | ratio | shim max ms | wall native s | wall shim warm s | "
             "warm - native ms | wall shim cold s | cold - native ms | status | launches (one more run, LOG=1) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for preset in a.preset.split(","):
        for app in a.apps.split(","):
            exe = a.bin_dir / app
            if not exe.exists():
                print(f"skip {app}: {exe} missing", flush=True)
                continue
            args = ["--size", preset, "--iters", str(a.iters), "--device", str(a.device)]
            if not a.check:
                args.append("--no-check")
            # One native run first, not measured: the drivers' own caches (NVIDIA's
            # compute cache, PoCL's kernels) then start as warm for the cold shim
            # run as for the measured native runs. Without it the first app of a
            # table on a fresh machine paid ~1.5 s of driver start in its cold
            # column (2mm medium: +1.12 s on 2026-11-24, +1.50 s on 2026-11-25).
            run_once(exe, args, clean_env({}), a.timeout)
            # Cold: an empty cache directory for this app's first shim run.
            cold_dir = Path(tempfile.mkdtemp(prefix="libsplit-cold-"))
            _, cold_wall, cold_status = run_once(
                exe, args, clean_env({**shim_env, "LIBSPLIT_CACHE_DIR": str(cold_dir)}), a.timeout,
                logs / f"{app}-{preset}-cold.txt" if logs else None)
            shutil.rmtree(cold_dir, ignore_errors=True)
            # Warm-up of the shared cache (not measured).
            run_once(exe, args, clean_env(shim_env), a.timeout)
            native, shim = [], []
            statuses = set() if cold_status in ("PASS",) else {f"cold {cold_status}"}
            for rep in range(a.repeat):
                for kind, env in (("native", clean_env({})), ("shim", clean_env(shim_env))):
                    log = logs / f"{app}-{preset}-{kind}-{rep}.txt" if logs and kind == "shim" else None
                    t, wall, status = run_once(exe, args, env, a.timeout, log)
                    (native if kind == "native" else shim).append((t, wall))
                    if status not in ("PASS",):
                        statuses.add(f"{kind} {status}")
                    rows.append({"app": app, "preset": preset, "config": kind, "rep": rep,
                                 "time_ms": t, "wall_s": wall, "status": status})
            rows.append({"app": app, "preset": preset, "config": "shim-cold", "rep": 0,
                         "time_ms": None, "wall_s": cold_wall, "status": cold_status})
            splits = split_summary(exe, args, clean_env(shim_env), a.timeout)
            n_ms, s_ms = median([t for t, _ in native]), median([t for t, _ in shim])
            n_wall, s_wall = median([w for _, w in native]), median([w for _, w in shim])
            ratio = s_ms / n_ms if n_ms == n_ms and n_ms > 0 else float("nan")
            s_max = max([t for t, _ in shim if t is not None], default=float("nan"))
            line = (f"| {app} | {preset} | {n_ms:.1f} | {s_ms:.1f} | {ratio:.3f} | {s_max:.1f} | {n_wall:.2f} | "
                    f"{s_wall:.2f} | {(s_wall - n_wall) * 1e3:+.0f} | {cold_wall:.2f} | "
                    f"{(cold_wall - n_wall) * 1e3:+.0f} | {'PASS' if not statuses else '; '.join(sorted(statuses))} | {splits} |")
            table.append(line)
            print(line, flush=True)
    shutil.rmtree(cache, ignore_errors=True)
    (a.out / "vs_native.md").write_text("\n".join(table) + "\n")
    with open(a.out / "vs_native.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["app", "preset", "config", "rep", "time_ms", "wall_s", "status"])
        w.writeheader()
        w.writerows(rows)
    print("\n".join(table))


if __name__ == "__main__":
    main()
