#!/usr/bin/env python3
"""Random kernels (issue 24): a CLSmith fuzz run of the shim.

CLSmith (github.com/ChrisLidbury/CLSmith) is not part of this repository and
this script downloads nothing. Point it at a CLSmith install: a folder with
the `CLSmith` generator and `cl_launcher` (in it or in bin/) and the kernel
headers CLSmith.h, cl_safe_math_macros.h, safe_math_macros.h (in it, in
include/ or include/CLSmith/), given as --clsmith DIR or $LIBSPLIT_CLSMITH_DIR.
`--build SRC` builds one from a CLSmith source tree you already have
(cmake, m4 and a C++ compiler needed) and installs it into that folder.

For each mode (plain, vectors, barriers, atomics, atomic reductions,
inter-thread communication, divergence) it generates kernels from fixed
seeds (seeds whose NDRange has more than --max-threads work-items are
passed over, so that each kernel runs in well under a second), runs each
with cl_launcher natively on PoCL pthread and on PoCL basic, then under the
shim forced to split over 2 devices (pthread basic) and 3 devices
(pthread basic pthread), each under a timeout, and compares the printed
results with the native pthread run's.

A kernel is set aside (not our bug) when it fails or times out natively, or
when its native output differs between pthread and basic (undefined
behaviour or a race in the kernel). Otherwise each split run is same,
differs, crash (non-zero exit) or hang (timeout); a kernel counts under its
worst split run. The last column counts the kernels (not set aside) of
which a split run was not split: the shim chose to run the launch whole on
one device (LIBSPLIT_LOG says why), e.g. for global atomics on memory it
cannot trace. Exit status 1 when any split run differs, crashes or hangs.

usage: scripts/clsmith.py [--clsmith DIR] [--build SRC] [--per-mode N] ...
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# mode name -> CLSmith generator flags. Barriers are only placed by CLSmith's
# divergence analysis, hence --divergence --track_divergence with --barriers.
MODES = [
    ("plain", []),
    ("vectors", ["--vectors"]),
    ("barriers", ["--barriers", "--divergence", "--track_divergence"]),
    ("atomics", ["--atomics"]),
    ("atomic_reductions", ["--atomic_reductions"]),
    ("inter_thread_comm", ["--inter_thread_comm"]),
    ("divergence", ["--divergence"]),
]

SPLIT_ENV = {"LIBSPLIT_HOST_DEVICES": "all", "LIBSPLIT_WHOLE": "0",
             "LIBSPLIT_SYNC_PREPARE": "1", "LIBSPLIT_LOG": "1"}
# run name -> (POCL_DEVICES, under the shim)
RUNS = [("pthread", "pthread", False), ("basic", "basic", False),
        ("split2", "pthread basic", True), ("split3", "pthread basic pthread", True)]
OUTCOMES = ["same", "differs", "crash", "hang"]


def find_install(d):
    """(generator, launcher, include dir) of a CLSmith install, or an error."""
    def first(cands, test):
        return next((c for c in cands if test(c)), None)
    gen = first([os.path.join(d, "CLSmith"), os.path.join(d, "bin", "CLSmith")], os.path.isfile)
    launcher = first([os.path.join(d, "cl_launcher"), os.path.join(d, "bin", "cl_launcher")], os.path.isfile)
    inc = first([d, os.path.join(d, "include"), os.path.join(d, "include", "CLSmith")],
                lambda c: all(os.path.isfile(os.path.join(c, h)) for h in
                              ("CLSmith.h", "cl_safe_math_macros.h", "safe_math_macros.h")))
    missing = [n for n, v in (("CLSmith", gen), ("cl_launcher", launcher),
                              ("CLSmith.h + safe math headers", inc)) if not v]
    return gen, launcher, inc, missing


def build(src, dest):
    """Configure, build and install CLSmith from SRC into DEST (no download)."""
    if not os.path.isfile(os.path.join(src, "src", "CLSmith", "cl_launcher.c")):
        sys.exit(f"clsmith: {src} is not a CLSmith source tree (no src/CLSmith/cl_launcher.c)")
    if not shutil.which("m4"):
        sys.exit("clsmith: m4 is needed to build CLSmith's safe math headers (apt-get install m4)")
    work = os.path.join(dest, "build")
    os.makedirs(work, exist_ok=True)
    for cmd in (["cmake", "-S", src, "-B", work, "-DCMAKE_BUILD_TYPE=Release",
                 "-DCMAKE_INSTALL_PREFIX=" + os.path.abspath(dest)],
                ["cmake", "--build", work, "-j", str(os.cpu_count() or 2)],
                ["cmake", "--install", work]):
        print("clsmith: " + " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)


def run(cmd, env, timeout, cwd):
    """(outcome, stdout, seconds): outcome ok / crash / hang."""
    t = time.time()
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return "hang", e.stdout or b"", e.stderr or b"", time.time() - t
    return ("ok" if p.returncode == 0 else "crash"), p.stdout, p.stderr, time.time() - t


def generate(gen, flags, seed, out, max_threads):
    """Writes the kernel for SEED to OUT; None when its NDRange is too large."""
    # cwd: CLSmith also writes a platform.info where it runs.
    subprocess.run([gen, "--seed", str(seed), *flags, "--output_file", out],
                   check=True, capture_output=True, timeout=60, cwd=os.path.dirname(out))
    words = open(out).readline().split()
    size = 1
    for g in words[words.index("-g") + 1].split(","):
        size *= int(g)
    return size if size <= max_threads else None


def check_kernel(args, launcher, inc, path):
    """Runs one kernel four times; returns {run: outcome} and a note."""
    if args.deadline and time.time() > args.deadline:
        return {"not_run": True}
    base = dict(os.environ)
    for k in list(base):
        if k.startswith("LIBSPLIT_") or k in ("LD_PRELOAD", "POCL_DEVICES"):
            del base[k]
    cmd = [launcher, "-f", path, "-p", "0", "-d", "0", "-i", inc]
    if args.disable_opts:
        cmd.append("---disable_opts")
    outs, res, notes = {}, {}, []
    for name, devices, shim in RUNS:
        env = dict(base, POCL_DEVICES=devices)
        if shim:
            env.update(SPLIT_ENV, LD_PRELOAD=args.shim, LIBSPLIT_CACHE_DIR=args.cache)
        # Under the shim a run also analyses the kernel and builds it per device.
        r, out, err, _ = run(cmd, env, args.split_timeout if shim else args.timeout,
                             os.path.dirname(path))
        outs[name] = out
        with open(path + "." + name + ".out", "wb") as f:
            f.write(out)
        with open(path + "." + name + ".err", "wb") as f:
            f.write(err)
        if name == "pthread" and r != "ok":
            return {"set_aside": f"native pthread {r}"}
        if name == "basic":
            if r != "ok":
                return {"set_aside": f"native basic {r}"}
            if out != outs["pthread"]:
                return {"set_aside": "pthread and basic differ"}
            continue
        if shim:
            if r == "ok":
                r = "same" if out == outs["pthread"] else "differs"
            if r in ("same", "differs") and b"split over" not in err:
                notes.append(name + " not split")
            res[name] = r
    res["note"] = ", ".join(notes)
    return res


def generate_corpus(args, gen, modes, work):
    """[(mode, seed, path)]: --per-mode kernels of each mode from fixed seeds
    (large NDRanges passed over), round robin over the modes, so that a
    --minutes cut leaves every mode run."""
    kernels = []
    for mode, flags in modes:
        seed, kept, passed, failed = args.seed, 0, 0, 0
        while kept < args.per_mode:
            path = os.path.join(work, f"{mode}-{seed}.cl")
            try:
                ok = generate(gen, flags, seed, path, args.max_threads)
            except (subprocess.SubprocessError, ValueError):
                ok = False
                failed += 1
            if ok:
                kernels.append((mode, seed, path))
                kept += 1
            else:
                passed += ok is None
                if os.path.exists(path):
                    os.remove(path)
            seed += 1
        print(f"generated {mode}: {kept} kernels, seeds {args.seed}..{seed - 1} "
              f"({passed} passed over: NDRange > {args.max_threads}; "
              f"{failed} the generator failed on)", flush=True)
    order = {m: i for i, (m, _) in enumerate(modes)}
    rank = {k: [x for x in kernels if x[0] == k[0]].index(k) for k in kernels}
    return sorted(kernels, key=lambda k: (rank[k], order[k[0]]))


def print_table(table, modes):
    print()
    cols = ["kernels", "same", "differs", "crash", "hang", "set_aside", "whole"]
    print("| mode | kernels | same as native | differs | crash | hang/timeout | set aside "
          "| of which the shim ran whole |")
    print("|---|---|---|---|---|---|---|---|")
    total = {c: 0 for c in cols}
    for mode, _ in modes:
        print(f"| {mode} | " + " | ".join(str(table[mode][c]) for c in cols) + " |")
        for c in cols:
            total[c] += table[mode][c]
    print("| **total** | " + " | ".join(str(total[c]) for c in cols) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clsmith", default=os.environ.get("LIBSPLIT_CLSMITH_DIR"),
                    help="CLSmith install folder (default $LIBSPLIT_CLSMITH_DIR)")
    ap.add_argument("--build", metavar="SRC", help="build CLSmith from source tree SRC into --clsmith first")
    ap.add_argument("--shim", default=os.path.join(ROOT, "build", "libsplit", "libsplit.so"))
    ap.add_argument("--modes", default=",".join(m for m, _ in MODES))
    ap.add_argument("--per-mode", type=int, default=45, help="kernels per mode")
    ap.add_argument("--seed", type=int, default=1, help="first seed of each mode")
    ap.add_argument("--max-threads", type=int, default=4096, help="largest NDRange kept (work-items)")
    ap.add_argument("--timeout", type=float, default=30,
                    help="seconds per native run")
    ap.add_argument("--split-timeout", type=float,
                    help="seconds per run under the shim (default twice --timeout; its first "
                         "build of a kernel can take several times native's, docs/clsmith.md)")
    ap.add_argument("--disable-opts", action="store_true",
                    help="build kernels with -cl-opt-disable (PoCL compiles them ~2.5x faster)")
    ap.add_argument("--jobs", type=int, default=2, help="kernels checked at once")
    ap.add_argument("--minutes", type=float, help="start no kernel after this many minutes")
    ap.add_argument("--work", help="keep kernels and outputs here (default: a temporary folder)")
    ap.add_argument("--skip-code", type=int, default=2,
                    help="exit status when CLSmith is missing (the ctest passes 77)")
    args = ap.parse_args()

    if not args.clsmith:
        print("clsmith: no CLSmith install given: pass --clsmith DIR or set LIBSPLIT_CLSMITH_DIR "
              "(build one with --build SRC from a CLSmith checkout, github.com/ChrisLidbury/CLSmith)")
        return args.skip_code
    if args.build:
        build(args.build, args.clsmith)
    gen, launcher, inc, missing = find_install(args.clsmith)
    if missing:
        print(f"clsmith: {args.clsmith} lacks {', '.join(missing)} "
              "(build it with --build SRC from a CLSmith checkout)")
        return args.skip_code
    if not os.path.isfile(args.shim):
        print(f"clsmith: shim {args.shim} not found (bash scripts/build.sh)")
        return 2
    args.shim = os.path.abspath(args.shim)
    args.split_timeout = args.split_timeout or 2 * args.timeout
    work = args.work or tempfile.mkdtemp(prefix="libsplit-clsmith-")
    os.makedirs(work, exist_ok=True)
    args.cache = os.path.join(work, "libsplit-cache")
    modes = [(m, f) for m, f in MODES if m in args.modes.split(",")]
    start = time.time()
    args.deadline = start + 60 * args.minutes if args.minutes else None

    kernels = generate_corpus(args, gen, modes, work)
    table = {m: dict(kernels=0, set_aside=0, whole=0, **{o: 0 for o in OUTCOMES}) for m, _ in modes}
    bad = []
    done = not_run = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(check_kernel, args, launcher, inc, p): (m, s, p) for m, s, p in kernels}
        for fut in concurrent.futures.as_completed(futs):
            mode, seed, path = futs[fut]
            res = fut.result()
            done += 1
            if "not_run" in res:
                not_run += 1
                continue
            row = table[mode]
            row["kernels"] += 1
            if "set_aside" in res:
                row["set_aside"] += 1
                verdict = "set aside: " + res["set_aside"]
            else:
                worst = max((res[r] for r, _, shim in RUNS if shim), key=OUTCOMES.index)
                row[worst] += 1
                verdict = " ".join(f"{r}={res[r]}" for r, _, shim in RUNS if shim)
                if res["note"]:
                    verdict += f" ({res['note']})"
                    row["whole"] += 1
                if worst != "same":
                    bad.append((mode, seed, path, verdict))
            print(f"[{done}/{len(kernels)} {time.time() - start:.0f}s] {mode} seed {seed}: {verdict}",
                  flush=True)

    print_table(table, modes)
    if not_run:
        print(f"\n{not_run} kernels not run: --minutes {args.minutes} reached")
    keep = args.work or bad
    print(f"\n{len(kernels) - not_run} kernels, {time.time() - start:.0f} s"
          + (f"; kernels and outputs in {work}" if keep else ""))
    for mode, seed, path, verdict in bad:
        print(f"NOT SAME: {mode} seed {seed}: {verdict}: {path}")
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
