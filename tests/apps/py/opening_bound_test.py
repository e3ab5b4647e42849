#!/usr/bin/env python3
"""scripts/opening_bound.py: its bound against numbers worked by hand, and on
a real run with two platforms (PoCL for the app, Oclgrind opened in the
background, as NVIDIA's other GPUs are): the stamped log shows the opening,
the row's join lies inside the loop and its bound follows from the row's own
figures. With the opening held back (fault slow_open) the script must fail,
not print a bound.

usage: opening_bound_test.py SHIM CC BENCH_BIN_DIR SCRIPT
Exit 0 pass, 1 fail, 77 skip (no Oclgrind).
"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

SHIM, CC, BENCH_BIN, SCRIPT = sys.argv[1:5]
OCLGRIND = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"


def load_script():
    spec = importlib.util.spec_from_file_location("opening_bound", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(tmp, out, extra):
    env = dict(os.environ, OCL_ICD_VENDORS=f"{tmp}/vendors", POCL_DEVICES="pthread", LIBSPLIT_HOST_DEVICES="all",
               LIBSPLIT_CC=CC, **extra)
    env.pop("OCL_ICD_FILENAMES", None)
    # Oclgrind lists first (platform 0): the app takes PoCL's device (--device 1).
    return subprocess.run([sys.executable, SCRIPT, "--bin-dir", BENCH_BIN, "--shim", SHIM, "--device", "1",
                           "--devices", "1:0,0:0", "--apps", "histogram", "--preset", "small", "--iters", "10",
                           "--out", out], env=env, capture_output=True, text=True, timeout=600)


def main():
    failures = []
    ob = load_script()
    # 1000 ms alone; joins at 100, 300, 2000 ms: T2 = 550, T3 = 466.7, T4 = 850.
    if ob.bound(1000, [100, 300, 2000]) != (3, (1000 + 400) / 3):
        failures.append(f"bound(1000, [100, 300, 2000]) = {ob.bound(1000, [100, 300, 2000])}, expected (3, 466.7)")
    if ob.bound(100, [150]) != (1, 100):
        failures.append("a device joining after the loop would end must not lower the bound")
    if not os.path.exists(OCLGRIND):
        print(f"SKIP: {OCLGRIND} absent (Debian package oclgrind)")
        sys.exit(77 if not failures else 1)
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(f"{tmp}/vendors")
        with open("/etc/OpenCL/vendors/pocl.icd") as f, open(f"{tmp}/vendors/pocl.icd", "w") as g:
            g.write(f.readline())
        with open(f"{tmp}/vendors/oclgrind.icd", "w") as g:
            g.write(OCLGRIND + "\n")
        r = run(tmp, f"{tmp}/out", {})
        print(r.stdout + r.stderr, end="")
        row = re.search(r"^\| histogram \| ([\d.]+) ms \| ([\d.]+) \| (\d) \| ([\d.]+) ms \| ([\d.]+)x \| 2x \|",
                        r.stdout, re.M)
        if r.returncode != 0 or not row:
            failures.append(f"two platforms: exit {r.returncode}, no histogram row")
        else:
            loop, join, k, best = float(row[1]), float(row[2]), int(row[3]), float(row[4])
            expect = (loop + join) / 2 if join < loop else loop
            if abs(best - expect) > 0.1 + 1e-3 * loop or k != (2 if join < loop else 1):
                failures.append(f"row: loop {loop}, join {join}, k {k}, bound {best}: expected {expect:.1f}")
            if join > loop:
                failures.append(f"Oclgrind joined {join} ms into a {loop} ms loop: it opens at the app's context")
            log = open(f"{tmp}/out/histogram-log2.txt").read()
            if not re.search(r"^ +[\d.]+ ! libsplit: dev0 opened in \d+ ms", log, re.M):
                failures.append("the stamped log has no 'dev0 opened in' line")
            # The same bound again from the kept log, L from a bench_scaling.py CSV.
            with open(f"{tmp}/scaling.csv", "w") as f:
                f.write(f"app,config,rep,time_ms,wall_s,status\nhistogram,1 GPU (native),0,{loop},1,SKIPPED\n")
            again = subprocess.run([sys.executable, SCRIPT, "--from-logs", f"{tmp}/out", "--scaling-csv",
                                    f"{tmp}/scaling.csv", "--devices", "1:0,0:0", "--apps", "histogram", "--out",
                                    f"{tmp}/again"], capture_output=True, text=True, timeout=60)
            # L goes through the CSV rounded to the printed 0.1 ms: the bound may differ by that.
            same = re.search(r"^\| histogram \| ([\d.]+) ms \| ([\d.]+) \| (\d) \| ([\d.]+) ms \|", again.stdout, re.M)
            if again.returncode != 0 or not same or same.group(2, 3) != row.group(2, 3) or \
                    abs(float(same[4]) - best) > 0.1 + 1e-9:
                failures.append(f"--from-logs: exit {again.returncode}, not the same row:\n{again.stdout}{again.stderr}")
        r = run(tmp, f"{tmp}/held", {"LIBSPLIT_INJECT_FAULTS": "slow_open"})
        if r.returncode != 1 or "no device opened in the background" not in r.stderr:
            failures.append(f"opening held back: exit {r.returncode}, expected 1 with the reason\n{r.stderr}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
