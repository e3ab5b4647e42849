#!/usr/bin/env python3
"""The multi-GPU scaling table: each bench app natively on one GPU against the
same binary under the shim with DEFAULT settings over the first 1, 2, ... N
GPUs (LIBSPLIT_DEVICES), each also with the CPU added, side by side in one
run (rounds alternate the configurations, each round starting one later),
medians and maxima of the app's own time_ms. Writes OUT/scaling.md (speed-up over one GPU, max/median of
each cell; process wall time; the steady state: the median iteration of the
last quarter of the loop, once every device that joins has joined),
OUT/scaling.csv (every run) and OUT/scaling.svg (speed-up against GPUs, the
CPU variants dashed, the ideal line dotted).

  scripts/bench_scaling.py --bin-dir .devpack/bench/bin --shim .devpack/libsplit/libsplit.so \\
      --device 1 --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 --apps matmul,gemm,ep --preset large \\
      --iters 100 --repeat 3 --out OUT
  scripts/bench_scaling.py --gpus 1:0,1:1,1:2,1:3 --cpu 0:0 --counts 2,4 --out ALL --merge A/scaling.csv B/scaling.csv

--gpus lists the GPUs as LIBSPLIT_DEVICES names them (platform:device), the
app's own first; --device is the app's --device for that first GPU. Every
configuration runs once untimed first (fills the libsplit cache: the table
is of warm runs). Exits 1 when a run fails (a crash, a timeout, FAIL).
"""
import argparse
import csv
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import run_app  # noqa: E402


def steady_ms(iter_ms):
    """The median iteration of the last quarter of the loop (nan without --per-iter lines)."""
    tail = iter_ms[len(iter_ms) - max(1, len(iter_ms) // 4):]
    return statistics.median(tail) if tail else float("nan")


def configs(gpus, cpu, counts=None):
    """(name, LIBSPLIT_DEVICES or None for native, GPU count, with CPU)."""
    out = [("1 GPU (native)", None, 1, False)]
    if cpu:
        out.append(("1 GPU + CPU", f"{gpus[0]},{cpu}", 1, True))
    for k in counts or range(2, len(gpus) + 1):
        if k < 2 or k > len(gpus):
            continue
        out.append((f"{k} GPUs", ",".join(gpus[:k]), k, False))
        if cpu:
            out.append((f"{k} GPUs + CPU", ",".join(gpus[:k] + [cpu]), k, True))
    return out


def env_for(shim, devices, cache):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LIBSPLIT_")}
    if devices is None:
        env.pop("LD_PRELOAD", None)
        return env
    env.update({"LD_PRELOAD": str(shim), "LIBSPLIT_DEVICES": devices, "LIBSPLIT_CACHE_DIR": cache})
    return env


def svg_plot(table, apps, max_gpus, path):
    """Speed-up (y) against GPUs (x), one colour per app; solid without the
    CPU, dashed with it; the ideal line dotted."""
    w, h, left, bottom, top, right = 640, 420, 60, 50, 20, 170
    ymax = max([max_gpus] + [v for app in apps for v in table[app].values() if v == v]) * 1.05
    px = lambda k: left + (k - 1) / max(1, max_gpus - 1) * (w - left - right)
    py = lambda s: h - bottom - s / ymax * (h - bottom - top)
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
               "#7f7f7f", "#bcbd22"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
             f'<rect width="{w}" height="{h}" fill="white"/>',
             f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" stroke="black"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
             f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">GPUs</text>',
             f'<text x="14" y="{(top + h - bottom) / 2}" transform="rotate(-90 14 {(top + h - bottom) / 2})" '
             f'text-anchor="middle">speed-up over one GPU</text>']
    for k in range(1, max_gpus + 1):
        parts.append(f'<text x="{px(k)}" y="{h - bottom + 16}" text-anchor="middle">{k}</text>')
    step = 0.5 if ymax <= 4 else 1.0
    s = 0.0
    while s <= ymax:
        parts.append(f'<text x="{left - 6}" y="{py(s) + 4}" text-anchor="end">{s:g}</text>')
        parts.append(f'<line x1="{left}" y1="{py(s)}" x2="{w - right}" y2="{py(s)}" stroke="#eee"/>')
        s += step
    parts.append(f'<line x1="{px(1)}" y1="{py(1)}" x2="{px(max_gpus)}" y2="{py(max_gpus)}" '
                 f'stroke="gray" stroke-dasharray="2,3"/>')
    for i, app in enumerate(apps):
        colour = colours[i % len(colours)]
        for cpu in (False, True):
            points = [(k, table[app].get((k, cpu))) for k in range(1, max_gpus + 1)]
            points = [(k, v) for k, v in points if v is not None and v == v]
            if len(points) < 1:
                continue
            dash = ' stroke-dasharray="6,4"' if cpu else ""
            path_d = " ".join(f"{'M' if j == 0 else 'L'}{px(k):.1f},{py(v):.1f}" for j, (k, v) in enumerate(points))
            parts.append(f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
            for k, v in points:
                parts.append(f'<circle cx="{px(k):.1f}" cy="{py(v):.1f}" r="3" fill="{colour}"/>')
        y = top + 16 * i + 10
        parts.append(f'<line x1="{w - right + 15}" y1="{y - 4}" x2="{w - right + 40}" y2="{y - 4}" '
                     f'stroke="{colour}" stroke-width="2"/>')
        parts.append(f'<text x="{w - right + 45}" y="{y}">{app}</text>')
    y = top + 16 * len(apps) + 14
    parts.append(f'<text x="{w - right + 15}" y="{y}">dashed: + CPU</text>')
    parts.append(f'<text x="{w - right + 15}" y="{y + 16}">dotted: ideal</text>')
    parts.append("</svg>")
    Path(path).write_text("\n".join(parts) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", type=Path)
    ap.add_argument("--shim", type=Path)
    ap.add_argument("--device", type=int, default=0, help="the app's --device: the first of --gpus")
    ap.add_argument("--gpus", required=True, help="GPUs as platform:device, the app's first")
    ap.add_argument("--cpu", default="", help="the CPU device as platform:device (empty: no + CPU columns)")
    ap.add_argument("--counts", default="",
                    help="GPU counts to run, e.g. 2,4 (default: every count from 2 to the number of --gpus)")
    ap.add_argument("--apps", default="matmul,syr2k,syrk,histogram,2mm,3mm,gemm,mandelbrot,ep,nbody")
    ap.add_argument("--preset", default="large")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--merge", nargs="+", type=Path, metavar="CSV",
                    help="no runs: the table and plot of the runs in these scaling.csv files "
                         "(e.g. one per device call; same --gpus/--cpu/--counts)")
    a = ap.parse_args()
    if not a.merge and (not a.bin_dir or not a.shim):
        ap.error("--bin-dir and --shim are needed unless --merge is given")
    gpus = [g for g in a.gpus.split(",") if g]
    if not gpus:
        sys.exit("--gpus: at least one GPU")
    apps = [x for x in a.apps.split(",") if x]
    a.out.mkdir(parents=True, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="libsplit-scaling-")
    counts = [int(c) for c in a.counts.split(",") if c]
    cfgs = configs(gpus, a.cpu, counts)
    runs = []  # (app, config name, rep, time_ms, wall, status, steady_ms, wall less the drivers' discovery)

    def write_csv():
        with open(a.out / "scaling.csv", "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["app", "config", "rep", "time_ms", "wall_s", "status", "steady_ms", "wall_less_discovery_s"])
            wr.writerows(runs)

    if a.merge:
        apps = []
        for path in a.merge:
            with open(path, newline="") as f:
                for row in csv.DictReader(f):
                    runs.append((row["app"], row["config"], int(row["rep"]), float(row["time_ms"]),
                                 float(row["wall_s"]), row["status"], float(row.get("steady_ms") or "nan"),
                                 float(row.get("wall_less_discovery_s") or "nan")))
                    if row["app"] not in apps:
                        apps.append(row["app"])
        write_csv()
    for app in apps if not a.merge else []:
        exe = a.bin_dir / app
        args = [str(exe), "--size", a.preset, "--iters", str(a.iters), "--device", str(a.device), "--no-check",
                "--per-iter"]
        for name, devices, _, _ in cfgs:  # warm-up: fills the cache, not counted
            if devices is not None:
                run_app(args, env_for(a.shim, devices, cache), a.timeout)
        for rep in range(a.repeat):
            # Each round starts one configuration later, so that no
            # configuration always runs right after the same one: with a fixed
            # order 1 GPU + CPU (always after native) showed +50-309 ms of
            # wall time on 4 H100, where timelines of single runs showed none.
            shift = rep % len(cfgs)
            for name, devices, _, _ in cfgs[shift:] + cfgs[:shift]:
                r = run_app(args, env_for(a.shim, devices, cache), a.timeout)
                runs.append((app, name, rep, r.time_ms, r.wall, r.status, steady_ms(r.iter_ms), r.wall - r.discovery))
                print(f"{app:12s} {name:16s} rep {rep}: {r.time_ms:9.1f} ms  {r.status}", flush=True)
        write_csv()  # after each app: a run cut short keeps the apps it finished
    names = [c[0] for c in cfgs]
    table = {}
    lines = ["| app | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for app in apps:
        per = {n: [r[3] for r in runs if r[0] == app and r[1] == n and r[5] in ("PASS", "SKIPPED")] for n in names}
        base = statistics.median(per[names[0]]) if per[names[0]] else float("nan")
        cells, table[app] = [], {}
        for name, _, k, cpu in cfgs:
            v = per[name]
            if not v:
                cells.append("fail")
                continue
            med = statistics.median(v)
            table[app][(k, cpu)] = base / med
            text = f"{med:.1f} ms" if name == names[0] else f"{base / med:.2f}x"
            cells.append(f"{text} (max/med {max(v) / med:.2f})")
        lines.append(f"| {app} | " + " | ".join(cells) + " |")
    # Wall time of the whole process (start-up and exit included) against
    # native, and the slowest single run against the native median.
    # The drivers' discovery (the app's first clGetPlatformIDs: NVIDIA's
    # start-up, 0.5-1.4 s, varying by that much between processes, natively
    # too) is shown taken out as well: what is left is what the shim adds.
    lines += ["", "Process wall time, median minus native median (ms; in brackets: the same without the app's first "
              "clGetPlatformIDs, the drivers' discovery); slowest run's time_ms over the native median:", "",
              "| app | " + " | ".join(names[1:]) + " |", "|---" * len(names) + "|"]
    for app in apps:
        ok = lambda n: [r for r in runs if r[0] == app and r[1] == n and r[5] in ("PASS", "SKIPPED")]
        native = ok(names[0])
        if not native:
            continue
        wall0 = statistics.median(r[4] for r in native)
        rest0 = statistics.median(r[7] for r in native)
        ms0 = statistics.median(r[3] for r in native)
        cells = []
        for name in names[1:]:
            v = ok(name)
            rest = statistics.median(r[7] for r in v) - rest0 if v else float("nan")
            cells.append(f"{(statistics.median(r[4] for r in v) - wall0) * 1000:+.0f} "
                         f"({rest * 1000:+.0f}); {max(r[3] for r in v) / ms0:.2f}" if v else "fail")
        lines.append(f"| {app} | " + " | ".join(cells) + " |")
    # Per launch once the devices have joined: what the split itself gives,
    # apart from the openings inside the loop.
    lines += ["", "Steady state: the median iteration of the last quarter of the loop, speed-up over native's "
              "(the openings of the devices outside the app's context are behind it):", "",
              "| app | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for app in apps:
        per = {n: [r[6] for r in runs if r[0] == app and r[1] == n and r[5] in ("PASS", "SKIPPED")
                   and r[6] == r[6]] for n in names}
        if not per[names[0]]:
            continue
        base = statistics.median(per[names[0]])
        cells = [f"{base:.3f} ms"] + [f"{base / statistics.median(per[n]):.2f}x" if per[n] else "-" for n in names[1:]]
        lines.append(f"| {app} | " + " | ".join(cells) + " |")
    md = "\n".join(lines) + "\n"
    (a.out / "scaling.md").write_text(
        f"Speed-up of the app's time_ms over one GPU natively (medians of {a.repeat} warm runs; "
        f"max/med: the slowest run over the median), preset {a.preset}, {a.iters} iterations, "
        "default settings.\n\n" + md)
    svg_plot(table, apps, len(gpus), a.out / "scaling.svg")
    print(md)
    failed = [r for r in runs if r[5] not in ("PASS", "SKIPPED")]
    for r in failed:
        print(f"FAILED: {r[0]} {r[1]} rep {r[2]}: {r[5]}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
