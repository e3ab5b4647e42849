#!/usr/bin/env python3
"""Runs a command and prints each line of its stdout and stderr with the
seconds since the command started (stderr lines marked '!'), then the exit
time: where a process spends its start-up and exit (libsplit's LOG lines,
the app's own prints).

  scripts/timestamp_run.py [--tail N] -- ./app args...
"""
import argparse
import os
import selectors
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grep", default="", help="print only lines containing one of these |-separated words")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        sys.exit("no command")
    words = [w for w in a.grep.split("|") if w]
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ, " ")
    sel.register(p.stderr, selectors.EVENT_READ, "!")
    open_streams = 2
    while open_streams:
        for key, _ in sel.select():
            line = key.fileobj.readline()
            if not line:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            text = line.decode(errors="replace").rstrip()
            if not words or any(w in text for w in words):
                print(f"{time.monotonic() - start:8.3f} {key.data} {text}", flush=True)
    rc = p.wait()
    print(f"{time.monotonic() - start:8.3f}   exit {rc}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
