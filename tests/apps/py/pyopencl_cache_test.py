#!/usr/bin/env python3
"""pyopencl's binary cache under libsplit.

pyopencl keeps built programs in a cache directory: its first run builds from
source and stores the binaries (clGetProgramInfo CL_PROGRAM_BINARIES), its
second run creates the program with clCreateProgramWithBinary. Under the
shim both runs must give the native result and both must be split (the
second through libsplit's record of the binaries it handed out).

  pyopencl_cache_test.py SHIM CC        the test (exit 0: pass)
  pyopencl_cache_test.py --app OUT      the pyopencl program itself
"""
import csv
import os
import subprocess
import sys
import tempfile

KERNEL = """
__kernel void smooth(__global const int* in, __global int* out, int n) {
  int i = (int)get_global_id(0);
  int l = i > 0 ? in[i - 1] : 0, r = i + 1 < n ? in[i + 1] : 0;
  out[i] = (l + 2 * in[i] + r) / 4 + STEP;
}
"""


def app(out_path):
    import numpy as np
    import pyopencl as cl

    platform = cl.get_platforms()[0]
    device = platform.get_devices()[0]
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, KERNEL).build(options=["-DSTEP=3"], cache_dir=os.environ["APP_PYOPENCL_CACHE"])
    n = 8192
    data = (np.arange(n, dtype=np.int32) * 7919) % 10007
    mf = cl.mem_flags
    a = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data)
    b = cl.Buffer(ctx, mf.READ_WRITE, size=data.nbytes)
    knl = prg.smooth
    for i in range(6):
        src, dst = (b, a) if i % 2 else (a, b)
        knl(queue, (n,), (64,), src, dst, np.int32(n))
    cl.enqueue_copy(queue, data, a)
    queue.finish()
    with open(out_path, "wb") as f:
        f.write(data.tobytes())


def run(env_changes, out_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LIBSPLIT_") and k != "LD_PRELOAD"}
    env.update(env_changes)
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--app", out_path], env=env,
                       capture_output=True, text=True, timeout=300)
    return p


def spread_launches(trace_path):
    devices = {}
    with open(trace_path) as f:
        rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    header, rows = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    for r in rows:
        if int(r[col["groups"]]) > 0:
            devices.setdefault(r[col["launch"]], set()).add(r[col["device"]])
    return sum(1 for d in devices.values() if len(d) > 1)


def main():
    shim, cc = sys.argv[1], sys.argv[2]
    try:
        import pyopencl  # noqa: F401
    except ImportError:
        print("SKIP: pyopencl is not installed (apt-get install python3-pyopencl)")
        return 77
    failures = []
    with tempfile.TemporaryDirectory(prefix="libsplit-pyopencl-") as tmp:
        native = run({"POCL_DEVICES": "pthread", "APP_PYOPENCL_CACHE": tmp + "/native-cache"}, tmp + "/native.bin")
        if native.returncode != 0:
            print("native run failed:\n" + native.stderr)
            return 1
        expected = open(tmp + "/native.bin", "rb").read()
        for run_no, what in enumerate(["first run (builds, fills pyopencl's cache)",
                                       "second run (program from pyopencl's cached binary)"]):
            trace = f"{tmp}/trace{run_no}.csv"
            out = f"{tmp}/shim{run_no}.bin"
            p = run({"POCL_DEVICES": "pthread basic", "LD_PRELOAD": shim, "LIBSPLIT_CC": cc,
                     "LIBSPLIT_CACHE_DIR": tmp + "/libsplit-cache", "LIBSPLIT_WHOLE": "0",
                     "LIBSPLIT_LOG": "1", "LIBSPLIT_TRACE": trace,
                     # The partition-ready program from the first launch on
                     # (where preparing runs in the background by default).
                     "LIBSPLIT_SYNC_PREPARE": "1",
                     "APP_PYOPENCL_CACHE": tmp + "/shim-cache"}, out)
            if p.returncode != 0:
                failures.append(f"{what}: exit {p.returncode}\n{p.stderr[-3000:]}")
                continue
            if open(out, "rb").read() != expected:
                failures.append(f"{what}: output differs from the native run")
            if spread_launches(trace) == 0:
                failures.append(f"{what}: no launch ran on more than one device\n{p.stderr[-3000:]}")
            if "not partition-ready" in p.stderr:
                failures.append(f"{what}: program not partition-ready\n{p.stderr[-3000:]}")
            if run_no == 1 and "source and options restored" not in p.stderr:
                failures.append(f"{what}: the program was not restored from libsplit's binary table\n"
                                f"{p.stderr[-3000:]}")
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--app":
        app(sys.argv[2])
        sys.exit(0)
    sys.exit(main())
