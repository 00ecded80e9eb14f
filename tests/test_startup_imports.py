"""A plain SQLite server loads no library that only a cluster or a login needs (issue 49).

psycopg (~11 MiB), redis (~7 MiB) and argon2 were imported at start by every server, with or
without a cluster or an account: start-up RSS went from 38 to 52 MiB. They are now imported
when ``--node``/``--redis`` or the first password job asks for them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.servers import free_port

pytestmark = pytest.mark.slow  # starts a server process

ROOT = Path(__file__).resolve().parent.parent

#: Runs the real command line in the main thread; a watcher thread reports the modules loaded
#: once the server has answered a page (start-up done and its loop serving), then ends it.
PROBE = """
import http.client, json, os, sys, threading, time
from server.cli import main

def watch(port):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            page = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            page.request("GET", "/")
            if page.getresponse().status == 200:
                break
        except OSError:
            time.sleep(0.05)
    print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})), flush=True)
    os._exit(0)

port = int(sys.argv[1])
threading.Thread(target=watch, args=(port,), daemon=True).start()
main(["--no-bots", "--port", sys.argv[1], "--db", sys.argv[2], "--log-level", "WARNING"])
"""


def test_a_sqlite_server_starts_without_cluster_or_password_libraries(tmp_path: Path) -> None:
    """After start-up, before any client: no psycopg, no redis, no argon2 in the process."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-c", PROBE, str(port), str(tmp_path / "games.db")]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "server" in loaded and "sqlite3" in loaded  # it did start
    assert loaded.isdisjoint({"psycopg", "psycopg_binary", "redis", "argon2", "rich"})
