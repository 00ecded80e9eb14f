"""The pure client model: sequences of server messages in, model state out."""

from __future__ import annotations

from typing import Any

from client.forms import LobbyForm, create_request
from client.model import ERROR_WORDS, ClientModel, error_text
from protocol.errors import all_codes


def state(**over: Any) -> dict[str, Any]:
    """A tic-tac-toe ``state`` for room r1 with alice (seat 0) against bob."""
    msg: dict[str, Any] = {
        "type": "state",
        "room": "r1",
        "game": {"name": "tictactoe", "width": 3, "height": 3, "k": 3, "rule": "freestyle"},
        "players": ["alice", "bob"],
        "player_ids": ["p_a", "p_b"],
        "kinds": ["human", "bot"],
        "online": [True, True],
        "seat": 0,
        "moves": [],
        "ply": 0,
        "to_move": 0,
        "status": "playing",
        "result": None,
        "rematch": [False, False],
        "spectators": 0,
        "game_no": 1,
    }
    msg.update(over)
    return msg


def moved(ply: int, x: int, y: int) -> dict[str, Any]:
    """The ``moved`` broadcast of ply ``ply``."""
    return {"type": "moved", "room": "r1", "ply": ply, "seat": ply & 1, "x": x, "y": y}


def test_welcome_and_lobby() -> None:
    m = ClientModel(name="alice")
    m.apply({"type": "_net", "status": "connecting"})
    m.apply({"type": "welcome", "protocol": 1, "player": "p_a", "session": "S1", "name": "alice"})
    assert (m.player, m.session, m.connection) == ("p_a", "S1", "online")
    rooms = [
        {
            "room": "r7k2",
            "game": "gomoku",
            "status": "waiting",
            "players": ["bob", None],
            "spectators": 0,
        },
        {
            "room": "x",
            "game": "tictactoe",
            "status": "playing",
            "players": ["c", "d"],
            "spectators": 3,
        },
    ]
    m.apply({"type": "rooms", "rooms": rooms})
    assert [r.room for r in m.lobby] == ["r7k2", "x"]
    assert m.lobby[0].players == ("bob", None) and m.lobby[1].spectators == 3


def test_a_whole_game_is_rebuilt_from_messages() -> None:
    m = ClientModel()
    m.apply({"type": "joined", "room": "r1", "seat": 0})
    m.apply(state())
    room = m.room
    assert room is not None and room.my_turn and room.ply == 0
    for ply, (x, y) in enumerate([(1, 1), (0, 1), (0, 0), (2, 0), (2, 2)]):
        m.apply(moved(ply, x, y))
    assert room.moves == [(1, 1), (0, 1), (0, 0), (2, 0), (2, 2)]
    assert room.stones[(0, 1)] == 1 and room.last_move == (2, 2) and room.to_move == 1
    m.apply(
        {
            "type": "game_over",
            "room": "r1",
            "winner": 0,
            "reason": "line",
            "line": [[0, 0], [1, 1], [2, 2]],
        }
    )
    assert room.status == "over" and room.to_move is None and not room.my_turn
    assert room.result is not None and room.result.line == ((0, 0), (1, 1), (2, 2))
    assert room.result_text() == "alice wins with 3 in a row"
    (finished,) = m.finished.values()
    assert finished.moves == tuple(room.moves) and finished.players == ("alice", "bob")


def test_out_of_order_move_asks_for_a_resync_and_duplicates_are_ignored() -> None:
    m = ClientModel()
    m.apply(state(moves=[[1, 1]], ply=1, to_move=1))
    m.apply(moved(0, 1, 1))  # already in the state: ignored
    assert m.rooms["r1"].moves == [(1, 1)] and not m.resync
    m.apply(moved(2, 0, 0))  # ply 1 was missed: never guess, ask again
    assert m.rooms["r1"].moves == [(1, 1)] and m.resync == {"r1"}
    m.apply(state(moves=[[1, 1], [0, 2], [0, 0]], ply=3, to_move=1))
    assert m.rooms["r1"].moves == [(1, 1), (0, 2), (0, 0)] and not m.resync


def test_chat_survives_a_fresh_state_and_rematch_is_recorded() -> None:
    m = ClientModel()
    m.apply(state())
    m.apply({"type": "chat", "room": "r1", "from": "bob", "seat": 1, "text": "hi"})
    m.apply(
        state(status="over", to_move=None, result={"winner": 1, "reason": "resign", "line": []})
    )
    room = m.rooms["r1"]
    assert [c.text for c in room.chat] == ["hi"]
    assert room.result_text() == "alice resigned, bob wins"
    m.apply({"type": "rematch_offered", "room": "r1", "seat": 1})
    assert room.rematch == [False, True] and room.chat[-1].system
    m.apply(state(game_no=2, players=["bob", "alice"], seat=1, to_move=0))
    assert m.rooms["r1"].game_no == 2 and m.rooms["r1"].chat[0].text == "hi"
    assert len(m.finished) == 1


def test_errors_become_words_and_quiet_probes_stay_quiet() -> None:
    m = ClientModel()
    m.apply(
        {"type": "error", "code": "illegal_move", "message": "1,1 is occupied", "id": 4}, now=10.0
    )
    assert m.toasts[-1].text == ERROR_WORDS["illegal_move"] and m.toasts[-1].kind == "error"
    m.quiet_ids.add(9)
    m.apply({"type": "error", "code": "unknown_type", "message": "x", "id": 9}, now=10.0)
    assert len(m.toasts) == 1 and m.history_supported is False
    assert m.live_toasts(now=20.0) == []
    for code in all_codes():
        assert code in ERROR_WORDS, code
    assert error_text("brand_new", "server says") == "server says"


def test_stale_ply_error_requests_a_fresh_state() -> None:
    m = ClientModel()
    m.apply(state())
    m.apply({"type": "error", "code": "stale_ply", "message": "", "id": 3})
    assert m.resync == {"r1"}


def test_clocks_tick_locally_and_follow_moves() -> None:
    m = ClientModel()
    m.apply(
        state(clock={"initial_s": 60, "increment_s": 2, "remaining_s": [50.0, 40.0]}), now=100.0
    )
    clocks = m.rooms["r1"].clocks
    assert clocks is not None
    assert clocks.left(0, 105.0) == 45.0 and clocks.left(1, 105.0) == 40.0
    m.apply(moved(0, 1, 1), now=110.0)
    clocks = m.rooms["r1"].clocks
    assert clocks is not None
    assert clocks.left(0, 120.0) == 42.0 and clocks.left(1, 120.0) == 30.0
    m.apply(state(clocks=[10, 20], to_move=1, moves=[[1, 1]], ply=1), now=200.0)
    assert m.rooms["r1"].clocks.left(1, 250.0) == 0.0  # type: ignore[union-attr]
    m.apply(state(clock={"initial_s": 60, "increment_s": 0}, clocks=[30, 20], clock_running=1))
    assert m.rooms["r1"].clocks.running == 1  # type: ignore[union-attr]
    m.apply(
        {"type": "game_over", "room": "r1", "winner": 0, "reason": "timeout", "clocks": [30, 0]}
    )
    assert m.rooms["r1"].clocks.left(1, 1e9) == 0 and m.rooms["r1"].clocks.running is None  # type: ignore[union-attr]
    m.apply(state(), now=0.0)
    assert m.rooms["r1"].clocks is None


def test_connection_notes_and_leaving() -> None:
    m = ClientModel()
    m.apply({"type": "welcome", "player": "p_a", "session": "S", "name": "a"})
    m.apply(state())
    m.apply({"type": "_net", "status": "offline", "detail": "reset"})
    assert m.connection == "offline"
    m.apply({"type": "_net", "status": "online"})
    assert m.connection == "online" and m.toasts[-1].text == "Reconnected."
    m.leave("r1")
    m.apply(state())  # a late broadcast for a room we left
    assert m.current is None and "r1" not in m.rooms
    m.apply({"type": "joined", "room": "r1", "seat": 0})
    m.apply(state())
    assert m.room is not None


def test_a_new_identity_forgets_old_rooms() -> None:
    m = ClientModel()
    m.apply({"type": "welcome", "player": "p_a", "session": "S", "name": "a"})
    m.apply(state())
    m.apply({"type": "welcome", "player": "p_new", "session": "T", "name": "a"})
    assert m.current is None and not m.rooms


def test_history_answers_are_archived() -> None:
    m = ClientModel()
    row = {
        "game_id": "g1",
        "game": {"name": "gomoku", "width": 15, "height": 15, "k": 5},
        "players": ["a", "b"],
        "moves": [[7, 7], [8, 8]],
        "result": {"winner": 1, "reason": "resign"},
    }
    m.apply({"type": "games", "games": [row, {"game_id": "g2"}]})
    assert list(m.finished) == ["g1"] and m.finished["g1"].game.width == 15


def test_create_request_from_the_form() -> None:
    form = LobbyForm(
        game="mnk", width=7, height=6, k=4, opponent="bot", level=3, seat=None, clock=2
    )
    assert create_request(form) == {
        "type": "create_room",
        "game": "mnk",
        "opponent": "bot",
        "seat": None,
        "options": {"width": 7, "height": 6, "k": 4, "rule": "freestyle"},
        "level": 3,
        "clock": {"initial_s": 180, "increment_s": 2},
    }
    form.step("width", -10)
    form.step("height", -10)
    assert (form.width, form.height, form.k) == (3, 3, 3)
    form.step("level", 50)
    assert form.level == 10
    human = create_request(LobbyForm(game="tictactoe", opponent="human", seat=1))
    assert human == {"type": "create_room", "game": "tictactoe", "opponent": "human", "seat": 1}
