#!/usr/bin/env python3
"""Data stays where it was computed (issue 10): stencil apps split over 2 and 3
PoCL devices move at most their halo per launch once balanced, and their
results equal the native run's bit for bit.

Apps: the bench stencils (jacobi-1d, jacobi-2d, fdtd-2d, convolution-2d,
convolution-3d; small preset, result written with --dump) and tests/apps'
pingpong (two ping-pong stencils). Each runs natively on the pthread device,
then under the shim with LIBSPLIT_WHOLE=0 (every launch split) and
LIBSPLIT_TRACE, with the schedulers `uniform` (fixed shares), `adaptive`
(Broyden: shares re-solved every launch, per kernel) and `dynamic`
(packages handed to idle devices), and `adaptive` again with
LIBSPLIT_CYCLE_PARTITION=joint (one partition for the cycle's kernels,
owner computes).

Bytes per launch come from the trace (bytes_to_device + bytes_to_host of
its rows). The halo bound of a launch is 4 x (devices - 1) x the kernel's
halo unit: at every slice border one unit (a row of the grid, one element in
1-D) may go each way, read back to the host and written to the neighbour.
Over the second half of the launches:
  uniform   every launch within the bound;
  adaptive  the median launch within it, and at least 3 launches in 4
            (the shares may still move when a measurement says so); the
            same with joint;
  dynamic   the rows are not scattered: the median launch's packages form
            at most one contiguous run per device, and none more than two
            per device (a steal moves a partition border, or crosses a
            device for one launch), where dealing packages in NDRange order
            makes 8 runs per device at every launch. Its bytes are
            not bounded: a device idle first takes a package from its
            neighbour whenever that finishes sooner, which follows the load
            of the machine (the run prints them).

usage: stencil_locality_test.py SHIM CC BENCH_BIN_DIR APPS_BIN_DIR
Exit 0 pass, 1 fail.
"""
import csv
import collections
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

SHIM, CC, BENCH_BIN, APPS_BIN = sys.argv[1:5]

# app -> (command, halo unit in bytes per kernel). Units follow the small
# presets: jacobi-2d n=256 floats per row, fdtd-2d ny=320, convolution-2d
# nj=512, convolution-3d 64x64 planes; pingpong W=256.
APPS = {
    "jacobi-1d": ([f"{BENCH_BIN}/jacobi-1d", "--iters", "24", "--no-check", "--dump"],
                  {"jacobi1d_step": 4}),
    "jacobi-2d": ([f"{BENCH_BIN}/jacobi-2d", "--iters", "24", "--no-check", "--dump"],
                  {"jacobi2d_stencil": 256 * 4, "jacobi2d_copy": 256 * 4}),
    "fdtd-2d": ([f"{BENCH_BIN}/fdtd-2d", "--iters", "16", "--no-check", "--dump"],
                {"fdtd_ey": 320 * 4, "fdtd_ex": 320 * 4, "fdtd_hz": 320 * 4}),
    "convolution-2d": ([f"{BENCH_BIN}/convolution-2d", "--iters", "16", "--no-check", "--dump"],
                       {"conv2d": 512 * 4}),
    "convolution-3d": ([f"{BENCH_BIN}/convolution-3d", "--iters", "16", "--no-check", "--dump"],
                       {"conv3d": 64 * 64 * 4}),
    "pingpong": ([f"{APPS_BIN}/app_pingpong"], {"heat1d": 4, "heat2d": 256 * 4}),
}
DEVICES = {2: "pthread basic", 3: "pthread basic basic"}
SCHEDULERS = ["uniform", "adaptive", "dynamic", "adaptive+joint"]
# Settings beyond LIBSPLIT_SCHEDULER (the part before '+').
EXTRA = {"adaptive+joint": {"LIBSPLIT_CYCLE_PARTITION": "joint"}}


def run(cmd, out, env):
    r = subprocess.run(cmd + [out], env=env, capture_output=True, text=True, timeout=240)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}")


def launch_bytes(trace):
    """launch -> (kernel, bytes moved, devices used, runs of one device in group order)."""
    per, chunks = {}, collections.defaultdict(list)
    with open(trace, newline="") as f:
        for row in csv.DictReader(f):
            launch = int(row["launch"])
            kernel, moved, devices, _ = per.get(launch, (row["kernel"], 0, set(), 0))
            devices.add(row["device"])
            per[launch] = (kernel, moved + int(row["bytes_to_device"]) + int(row["bytes_to_host"]), devices, 0)
            chunks[launch].append((int(row["first_group"]), row["device"]))
    for launch, c in chunks.items():
        order = [d for _, d in sorted(c)]
        runs = 1 + sum(1 for a, b in zip(order, order[1:]) if a != b)
        per[launch] = per[launch][:3] + (runs,)
    return per


def main():
    failures = []
    work = tempfile.mkdtemp(prefix="libsplit-locality-")
    base = dict(os.environ)
    for k in list(base):
        if k.startswith("LIBSPLIT_"):
            del base[k]
    cache = os.path.join(work, "cache")
    for app, (cmd, units) in APPS.items():
        native = os.path.join(work, f"{app}.native")
        run(cmd, native, dict(base, POCL_DEVICES="pthread"))
        for ndev, pocl in DEVICES.items():
            for sched in SCHEDULERS:
                tag = f"{app} {ndev}dev {sched}"
                out = os.path.join(work, f"{app}-{ndev}-{sched}.out")
                trace = os.path.join(work, f"{app}-{ndev}-{sched}.csv")
                env = dict(base, POCL_DEVICES=pocl, LD_PRELOAD=SHIM, LIBSPLIT_CC=CC,
                           LIBSPLIT_CACHE_DIR=cache, LIBSPLIT_SYNC_PREPARE="1", LIBSPLIT_WHOLE="0",
                           LIBSPLIT_WARMSTART="0", LIBSPLIT_SCHEDULER=sched.split("+")[0], LIBSPLIT_TRACE=trace,
                           **EXTRA.get(sched, {}))
                try:
                    run(cmd, out, env)
                except RuntimeError as e:
                    failures.append(f"{tag}: {e}")
                    continue
                if not filecmp.cmp(native, out, shallow=False):
                    failures.append(f"{tag}: result differs from the native run")
                per = launch_bytes(trace)
                launches = sorted(per)
                split = [l for l in launches if len(per[l][2]) > 1]
                if len(split) < len(launches) // 2:
                    failures.append(f"{tag}: only {len(split)} of {len(launches)} launches split")
                late = launches[len(launches) // 2:]
                over = []
                for l in late:
                    kernel, moved, _, _ = per[l]
                    bound = 4 * (ndev - 1) * units[kernel]
                    if moved > bound:
                        over.append((l, kernel, moved, bound))
                moved = [per[l][1] for l in late]
                median_ok = sorted(m - 4 * (ndev - 1) * units[per[l][0]] for l, m in zip(late, moved))[len(late) // 2] <= 0
                print(f"{tag:32s} launches {len(launches):3d}  second half: {len(late) - len(over):3d}/{len(late)} "
                      f"within the halo bound, bytes mean {statistics.mean(moved):10.0f} max {max(moved):10d}, "
                      f"most runs {max(per[l][3] for l in late)}")
                runs = sorted(per[l][3] for l in late)
                scattered = [(l, per[l][3]) for l in late if per[l][3] > 2 * ndev]
                if runs[len(runs) // 2] > ndev:
                    scattered.append(("median", runs[len(runs) // 2]))
                ok = {"uniform": not over,
                      "adaptive": median_ok and 4 * len(over) <= len(late),
                      "adaptive+joint": median_ok and 4 * len(over) <= len(late),
                      "dynamic": not scattered}[sched]
                if not ok and sched == "dynamic":
                    failures.append(f"{tag}: rows scattered (launch, runs of one device): {scattered[:8]}")
                elif not ok:
                    failures.append(f"{tag}: launches over the halo bound (launch, kernel, bytes, bound): {over[:8]}")
    if failures:
        print("\nFAILED (traces and outputs kept in " + work + "):\n" + "\n".join(failures))
        return 1
    print("all stencil runs within the halo bound and equal to the native run")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
