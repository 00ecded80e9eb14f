"""Room news a newcomer missed: late spectators read the chat, counts and gone rooms update."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


import pygame
from support.fakenet import FakeNet
from support.samples import state_message

from client.app import App
from client.model import ClientModel
from protocol.variants import make_variant
from server.core.game.room import CHAT_HISTORY, Member, Room


def test_a_late_spectator_gets_the_last_chat_lines() -> None:
    room = Room("r1", make_variant("tictactoe"), now=lambda: 1.0)
    room.join(Member("a", "alice"))
    room.join(Member("b", "bob", account=True))
    for i in range(CHAT_HISTORY + 5):
        room.chat("a" if i % 2 else "b", f"line {i}")
    room.join(Member("c", "carol"), spectate=True)
    chat = room.state_for("c")["chat"]
    assert len(chat) == CHAT_HISTORY  # bounded: the oldest went
    assert chat[-1] == {
        "from": "bob",
        "seat": 1,
        "text": f"line {CHAT_HISTORY + 4}",
        "account": True,
    }
    assert chat[-2]["account"] is False  # alice is a guest: her lines are marked
    model = ClientModel(name="carol")
    model.apply(state_message("tictactoe", seat=None, chat=chat))
    assert model.room is not None
    assert [line.text for line in model.room.chat][-1] == f"line {CHAT_HISTORY + 4}"
    assert model.room.chat[-1].sender == "bob"
    assert model.room.chat[-1].who == "bob" and model.room.chat[-2].who == "alice (guest)"


def test_the_spectator_count_follows_the_rooms_list() -> None:
    model = ClientModel(name="alice")
    model.apply(state_message("tictactoe", spectators=1))
    assert model.room is not None and model.room.spectators == 1
    row = {"room": "r1", "game": "tictactoe", "status": "playing", "spectators": 0}
    model.apply({"type": "rooms", "rooms": [row]})
    assert model.room.spectators == 0


def test_a_finished_room_lost_in_a_restart_offers_no_rematch() -> None:
    pygame.font.init()
    net = FakeNet()
    app = App(net, name="alice", size=(1100, 720))
    welcome = {"type": "welcome", "player": "p_a", "session": "S", "name": "alice"}
    result = {"winner": 0, "reason": "resign", "line": []}
    over = state_message("gomoku", status="over", to_move=None, result=result)
    net.inbox += [welcome, {"type": "joined", "room": "r1", "seat": 0}, over]
    app.step()
    assert app.hotspot("rematch") is not None
    net.inbox += [{"type": "_net", "status": "offline"}, {"type": "_net", "status": "online"}]
    net.inbox.append(welcome)  # the restarted server: the session is back, the room is not
    app.step()
    probe = [m for m in net.sent if m["type"] == "join_room" and m["room"] == "r1"][-1]
    net.inbox.append({"type": "error", "id": probe["id"], "code": "no_such_room", "message": ""})
    app.step()
    assert app.hotspot("rematch") is None and app.hotspot("leave") is not None
    assert app.model.toasts == [] or "does not exist" not in app.model.toasts[-1].text
    assert "room is gone" in app.model.rooms["r1"].chat[-1].text
