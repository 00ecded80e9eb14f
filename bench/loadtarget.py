"""The targets of ``bench/load.py``: the server or a relay as a subprocess, and what it costs.

CPU comes from ``/proc/PID/stat`` (user + system, all threads) and per thread from
``/proc/PID/task``; memory is the resident set (``VmRSS``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from loadgen import ROOT, _die_with_parent

CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14 and 15)


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds so far of ``pid``'s main thread (``loop``) and of all its other threads
    (``threads``: the server's SQLite writer, WAL checkpointer and history readers)."""
    out = {"loop": 0.0, "threads": 0.0}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK
        out["loop" if task.name == str(pid) else "threads"] += cpu
    return out


def rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def raise_fd_limit(needed: int) -> None:
    """Raise the soft open-files limit towards the hard one (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        new = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


@functools.cache
def server_help(src: str) -> str:
    """``mnk-server --help`` of the server in ``src`` (benches may run older trees' servers)."""
    env = {**os.environ, "PYTHONPATH": src}
    cmd = [sys.executable, "-m", "server", "--help"]
    return subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True).stdout


class Target:
    """The server or the relay as a subprocess on a free port, killed on exit.

    ``server`` is durable (a SQLite file), ``memory`` runs ``--memory``; ``relay`` is the bare
    relay on stock asyncio (the baseline), ``relay_uv`` the same relay on uvloop. ``bots``
    starts the server's built-in bot (``--bots minimax``) instead of none.
    """

    def __init__(
        self,
        kind: str,
        tmp: Path,
        src: str,
        profile: str | None = None,
        loop: str = "auto",
        bots: bool = False,
        wrapper: tuple[str, ...] = (),
        env: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.kind = kind
        self.port = free_port()
        relay = kind.startswith("relay")
        self.profiled = not relay and profile is not None
        host = ["--host", "127.0.0.1", "--port", str(self.port)]
        if not relay:
            cmd = [sys.executable, "-m", "server"]
            if profile is not None:
                profiler = str(ROOT / "bench" / "profile_server.py")  # not ``wrapper``'s name
                cmd = [sys.executable, profiler, "--out", str(Path(profile).resolve()), "--"]
            storage = ["--memory"] if kind == "memory" else ["--db", str(tmp / f"{self.port}.db")]
            cmd += [*host, *storage, *(["--bots", "minimax"] if bots else ["--no-bots"])]
            cmd += ["--rate", "1000000", "--burst", "1000000", "--log-level", "WARNING"]
            cmd += ["--max-connections-per-address", "100000", "--max-connections", "100000"]
            if "--max-pending-per-address" in server_help(src):  # the load comes from few addresses
                cmd += ["--max-pending-per-address", "100000"]
            if "--hello-rate" in server_help(src):  # and opens them all at once
                cmd += ["--hello-rate", "inf"]
            if "--page-rate" in server_help(src):  # (every accept is charged to that bucket)
                cmd += ["--page-rate", "inf"]
            if "--max-guest-games-per-hour" in server_help(src):  # a pair plays game after game
                cmd += ["--max-guest-games-per-hour", "1000000000"]
            if "--max-games-per-address-hour" in server_help(src):  # all from one address
                cmd += ["--max-games-per-address-hour", "1000000000"]
                cmd += ["--max-seeks-per-address", "1000000000"]
            cmd += [] if loop == "auto" else ["--loop", loop]  # auto: older servers have none
            cmd = [*wrapper, *cmd]
        else:
            loop = "uvloop" if kind == "relay_uv" else "asyncio"
            cmd = [sys.executable, str(ROOT / "bench" / "relay.py"), *host, "--loop", loop]
        env = {**os.environ, **dict(env), "PYTHONPATH": src}  # before the editable install
        self.proc = subprocess.Popen(cmd, cwd=src, env=env, preexec_fn=_die_with_parent)
        self.url = f"ws://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 15.0) -> None:
        """Wait until the port accepts connections."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited with {self.proc.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.05)
        raise RuntimeError(f"{self.kind} did not listen on {self.port} within {timeout}s")

    def signal(self, signum: int) -> None:
        """Send a signal to the target (the profiling wrapper's start and stop)."""
        if self.profiled and self.proc.poll() is None:
            self.proc.send_signal(signum)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
