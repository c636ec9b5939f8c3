"""Wait until this machine is quiet before the tests that need it alone.

The `alone` tests time a browser's audio clock or starve a CPU on purpose: whatever the
parallel run left behind (a server still shutting down, a database checkpointing) skews
them. This samples /proc/stat once a second until the CPUs were at most `--busy` percent
busy for `--for` seconds in a row, or `--at-most` seconds have passed; then it says how
long it waited and, when the machine never went quiet, which processes kept it busy (so a
failure of those tests can be told from a loaded machine). Exits 0 either way.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path


def _ticks() -> tuple[int, int]:
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields), idle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=float, default=20.0, help="percent of all CPUs counted as quiet (20)")
    parser.add_argument("--for", dest="quiet_for", type=int, default=3, help="quiet seconds in a row (3)")
    parser.add_argument("--at-most", type=float, default=90.0, help="seconds to wait at most (90)")
    args = parser.parse_args()
    if not Path("/proc/stat").exists():
        return 0
    start = time.monotonic()
    quiet, last = 0, _ticks()
    busy = 100.0
    while quiet < args.quiet_for and time.monotonic() - start < args.at_most:
        time.sleep(1)
        now = _ticks()
        total, idle = now[0] - last[0], now[1] - last[1]
        last = now
        busy = 100.0 * (1 - idle / total) if total else 0.0
        quiet = quiet + 1 if busy <= args.busy else 0
    waited = time.monotonic() - start
    if quiet >= args.quiet_for:
        print(f"wait_quiet: the machine is quiet ({busy:.0f}% busy) after {waited:.0f} s", file=sys.stderr)
        return 0
    print(f"wait_quiet: still {busy:.0f}% busy after {waited:.0f} s; the busiest processes:", file=sys.stderr)
    top = subprocess.run(["ps", "-eo", "pid,pcpu,etimes,args", "--sort=-pcpu"], capture_output=True, text=True)
    for line in top.stdout.splitlines()[:8]:
        print("  " + line[:200], file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
