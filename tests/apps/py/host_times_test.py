#!/usr/bin/env python3
"""scripts/host_times.py on real logs: ep (small) split over 2 PoCL devices
under the shim with LIBSPLIT_LOG=3 and LIBSPLIT_WHOLE=0 (every launch split)
gives a summary of its split launches whose stages add up (the sum of the
medians above the enqueues is the stages' medians minus the enqueues'), and
a run that logs no host times (native, and the shim at LIBSPLIT_LOG=1)
makes it exit 1, not print zeros.

usage: host_times_test.py SHIM CC BENCH_BIN_DIR SCRIPT
Exit 0 pass, 1 fail.
"""
import os
import re
import subprocess
import sys
import tempfile

SHIM, CC, BENCH_BIN, SCRIPT = sys.argv[1:5]


def run_ep(env_extra, log):
    env = dict(os.environ, POCL_DEVICES="pthread basic", LIBSPLIT_HOST_DEVICES="all", **env_extra)
    with open(log, "w") as err:
        subprocess.run([f"{BENCH_BIN}/ep", "--size", "small", "--iters", "12", "--no-check"], env=env,
                       stdout=subprocess.DEVNULL, stderr=err, check=True, timeout=300)


def host_times(log):
    return subprocess.run([sys.executable, SCRIPT, log, "--last", "8"], capture_output=True, text=True, timeout=60)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        shim = {"LD_PRELOAD": SHIM, "LIBSPLIT_CC": CC, "LIBSPLIT_CACHE_DIR": f"{tmp}/cache",
                "LIBSPLIT_WHOLE": "0", "LIBSPLIT_SYNC_PREPARE": "1"}
        run_ep(dict(shim, LIBSPLIT_LOG="3"), f"{tmp}/log3.txt")
        r = host_times(f"{tmp}/log3.txt")
        print(r.stdout + r.stderr, end="")
        m = re.match(r"(\d+) split launches \(medians, us\): (.*)\nabove the enqueues: ([\d.]+) us; "
                     r"shim alone: ([\d.]+) us; above the enqueues without writing the log lines: ([\d.]+) us\n$",
                     r.stdout)
        if r.returncode != 0 or not m:
            failures.append(f"LOG=3 run: exit {r.returncode}, output not the summary")
        else:
            med = {k: float(v) for k, v in (kv.split(" ") for kv in m.group(2).split(", "))}
            stages = sum(med[k] for k in ("reports", "prepare", "describe", "plan", "run"))
            if int(m.group(1)) < 1 or int(m.group(1)) > 8:
                failures.append(f"{m.group(1)} launches summarized, expected 1-8 (--last 8)")
            if abs(float(m.group(3)) - (stages - med["enqueues"])) > 1e-6:
                failures.append("above the enqueues is not the stages minus the enqueues")
            if not med["run"] > 0:
                failures.append("a split launch's run stage took 0 us")
            if "log_writes" not in med or abs(float(m.group(5)) - (float(m.group(3)) - med["log_writes"])) > 1e-6:
                failures.append("the time without the log writes is not above the enqueues minus them")
        for name, extra in (("native", {}), ("shim at LOG=1", dict(shim, LIBSPLIT_LOG="1"))):
            log = f"{tmp}/{name.replace(' ', '_')}.txt"
            run_ep(extra, log)
            r = host_times(log)
            if r.returncode != 1 or r.stdout:
                failures.append(f"{name}: exit {r.returncode} (expected 1, nothing on stdout)")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
