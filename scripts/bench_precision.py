#!/usr/bin/env python3
"""Precision of the region analysis on the bench kernels: runs every bench app
once under the shim (small size, partition-ready program built before the
first launch, a fresh libsplit-cc cache), then reads the kernel summaries
libsplit-cc cached and counts the global buffer arguments whose read and
write regions are both known, those that depend on indices loaded at run
time (resolved by the runtime from the index buffer), and the reduction
buffers (atomic updates on private copies: no region needed).

  scripts/bench_precision.py [--build build] [--apps a,b] [--pocl-devices "pthread basic"]
"""
import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

from bench_common import ALL_APPS, run_app

def summaries(entry_path):
    """The kernel summaries of one libsplit-cc cache entry: a format line, the
    key, the sizes of its sections, then the sections (partition-ready source
    first, the summary JSON second)."""
    with open(entry_path, "rb") as f:
        f.readline()
        f.readline()
        sizes = [int(x) for x in f.readline().split()]
        f.read(sizes[0])
        return json.loads(f.read(sizes[1]))["kernels"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--apps", default=",".join(ALL_APPS))
    p.add_argument("--pocl-devices", default="pthread basic")
    a = p.parse_args()
    cache = tempfile.mkdtemp(prefix="libsplit-precision-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LIBSPLIT_")}
    env.update(POCL_DEVICES=a.pocl_devices, LD_PRELOAD=os.path.abspath(os.path.join(a.build, "libsplit", "libsplit.so")),
               LIBSPLIT_CACHE_DIR=cache, LIBSPLIT_SYNC_PREPARE="1", LIBSPLIT_HOST_DEVICES="all")
    for app in a.apps.split(","):
        exe = os.path.join(a.build, "bench", "bin", app)
        r = run_app([exe, "--size", "small", "--iters", "1", "--no-check"], env, timeout=300)
        if not r.ok:
            print(f"{app}: {r.status}\n{r.stderr[-2000:]}", file=sys.stderr)
            return 1
    buffers = exact = indirect = reductions = 0
    unknown = []
    seen = set()
    for entry in sorted(glob.glob(os.path.join(cache, "*.entry"))):
        for k in summaries(entry):
            key = json.dumps(k, sort_keys=True)  # two apps may name different kernels alike
            if key in seen:
                continue
            seen.add(key)
            for arg in k["args"]:
                if not arg["is_pointer"] or arg["address_space"] != "global" or not (arg["reads"] or arg["writes"]):
                    continue
                buffers += 1
                if arg["reduction"]:
                    reductions += 1
                    continue
                rr, wr = arg["read_region"], arg["write_region"]
                if rr["known"] and wr["known"]:
                    exact += 1
                    indirect += "load_" in json.dumps(rr) + json.dumps(wr)
                else:
                    reason = rr.get("reason") or wr.get("reason", "")
                    unknown.append(f"{k['name']} arg {arg['index']} ({arg['name']}): {reason}")
    shutil.rmtree(cache, ignore_errors=True)
    print(f"bench kernels: {len(seen)}; global buffer arguments: {buffers}")
    print(f"  regions known: {exact} ({indirect} of them index-dependent, resolved at run time)")
    print(f"  reduction buffers (private copies, no region needed): {reductions}")
    print(f"  unknown (whole buffer): {len(unknown)}")
    for u in unknown:
        print("    " + u)
    return 0


if __name__ == "__main__":
    sys.exit(main())
