"""What the benchmark scripts share: the bench apps, running one app and
reading its last lines, and reading a LIBSPLIT_TRACE file launch by launch."""
import csv
import os
import subprocess
import time
from dataclasses import dataclass, field

POLYBENCH_APPS = [
    "2mm", "3mm", "atax", "bicg", "gemm", "gesummv", "mvt", "syrk", "syr2k",
    "covariance", "correlation", "jacobi-1d", "jacobi-2d", "fdtd-2d",
    "convolution-2d", "convolution-3d",
]
OTHER_APPS = ["nbody", "ep", "aes128", "spmv", "montecarlo", "mandelbrot", "matmul", "histogram"]
ALL_APPS = POLYBENCH_APPS + OTHER_APPS


@dataclass
class AppRun:
    status: str      # PASS, SKIPPED (--no-check), FAIL, TIMEOUT or "exit N"
    time_ms: float   # the app's time_ms= line (nan when missing)
    wall: float      # seconds from start to exit
    stdout: str = ""
    stderr: str = ""
    iter_ms: list = field(default_factory=list)  # the app's iter=N ms=X lines (--per-iter)
    discovery: float = float("nan")  # seconds the app's first clGetPlatformIDs took (its discovery_ms= line)

    @property
    def ok(self):
        return self.status in ("PASS", "SKIPPED")


def run_app(cmd, env, timeout=600):
    """One run of a bench app (argv `cmd`) with environment `env`."""
    start = time.monotonic()
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return AppRun("TIMEOUT", float("nan"), time.monotonic() - start)
    wall = time.monotonic() - start
    lines = [l.strip() for l in r.stdout.splitlines()]
    ms = next((float(l.split("=", 1)[1]) for l in lines if l.startswith("time_ms=")), float("nan"))
    iters = [float(l.rsplit("ms=", 1)[1]) for l in lines if l.startswith("iter=") and "ms=" in l]
    if r.returncode == 0 and "PASS" in lines:
        status = "PASS"
    elif r.returncode == 0 and "CHECK SKIPPED" in lines:
        status = "SKIPPED"
    elif "FAIL" in lines:
        status = "FAIL"
    else:
        status = f"exit {r.returncode}"
    disc = next((float(l.split("=", 1)[1]) * 1e-3 for l in r.stderr.splitlines() if l.startswith("discovery_ms=")),
                float("nan"))
    return AppRun(status, ms, wall, r.stdout, r.stderr, iters, disc)


@dataclass
class TracedLaunch:
    bytes_moved: int = 0                             # bytes_to_device + bytes_to_host, all devices
    kernel_ms: dict = field(default_factory=dict)    # device -> ms_kernel summed over its chunks
    groups: dict = field(default_factory=dict)       # device -> work-groups

    def split(self):
        return sum(1 for g in self.groups.values() if g > 0) > 1


def trace_launches(path):
    """The launches of a LIBSPLIT_TRACE file, in order: [(launch id, TracedLaunch)]."""
    per = {}
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            l = per.setdefault(int(row["launch"]), TracedLaunch())
            l.bytes_moved += int(row["bytes_to_device"] or 0) + int(row["bytes_to_host"] or 0)
            d = row["device"]
            l.kernel_ms[d] = l.kernel_ms.get(d, 0.0) + float(row["ms_kernel"] or 0)
            l.groups[d] = l.groups.get(d, 0) + int(row["groups"] or 0)
    return sorted(per.items())
