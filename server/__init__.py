"""mnk-arena game server: sans-I/O rooms and lobby under a thin asyncio WebSocket shell."""

# First: the stale-build guard (protocol/native.py), so that a process whose first import of
# ours is a compiled module of the server (``server.core.journal.rows``) gets its source when
# the build is older than it, as every other import order does.
from protocol import native  # noqa: F401
