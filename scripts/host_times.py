#!/usr/bin/env python3
"""The host time of split launches, from a LIBSPLIT_LOG=3 run's stderr (issue 23's measure).

  LIBSPLIT_LOG=3 LIBSPLIT_WHOLE=0 ... ./app 2> app.log
  scripts/host_times.py app.log [--last N] [--kind split|whole|all]

Each launch logs "host time of launch N (split|whole): reports R us (...; driver calls D1 us),
prepare P us, describe S us, plan L us, run U us (driver calls D2 us, of which the sub-kernel
enqueues E us)". Prints the medians of the last N such launches of the kind asked (the first
ones pay one-off costs: staging, first enqueues on a queue), and two sums of medians:

  above the enqueues = reports + prepare + describe + plan + run - enqueues
                       (the issue's target: <= 30 us for a split launch)
  shim alone         = the same minus every driver call (the reports' reads of event
                       times, the run's other calls)
  without writing the log lines = above the enqueues minus the median time a launch
                       spent writing its LOG lines (stderr writes within its stages)

Exits 1 when the log has no launch of that kind (a run that never split says so, not 0 us).
"""
import argparse
import re
import statistics
import sys

LINE = re.compile(
    r"host time of launch (\d+) \((\w+)\): reports (\d+) us .*?driver calls (\d+) us\), prepare (\d+) us, "
    r"describe (\d+) us, plan (\d+) us, run (\d+) us \(driver calls (\d+) us, of which the sub-kernel "
    r"enqueues (\d+) us\)(?:; log lines written (\d+) us)?")
FIELDS = ("reports", "reports_drivers", "prepare", "describe", "plan", "run", "run_drivers", "enqueues", "log_writes")


def parse(lines, kind):
    rows = []
    for line in lines:
        m = LINE.search(line)
        if m and (kind == "all" or m.group(2) == kind):
            rows.append(dict(zip(FIELDS, (int(v or 0) for v in m.groups()[2:]))))
    return rows


def summary(rows):
    med = {f: statistics.median(r[f] for r in rows) for f in FIELDS}
    stages = med["reports"] + med["prepare"] + med["describe"] + med["plan"] + med["run"]
    med["above_enqueues"] = stages - med["enqueues"]
    med["shim_alone"] = stages - med["reports_drivers"] - med["run_drivers"]
    med["above_enqueues_unlogged"] = med["above_enqueues"] - med["log_writes"]
    return med


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log", help="stderr of a LIBSPLIT_LOG=3 run ('-': standard input)")
    ap.add_argument("--last", type=int, default=40, help="the last N launches of the kind (default 40)")
    ap.add_argument("--kind", choices=("split", "whole", "all"), default="split")
    args = ap.parse_args()
    if args.last < 1:
        ap.error("--last must be at least 1")
    try:
        f = sys.stdin if args.log == "-" else open(args.log, errors="replace")
    except OSError as e:
        ap.error(str(e))
    with f:
        rows = parse(f, args.kind)
    if not rows:
        print(f"no {args.kind} launch with host times in {args.log} (was LIBSPLIT_LOG=3 set?)", file=sys.stderr)
        return 1
    rows = rows[-args.last:]
    med = summary(rows)
    print(f"{len(rows)} {args.kind} launches (medians, us): " +
          ", ".join(f"{f} {med[f]:g}" for f in FIELDS))
    print(f"above the enqueues: {med['above_enqueues']:g} us; shim alone: {med['shim_alone']:g} us; "
          f"above the enqueues without writing the log lines: {med['above_enqueues_unlogged']:g} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
