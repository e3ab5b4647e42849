#!/usr/bin/python3
"""pyopencl's own machinery (its generated kernels: element-wise array
arithmetic, reductions, scans, random numbers, sorting) on the first device
of the first platform; prints the results with every bit, so that a run
under the shim can be compared with the native one byte for byte. pyopencl's
own binary cache is off: programs come from source, as the shim splits them
(a binary it did not hand out runs unsplit)."""
import os

os.environ["PYOPENCL_NO_CACHE"] = "1"

import numpy as np  # noqa: E402
import pyopencl as cl  # noqa: E402
import pyopencl.array as cla  # noqa: E402
import pyopencl.clrandom as clr  # noqa: E402
from pyopencl.elementwise import ElementwiseKernel  # noqa: E402
from pyopencl.reduction import ReductionKernel  # noqa: E402
from pyopencl.scan import GenericScanKernel  # noqa: E402

platform = cl.get_platforms()[0]
device = platform.get_devices()[0]
ctx = cl.Context([device])
queue = cl.CommandQueue(ctx)
n = 1 << 18


def show(name, a):
    a = np.ascontiguousarray(a)
    digest = np.frombuffer(a.tobytes(), dtype=np.uint8).astype(np.uint64)
    print(name, a.dtype, a.shape, int((digest * np.arange(1, digest.size + 1, dtype=np.uint64)).sum() % (1 << 61)),
          a.ravel()[:4].tolist())


rng = np.random.default_rng(7)
x = cla.to_device(queue, rng.standard_normal(n).astype(np.float32))
y = cla.to_device(queue, rng.standard_normal(n).astype(np.float32))
ints = cla.to_device(queue, rng.integers(0, 1000, n).astype(np.int32))

show("axpy", (2.5 * x + y).get())
show("product", (x * y - x / 3).get())
lin = ElementwiseKernel(ctx, "float a, float *x, float *y, float *z", "z[i] = a * x[i] * x[i] + y[i]", "lin")
z = cla.empty_like(x)
for _ in range(5):
    lin(np.float32(0.5), x, y, z)
    x, z = z, x
show("elementwise x5", x.get())
dot = ReductionKernel(ctx, np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
                      arguments="float *x, float *y")
show("dot", np.array([dot(x, y).get()]))
show("sum ints", np.array([cla.sum(ints).get()]))
show("max", np.array([cla.max(y).get()]))
scan = GenericScanKernel(ctx, np.int32, arguments="int *ary, int *out", input_expr="ary[i]",
                         scan_expr="a+b", neutral="0", output_statement="out[i] = item;")
out = cla.empty_like(ints)
scan(ints, out)
show("inclusive scan", out.get())
gen = clr.PhiloxGenerator(ctx, seed=11)
show("philox", gen.uniform(queue, (n,), np.float32).get())
