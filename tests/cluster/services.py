"""Throwaway PostgreSQL for tests: one cluster per session on a free loopback port.

``initdb``/``pg_ctl`` come from Debian's ``postgresql`` package (``/usr/lib/postgresql/*/bin``,
not on PATH). PostgreSQL refuses to run as root, so under root (CI) the cluster is made and run
by the ``postgres`` user in a temporary directory it owns. Each test gets its own database.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

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


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One PostgreSQL server for the whole session, started on first use, always removed."""
    bindir = pg_bin()
    if bindir is None:
        if REQUIRE:
            pytest.fail("PostgreSQL is not installed (apt-get install postgresql)")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
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
