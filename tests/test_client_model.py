"""The pure client model: sequences of server messages in, model state out."""

from __future__ import annotations

from typing import Any

from support.samples import state_message

from client.forms import LobbyForm, create_request
from client.labels import LABELS
from client.model import ClientModel
from client.values import FinishedGame, HistoryRow
from client.words import ERROR_WORDS, error_text
from protocol.errors import all_codes


def state(**over: Any) -> dict[str, Any]:
    """A tic-tac-toe ``state`` for room r1 with alice (seat 0) against bob (a bot)."""
    return state_message("tictactoe", **{"kinds": ["human", "bot"], **over})


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
    assert list(m.finished) == ["g_r1_1"] and room.game_id == "g_r1_1"
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
    m.apply(state(game_no=2, game_id="g_r1_2", players=["bob", "alice"], seat=1, to_move=0))
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


def test_a_move_that_crossed_the_result_is_not_toasted() -> None:
    m = ClientModel()
    m.apply(state())
    m.apply({"type": "error", "code": "game_over", "message": "", "id": 3})
    assert len(m.toasts) == 1  # refused while we still thought the game went on: say why
    for ply, (x, y) in enumerate([(1, 1), (0, 1), (0, 0), (2, 0), (2, 2)]):
        m.apply(moved(ply, x, y))
    m.apply({"type": "game_over", "room": "r1", "winner": 0, "reason": "line"})
    assert m.room is not None and m.room.status == "over"
    m.apply({"type": "error", "code": "game_over", "message": "", "id": 4})
    assert len(m.toasts) == 1  # the board already shows the result


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
    m.toast(ERROR_WORDS["no_bot_available"], "error")
    m.toast(ERROR_WORDS["no_bot_available"], "error")  # a repeat replaces, not stacks
    m.toast("Reconnected.")  # replaces the one from above, now the newest
    assert [t.text for t in m.toasts] == [ERROR_WORDS["no_bot_available"], "Reconnected."]
    m.apply({"type": "joined", "room": "r1", "seat": 0})
    m.apply(state())
    assert m.room is not None
    assert [t.text for t in m.toasts] == ["Reconnected."]  # the failure to get a room is moot


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


TTT = {"name": "tictactoe", "width": 3, "height": 3, "k": 3, "rule": "freestyle"}


def summary(game_id: str, room: str = "r1", **over: Any) -> dict[str, Any]:
    """A row of ``games`` as server/store.py ``_summary`` writes it."""
    row: dict[str, Any] = {
        "game_id": game_id,
        "room": room,
        "game": TTT,
        "players": ["alice", "bob"],
        "player_ids": ["p_a", "p_b"],
        "winner": 0,
        "reason": "line",
        "started_at": 1_700_000_000.0,
        "ended_at": 1_700_000_060.0,
    }
    row.update(over)
    return row


def test_server_history_rows_become_the_lobby_list() -> None:
    m = ClientModel()
    m.apply(
        {
            "type": "games",
            "games": [
                summary("g2", ended_at=20.0),
                summary("g1", "r0", winner=None, reason="draw"),
            ],
            "more": True,
            "id": 3,
        }
    )
    assert m.history_supported is True and m.history_more
    assert [h.game_id for h in m.history] == ["g2", "g1"]
    g2 = m.history[0]
    assert (g2.room, g2.players, g2.game.title, g2.ended_at) == (
        "r1",
        ("alice", "bob"),
        "Tic-tac-toe",
        20.0,
    )
    assert (g2.result.winner, g2.result.reason) == (0, "line")
    assert m.history[1].result.winner is None
    assert [(row.game_id, moves) for row, moves in m.lobby_games()] == [
        ("g2", None),
        ("g1", None),
    ]
    assert not m.finished  # moves come from get_game
    m.apply({"type": "games", "games": [summary("g3")], "more": False, "id": 4})
    assert [h.game_id for h in m.history] == ["g3"] and not m.history_more  # a refresh replaces


def test_history_pages_extend_the_list() -> None:
    m = ClientModel()
    m.apply({"type": "games", "games": [summary("g3"), summary("g2")], "more": True, "id": 1})
    m.page_ids.add(2)
    page = {"type": "games", "games": [summary("g2"), summary("g1")], "more": False, "id": 2}
    m.apply(page)
    assert [h.game_id for h in m.history] == ["g3", "g2", "g1"] and not m.history_more
    assert not m.page_ids


def test_get_game_record_is_kept_for_replay() -> None:
    m = ClientModel()
    m.apply({"type": "games", "games": [summary("g1")], "more": False})
    record = {
        **summary("g1"),
        "kinds": ["human", "bot"],
        "clock": None,
        "status": "over",
        "line": [[0, 0], [1, 1], [2, 2]],
        "moves": [
            {"x": x, "y": y, "at": 1.0 + i, "ms": 1000, "clocks": None}
            for i, (x, y) in enumerate([(0, 0), (1, 0), (1, 1), (2, 0), (2, 2)])
        ],
    }
    m.apply({"type": "game", "game": record, "id": 5})
    game = m.finished["g1"]
    assert game.game_id == "g1" and game.moves == ((0, 0), (1, 0), (1, 1), (2, 0), (2, 2))
    assert game.result.line == ((0, 0), (1, 1), (2, 2)) and game.result.winner == 0
    assert game.game.title == "Tic-tac-toe" and game.players == ("alice", "bob")
    assert list(m.finished) == ["g1"]
    ((row, moves),) = m.lobby_games()  # listed once, now with its moves
    assert moves is game and getattr(row, "game_id", None) == "g1"


def test_a_game_seen_live_merges_with_its_history_row_by_game_id() -> None:
    m = ClientModel()
    won = {"winner": 0, "reason": "line", "line": [[0, 0], [1, 1], [2, 2]]}
    m.apply(state(game_id="g7"))
    m.apply(state(game_id="g7", moves=[[0, 0], [1, 0], [1, 1], [2, 0], [2, 2]], status="over"))
    assert not m.finished  # "over" without a result: nothing to replay yet
    m.apply({"type": "game_over", "room": "r1", "game_id": "g7", **won})
    assert list(m.finished) == ["g7"] and len(m.finished["g7"].moves) == 5
    ((row, moves),) = m.lobby_games()  # not listed by the server yet: shown as seen here
    assert row is moves and row.game_id == "g7"
    # The server lists it in another room and with other names: the id alone links them.
    m.apply({"type": "games", "games": [summary("g7", room="x", players=["a", "b"])]})
    ((row, moves),) = m.lobby_games()  # listed once, with the moves seen live
    assert isinstance(row, HistoryRow) and row.game_id == "g7" and row.players == ("a", "b")
    assert moves is m.finished["g7"] and len(moves.moves) == 5


def test_rematch_games_with_the_same_players_and_result_stay_separate() -> None:
    m = ClientModel()
    first = [[0, 0], [1, 0], [1, 1], [2, 0], [2, 2]]
    second = [[0, 0], [0, 1], [1, 1], [0, 2], [2, 2]]
    won = {"winner": 0, "reason": "line", "line": [[0, 0], [1, 1], [2, 2]]}
    m.apply(state(game_id="g1", moves=first, status="over", result=won))
    m.apply(state(game_no=2, game_id="g2", moves=[], status="playing"))
    m.apply(state(game_no=2, game_id="g2", moves=second, status="over", result=won))
    assert list(m.finished) == ["g1", "g2"]
    # Before the server lists them, the lobby shows the games seen here, newest first.
    assert [row.game_id for row, _ in m.lobby_games()] == ["g2", "g1"]
    rows = [
        summary("g2", game_no=2),
        summary("g0"),  # the same room, players and result, but not seen here
        summary("g1"),
    ]
    m.apply({"type": "games", "games": rows, "more": False})
    listed = m.lobby_games()
    assert [(row.game_id, type(row)) for row, _ in listed] == [
        ("g2", HistoryRow),
        ("g0", HistoryRow),
        ("g1", HistoryRow),
    ]
    assert [g.moves if g else None for _, g in listed] == [
        tuple(map(tuple, second)),
        None,  # its moves come from get_game
        tuple(map(tuple, first)),
    ]
    m.apply({"type": "games", "games": [rows[0]], "more": False})  # g1 fell off the page
    assert [(row.game_id, type(row)) for row, _ in m.lobby_games()] == [
        ("g1", FinishedGame),  # seen here, not listed: still shown, first
        ("g2", HistoryRow),
    ]


def test_a_state_without_game_id_is_kept_under_a_local_key() -> None:
    m = ClientModel()
    old = state(status="over", result={"winner": 1, "reason": "resign"})
    del old["game_id"]
    m.apply(old)
    assert list(m.finished) == ["r1#1"]
    m.apply({"type": "games", "games": [summary("g1")], "more": False})
    assert [(row.game_id, moves is row) for row, moves in m.lobby_games()] == [
        ("r1#1", True),  # never linked to a history row
        ("g1", False),
    ]


def test_a_server_without_history_keeps_the_local_list() -> None:
    m = ClientModel()
    m.quiet_ids.add(1)
    m.apply({"type": "error", "code": "no_history", "message": "no db", "id": 1})
    assert m.history_supported is False and not m.toasts
    m.apply(state(status="over", result={"winner": 1, "reason": "resign"}))
    ((row, moves),) = m.lobby_games()
    assert row is moves and row.game_id == "g_r1_1"


def test_create_request_from_the_form() -> None:
    form = LobbyForm(
        game="mnk", width=7, height=6, k=4, opponent="bot", level=3, seat=None, clock=1
    )
    form.clocks = (None, (180, 2))  # as the server offered them
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


def test_which_games_are_rated_is_the_servers_word() -> None:
    from client.forms import rated, rated_block
    from server.core.rating.pools import FORM_POOLS

    form = LobbyForm(game="renju", clock=1, rated=True, clocks=(None, (180, 2)))
    assert rated(form, True, FORM_POOLS) and create_request(form, True, FORM_POOLS)["rated"]
    only_gomoku = {"180+2": {"gomoku": "gomoku-blitz"}}  # a server that rates gomoku only
    assert rated_block(form, True, only_gomoku) == "Custom boards are casual only."
    assert "rated" not in create_request(form, True, only_gomoku)
    assert not rated(
        LobbyForm(game="mnk", clock=1, rated=True, clocks=form.clocks), True, FORM_POOLS
    )


def test_a_game_shows_the_title_the_server_says() -> None:
    """A custom board's title, in its room and its lobby line, is the server's word: the
    client formats none (``7x6, 4 in a row`` would be its own)."""
    m = ClientModel()
    game = {"name": "mnk", "width": 7, "height": 6, "k": 4, "rule": "exact", "title": "Seven"}
    m.apply(state(game=game))
    assert m.rooms["r1"].game.title == "Seven"
    row = {"room": "r2", "game": "mnk", "title": "Six", "status": "waiting", "players": ["a", None]}
    m.apply({"type": "rooms", "rooms": [row]})
    assert [r.title for r in m.lobby] == ["Six"]
    m.apply(state(game={**game, "title": None}))  # a server that says none: the game's label
    assert m.rooms["r1"].game.title == LABELS.game("mnk")
