"""A crowd of idle connections in a process of its own (run as a script): killed with SIGKILL,
every one of its sockets closes at once, as when an attacker's process exits.

``python tests/support/crowd.py URL COUNT BASE [silent]``: opens COUNT connections, 64 per
loopback address from 127.BASE.0.1 on, each saying ``hello`` (16 per address saying nothing, the
most the server holds, with ``silent``); prints ``ready COUNT`` and holds them until killed (or
closes them all with a closing handshake once a line arrives on stdin). :func:`start` runs it
from the tests and from ``bench/close_burst.py``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import msgpack
from websockets.asyncio.client import ClientConnection, connect

PER_ADDRESS = 64
#: Connections that never say hello the server holds per address (``max_pending_per_address``).
SILENT_PER_ADDRESS = 16


async def crowd(url: str, count: int, base: int, hello: bool = True) -> None:
    """Open the crowd, say so, hold it (or close it on a line from stdin)."""
    sockets: list[ClientConnection] = []

    async def fill(address: int, n: int) -> None:
        host = f"127.{base}.{address // 250}.{address % 250 + 1}"
        for i in range(n):
            ws = await connect(
                url, compression=None, local_addr=(host, 0), open_timeout=30, ping_interval=None
            )
            if hello:
                name = f"idle{address}x{i}"
                await ws.send(
                    msgpack.packb({"type": "hello", "protocol": 1, "name": name, "kind": "human"})
                )
                reply = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 30))
                if reply.get("type") != "welcome":
                    raise RuntimeError(f"the server did not welcome {name}: {reply}")
            sockets.append(ws)

    per = PER_ADDRESS if hello else SILENT_PER_ADDRESS
    shares = [min(per, count - a) for a in range(0, count, per)]
    await asyncio.gather(*(fill(a, n) for a, n in enumerate(shares)))
    print("ready", len(sockets), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)


def start(url: str, count: int, base: int, hello: bool = True) -> subprocess.Popen[str]:
    """This crowd in a process of its own (from 127.``base``.x.y), once it holds its ``count``
    connections; a line on its stdin closes them with a handshake, SIGKILL drops them."""
    proc = subprocess.Popen(
        [sys.executable, __file__, url, str(count), str(base), *([] if hello else ["silent"])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("ready"):
        proc.kill()
        raise RuntimeError(f"the crowd did not connect: {line!r}")
    return proc


if __name__ == "__main__":
    silent = sys.argv[4:] == ["silent"]
    asyncio.run(crowd(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), not silent))
