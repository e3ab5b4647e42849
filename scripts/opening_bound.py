#!/usr/bin/env python3
"""The best loop time a split could reach given when the devices outside the
app's context join, measured in the same call as the scaling table.

The driver opens GPUs one at a time (NVIDIA: ~110-150 ms each, two threads
opening two GPUs end together), so the GPUs the app's context leaves out join
the loop one after another. With a loop of L ms on the app's GPU alone and
the k-1 other devices joining t_1 <= ... <= t_(k-1) ms into it, no split of
the loop's work over those k devices ends before

    T_k = (L + t_1 + ... + t_(k-1)) / k

(device i works at most T - t_i of the T ms; perfect shares, free moves), and
the bound on the speed-up is L / min_k T_k. For each app this script runs it
natively (L: the median of --repeat runs, or the native median of a
bench_scaling.py CSV) and once under the shim with every device opened at the
app's first context (LIBSPLIT_OPEN_DEVICES=start, LIBSPLIT_LOG=2), reading the
join times from the shim's "devN opened in" lines, stamped as they arrive.
The loop's start is taken from the shim's line of the app's first launch
(written once that launch completed: its line's time less its kernel time);
without it, from the app's time_ms line less time_ms. Not from the time_ms
line first: the app prints it after reading its result, and a read can wait
for an opening in progress (the driver stalls other calls while it opens a
GPU: mandelbrot's read waited 130 ms for the fourth GPU on 4 H200).

  scripts/opening_bound.py --bin-dir .devpack/bench/bin --shim .devpack/libsplit/libsplit.so \\
      --device 1 --devices 1:0,1:1,1:2,1:3 --apps matmul,gemm --out OUT [--scaling-csv CSV]

Writes OUT/bound.md (and prints it) and OUT/<app>-log2.txt (the stamped logs).
--from-logs DIR runs nothing: the bound again from DIR/<app>-log2.txt[.gz] of
an earlier run (with --scaling-csv for L).
Exits 1 when a run fails or a log shows no opening.
"""
import argparse
import csv
import gzip
import os
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import run_app  # noqa: E402
from timestamp_run import stamped_run  # noqa: E402

OPENED = re.compile(r"libsplit: (dev\d+(?:, dev\d+)*) opened in \d+ ms")
# The first launch's line and its (first) device's kernel time.
FIRST_LAUNCH = re.compile(r"libsplit: launch 1 \S+ dim .*?\| dev\d+ \d+ groups ([\d.]+) ms")


def joins_into_loop(lines):
    """(join offsets in ms into the loop, sorted; the app's time_ms) from a stamped LOG=2 run:
    (seconds, '!' for stderr or ' ' for stdout, line) as timestamp_run.stamped_run gives them."""
    end = next(((t, float(l.split("=", 1)[1])) for t, s, l in lines if s == " " and l.startswith("time_ms=")),
               None)
    if end is None:
        return None, None
    first = next(((t, float(m.group(1))) for t, s, l in lines if s == "!" for m in [FIRST_LAUNCH.search(l)] if m),
                 None)
    loop_start = first[0] - first[1] / 1000 if first else end[0] - end[1] / 1000
    joins = []
    for t, s, l in lines:
        m = OPENED.search(l) if s == "!" else None
        if m:
            joins += [max(0.0, (t - loop_start) * 1000)] * len(m.group(1).split(", "))
    return sorted(joins), end[1]


def bound(loop_ms, joins):
    """(best device count, best loop time in ms) for a loop of loop_ms with these joins."""
    best = (1, loop_ms)
    for k in range(2, len(joins) + 2):
        t = (loop_ms + sum(joins[:k - 1])) / k
        if t < best[1]:
            best = (k, t)
    return best


def read_stamped(path):
    """[(seconds, stream, line)] of a log this script wrote (gzipped or not)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    lines = []
    with opener(path, "rt") as f:
        for l in f:
            m = re.match(r"\s*([\d.]+) (.) (.*)", l.rstrip("\n"))
            if m:
                lines.append((float(m[1]), m[2], m[3]))
    return lines


def native_medians(path):
    """app -> median native time_ms of a bench_scaling.py CSV."""
    per = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["config"].endswith("(native)") and row["status"] in ("PASS", "SKIPPED"):
                per.setdefault(row["app"], []).append(float(row["time_ms"]))
    return {app: statistics.median(v) for app, v in per.items()}


def shim_run(a, app, cmd, cache):
    """The shim run with every device opened at the app's context, stamped (kept as OUT/<app>-log2.txt)."""
    env = dict(os.environ, LD_PRELOAD=a.shim, LIBSPLIT_DEVICES=a.devices, LIBSPLIT_OPEN_DEVICES="start",
               LIBSPLIT_LOG="2", LIBSPLIT_CACHE_DIR=str(cache))
    run_app(cmd, {k: v for k, v in env.items() if k != "LIBSPLIT_LOG"}, a.timeout)  # fills the cache
    lines = []
    rc = stamped_run(cmd, lambda t, mark, text: lines.append((t, mark, text)), env, a.timeout)
    with open(a.out / f"{app}-log2.txt", "w") as f:
        f.writelines(f"{t:8.3f} {s} {l}\n" for t, s, l in lines)
    return rc, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", type=Path)
    ap.add_argument("--shim")
    ap.add_argument("--device", default="0", help="the app's --device (its own GPU)")
    ap.add_argument("--devices", required=True, help="LIBSPLIT_DEVICES for the shim run, the app's first")
    ap.add_argument("--apps", default="matmul,syr2k,histogram,syrk,3mm,2mm,gemm,mandelbrot,ep,nbody")
    ap.add_argument("--preset", default="large")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=1, help="native runs per app (without --scaling-csv)")
    ap.add_argument("--scaling-csv", type=Path, help="take L from this bench_scaling.py CSV's native runs")
    ap.add_argument("--from-logs", type=Path, help="run nothing: read DIR/<app>-log2.txt[.gz] (needs --scaling-csv)")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out", required=True, type=Path)
    a = ap.parse_args()
    if a.from_logs and not a.scaling_csv:
        ap.error("--from-logs needs --scaling-csv (the native loop times)")
    if not a.from_logs and (not a.bin_dir or not a.shim):
        ap.error("--bin-dir and --shim are needed unless --from-logs is given")
    a.out.mkdir(parents=True, exist_ok=True)
    known = native_medians(a.scaling_csv) if a.scaling_csv else {}
    cache = a.out / "cache"
    rows, failed = [], []
    for app in [x for x in a.apps.split(",") if x]:
        if a.from_logs:
            if app not in known:
                failed.append(f"{app}: no native run in {a.scaling_csv}")
                continue
            loop_ms = known[app]
            logs = [a.from_logs / f"{app}-log2.txt{z}" for z in ("", ".gz")]
            log = next((l for l in logs if l.exists()), None)
            if log is None:
                failed.append(f"{app}: no {logs[0]}[.gz]")
                continue
            rc, lines = 0, read_stamped(log)
        else:
            cmd = [str(a.bin_dir / app), "--size", a.preset, "--iters", str(a.iters), "--device", a.device,
                   "--no-check"]
            if app in known:
                loop_ms = known[app]
            else:
                runs = [run_app(cmd, dict(os.environ), a.timeout) for _ in range(a.repeat)]
                if not all(r.ok for r in runs):
                    failed.append(f"{app} native: {[r.status for r in runs]}")
                    continue
                loop_ms = statistics.median(r.time_ms for r in runs)
            rc, lines = shim_run(a, app, cmd, cache)
        joins, shim_ms = joins_into_loop(lines)
        if rc != 0 or joins is None:
            failed.append(f"{app} under the shim: exit {rc}, time_ms {'missing' if joins is None else 'read'}")
            continue
        if not joins:
            failed.append(f"{app}: no device opened in the background (no 'devN opened in' line)")
            continue
        k, best = bound(loop_ms, joins)
        rows.append(f"| {app} | {loop_ms:.1f} ms | {', '.join(f'{j:.0f}' for j in joins)} | {k} | "
                    f"{best:.1f} ms | {loop_ms / best:.2f}x | {len(joins) + 1}x | {loop_ms / shim_ms:.2f}x |")
    md = ("| app | L (native loop) | joins into the loop (ms) | best device count | bound on the loop | "
          "bound on the speed-up | ideal | this run (every device opened at start) |\n"
          "|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    (a.out / "bound.md").write_text(
        f"The loop time the openings allow (scripts/opening_bound.py), preset {a.preset}, {a.iters} iterations, "
        f"devices {a.devices}: T_k = (L + the first k-1 joins) / k, the best k.\n\n" + md)
    print(md, end="")
    for f in failed:
        print(f"FAILED: {f}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
