#!/usr/bin/env python3
"""Files over 600 lines and functions over 80 lines in libsplit/ (issue 25:
one job per file, functions short enough to read at once).

Functions are found by their shape in this code base: a definition starts at
column 0 (namespaces are not indented) with a parameter list and ends at the
first line that is a lone '}' at column 0; lambdas count with the function
that holds them, member functions defined inside a class body are not seen.
  scripts/code_shape.py [--check]
--check: exit 1 when something over the limits is not listed in
scripts/code_shape_known.txt (what is still to be split, one 'path' or
'path:function' a line; listed ones are printed as known), or when a listed
one is within the limits now (the list only shrinks).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
NOT_A_FUNCTION = re.compile(r"^(#|//|/\*|\*|namespace\b|struct\b|class\b|enum\b|union\b|using\b|typedef\b|template\s*<[^>]*>\s*$|\}|extern\s+\"C\"\s*\{)")


def functions(lines):
    """(name, first line, line count) of each function defined at column 0."""
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0].isspace() or NOT_A_FUNCTION.match(line):
            i += 1
            continue
        # The signature: up to the '{' that opens the body, unless a ';' ends it first.
        j, signature = i, ""
        while j < len(lines):
            signature += lines[j] + "\n"
            stripped = lines[j].split("//")[0].rstrip()
            if stripped.endswith("{") or stripped.endswith(";") or stripped.endswith("}"):
                break
            j += 1
        head = signature.split("//")[0]
        if "(" not in head or not signature.split("//")[0].rstrip().endswith("{") or "= {" in head or "={" in head:
            i = j + 1
            continue
        end = j + 1
        while end < len(lines) and lines[end].rstrip() != "}":
            end += 1
        name = re.findall(r"([~\w:]+(?:operator\S*)?)\s*\(", head)
        out.append((name[0] if name else "?", i + 1, end - i + 1))
        i = end + 1
    return out


def main():
    known = set()
    known_file = os.path.join(HERE, "code_shape_known.txt")
    if os.path.exists(known_file):
        with open(known_file) as f:
            known = {l.split("#")[0].strip() for l in f if l.split("#")[0].strip()}
    over, listed, seen = [], [], set()
    for folder, _, names in sorted(os.walk(os.path.join(ROOT, "libsplit"))):
        for name in sorted(names):
            if not name.endswith((".cpp", ".h")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, ROOT)
            with open(path) as f:
                lines = f.read().split("\n")
            if len(lines) - 1 > MAX_FILE_LINES:
                seen.add(rel)
                (listed if rel in known else over).append(f"{rel}: {len(lines) - 1} lines (max {MAX_FILE_LINES})")
            for fn, first, count in functions(lines):
                if count > MAX_FUNCTION_LINES:
                    entry = f"{rel}:{fn}"
                    seen.add(entry)
                    text = f"{rel}:{first}: {fn} has {count} lines (max {MAX_FUNCTION_LINES})"
                    (listed if entry in known else over).append(text)
    for text in listed:
        print("known: " + text)
    for text in over:
        print("OVER:  " + text)
    stale = sorted(known - seen)
    for entry in stale:
        print("STALE: " + entry + " is within the limits now: remove it from scripts/code_shape_known.txt")
    print(f"\n{len(over)} over the limits, {len(listed)} known (scripts/code_shape_known.txt), {len(stale)} stale")
    return 1 if (over or stale) and "--check" in sys.argv else 0


if __name__ == "__main__":
    sys.exit(main())
