#!/usr/bin/env python3
"""Helpers of scripts/conformance.sh (and of the ctest label `conformance`).

  piglit-list DIR QUICK      piglit's OpenCL tests: name<TAB>command, one a line
  piglit-result LOG          pass/fail/skip/warn/crash from a piglit test's output
  cts-quick SUITE EXE [gpu]  the quick-mode sub-tests of a CTS suite that EXE has
                             (gpu: and those of CTS_GPU_EXTRA)
  cts-result JSON NAME       pass/fail/skip of sub-test NAME in a CTS results file
  report DIR                 the table (one column per mode run) and the summary of a run
  platforms                  the OpenCL platforms as the ICD loader lists them:
                             index, name, vendor, number of devices, device
                             names (tab-separated; no clinfo needed)
"""
import gzip
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

MODES = ["native", "passthrough", "default", "split"]
SHORT = {"passthrough": "passthru"}
# Not a verdict on the shim: not run, or stopped by --time-budget.
NOT_RUN = ("-", "cut")

# Quick mode: a few sub-tests per CTS suite covering kernels with buffers,
# local memory, barriers, vector types, the object API and the compiler.
CTS_QUICK = {
    "basic": ["hostptr", "if", "loop", "local_arg_def", "barrier",
              "global_work_offsets", "get_global_offset", "constant",
              "kernel_call_kernel_function", "vload_global"],
    "api": ["get_platform_info", "get_device_info", "create_kernels_in_program",
            "get_kernel_info", "get_program_info", "release_kernel_order",
            "binary_create", "min_max_mem_alloc_size", "consistency_images"],
    "buffers": ["buffer_copy", "buffer_partial_copy", "buffer_map_read_int",
                "buffer_fill_int", "sub_buffers_read_write", "buffer_migrate"],
    "compiler": ["load_program_source", "options_build_macro",
                 "preprocessor_define_udef", "compile_only", "simple_link_only",
                 "two_file_link", "execute_after_simple_compile_and_link"],
    "image_streams": ["1D"],
}

# The GPU machine's selection (scripts/device-conformance.sh, --list gpu): the
# quick lists, then sub-tests on what differs most between devices and what
# issue 27 was about (work-group sizes and their limits, local and private
# memory, enqueued/linear ids, barriers, async copies, sub-buffers, builds
# and links), each suite's list in the order a time budget should cut it.
# Not the long sweeps over every type (prefetch, astype, the async copies:
# over 120 s in the split column on PoCL here, a libsplit-cc compile for each
# of their many programs).
CTS_GPU_EXTRA = {
    "basic": ["work_item_functions", "enqueued_local_size", "get_linear_ids",
              "local_kernel_scope", "local_kernel_def", "wg_barrier",
              "kernel_memory_alignment_local", "vload_local", "arrayreadwrite"],
    "api": ["execute_kernel_local_sizes", "kernel_required_group_size",
            "null_required_work_group_size", "kernel_local_memory_size",
            "kernel_private_memory_size", "min_max_work_group_size",
            "min_max_local_mem_size", "work_group_suggested_local_size_1D",
            "work_group_suggested_local_size_2D", "zero_sized_enqueue",
            "kernel_arg_changes", "clone_kernel_with_different_args",
            "get_program_info_kernel_names"],
    "buffers": ["buffer_read_array_barrier_int", "buffer_read_async_int",
                "buffer_write_async_int", "sub_buffers_overlapping",
                "buffer_fill_struct", "mem_read_write_flags"],
    "compiler": ["options_uniform_work_group_size", "multiple_build_program",
                 "execute_after_two_file_link", "async_build",
                 "get_program_build_info", "simple_compile_only"],
}

# Quick mode for piglit: the API tests, the build tests, the hand-written
# programs and every tenth test of the generated families (built-ins,
# vload/vstore, typed stores, atomics).
GENERATED = re.compile(r"^program@execute@(builtin@|vload@|vstore@|store@|atomic_)")


def _piglit_quick(name, index):
    return not GENERATED.match(name) or index % 10 == 0


def piglit_list(piglit_dir, quick):
    root = ET.parse(gzip.open(os.path.join(piglit_dir, "tests", "cl.xml.gz")))
    index = 0
    for test in root.getroot().iter("Test"):
        name = test.get("name")
        opts = {o.get("name"): o.get("value") for o in test.findall("option")}
        kind = test.get("type")
        if kind == "cl":
            command = eval_list(opts["command"])
        elif kind == "cl_prog":
            command = ["cl-program-tester", eval_str(opts["filename"])]
        else:
            continue
        index += 1
        if quick == "1" and not _piglit_quick(name, index):
            continue
        print(f"{name}\t{' '.join(command)}")


def eval_list(text):
    import ast
    return [str(x) for x in ast.literal_eval(text)]


def eval_str(text):
    import ast
    return str(ast.literal_eval(text))


PIGLIT_RESULT = re.compile(r'^PIGLIT: \{"result": "([a-z]+)"')


def piglit_result(log):
    result = ""
    with open(log, errors="replace") as f:
        for line in f:
            m = PIGLIT_RESULT.match(line)
            if m:
                result = m.group(1)
    if result:
        print(result)


def cts_names(exe):
    out = subprocess.run([exe, "--help"], capture_output=True, text=True,
                         cwd=os.path.dirname(exe), timeout=120).stdout
    names, on = [], False
    for line in out.splitlines():
        if line.startswith("Test names:"):
            on = True
        elif on and line.strip():
            names.append(line.strip())
    return names


def cts_quick(suite, exe, which="quick"):
    have = set(cts_names(exe))
    names = CTS_QUICK.get(suite, [])
    if which == "gpu":
        names = names + CTS_GPU_EXTRA.get(suite, [])
    for name in dict.fromkeys(names):
        if name in have:
            print(name)


def cts_result(path, name):
    with open(path) as f:
        results = json.load(f)["results"]
    if name in results:
        print(results[name])


def read_tsv(path, field=1):
    """name -> field (1: result, 3: launches split) of a results file."""
    rows = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) > field:
                    rows[parts[0]] = parts[field]
    return rows


def native_device(out):
    """The device the CTS ran on natively, as its harness prints it."""
    logs = os.path.join(out, "logs")
    if not os.path.isdir(logs):
        return ""
    for suite in sorted(os.listdir(logs)):
        d = os.path.join(logs, suite, "native")
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not f.endswith(".log"):
                continue
            with open(os.path.join(d, f), errors="replace") as fh:
                for line in fh:
                    m = re.match(r"Compute Device Name = (.*?), Compute Device Vendor", line)
                    if m:
                        return m.group(1)
    return ""


def report(out):
    suites = []
    present = set()
    for f in sorted(os.listdir(out)):
        m = re.match(r"(.+)\.(native|passthrough|default|split)\.tsv$", f)
        if m:
            present.add(m.group(2))
            if m.group(1) not in suites:
                suites.append(m.group(1))
    modes = [m for m in MODES if m in present] or list(MODES)
    shim_modes = [m for m in modes if m != "native"]
    meta = {}
    if os.path.exists(os.path.join(out, "meta.txt")):
        with open(os.path.join(out, "meta.txt")) as f:
            meta = dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)
    print(f"# {meta.get('date', '?')}  PoCL {meta.get('pocl', '?')}  "
          f"libsplit {meta.get('libsplit_commit', '?')}  CTS {meta.get('cts', '?')}"
          f"  quick={meta.get('quick', '?')}  timeout {meta.get('timeout_s', '?')} s")
    if meta.get("target"):
        print(f"# target: {meta['target']}")
    device = native_device(out)
    if device:
        print(f"# the CTS's device: {device}")
    broken, skipped, counts, cuts = [], [], [], []
    for suite in suites:
        cols = {m: read_tsv(os.path.join(out, f"{suite}.{m}.tsv")) for m in modes}
        names = list(dict.fromkeys(n for m in modes for n in cols[m]))
        print(f"\n## {suite}")
        width = max([len(n) for n in names] + [8])
        print(f"{'sub-test':<{width}}  " +
              " ".join(f"{SHORT.get(m, m):<8}" for m in modes).rstrip())
        for n in names:
            row = [cols[m].get(n, "-") for m in modes]
            flag = ""
            shim = [r for r in row[1:] if r not in ("pass",) + NOT_RUN]
            if row[0] == "pass" and shim:
                # A skip under the shim is a feature it does not advertise
                # (images, SVM, pipes while splitting): listed apart.
                if all(r == "skip" for r in shim):
                    flag = "  (skip)"
                    skipped.append((suite, n, row))
                else:
                    flag = "  <<"
                    broken.append((suite, n, row))
            print((f"{n:<{width}}  " + " ".join(f"{r:<8}" for r in row)).rstrip() + flag)
        for m in modes:
            c = cols[m]
            if not c:
                continue
            tally = {}
            for st in c.values():
                tally[st] = tally.get(st, 0) + 1
            counts.append((suite, m, len(c), tally))
        cut = os.path.join(out, f"{suite}.cut")
        if os.path.exists(cut):
            with open(cut) as f:
                done, total = (f.read().split() + ["?", "?"])[:2]
            cuts.append((suite, done, total))
    print("\n## Summary (pass / total; other outcomes)")
    for suite, m, total, tally in counts:
        rest = ", ".join(f"{k} {v}" for k, v in sorted(tally.items()) if k != "pass")
        print(f"{suite:<14} {m:<12} {tally.get('pass', 0):>4} / {total:<4} {rest}")
    if cuts:
        print("\n## Stopped by the time budget")
        for suite, done, total in cuts:
            print(f"{suite:<14} {done} of {total} sub-tests run")
    if "split" in modes:
        print("\n## Sub-tests with at least one launch split over several devices (split column)")
        for suite in suites:
            splits = read_tsv(os.path.join(out, f"{suite}.split.tsv"), 3)
            if splits:
                n = sum(1 for v in splits.values() if v.isdigit() and int(v) > 0)
                launches = sum(int(v) for v in splits.values() if v.isdigit())
                print(f"{suite:<14} {n:>4} / {len(splits):<4} ({launches} split launches)")

    def cells(row):
        return ", ".join(f"{m}: {r}" for m, r in zip(shim_modes, row[1:]))
    print(f"\n## Pass natively, fail/crash/hang under the shim: {len(broken)}")
    for suite, n, row in broken:
        print(f"{suite:<14} {n}  ({cells(row)})")
    print(f"\n## Pass natively, skipped under the shim: {len(skipped)}")
    for suite, n, row in skipped:
        print(f"{suite:<14} {n}  ({cells(row)})")
    return 1 if broken else 0


def platforms():
    import ctypes
    cl = ctypes.CDLL("libOpenCL.so.1")
    u, vp, sz = ctypes.c_uint, ctypes.c_void_p, ctypes.c_size_t

    def text(fn, obj, what):
        buf = ctypes.create_string_buffer(512)
        fn(vp(obj), u(what), sz(512), buf, None)
        return buf.value.decode(errors="replace").strip()
    n = u()
    if cl.clGetPlatformIDs(u(0), None, ctypes.byref(n)) != 0:
        n.value = 0
    plats = (vp * max(n.value, 1))()
    cl.clGetPlatformIDs(n, plats, None)
    all_types = ctypes.c_uint64(0xFFFFFFFF)
    for i, p in enumerate(plats[:n.value]):
        nd = u()
        if cl.clGetDeviceIDs(vp(p), all_types, u(0), None, ctypes.byref(nd)) != 0:
            nd.value = 0
        devs = (vp * max(nd.value, 1))()
        cl.clGetDeviceIDs(vp(p), all_types, nd, devs, None)
        names = [text(cl.clGetDeviceInfo, d, 0x102B) for d in devs[:nd.value]]  # CL_DEVICE_NAME
        print("\t".join([str(i), text(cl.clGetPlatformInfo, p, 0x0902),  # CL_PLATFORM_NAME
                         text(cl.clGetPlatformInfo, p, 0x0903),  # CL_PLATFORM_VENDOR
                         str(nd.value), " | ".join(names)]))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    status = {"piglit-list": piglit_list, "piglit-result": piglit_result,
              "cts-quick": cts_quick, "cts-result": cts_result,
              "report": report, "platforms": platforms}[cmd](*args)
    sys.exit(status or 0)


if __name__ == "__main__":
    main()
