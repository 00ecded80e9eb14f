"""The app driven by synthetic pygame events over a fake transport: clicks, keys, scenes."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from pathlib import Path
from typing import Any

import pygame
import pytest
from support.fakenet import FakeNet
from support.headless import click, click_action, welcomed_app
from support.samples import state_message

from client import theme
from client.app import App
from client.views.lobby import lobby_layout

Ev = pygame.event.Event


def key(k: int) -> Ev:
    return Ev(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0)


def state(**over: Any) -> dict[str, Any]:
    """A gomoku ``state`` for room r1 with alice (seat 0) against bob."""
    return state_message("gomoku", **over)


@pytest.fixture
def app() -> tuple[App, FakeNet]:
    return welcomed_app()


def enter_room(a: App, net: FakeNet, **over: Any) -> None:
    net.inbox += [{"type": "joined", "room": "r1", "seat": over.get("seat", 0)}, state(**over)]
    a.step()
    assert a.scene == "room"


def test_welcome_subscribes_and_create_uses_the_form(app: tuple[App, FakeNet]) -> None:
    a, net = app
    assert net.sent[0] == {"type": "list_rooms", "subscribe": True, "id": 1}
    click_action(a, "form_game", "mnk")
    click_action(a, "form_step", ("width", 1))
    click_action(a, "form_seat", None)
    click_action(a, "form_clock", 1)
    click_action(a, "create")
    sent = net.sent[-1]
    assert sent["type"] == "create_room" and sent["game"] == "mnk" and sent["seat"] is None
    assert sent["options"]["width"] == 8 and sent["clock"] == {"initial_s": 60, "increment_s": 0}


def test_join_from_list_and_by_code(app: tuple[App, FakeNet]) -> None:
    a, net = app
    rooms = [
        {
            "room": "r7",
            "game": "gomoku",
            "status": "waiting",
            "players": ["bob", None],
            "spectators": 0,
        }
    ]
    net.inbox.append({"type": "rooms", "rooms": rooms})
    a.step()
    click_action(a, "lobby_tab", "rooms")  # the lobby opens on Quick pairing
    click_action(a, "join", "r7")
    assert net.sent[-1]["type"] == "join_room" and net.sent[-1]["room"] == "r7"
    a.step([key(pygame.K_w)])
    assert net.sent[-1] == {
        "type": "join_room",
        "room": "r7",
        "spectate": True,
        "id": len(net.sent),
    }
    click_action(a, "focus_code")
    a.step([Ev(pygame.TEXTINPUT, text="abc9"), key(pygame.K_RETURN)])
    assert net.sent[-1]["room"] == "abc9" and "spectate" not in net.sent[-1]


def test_mouse_move_waits_for_the_server(app: tuple[App, FakeNet]) -> None:
    a, net = app
    enter_room(a, net)
    pos = a.cell_pixel(7, 7)
    assert pos is not None
    a.step(click(pos))
    assert net.sent[-1] == {
        "type": "move",
        "room": "r1",
        "x": 7,
        "y": 7,
        "ply": 0,
        "id": len(net.sent),
    }
    assert a.model.room is not None and a.model.room.moves == []  # nothing guessed
    a.step(click(pos))  # a double click is not resent
    assert net.types().count("move") == 1
    net.inbox.append({"type": "moved", "room": "r1", "ply": 0, "seat": 0, "x": 7, "y": 7})
    a.step()
    assert a.model.room.moves == [(7, 7)]
    a.step(click(a.cell_pixel(3, 3)))  # type: ignore[arg-type]
    assert net.types().count("move") == 1 and "not your turn" in a.model.toasts[-1].text


def test_keyboard_play_numbers_chat_and_resign(app: tuple[App, FakeNet]) -> None:
    a, net = app
    enter_room(a, net)
    a.step([key(pygame.K_RIGHT), key(pygame.K_RIGHT), key(pygame.K_UP), key(pygame.K_SPACE)])
    move = net.sent[-1]
    assert (move["type"], move["x"], move["y"]) == ("move", 8, 6)
    a.step([key(pygame.K_n)])
    assert a.numbers
    a.step(
        [key(pygame.K_TAB), Ev(pygame.TEXTINPUT, text="gg"), key(pygame.K_r), key(pygame.K_RETURN)]
    )
    assert net.sent[-1]["type"] == "chat" and net.sent[-1]["text"] == "gg"  # R typed into chat
    a.step([key(pygame.K_TAB), key(pygame.K_r)])
    assert a.confirm == "resign" and net.types()[-1] == "chat"
    a.step([key(pygame.K_ESCAPE)])
    assert a.confirm is None
    a.step([key(pygame.K_r), key(pygame.K_RETURN)])
    assert net.sent[-1] == {"type": "resign", "room": "r1", "id": len(net.sent)}


def test_game_end_rematch_replay_and_leave(app: tuple[App, FakeNet], tmp_path: Path) -> None:
    a, net = app
    moves = [[7, 7], [0, 0], [8, 7], [0, 1], [9, 7], [0, 2], [10, 7], [0, 3]]
    enter_room(a, net, moves=moves, ply=8)
    net.inbox += [
        {"type": "moved", "room": "r1", "ply": 8, "seat": 0, "x": 11, "y": 7},
        {
            "type": "game_over",
            "room": "r1",
            "game_id": "g_r1_1",
            "winner": 0,
            "reason": "line",
            "line": [[7, 7], [8, 7], [9, 7], [10, 7], [11, 7]],
        },
        {"type": "error", "code": "not_your_turn", "message": "x", "id": 99},
    ]
    a.step()
    pygame.image.save(a.surface, str(tmp_path / "over.png"))
    assert a.model.toasts[-1].kind == "error"
    click_action(a, "rematch")
    assert net.sent[-1]["type"] == "rematch"
    click_action(a, "replay_current")
    assert a.scene == "replay" and a.replay_ply == 9
    a.step([key(pygame.K_LEFT), key(pygame.K_LEFT)])
    assert a.replay_ply == 7
    a.step([key(pygame.K_HOME)])
    assert a.replay_ply == 0
    a.step([key(pygame.K_END)])
    assert a.replay_ply == 9
    pygame.image.save(a.surface, str(tmp_path / "replay.png"))
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "room"
    a.step([key(pygame.K_ESCAPE)])  # leaving a finished game needs no confirmation
    assert a.scene == "lobby" and net.types()[-2:] == ["leave_room", "list_games"]
    click_action(a, "replay", "g_r1_1")
    assert a.scene == "replay" and a.replay_key == "g_r1_1" and a.replay_ply == 9
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "lobby"


def test_leaving_a_live_game_asks_first(app: tuple[App, FakeNet]) -> None:
    a, net = app
    enter_room(a, net)
    a.step([key(pygame.K_ESCAPE)])
    assert a.confirm == "leave" and a.scene == "room"
    click_action(a, "leave")
    assert a.scene == "lobby" and net.types()[-2:] == ["leave_room", "list_games"]


def test_resize_rescales_the_board(app: tuple[App, FakeNet]) -> None:
    a, net = app
    enter_room(a, net, game={"name": "mnk", "width": 7, "height": 6, "k": 4, "rule": "freestyle"})
    assert a.geo is not None
    before = a.geo.cell
    a.step([Ev(pygame.VIDEORESIZE, w=1600, h=1000, size=(1600, 1000))])
    assert a.surface.get_size() == (1600, 1000) and a.geo.cell > before
    pos = a.cell_pixel(6, 5)
    assert pos is not None and a.geo.cell_at(*pos) == (6, 5)
    a.step([Ev(pygame.VIDEORESIZE, w=700, h=500, size=(700, 500))])
    a.step(click(a.cell_pixel(0, 0)))  # type: ignore[arg-type]
    assert net.sent[-1]["x"] == 0 and net.sent[-1]["y"] == 0


def test_spectator_cannot_play_and_stale_state_resyncs(app: tuple[App, FakeNet]) -> None:
    a, net = app
    enter_room(a, net, seat=None)
    a.step(click(a.cell_pixel(7, 7)))  # type: ignore[arg-type]
    assert "move" not in net.types()
    net.inbox.append({"type": "moved", "room": "r1", "ply": 3, "seat": 1, "x": 1, "y": 1})
    a.step()
    assert net.sent[-1] == {
        "type": "join_room",
        "room": "r1",
        "spectate": True,
        "id": len(net.sent),
    }


def test_offline_banner_and_quit(app: tuple[App, FakeNet]) -> None:
    a, net = app
    net.inbox.append({"type": "_net", "status": "offline", "detail": "boom"})
    a.step()
    banner = a.surface.get_at((a.surface.get_width() // 2 - 300, 52 + 5))
    assert banner[:3] == (120, 46, 46)
    assert a.step([Ev(pygame.QUIT)]) is False


TTT = {"name": "tictactoe", "width": 3, "height": 3, "k": 3, "rule": "freestyle"}


def history_row(game_id: str, ended_at: float = 1_700_000_060.0) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "room": "old1",
        "game": TTT,
        "players": ["carol", "minimax"],
        "player_ids": ["p_c", "p_m"],
        "winner": 1,
        "reason": "line",
        "started_at": ended_at - 60,
        "ended_at": ended_at,
    }


def test_history_from_the_server_and_replay_via_get_game(app: tuple[App, FakeNet]) -> None:
    a, net = app
    (ask,) = [m for m in net.sent if m["type"] == "list_games"]
    assert ask["limit"] == 20 and "before" not in ask
    rows = [history_row(f"g{i}", 1_700_000_000.0 - i) for i in range(8)]
    net.inbox.append({"type": "games", "games": rows, "more": True, "id": ask["id"]})
    a.step()
    assert a.hotspot("replay", "g0") is not None and a.hotspot("replay", "g7") is None
    click_action(a, "replay", "g0")
    assert net.sent[-1] == {"type": "get_game", "game_id": "g0", "id": len(net.sent)}
    assert a.scene == "lobby"
    click_action(a, "replay", "g0")  # asked already: not sent twice
    assert net.types().count("get_game") == 1
    net.inbox.append(  # the link dropped and came back: the answer will never come
        {"type": "welcome", "protocol": 1, "player": "p_a", "session": "S", "name": "alice"}
    )
    a.step()
    click_action(a, "replay", "g0")
    assert net.types().count("get_game") == 2
    moves = [[0, 0], [2, 0], [0, 1], [2, 1], [1, 1], [2, 2]]
    record = {
        **rows[0],
        "kinds": ["human", "bot"],
        "clock": None,
        "status": "over",
        "line": [[2, 0], [2, 1], [2, 2]],
        "moves": [{"x": x, "y": y, "at": 0.0, "ms": 5, "clocks": None} for x, y in moves],
    }
    net.inbox.append({"type": "game", "game": record, "id": net.sent[-1]["id"]})
    a.step()
    assert a.scene == "replay" and a.replay_key == "g0" and a.replay_ply == 6
    a.step([key(pygame.K_HOME), key(pygame.K_RIGHT)])
    assert a.replay_ply == 1
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "lobby" and net.types()[-1] == "list_games"  # back in the lobby: refresh
    click_action(a, "replay", "g0")  # its moves are here now
    assert a.scene == "replay" and net.types().count("get_game") == 2


def test_history_scrolls_and_pages(app: tuple[App, FakeNet]) -> None:
    a, net = app
    rows = [history_row(f"g{i}", 1_700_000_000.0 - i) for i in range(8)]
    net.inbox.append({"type": "games", "games": rows, "more": True, "id": 2})
    a.step()
    spot = a.hotspot("replay", "g0")
    assert spot is not None
    wheel = Ev(pygame.MOUSEWHEEL, x=0, y=-1, flipped=False)
    a.step([Ev(pygame.MOUSEMOTION, pos=spot.rect.center, rel=(0, 0), buttons=(0, 0, 0))])
    a.step([wheel] * 3)
    assert a.history_scroll == 3 and a.hotspot("replay", "g7") is not None  # 5 rows shown
    assert a.hotspot("replay", "g0") is None
    page = net.sent[-1]  # at the end of the list: the next page is asked for
    assert page["type"] == "list_games" and page["before"] == 1_700_000_000.0 - 7
    a.step([wheel] * 2)
    assert a.history_scroll == 3 and net.types().count("list_games") == 2  # once per page
    older = [history_row("g8", 1_600_000_000.0)]
    net.inbox.append({"type": "games", "games": older, "more": False, "id": page["id"]})
    a.step([wheel])
    assert [h.game_id for h in a.model.history][-2:] == ["g7", "g8"] and a.history_scroll == 4
    assert a.hotspot("replay", "g8") is not None


def test_game_over_refreshes_history_and_no_history_stops_asking(
    app: tuple[App, FakeNet],
) -> None:
    a, net = app
    asked = net.sent[-1]
    net.inbox.append({"type": "error", "code": "no_history", "message": "x", "id": asked["id"]})
    a.step()
    assert a.model.history_supported is False and not a.model.toasts
    enter_room(a, net, game=TTT, moves=[[0, 0], [1, 0], [0, 1], [1, 1]], ply=4)
    net.inbox += [
        {"type": "moved", "room": "r1", "ply": 4, "seat": 0, "x": 0, "y": 2},
        {"type": "game_over", "room": "r1", "game_id": "g_r1_1", "winner": 0, "reason": "line"},
    ]
    a.step()
    assert net.types().count("list_games") == 1  # the server keeps no history
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "lobby" and net.types().count("list_games") == 1
    click_action(a, "replay", "g_r1_1")  # the game seen here still replays
    assert a.scene == "replay" and a.replay_ply == 5


def test_game_over_asks_for_the_new_history_row(app: tuple[App, FakeNet]) -> None:
    a, net = app
    net.inbox.append({"type": "games", "games": [], "more": False, "id": 2})
    enter_room(a, net, game=TTT, moves=[[0, 0], [1, 0], [0, 1], [1, 1]], ply=4, game_id="g9")
    net.inbox += [
        {"type": "moved", "room": "r1", "ply": 4, "seat": 0, "x": 0, "y": 2},
        {"type": "game_over", "room": "r1", "game_id": "g9", "winner": 0, "reason": "line"},
    ]
    a.step()
    assert net.types()[-1] == "list_games"
    row = dict(history_row("g9"), room="r1", players=["alice", "bob"], winner=0)
    net.inbox.append({"type": "games", "games": [row], "more": False, "id": len(net.sent)})
    a.step([key(pygame.K_ESCAPE)])
    assert a.scene == "lobby"
    (spot,) = [s for s in a.frame.hotspots if s.action == "replay"]  # listed once
    assert spot.arg == "g9" and a.model.lobby_games()[0][0].game_id == "g9"
    click_action(a, "replay", "g9")  # the same game_id as the game seen here: opened at once
    assert a.scene == "replay" and a.replay_ply == 5
    # the only get_game is a quiet one for the moves' times (a game seen live has none)
    (asked,) = [m for m in net.sent if m["type"] == "get_game"]
    assert asked["game_id"] == "g9" and "format" not in asked and asked["id"] in a.model.quiet_ids


# -- a move that got no ``moved``: refused or lost ------------------------------------------


def moves_sent(net: FakeNet) -> list[dict[str, Any]]:
    return [m for m in net.sent if m["type"] == "move"]


def test_a_refused_move_can_be_played_again(app: tuple[App, FakeNet]) -> None:
    a, net = app
    enter_room(a, net)
    a.step(click(a.cell_pixel(7, 7)))  # type: ignore[arg-type]
    (move,) = moves_sent(net)
    net.inbox.append({"type": "error", "code": "rate_limited", "id": move["id"] + 100})
    a.step()
    a.step(click(a.cell_pixel(8, 8)))  # type: ignore[arg-type]
    assert len(moves_sent(net)) == 1  # another request's error: our move is still pending
    net.inbox.append({"type": "error", "code": "rate_limited", "message": "?", "id": move["id"]})
    a.step()
    assert a.pending_ply is None
    a.step(click(a.cell_pixel(8, 8)))  # type: ignore[arg-type]
    assert [(m["x"], m["y"]) for m in moves_sent(net)] == [(7, 7), (8, 8)]


@pytest.mark.parametrize("via", ["welcome", "state"])
def test_a_move_lost_in_a_reconnect_can_be_played_again(app: tuple[App, FakeNet], via: str) -> None:
    a, net = app
    enter_room(a, net)
    a.step(click(a.cell_pixel(7, 7)))  # type: ignore[arg-type]
    assert len(moves_sent(net)) == 1
    net.inbox += [{"type": "_net", "status": "offline"}, {"type": "_net", "status": "connecting"}]
    if via == "welcome":
        net.inbox.append({"type": "welcome", "player": "p_a", "session": "S", "name": "alice"})
    net.inbox += [{"type": "_net", "status": "online"}, state()]  # the same ply: move lost
    a.step()
    a.step(click(a.cell_pixel(7, 7)))  # type: ignore[arg-type]
    assert len(moves_sent(net)) == 2 and moves_sent(net)[-1]["ply"] == 0


# -- malformed server messages --------------------------------------------------------------

MALFORMED: dict[str, dict[str, Any]] = {
    "moved without x": {"type": "moved", "room": "r1", "ply": 1, "seat": 1},
    "moved without y": {"type": "moved", "room": "r1", "ply": 1, "seat": 1, "x": 1},
    "state moves malformed": state(moves=[[1]]),
    "state moves not cells": state(moves=[["a", "b"]]),
    "state game not a map": state(game="gomoku"),
    "state width str": state(game={"name": "mnk", "width": "big"}),
    "state 0x0 board": state(game={"name": "mnk", "width": 0, "height": 0, "k": 3}),
    "state huge board": state(game={"name": "mnk", "width": 10**9, "height": 10**9, "k": 3}),
    "state to_move 7": state(to_move=7),
    "state seat 5": state(seat=5),
    "state players int": state(players=5, kinds="x", online=3, rematch=None),
    "state room int": dict(state(), room=5),
    "game_over line malformed": {
        "type": "game_over",
        "room": "r1",
        "winner": 0,
        "reason": "line",
        "line": [[1]],
    },
    "game_over winner 7": {"type": "game_over", "room": "r1", "winner": 7, "reason": "line"},
    "rooms players str": {
        "type": "rooms",
        "rooms": [{"room": "x", "players": "ab", "spectators": "2"}],
    },
    "games row players int": {"type": "games", "games": [{"game_id": "g", "players": 5}]},
    "games row bad board": {"type": "games", "games": [{"game_id": "g", "game": {"width": -1}}]},
    "game record move without y": {
        "type": "game",
        "game": {"game_id": "g", "moves": [{"x": 1}], "game": 3},
    },
    "chat no room": {"type": "chat", "text": "hi"},
    "unknown type": {"type": "yodel"},
    "no type": {"foo": 1},
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_messages_are_dropped_and_the_room_rebuilt(
    app: tuple[App, FakeNet], name: str
) -> None:
    a, net = app
    enter_room(a, net)
    net.inbox.append({"type": "moved", "room": "r1", "ply": 0, "seat": 0, "x": 7, "y": 7})
    a.step()
    before = len(net.sent)
    net.inbox.append(MALFORMED[name])
    assert a.step() and a.step()  # nothing escapes and frames are drawn
    room = a.model.room
    assert a.scene == "room" and room is not None and a.geo is not None
    assert 0 <= len(room.moves) <= 1 and room.seat in (0, 1, None)
    assert room.to_move in (0, 1, None) and 3 <= room.game.width <= 25
    assert room.result is None or room.result.winner in (0, 1, None)
    for msg in net.sent[before:]:  # a dropped message about r1 asks for r1 afresh
        assert msg["type"] == "list_games" or (msg["type"], msg["room"]) == ("join_room", "r1")
    net.inbox.append(state(moves=[[7, 7], [8, 8]], to_move=0))
    a.step()
    assert a.model.room is not None and a.model.room.moves == [(7, 7), (8, 8)]
    assert a.model.room.my_turn
    a.step(click(a.cell_pixel(9, 9)))  # type: ignore[arg-type]
    assert net.sent[-1]["type"] == "move" and net.sent[-1]["ply"] == 2


def test_a_dropped_moved_rejoins_the_room(app: tuple[App, FakeNet]) -> None:
    a, net = app
    enter_room(a, net)
    net.inbox.append({"type": "moved", "room": "r1", "ply": 0, "seat": 0, "x": 7, "y": 7})
    net.inbox.append(MALFORMED["moved without x"])
    a.step()
    assert a.model.room is not None and a.model.room.moves == [(7, 7)]
    assert net.sent[-1]["type"] == "join_room" and net.sent[-1]["room"] == "r1"
    joins = net.types().count("join_room")
    net.inbox.append(MALFORMED["state moves malformed"])  # e.g. the answer to that join
    a.step()
    assert net.types().count("join_room") == joins  # not asked again: no request loop
    assert a.model.room is not None and a.model.room.moves == [(7, 7)]


FIELDS = [
    "room",
    "x",
    "y",
    "ply",
    "seat",
    "winner",
    "reason",
    "line",
    "game",
    "moves",
    "players",
    "kinds",
    "online",
    "to_move",
    "status",
    "result",
    "clocks",
    "clock",
    "clock_running",
    "game_id",
    "game_no",
    "games",
    "rooms",
    "spectators",
    "rematch",
    "text",
    "from",
    "code",
    "id",
    "more",
    "detail",
    "width",
    "height",
    "k",
    "name",
]


def wire_values():
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers(-3, 30) | st.text(max_size=4)
    scalars |= st.floats(allow_nan=True) | st.just("r1") | st.integers(-(2**40), 2**40)
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=5)
        ),
        max_leaves=12,
    )


@pytest.mark.slow
def test_random_server_messages_never_break_the_frame_loop() -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    kinds = ["state", "moved", "game_over", "rooms", "games", "game", "chat", "error", "joined"]
    kinds += ["left", "rematch_offered", "welcome", "_net"]
    message = st.builds(
        lambda kind, fields, base: {**(state() if base else {}), **fields, "type": kind},
        st.sampled_from(kinds),
        st.dictionaries(st.sampled_from(FIELDS), wire_values(), max_size=6),
        st.booleans(),
    )

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(message, min_size=1, max_size=4))
    def run(msgs: list[dict[str, Any]]) -> None:
        net = FakeNet()
        a = App(net, name="alice", size=(800, 600))
        net.inbox += [
            {"type": "welcome", "player": "p_a", "session": "S", "name": "alice"},
            {"type": "joined", "room": "r1", "seat": 0},
            state(moves=[[7, 7]], to_move=1),
        ]
        a.step()
        net.inbox += msgs
        assert a.step() and a.step()
        if a.scene == "room" and a.model.room is not None:
            assert a.geo is not None  # the board was drawn
        a.step([key(pygame.K_ESCAPE)])

    pygame.font.init()
    run()


def test_keys_that_used_to_do_nothing(app: tuple[App, FakeNet]) -> None:
    """Esc in the lobby asks to quit; Enter in a game shows the cursor, then plays there."""
    a, net = app
    a.step([key(pygame.K_ESCAPE)])
    assert a.confirm == "quit" and a.running
    a.step([key(pygame.K_ESCAPE)])
    assert a.confirm is None and a.running  # Esc again says no
    enter_room(a, net)
    sent = len(net.sent)
    a.step([key(pygame.K_RETURN)])
    assert a.cursor == (7, 7) and a.cursor_visible and len(net.sent) == sent
    a.step([key(pygame.K_RETURN)])
    assert (net.sent[-1]["type"], net.sent[-1]["x"], net.sent[-1]["y"]) == ("move", 7, 7)
    a.step([key(pygame.K_ESCAPE), key(pygame.K_RETURN)])  # leave (resigns): confirmed
    net.inbox.append({"type": "left", "room": "r1"})
    a.step()
    a.step([key(pygame.K_ESCAPE), key(pygame.K_RETURN)])
    assert a.running is False


def test_clicking_a_taken_point_says_so(app: tuple[App, FakeNet]) -> None:
    a, net = app
    enter_room(a, net, moves=[[7, 7], [8, 8]], ply=2, to_move=0)
    pos = a.cell_pixel(7, 7)
    assert pos is not None
    a.step(click(pos))
    assert net.types()[-1] != "move"
    assert a.model.toasts[-1].text == "That point is taken: pick a free one."


def test_forfeit_says_who_won_and_why_and_finished_rooms_leave_the_list(
    app: tuple[App, FakeNet],
) -> None:
    a, net = app
    enter_room(a, net, players=["alice", "minimax"], kinds=["human", "bot"])
    over = {"type": "game_over", "room": "r1", "game_id": "g_1", "winner": 0}
    net.inbox.append({**over, "reason": "forfeit", "fault": "hang", "line": []})
    a.step()
    room = a.model.room
    assert room is not None
    assert room.result_text() == "minimax forfeits (its engine hung), alice wins"
    rooms = [
        {"room": "a", "game": "gomoku", "status": "waiting", "players": ["x", None]},
        {"room": "b", "game": "gomoku", "status": "over", "players": ["x", "y"]},
    ]
    net.inbox.append({"type": "rooms", "rooms": rooms})
    a.step()
    assert [r.room for r in a.model.lobby] == ["a"]


def test_the_game_screen_names_the_bot_and_its_level_and_the_title_says_where(
    app: tuple[App, FakeNet],
) -> None:
    a, net = app
    net.url = "ws://example.org:8765"  # type: ignore[attr-defined]
    assert a.title() == "lobby — alice @ example.org:8765 — mnk-arena"
    options = {"opponent": "bot", "level": 7}
    enter_room(a, net, players=["alice", "seven"], kinds=["human", "bot"], options=options)
    room = a.model.room
    assert room is not None and room.level == 7
    assert a.title() == "Gomoku: alice vs seven — alice @ example.org:8765 — mnk-arena"
    shown: list[str] = []
    real = theme.text

    def spy(surface: Any, text: str, *args: Any, **kw: Any) -> Any:
        shown.append(text)
        return real(surface, text, *args, **kw)

    theme.text = spy  # type: ignore[assignment]
    try:
        a.step([], lazy=False)
    finally:
        theme.text = real  # type: ignore[assignment]
    assert "seven" in shown and "bot · level 7" in shown


BOTS = {
    "type": "bots",
    "bots": [
        {"name": "minimax", "level": None, "online": True},
        {"name": "seven", "level": 7, "online": True},
        {"name": "greedy", "level": 0, "online": True},
        {"name": "gone", "level": None, "online": False},
    ],
}


def test_a_bot_picked_by_name(app: tuple[App, FakeNet]) -> None:
    a, net = app
    assert "list_bots" in net.types()
    net.inbox.append(BOTS)
    a.step()
    assert [b.name for b in a.model.bots] == ["greedy", "minimax", "seven"]  # online ones
    assert a.hotspot("form_bot", "gone") is None
    click_action(a, "form_bot", "seven")
    assert a.hotspot("form_step", ("level", 1)) is None  # seven plays its own level
    click_action(a, "create")
    assert net.sent[-1]["type"] == "create_room" and net.sent[-1]["bot"] == "seven"
    click_action(a, "form_bot", None)
    click_action(a, "create")
    assert "bot" not in net.sent[-1] and net.sent[-1]["level"] == 5


@pytest.mark.parametrize("size", [(900, 600), (1024, 700), (1200, 680)])
def test_small_windows_keep_every_control_whole_and_apart(size: tuple[int, int]) -> None:
    pygame.font.init()
    net = FakeNet()
    a = App(net, name="alice", size=size)
    rooms = [
        {"room": f"r{i}", "game": "gomoku", "status": "waiting", "players": ["x" * 32, None]}
        for i in range(3)
    ]
    welcome = {"type": "welcome", "protocol": 1, "player": "p_a", "session": "S", "name": "a"}
    net.inbox += [welcome, {"type": "rooms", "rooms": rooms}, BOTS]
    shown: list[str] = []
    real = theme.text

    def spy(surface: Any, text: str, pos: Any, size: int = 16, *args: Any, **kw: Any) -> Any:
        width = kw.get("max_width")
        cut = width is not None and theme.font(size, kw.get("bold", False)).size(text)[0] > width
        shown.append(text + " <cut>" if cut else text)
        return real(surface, text, pos, size, *args, **kw)

    theme.text = spy  # type: ignore[assignment]
    try:
        a.step()
        a.step([], lazy=False)
    finally:
        theme.text = real  # type: ignore[assignment]
    cut = [s for s in shown if s.endswith("<cut>") and not s.startswith("xxx")]  # names may be
    assert cut == []
    screen = a.surface.get_rect()
    spots = [s for s in a.frame.hotspots if s.action != "room_click"]  # rows hold buttons
    for s in spots:
        assert screen.contains(s.rect), (s.action, s.rect)
    for i, s in enumerate(spots):
        for t in spots[i + 1 :]:
            assert not s.rect.colliderect(t.rect), (s.action, t.action)
    for action in ("create", "connect", "join_code", "form_bot"):
        assert a.hotspot(action) is not None, action
    form = lobby_layout(size)["new"]  # the new-game form stays inside its panel
    for s in spots:
        if s.action.startswith("form_") or s.action == "create":
            assert form.contains(s.rect), (s.action, s.rect, form)
    # the room code of a waiting room is never cut off
    waiting = state(room="r7k2wq", status="waiting", players=["alice", None], to_move=None)
    net.inbox += [{"type": "joined", "room": "r7k2wq", "seat": 0}, waiting]
    a.step()
    assert a.scene == "room"
    shown.clear()
    theme.text = spy  # type: ignore[assignment]
    try:
        a.step()
    finally:
        theme.text = real  # type: ignore[assignment]
    assert any("r7k2wq" in s for s in shown), shown
    assert [s for s in shown if s.endswith("<cut>")] == []


def test_typing_a_server_address_connects_there(app: tuple[App, FakeNet]) -> None:
    a, net = app
    switched: list[str] = []
    net.switch = switched.append  # type: ignore[attr-defined]
    click_action(a, "focus_server")
    a.step([Ev(pygame.TEXTINPUT, text="192.168.1.20"), key(pygame.K_RETURN)])
    assert switched == ["ws://192.168.1.20:8765"]
    assert a.model.connection == "connecting" and a.model.rooms == {} and a.focus is None
    click_action(a, "focus_server")
    a.step([Ev(pygame.TEXTINPUT, text="ftp://nope"), key(pygame.K_RETURN)])
    assert switched == ["ws://192.168.1.20:8765"] and "ws://host:8765" in a.model.toasts[-1].text
