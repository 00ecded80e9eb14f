"""Run the real server (``server.cli``) under cProfile, profiling only between SIGUSR1 and SIGUSR2.

``bench/load.py --profile FILE`` starts the server through this wrapper and sends SIGUSR1 at the
start of the measurement window and SIGUSR2 at its end, so connection setup and warm-up stay out
of the profile. Read the result with ``python bench/profile_server.py --show FILE``.

Usage: ``python bench/profile_server.py --out FILE -- <mnk-server arguments>``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import signal
import sys
import time
from types import FrameType


def show(path: str, limit: int = 40) -> None:
    """Print the top of a profile by own time and by cumulative time."""
    stats = pstats.Stats(path)
    stats.sort_stats("tottime").print_stats(limit)
    stats.sort_stats("cumulative").print_stats(limit)


def main() -> None:
    """Install the signal handlers and hand over to the server's command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", help="where to write the profile (pstats format)")
    p.add_argument("--show", help="print a saved profile and exit")
    p.add_argument("server_args", nargs=argparse.REMAINDER)
    args = p.parse_args()
    if args.show:
        show(args.show)
        return
    profiler = cProfile.Profile(time.process_time)  # CPU time: immune to other load

    def start(signum: int, frame: FrameType | None) -> None:
        profiler.enable()

    def stop(signum: int, frame: FrameType | None) -> None:
        profiler.disable()
        profiler.dump_stats(args.out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    from server.cli import main as server_main

    rest = args.server_args[1:] if args.server_args[:1] == ["--"] else args.server_args
    server_main(rest)


if __name__ == "__main__":
    sys.exit(main())
