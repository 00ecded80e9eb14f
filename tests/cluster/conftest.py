"""Fixtures of the cluster's process tests (helpers: support/cluster.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from support.cluster import running, start_nodes
from support.services import RedisServer


@pytest.fixture
async def cluster(pg_url: str, redis_server: RedisServer) -> AsyncIterator[dict[str, Any]]:
    """Three started nodes a, b, c on a fresh database and Redis; all killed after the test."""
    made = dict(zip("abc", start_nodes(pg_url, redis_server.url(), "abc"), strict=True))
    async with running(made):
        yield made
