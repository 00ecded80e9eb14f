"""Throwaway PostgreSQL (one cluster per session) and Redis (one per test) on free loopback ports.

``initdb``/``pg_ctl`` come from Debian's ``postgresql`` package (``/usr/lib/postgresql/*/bin``,
not on PATH). PostgreSQL refuses to run as root, so under root (CI) the cluster is made and run
by the ``postgres`` user in a temporary directory it owns. Each test gets its own database.
``redis-server`` (Debian's ``redis-server`` package) starts in milliseconds: one per test.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

#: Set by ``.ci/run``: a missing PostgreSQL fails the run instead of skipping its tests.
REQUIRE = os.environ.get("MNK_REQUIRE_SERVICES") == "1"
START_TIMEOUT = 60.0


def pg_bin() -> Path | None:
    """The newest installed PostgreSQL's binaries directory, or None."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3])
    )
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgCluster:
    """A private PostgreSQL server: ``initdb`` into a temp dir, ``pg_ctl`` start/stop."""

    def __init__(self, bindir: Path, durable: bool = False) -> None:
        self.bindir = bindir
        #: fsync as in production (benchmarks); tests skip it, as only the OS could lose it.
        self.durable = durable
        self.port = _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="mnk-pg-"))
        self.data = self.root / "data"
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user is not None:
            shutil.chown(self.root, self.user, self.user)
        self._names = itertools.count()

    def _run(self, *args: str, timeout: float = START_TIMEOUT) -> None:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self.user is not None:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=timeout, cwd=self.root)

    def init(self) -> None:
        """Make the cluster: trust auth on loopback only, its socket in its own directory."""
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8")

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        opts = f"-h 127.0.0.1 -p {self.port} -k {self.root} -c max_connections=200"
        if not self.durable:
            opts += " -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"),
                  "-w", "-t", str(int(START_TIMEOUT)), "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``immediate`` is a crash as far as clients can tell)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def destroy(self) -> None:
        """Stop the server if it runs and delete its files."""
        with contextlib.suppress(subprocess.SubprocessError):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """A libpq URL for ``database`` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database's URL (each test gets its own)."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)


def missing(what: str, package: str) -> NoReturn:
    """Skip the test for want of a service (fail it under ``.ci/run``, which installs them)."""
    why = f"{what} is not installed (apt-get install {package})"
    if REQUIRE:
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One PostgreSQL server for the whole session, started on first use, always removed."""
    bindir = pg_bin()
    if bindir is None:
        missing("PostgreSQL", "postgresql")
    cluster = PgCluster(bindir)
    try:
        started = time.monotonic()
        cluster.init()
        cluster.start()
        print(f"PostgreSQL up in {time.monotonic() - started:.1f}s on port {cluster.port}")
        yield cluster
    finally:
        cluster.destroy()


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> str:
    """A fresh empty database on the session's PostgreSQL server."""
    return pg_cluster.new_database()


def redis_bin() -> str | None:
    """The installed ``redis-server`` (Debian's ``redis-server`` package), or None."""
    return shutil.which("redis-server") or next(iter(glob.glob("/usr/bin/redis-server")), None)


class RedisServer:
    """A private ``redis-server`` on a free loopback port, keeping nothing on disk."""

    def __init__(self, binary: str) -> None:
        self.binary, self.port = binary, _free_port()  # NB --port 0 would disable TCP
        self.root = Path(tempfile.mkdtemp(prefix="mnk-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it (empty) and wait until it answers PING."""
        args = ["--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly"]
        args += ["no", "--dir", str(self.root), "--protected-mode", "no"]
        self.proc = subprocess.Popen([self.binary, *args], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while not self.answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)

    def answers(self) -> bool:
        """Whether it answers PING now."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def pause(self) -> None:
        """SIGSTOP: it holds its connections and data but answers nothing (a stall)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after :meth:`pause`: it answers again, with what it held."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        """SIGKILL: everything it held is gone."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def url(self) -> str:
        """A redis:// URL for database 0 of this server."""
        return f"redis://127.0.0.1:{self.port}/0"


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A fresh, empty Redis for one test, always killed after it."""
    binary = redis_bin()
    if binary is None:
        missing("Redis", "redis-server")
    server = RedisServer(binary)
    try:
        server.start()
        yield server
    finally:
        server.kill()
        shutil.rmtree(server.root, ignore_errors=True)
