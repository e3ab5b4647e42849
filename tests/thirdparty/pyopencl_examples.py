#!/usr/bin/python3
"""Runs example programs that pyopencl ships (Debian's python-pyopencl-doc,
/usr/share/doc/python-pyopencl-doc/examples): each builds its own kernels
and checks itself (asserts, or prints the difference from numpy). Run here
one after the other in this process on the first device of the first
platform, numpy and Python's random module seeded before each so that
their inputs, and so their printed output, are the same every run; a
run under the shim is then compared with the native one byte for byte.
Exit status 77 (skip) when the examples are not installed.
usage: pyopencl_examples.py [EXAMPLES_DIR]"""
import contextlib
import io
import os
import random
import runpy
import sys
import traceback

# The examples' create_some_context() asks on stdin unless told.
os.environ["PYOPENCL_CTX"] = "0:0"
# Programs from source every time, as the shim splits them (a binary from
# pyopencl's cache would run unsplit).
os.environ["PYOPENCL_NO_CACHE"] = "1"

import numpy as np  # noqa: E402

examples_dir = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/doc/python-pyopencl-doc/examples"
# Those with deterministic output and no display, image file or extra module.
examples = [
    "demo.py",
    "demo_array.py",
    "demo_elementwise.py",
    "demo_elementwise_complex.py",
    "demo-struct-reduce.py",
    "narray.py",
]
if not os.path.isfile(os.path.join(examples_dir, examples[0])):
    print(f"SKIP: no pyopencl examples in {examples_dir} (apt-get install python-pyopencl-doc)")
    sys.exit(77)

np.set_printoptions(precision=9, threshold=sys.maxsize)
failed = 0
for name in examples:
    random.seed(24)
    np.random.seed(24)
    captured = io.StringIO()
    try:
        with contextlib.redirect_stdout(captured):
            runpy.run_path(os.path.join(examples_dir, name), run_name="__main__")
        outcome = "ok"
    except Exception:  # an example's own check failed, or OpenCL did
        outcome = "FAILED\n" + traceback.format_exc(limit=3)
        failed += 1
    print(f"== {name}: {outcome}")
    print(captured.getvalue(), end="")
sys.exit(1 if failed else 0)
