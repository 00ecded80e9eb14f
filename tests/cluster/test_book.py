"""A cluster node's seek book without processes: its own seeks and the other nodes' as a round
read them, ordered across nodes by when they were placed, counted per pool, and a seek record
read back as it was written."""

from __future__ import annotations

import dataclasses
import json

import pytest

from server.cluster.book import ClusterBook, decode, encode
from server.core.game.clock import ClockSpec
from server.core.pairing.seeks import Seek

BLITZ = ClockSpec(180.0, 2.0)


def seek(seek_id: str, pid: str, since: float, game: str = "gomoku", **more: object) -> Seek:
    """A casual guest's seek of ``pid`` placed at ``since`` in the 3+2 pool of ``game``."""
    made = Seek(seek_id, pid, pid, "human", False, game, BLITZ, False, None, None, None, False,
                since)  # fmt: skip
    return dataclasses.replace(made, pool="", **more)  # its pool's label made anew


def test_a_record_reads_back_as_the_seek_it_was() -> None:
    placed = seek("s_1", "p_1", 1795000000.25, "renju", rated=True, account=True,
                  range=(1400, 1700), rating=1523.4, provisional=True,
                  bot_after_s=30.0)  # fmt: skip
    back, account = decode("s_1", encode(placed, "alice"))
    assert account == "alice"
    assert back.view() == placed.view()
    assert (back.bot_after_s, back.priority, back.serial) == (30.0, False, 1795000000250000)
    with pytest.raises(ValueError):
        decode("s_2", json.dumps({"pid": "p_2"}))
    with pytest.raises(ValueError):
        decode("s_3", "not json")


def test_the_book_lists_every_node_s_seeks_oldest_first_and_counts_each_pool() -> None:
    book = ClusterBook("a")
    mine = seek("s_a", "p_a", 20.0)
    book.add(mine)
    assert book.unwritten == {"s_a": mine} and book.wake.is_set()
    others = {
        "b": {"s_b": encode(seek("s_b", "p_b", 10.0), None)},
        "c": {"s_c": encode(seek("s_c", "p_c", 30.0, "renju"), "carol"), "s_x": "garbage"},
        "a": {"s_a": encode(mine, None)},  # its own hash: never read as another node's
    }
    assert book.read(others) == ["s_x"]
    assert [s.id for s in book.listed(None)] == ["s_b", "s_a", "s_c"]
    assert [s.id for s in book.listed("renju")] == ["s_c"]
    assert len(book) == 3 and book.size("gomoku 3+2 casual") == 2
    assert set(book.labels()) == {"gomoku 3+2 casual", "renju 3+2 casual"}
    assert book.node_of("s_c") == "c" and book.node_of("s_a") == "a"
    assert book.account_of("s_c") == "carol" and book.of("p_b") == []  # its node's
    assert book.take("s_b") is None  # another node's seek is never taken here
    version = book.version
    assert book.forget("s_b") is not None and book.version > version
    assert book.size("gomoku 3+2 casual") == 1 and book.get("s_b") is None
    assert book.take("s_a") is mine and book.dying == {"s_a"} and not book.unwritten
    assert [s.id for s in book.listed(None)] == ["s_c"]
