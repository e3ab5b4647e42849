#!/usr/bin/env python3
"""Prints, launch by launch, how a libsplit trace shares the work-groups of one
kernel between devices and how balanced the devices were.

Usage: show_convergence.py TRACE.csv [--kernel NAME]

The trace is what the shim writes with LIBSPLIT_TRACE (one row per sub-kernel).
Imbalance is slowest / fastest device time of a launch: 1.00 is perfect balance.
"""
import argparse
import csv
import sys
from collections import OrderedDict, defaultdict


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--kernel", help="kernel to show (default: the most launched one)")
    args = ap.parse_args()

    with open(args.trace, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"{args.trace}: empty trace (was any kernel launched under the shim?)", file=sys.stderr)
        return 1

    per_kernel = defaultdict(list)
    for r in rows:
        per_kernel[r["kernel"]].append(r)
    kernel = args.kernel or max(per_kernel, key=lambda k: len(per_kernel[k]))
    if kernel not in per_kernel:
        print(f"no kernel '{kernel}' in {args.trace}; kernels: {', '.join(per_kernel)}", file=sys.stderr)
        return 1

    launches = OrderedDict()
    for r in per_kernel[kernel]:
        launches.setdefault(int(r["launch"]), []).append(r)
    devices = sorted({r["device"] for r in per_kernel[kernel]})

    print(f"kernel {kernel}: {len(launches)} launches over {len(devices)} devices")
    head = f"{'launch':>6}  " + "  ".join(f"{'dev ' + d + ' share':>14} {'ms':>8}" for d in devices)
    print(head + f"  {'makespan ms':>11}  {'imbalance':>9}")
    for launch, subs in launches.items():
        total = int(subs[0]["total_groups"])
        groups = defaultdict(int)
        ms = defaultdict(float)
        for s in subs:
            groups[s["device"]] += int(s["groups"])
            ms[s["device"]] += float(s["ms_kernel"]) + float(s["ms_transfer"])
        busy = [ms[d] for d in devices if groups[d] > 0]
        makespan = max(busy) if busy else 0.0
        imbalance = makespan / min(busy) if busy and min(busy) > 0 else float("nan")
        cells = "  ".join(f"{groups[d] / total:>14.3f} {ms[d]:>8.2f}" for d in devices)
        print(f"{launch:>6}  {cells}  {makespan:>11.2f}  {imbalance:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
