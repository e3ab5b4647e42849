#!/usr/bin/env python3
"""Issue 26's table: the same GPUs used locally and through PoCL-Remote.

Starts SERVERS pocld processes on loopback, each owning GPUS_PER_SERVER of the
node's GPUs (CUDA_VISIBLE_DEVICES, the server's own OpenCL platform through
--server-lib), so that a client sees SERVERS x GPUS_PER_SERVER remote devices
of one PoCL platform; then, side by side in one run (rounds alternate the
configurations), each bench app:

  native   natively on one local GPU (only --local-lib visible)
  local    the shim, default settings, over the local GPUs (the same library)
  remote1  natively on remote device 0 (the remote layer's own cost)
  remote   the shim, default settings, over every remote device

Writes OUT/remote.md (medians and maxima of the app's time_ms, speed-up over
native, remote's speed-up over local's: the issue asks >= 0.9 for matmul,
syr2k and histogram; process wall time against native) and OUT/remote.csv
(every run) and OUT/remote.svg (the speed-ups as bars; --plot-only CSV redraws it
from an earlier remote.csv), and exits 1 when a run fails. After the timed rounds, each shim
configuration runs once more with LIBSPLIT_LOG=1 (OUT/logs/APP-CONFIG.txt):
the table's last column counts its launches split and over how many devices.

  scripts/bench_remote.py --bin-dir .devpack/bench/bin --shim .devpack/libsplit/libsplit.so \\
      --pocl-remote .devpack/pocl-remote/install --apps matmul,syr2k,histogram \\
      --preset large --iters 100 --repeat 3 --out OUT

--pocl-remote is the install folder of scripts/build-pocl-remote.sh (bin/pocld,
lib/libpocl.so; PoCL is built relocatable, so a copy anywhere works). Here, with
no GPU, `--local-lib libpocl.so.2 --server-lib <install>/lib/libpocl.so
--server-env POCL_DEVICES=cpu --gpus-per-server 1` checks the mechanics.
"""
import argparse
import csv
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import run_app  # noqa: E402

CONFIGS = ["native", "local", "remote1", "remote"]


def listening(port):
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def vendors_dir(work, name, lib):
    """A vendors folder holding one .icd file for LIB: with OCL_ICD_VENDORS set
    to it, OCL_ICD_FILENAMES unset and ocl-icd's loader first in the library
    path (icd_loader_path), a process sees LIB's platform only. The Khronos
    loader that CUDA ships ignores OCL_ICD_VENDORS and loads OCL_ICD_FILENAMES
    on top of /etc/OpenCL/vendors: the client then loaded the system's PoCL
    next to the PoCL-Remote build, and two PoCL libraries in one process
    abort in LLVM's option registry."""
    folder = work / name
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.icd").write_text(lib + "\n")
    return str(folder)


def icd_loader_path():
    """LD_LIBRARY_PATH with ocl-icd's libOpenCL.so.1 first, where installed."""
    path = os.environ.get("LD_LIBRARY_PATH", "")
    for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64"):
        if (Path(d) / "libOpenCL.so.1").exists():
            return d + (":" + path if path else "")
    return path


def start_servers(args, work):
    icd = vendors_dir(work, "server-icd", args.server_lib)
    servers = []
    for i in range(args.servers):
        port = args.port + 10 * i
        if listening(port):
            sys.exit(f"bench_remote: port {port} is in use (--port)")
        first = i * args.gpus_per_server
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OCL_ICD", "POCL_"))}
        env.update(OCL_ICD_VENDORS=str(icd), LD_LIBRARY_PATH=icd_loader_path(), POCL_CACHE_DIR=str(work / f"cache{i}"),
                   CUDA_VISIBLE_DEVICES=",".join(str(first + g) for g in range(args.gpus_per_server)))
        for kv in args.server_env:
            k, v = kv.split("=", 1)
            env[k] = v
        log = open(work / f"pocld{i}.log", "w")
        p = subprocess.Popen([str(Path(args.pocl_remote) / "bin/pocld"), "-a", "127.0.0.1", "-p", str(port)],
                             env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        servers.append((p, port))
    for p, port in servers:
        for _ in range(300):
            if listening(port) or p.poll() is not None:
                break
            time.sleep(0.1)
        if not listening(port):
            stop_servers(servers)
            sys.exit(f"bench_remote: pocld on port {port} did not start (logs in {work})")
    return servers


def stop_servers(servers):
    for p, _ in servers:
        p.terminate()
    for p, _ in servers:
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()


def environments(args, work):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OCL_ICD", "POCL_", "LIBSPLIT_"))}
    base["LD_LIBRARY_PATH"] = icd_loader_path()
    local = dict(base, OCL_ICD_VENDORS=vendors_dir(work, "local-icd", args.local_lib))
    client_lib = str(Path(args.pocl_remote).resolve() / "lib/libpocl.so")
    remote = dict(base, OCL_ICD_VENDORS=vendors_dir(work, "client-icd", client_lib))
    k = 0
    for i in range(args.servers):
        for d in range(args.gpus_per_server):
            remote[f"POCL_REMOTE{k}_PARAMETERS"] = f"127.0.0.1:{args.port + 10 * i}/{d}"
            k += 1
    remote["POCL_DEVICES"] = " ".join(["remote"] * k)
    shim = {"LD_PRELOAD": str(Path(args.shim).resolve()), "LIBSPLIT_CACHE_DIR": str(work / "libsplit-cache")}
    return {"native": local, "local": dict(local, **shim), "remote1": remote, "remote": dict(remote, **shim)}


def split_counts(log):
    """'N/M split (k over D devices, ...)' from a LIBSPLIT_LOG=1 run's stderr."""
    launches = [l for l in log.splitlines() if l.startswith("libsplit: launch ") and " | dev" in l]
    over = {}
    for l in launches:
        m = re.search(r"split over (\d+) devices", l)
        if m:
            over[m.group(1)] = over.get(m.group(1), 0) + 1
    n = sum(over.values())
    detail = ", ".join(f"{k} over {d}" for d, k in sorted(over.items()))
    return f"{n}/{len(launches)} split" + (f" ({detail})" if detail else "")


def median(xs):
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def svg_bars(rows, apps, path):
    """Speed-up over one local GPU natively per app: local, remote1 and remote
    bars side by side, a dotted line at 1 (the app alone)."""
    colors = {"local": "#1f77b4", "remote1": "#aaaaaa", "remote": "#d62728"}
    legend = {"local": "shim, local GPUs", "remote1": "1 GPU via pocld", "remote": "shim, remote GPUs"}
    ups = {}
    for app in apps:
        base = median([r["time_ms"] for r in rows if r["app"] == app and r["config"] == "native"])
        for c in colors:
            t = median([r["time_ms"] for r in rows if r["app"] == app and r["config"] == c])
            ups[app, c] = base / t if t == t and t > 0 else 0.0
    top = max([4.0] + [v for v in ups.values() if v == v])
    w, h, left, bottom, group = 220 + 150 * len(apps), 320, 50, 40, 150
    y = lambda v: h - bottom - (h - bottom - 30) * v / top  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
             f'font-size="12">', f'<text x="{left}" y="18">speed-up over one local GPU, app alone</text>']
    for k in range(int(top) + 1):
        parts.append(f'<line x1="{left}" x2="{w - 10}" y1="{y(k):.1f}" y2="{y(k):.1f}" stroke="#eee"/>'
                     f'<text x="{left - 8}" y="{y(k) + 4:.1f}" text-anchor="end">{k}x</text>')
    parts.append(f'<line x1="{left}" x2="{w - 10}" y1="{y(1):.1f}" y2="{y(1):.1f}" stroke="#000" '
                 f'stroke-dasharray="2,3"/>')
    for i, app in enumerate(apps):
        x0 = left + 20 + i * group
        for j, c in enumerate(colors):
            v = ups[app, c]
            parts.append(f'<rect x="{x0 + 35 * j}" y="{y(v):.1f}" width="30" height="{y(0) - y(v):.1f}" '
                         f'fill="{colors[c]}"/><text x="{x0 + 35 * j + 15}" y="{y(v) - 4:.1f}" '
                         f'text-anchor="middle" font-size="10">{v:.2f}</text>')
        parts.append(f'<text x="{x0 + 50}" y="{h - bottom + 16}" text-anchor="middle">{app}</text>')
    for j, c in enumerate(colors):
        parts.append(f'<rect x="{w - 150}" y="{30 + 16 * j}" width="10" height="10" fill="{colors[c]}"/>'
                     f'<text x="{w - 135}" y="{39 + 16 * j}">{legend[c]}</text>')
    parts.append("</svg>")
    Path(path).write_text("\n".join(parts) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", default="build/bench/bin")
    ap.add_argument("--shim", default="build/libsplit/libsplit.so")
    ap.add_argument("--pocl-remote", help="install folder of the PoCL-Remote build (required unless --plot-only)")
    ap.add_argument("--plot-only", metavar="CSV", help="no runs: the table and plot of an earlier remote.csv")
    ap.add_argument("--servers", type=int, default=2)
    ap.add_argument("--gpus-per-server", type=int, default=2)
    ap.add_argument("--local-lib", default="libnvidia-opencl.so.1", help="the GPUs' OpenCL library")
    ap.add_argument("--server-lib", default="libnvidia-opencl.so.1", help="what each pocld serves")
    ap.add_argument("--server-env", action="append", default=[], help="VAR=value for the servers")
    ap.add_argument("--port", type=int, default=41000)
    ap.add_argument("--apps", default="matmul,syr2k,histogram")
    ap.add_argument("--preset", default="large")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.plot_only:
        with open(args.plot_only, newline="") as f:
            rows = [dict(r, time_ms=float(r["time_ms"]), wall_s=float(r["wall_s"])) for r in csv.DictReader(f)]
        apps = list(dict.fromkeys(r["app"] for r in rows))
        svg_bars(rows, apps, out / "remote.svg")
        print(f"wrote {out / 'remote.svg'}")
        return 0
    if not args.pocl_remote:
        ap.error("--pocl-remote is required (or --plot-only CSV)")
    work = Path(tempfile.mkdtemp(prefix="libsplit-remote-bench."))
    servers = start_servers(args, work)
    envs = environments(args, work)
    rows, failed, splits = [], False, {}
    try:
        for app in args.apps.split(","):
            cmd = [str(Path(args.bin_dir) / app), "--size", args.preset, "--iters", str(args.iters),
                   "--device", "0", "--no-check"]
            for config in CONFIGS:  # untimed: fills the caches and the warm-start store
                r = run_app(cmd, envs[config], args.timeout)
                print(f"{app} {config} (untimed): {r.status} time_ms={r.time_ms:.1f} wall={r.wall:.2f}s", flush=True)
            for rep in range(args.repeat):
                for config in CONFIGS:
                    r = run_app(cmd, envs[config], args.timeout)
                    print(f"{app} {config} run {rep + 1}: {r.status} time_ms={r.time_ms:.1f} wall={r.wall:.2f}s",
                          flush=True)
                    failed |= not r.ok
                    if not r.ok:
                        print(r.stderr[-2000:], file=sys.stderr)
                    rows.append({"app": app, "config": config, "run": rep + 1, "status": r.status,
                                 "time_ms": r.time_ms, "wall_s": r.wall})
                    with open(out / "remote.csv", "w", newline="") as f:
                        w = csv.DictWriter(f, fieldnames=list(rows[0]))
                        w.writeheader()
                        w.writerows(rows)
            # One more run of each shim configuration with LIBSPLIT_LOG=1, not timed:
            # how many launches split and over how many devices (OUT/logs/).
            for config in ("local", "remote"):
                r = run_app(cmd, dict(envs[config], LIBSPLIT_LOG="1"), args.timeout)
                (out / "logs").mkdir(exist_ok=True)
                (out / "logs" / f"{app}-{config}.txt").write_text(r.stdout + r.stderr)
                splits[app, config] = split_counts(r.stderr)
    finally:
        stop_servers(servers)
    lines = [f"Speed-up of the app's time_ms over one local GPU natively (medians of {args.repeat} runs; "
             f"max/med in brackets), preset {args.preset}, {args.iters} iterations, default settings; "
             f"{args.servers} pocld servers on loopback, {args.gpus_per_server} GPUs each.", "",
             "| app | native (1 local GPU) | local (shim) | remote1 (native, 1 remote GPU) | remote (shim) "
             "| remote / local | wall: local, remote - native | launches split: local; remote (LOG=1 run) |",
             "|---|---|---|---|---|---|---|---|"]
    for app in args.apps.split(","):
        t = {c: [r["time_ms"] for r in rows if r["app"] == app and r["config"] == c] for c in CONFIGS}
        wall = {c: median([r["wall_s"] for r in rows if r["app"] == app and r["config"] == c]) for c in CONFIGS}
        base = median(t["native"])
        cell = {c: f"{base / median(t[c]):.2f}x [{max(t[c]) / median(t[c]):.2f}]" if t[c] else "-"
                for c in CONFIGS[1:]}
        ratio = median(t["local"]) / median(t["remote"]) if t["remote"] else float("nan")
        lines.append(f"| {app} | {base:.1f} ms | {cell['local']} | {cell['remote1']} | {cell['remote']} | "
                     f"{ratio:.2f} | {1000 * (wall['local'] - wall['native']):+.0f}, "
                     f"{1000 * (wall['remote'] - wall['native']):+.0f} ms | "
                     f"{splits.get((app, 'local'), '-')}; {splits.get((app, 'remote'), '-')} |")
    (out / "remote.md").write_text("\n".join(lines) + "\n")
    svg_bars(rows, args.apps.split(","), out / "remote.svg")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
