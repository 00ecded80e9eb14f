"""Small holes a hostile or unlucky peer could use: names, fault claims, self-play (a rematch
after a lost grace: test_arena_grace.py)."""

from __future__ import annotations

import unicodedata
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support.clients import seated_pair

from protocol.errors import BadMessage
from protocol.wire import MAX_NAME
from server.core.players.names import REFUSED_CATEGORIES, clean_name

HELLO = {"type": "hello", "protocol": 1, "kind": "human"}

#: Each hides something on screen: zero-width, an escape sequence, a bidi override, a NUL, a
#: BOM, a tab, private use, an unassigned code point, nothing at all.
BAD_NAMES = [
    "minimax\u200b",
    "\x1b[31mred",
    "\u202eevil",
    "x\x00y",
    "\ufeffbom",
    "tab\there",
    "pua\ue000",
    "new\u0378",
    "  \u3000 ",
    "x" * 33,
]


async def test_names_hiding_characters_are_refused(client_factory: Any) -> None:
    c = await client_factory()
    for name in BAD_NAMES:
        reply = await c.error("bad_message", **HELLO, name=name)
        assert "name" in reply["message"], name
    welcome = await c.hello("e\u0301toile  \u00a0 du nord")
    assert welcome["name"] == "\u00e9toile du nord"  # NFC, spaces collapsed


async def test_a_human_cannot_claim_an_engine_fault(client_factory: Any, server: Any) -> None:
    alice, bob, room = await seated_pair(client_factory)
    await alice.error("bad_message", type="resign", room=room, fault="crash")
    await alice.request(type="move", room=room, x=1, y=1)  # the game goes on
    over = await alice.request(type="resign", room=room)
    assert over["type"] == "game_over" and over["reason"] == "resign" and "fault" not in over
    page = await bob.request(type="list_games", player="alice")
    assert page["games"][0]["reason"] == "resign" and page["games"][0]["fault"] is None


async def test_a_bot_is_never_its_own_opponent(client_factory: Any) -> None:
    lone = await client_factory("lone", kind="bot", games=["*"], capacity=8)
    await lone.error("no_bot_available", type="create_room", game="gomoku", opponent="bot")
    await lone.error("no_bot_available", type="create_room", game="gomoku", bots=["lone", "other"])
    await client_factory("other", kind="bot", games=["*"], capacity=8)
    joined = await lone.request(type="create_room", game="gomoku", opponent="bot", seat=0)
    state = await lone.expect("state", room=joined["room"], status="playing")
    assert state["players"] == ["lone", "other"]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_a_clean_name_shows_what_it_is(raw: str) -> None:
    """Whatever comes in, a name that passes is canonical, visible, short and stable."""
    try:
        name = clean_name(raw)
    except BadMessage:
        return
    assert name == unicodedata.normalize("NFC", name) == clean_name(name)
    assert 1 <= len(name) <= MAX_NAME and name == name.strip() and "  " not in name
    assert not any(unicodedata.category(c) in REFUSED_CATEGORIES for c in name)
