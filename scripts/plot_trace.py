#!/usr/bin/python3
"""Turn a LIBSPLIT_TRACE CSV into PNGs, one set per kernel.

usage: plot_trace.py trace.csv outdir [--single-ms KERNEL=MS ...]

Rows: launch,kernel,device,split_dim,first_group,groups,total_groups,
      ms_kernel,ms_transfer,granularity,predicted_ms (one row per chunk).

Writes, for each kernel K:
  K_subkernel_times.png  time per device per launch (kernel + transfer,
                         predicted as dashed lines)      (Huchant 2016 Fig. 5)
  K_speedup.png          speed-up per launch vs the best single device when
                         known (--single-ms, or launches the trace ran whole
                         on one device), else vs launch 0  (Fig. 4)
  K_granularity.png      share of the work-groups per device over launches
"""
import argparse
import collections
import csv
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FIELDS = ["launch", "kernel", "device", "split_dim", "first_group", "groups",
          "total_groups", "ms_kernel", "ms_transfer", "granularity", "predicted_ms"]


def read_trace(path):
    """kernel -> launch -> device -> dict(ms, kernel_ms, groups, total, predicted)."""
    data = collections.defaultdict(lambda: collections.defaultdict(dict))
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [f for f in FIELDS if f not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"plot_trace.py: {path}: missing columns {', '.join(missing)}")
        for row in reader:
            launch, device = int(row["launch"]), int(row["device"])
            cell = data[row["kernel"]][launch].setdefault(
                device, {"ms": 0.0, "kernel_ms": 0.0, "groups": 0, "total": 0,
                         "predicted": 0.0})
            cell["ms"] += float(row["ms_kernel"]) + float(row["ms_transfer"])
            cell["kernel_ms"] += float(row["ms_kernel"])
            cell["groups"] += int(row["groups"])
            cell["total"] = int(row["total_groups"])
            cell["predicted"] = float(row["predicted_ms"] or 0)
    return data


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "kernel"


def plot_kernel(kernel, launches, outdir, single_ms):
    order = sorted(launches)
    devices = sorted({d for per in launches.values() for d in per})
    makespan = [max(c["ms"] for c in launches[l].values()) for l in order]
    written = []

    # Time per sub-kernel per launch.
    fig, ax = plt.subplots(figsize=(7, 4))
    for d in devices:
        ms = [launches[l][d]["ms"] if d in launches[l] else float("nan") for l in order]
        line, = ax.plot(order, ms, marker="o", label=f"device {d}")
        pred = [launches[l][d]["predicted"] if d in launches[l] and
                launches[l][d]["predicted"] > 0 else float("nan") for l in order]
        if any(p == p for p in pred):
            ax.plot(order, pred, linestyle="--", color=line.get_color(), alpha=0.6,
                    label=f"device {d} predicted")
    ax.plot(order, makespan, color="black", linewidth=2, label="makespan")
    ax.set_xlabel("launch")
    ax.set_ylabel("time (ms, kernel + transfer)")
    ax.set_yscale("log")
    ax.set_title(f"{kernel}: time per sub-kernel")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    path = os.path.join(outdir, f"{safe(kernel)}_subkernel_times.png")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    written.append(path)

    # Speed-up per launch.
    whole = [makespan[i] for i, l in enumerate(order)
             if len(launches[l]) == 1 and
             next(iter(launches[l].values()))["groups"] == next(iter(launches[l].values()))["total"]]
    if kernel in single_ms:
        base, label = single_ms[kernel], "best single device (given)"
    elif whole:
        base, label = min(whole), "best single device (whole launches in the trace)"
    else:
        base, label = makespan[0], "launch 0"
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar(order, [base / m if m > 0 else 0 for m in makespan], color="tab:blue")
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xlabel("launch")
    ax.set_ylabel("speed-up")
    ax.set_title(f"{kernel}: speed-up per launch\nvs {label} = {base:.3g} ms", fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    path = os.path.join(outdir, f"{safe(kernel)}_speedup.png")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    written.append(path)

    # Granularity per device.
    fig, ax = plt.subplots(figsize=(7, 4))
    for d in devices:
        share = [launches[l][d]["groups"] / launches[l][d]["total"]
                 if d in launches[l] and launches[l][d]["total"] else 0.0 for l in order]
        ax.plot(order, share, marker="o", label=f"device {d}")
    ax.set_xlabel("launch")
    ax.set_ylabel("granularity (share of work-groups)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"{kernel}: granularity per device")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    path = os.path.join(outdir, f"{safe(kernel)}_granularity.png")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    written.append(path)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace")
    parser.add_argument("outdir")
    parser.add_argument("--single-ms", action="append", default=[], metavar="KERNEL=MS",
                        help="best single-device time of a kernel, for the speed-up plot")
    args = parser.parse_args()
    single = {}
    for item in args.single_ms:
        name, _, value = item.rpartition("=")
        single[name] = float(value)
    data = read_trace(args.trace)
    if not data:
        sys.exit(f"plot_trace.py: {args.trace}: no rows")
    os.makedirs(args.outdir, exist_ok=True)
    for kernel, launches in sorted(data.items()):
        for path in plot_kernel(kernel, launches, args.outdir, single):
            print(path)


if __name__ == "__main__":
    main()
