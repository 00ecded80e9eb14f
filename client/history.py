"""Finished games: the server's history rows and the games whose moves are here, by ``game_id``.

A game watched live and the history row the server lists for it share the server's
``game_id``, so the lobby shows it once, with the moves seen live (no ``get_game`` needed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from client.values import FinishedGame, GameInfo, HistoryRow, Message, Result, names_of, xy

#: A lobby row: the game (a history row, or a game seen here that the history does not list)
#: and its moves when they are here.
LobbyGame = tuple[HistoryRow | FinishedGame, FinishedGame | None]


def parse_rows(rows: Iterable[object]) -> list[HistoryRow]:
    """The history rows of a ``games`` answer (rows without a ``game_id``, or malformed, are
    skipped)."""
    out = []
    for r in rows:
        if not isinstance(r, dict):
            continue
        try:
            h = HistoryRow.from_wire(r)
        except (KeyError, TypeError, ValueError):
            continue
        if h is not None:
            out.append(h)
    return out


def extend_history(history: list[HistoryRow], page: list[HistoryRow]) -> list[HistoryRow]:
    """``history`` followed by the rows of an older ``page`` it does not list yet."""
    seen = {h.game_id for h in history}
    return history + [h for h in page if h.game_id not in seen]


def record_game(row: Message) -> FinishedGame | None:
    """A finished game from a history record with moves (``game`` or a ``games`` row).

    None when it has no moves, or a move or the board is malformed (the row is skipped).
    """
    game_id = row.get("game_id")
    if not isinstance(game_id, str) or not game_id or not isinstance(row.get("moves"), list):
        return None
    game = row.get("game") if isinstance(row.get("game"), dict) else row.get("variant")
    players = [*names_of(row.get("players")), "?", "?"]
    result = row.get("result") if isinstance(row.get("result"), dict) else row
    game_no = row.get("game_no")
    try:
        info = GameInfo.from_wire(game or {})
        moves = tuple(xy(m) for m in row["moves"])
    except (KeyError, TypeError, ValueError):
        return None
    return FinishedGame(
        game_id=game_id,
        room=str(row.get("room", game_id)),
        game=info,
        players=(str(players[0] or "?"), str(players[1] or "?")),
        moves=moves,
        result=Result.from_wire(result),
        game_no=game_no if isinstance(game_no, int) and game_no > 0 else 1,
        times_ms=tuple(move_ms(m) for m in row["moves"]),
    )


def move_ms(move: object) -> int | None:
    """The milliseconds a ``get_game`` move took (None when it does not say)."""
    ms = move.get("ms") if isinstance(move, dict) else None
    return ms if isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0 else None


def lobby_list(history: list[HistoryRow], finished: Mapping[str, FinishedGame]) -> list[LobbyGame]:
    """The lobby's finished games, newest first, each with its moves when they are here.

    The server's history when it keeps one, after any game seen here that the history does
    not list (yet); with no history, just the games seen here.
    """
    listed = {h.game_id for h in history}
    rows: list[LobbyGame] = [(g, g) for g in reversed(finished.values()) if g.game_id not in listed]
    rows += [(h, finished.get(h.game_id)) for h in history]
    return rows
