#!/usr/bin/env python3
"""The include graph between libsplit/'s stage folders (libsplit/README.md,
"Layout"), from the #include lines of their files.

Stages from the bottom up: a file may include its own stage and the stages
below it. Prints every edge between folders with its count and an example,
then the upward edges (a lower stage reaching up) in full.
  scripts/include_graph.py [--check]   (--check: exit 1 when an upward edge exists)
"""
import collections
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "libsplit")
ORDER = ["runtime", "objects", "data", "program", "launch", "api"]  # bottom to top
BELOW_ALL = {"sched"}  # the schedulers: pure, below every stage


def main():
    where = {}
    for folder in ORDER + sorted(BELOW_ALL):
        for name in os.listdir(os.path.join(ROOT, folder)):
            where[name] = folder
    edges = collections.defaultdict(list)
    for folder in ORDER:
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not name.endswith((".cpp", ".h")):
                continue
            with open(os.path.join(ROOT, folder, name)) as f:
                for line in f:
                    m = re.match(r'#include "([^"]+)"', line)
                    if not m:
                        continue
                    target = "sched" if m.group(1).startswith("sched/") else where.get(m.group(1).split("/")[-1])
                    if target and target != folder:
                        edges[(folder, target)].append(f"{name} -> {m.group(1)}")
    upward = []
    for (a, b), what in sorted(edges.items()):
        up = b not in BELOW_ALL and ORDER.index(b) > ORDER.index(a)
        print(f"{a:8} -> {b:8} {len(what):3}  e.g. {what[0]}{'   UPWARD' if up else ''}")
        if up:
            upward += [f"  {a}/{w}" for w in what]
    print(f"\n{len(upward)} upward includes" + (":" if upward else ""))
    print("\n".join(upward))
    return 1 if upward and "--check" in sys.argv else 0


if __name__ == "__main__":
    sys.exit(main())
