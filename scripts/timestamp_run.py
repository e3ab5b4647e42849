#!/usr/bin/env python3
"""Runs a command and prints each line of its stdout and stderr with the
seconds since the command started (stderr lines marked '!'), then the exit
time: where a process spends its start-up and exit (libsplit's LOG lines,
the app's own prints).

  scripts/timestamp_run.py [--grep 'word|word'] -- ./app args...

stamped_run() is the same for other scripts (opening_bound.py).
"""
import argparse
import os
import selectors
import subprocess
import sys
import time


def stamped_run(cmd, on_line, env=None, timeout=None):
    """Runs cmd, calling on_line(seconds since start, '!' for stderr or ' '
    for stdout, line) as each line arrives; kills it after `timeout` seconds.
    Returns its exit status."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ, " ")
    sel.register(p.stderr, selectors.EVENT_READ, "!")
    rest = {" ": b"", "!": b""}  # a stream's line not ended yet
    open_streams = 2
    while open_streams:
        if timeout is not None and time.monotonic() - start > timeout:
            p.kill()
            break
        for key, _ in sel.select(timeout=1):
            chunk = os.read(key.fileobj.fileno(), 65536)
            now = time.monotonic() - start
            if not chunk:
                sel.unregister(key.fileobj)
                open_streams -= 1
                if rest[key.data]:
                    on_line(now, key.data, rest[key.data].decode(errors="replace"))
                continue
            *full, rest[key.data] = (rest[key.data] + chunk).split(b"\n")
            for line in full:
                on_line(now, key.data, line.decode(errors="replace").rstrip())
    return p.wait()


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

    def show(t, mark, text):
        if not words or any(w in text for w in words):
            print(f"{t:8.3f} {mark} {text}", flush=True)

    rc = stamped_run(cmd, show)
    print(f"{time.monotonic() - start:8.3f}   exit {rc}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
