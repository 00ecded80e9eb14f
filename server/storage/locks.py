"""One server per database: a lock a server holds for its whole life, which dies with it.

Two servers on one SQLite file would both recover it (the second empties the move log under
the first and numbers its batches from 1 again: acknowledged moves lost or forked), and two
nodes of one name on PostgreSQL would fence each other in turn. So a SQLite store holds an
exclusive ``flock`` on ``FILE.lock`` beside the database (not on the file itself: SQLite's own
POSIX locks live there, and NFS emulates ``flock`` with them), and a node holds a
session-level advisory lock keyed on its name on a connection of its own. The kernel drops the
first and PostgreSQL the second when the process dies, so ``kill -9`` leaves no stale lock.
The lock file is never deleted (deleting it would let two processes lock two different files).

A path names a file, not the file: a hard link (or a bind mount) reaches the same database by
another path, with its own ``FILE.lock``, its own ``-wal`` and ``-shm`` files, and a second server
there would write the database beside the first's WAL. So the store also holds an exclusive
``flock`` on the database file itself, which the kernel keys on its device and inode, whatever
the path (on Linux ``flock`` and SQLite's POSIX locks never meet on a local disk, and WAL mode
needs a local disk anyway). Its holder's PID is read from ``/proc/locks``.
"""

from __future__ import annotations

import fcntl
import os
import socket
import zlib
from pathlib import Path
from typing import IO, Any

from server.storage.base import StoreLocked

#: The first key of every node lock (PostgreSQL's two-key advisory lock space; the second key
#: is the node name's CRC-32). Migrations lock a one-key constant, a space apart.
NODE_LOCK_CLASS = 0x6D6E6B02


def flock_holder(target: int) -> str:
    """The PID holding an exclusive ``flock`` on the file open as fd ``target``, from
    ``/proc/locks`` (``unknown`` where there is none, or it is another PID namespace's)."""
    stat = os.fstat(target)
    key = (os.major(stat.st_dev), os.minor(stat.st_dev), stat.st_ino)
    try:
        with open("/proc/locks") as table:
            lines = table.read().splitlines()
    except OSError:
        return "unknown"
    for line in lines:
        fields = line.split()  # 1: FLOCK  ADVISORY  WRITE 8838 fe:00:2148051 0 EOF
        if len(fields) < 6 or fields[1] != "FLOCK" or fields[3] != "WRITE":
            continue  # a waiter ("->"), a POSIX lock, a shared one
        major, minor, inode = fields[5].split(":")
        if (int(major, 16), int(minor, 16), int(inode)) == key and fields[4].isdigit():
            return fields[4] if fields[4] != "0" else "unknown"
    return "unknown"


class FileLock:
    """Exclusive ``flock``s on ``PATH.lock`` (recording the holder's PID) and on the file at
    ``PATH`` itself (its identity, whatever the path), held until :meth:`release` or the
    process's end."""

    def __init__(self, path: str | Path) -> None:
        self.target = Path(os.path.realpath(path))
        self.path = Path(f"{self.target}.lock")
        self._file: IO[str] | None = None
        self._identity: int | None = None

    def acquire(self, what: str) -> None:
        """Take the locks now, or raise StoreLocked naming ``what`` and the holder's PID."""
        self._acquire_path(what)
        try:
            self._acquire_identity(what)
        except BaseException:
            self.release()
            raise

    def _acquire_identity(self, what: str) -> None:
        """Lock the file itself (created empty if new: SQLite takes an empty file as new)."""
        target = os.open(self.target, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(target, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = flock_holder(target)
            os.close(target)
            raise StoreLocked(
                f"{what} is in use by another mnk-server (pid {holder}, the same file by "
                f"another path: a hard link or a mount)"
            ) from None
        except BaseException:
            os.close(target)
            raise
        self._identity = target

    def _acquire_path(self, what: str) -> None:
        """Lock ``PATH.lock`` and write our PID in it."""
        # Not truncated before it is ours (it names the holder); kept open while the lock is held.
        file = open(self.path, "a+")  # noqa: SIM115
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            file.seek(0)
            holder = file.read().strip() or "unknown"
            file.close()
            raise StoreLocked(
                f"{what} is in use by another mnk-server (pid {holder}, lock {self.path})"
            ) from None
        except BaseException:
            file.close()
            raise
        file.truncate(0)
        file.write(f"{os.getpid()}\n")
        file.flush()
        self._file = file

    def release(self) -> None:
        """Let the locks go (a clean stop; a dead process's go with it)."""
        if self._identity is not None:
            os.close(self._identity)
            self._identity = None
        if self._file is not None:
            self._file.close()
            self._file = None


def node_key(node: str) -> int:
    """The second key of ``node``'s advisory lock: its name's CRC-32 as a signed int4."""
    crc = zlib.crc32(node.encode())
    return crc - (1 << 32) if crc >= 1 << 31 else crc


def node_label(node: str) -> str:
    """What the lock's connection calls itself (``application_name``): who holds the name."""
    return f"mnk-server node {node} pid {os.getpid()} on {socket.gethostname()}"[:63]


def lock_node(db: Any, node: str) -> None:
    """Hold ``node``'s advisory lock on ``db`` (a connection kept for the process's life), or
    raise StoreLocked naming the process that holds it."""
    # Never dropped by an idle timeout of the server's; a dead peer is noticed in ~25 s.
    db.execute("SET idle_session_timeout = 0")
    db.execute("SET tcp_keepalives_idle = 10")
    db.execute("SET tcp_keepalives_interval = 5")
    db.execute("SET tcp_keepalives_count = 3")
    got = db.execute(
        "SELECT pg_try_advisory_lock(%s, %s) AS got", (NODE_LOCK_CLASS, node_key(node))
    ).fetchone()
    if got["got"]:
        return
    row = db.execute(
        "SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
        "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s AND l.objid = %s "
        "AND l.objsubid = 2",
        (NODE_LOCK_CLASS, node_key(node) & 0xFFFFFFFF),
    ).fetchone()
    holder = row["name"] if row is not None and row["name"] else "another process"
    raise StoreLocked(f"node {node} is running already ({holder}): one process per --node name")
