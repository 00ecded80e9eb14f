"""Finished games: the server's history rows and the games whose moves are here, by ``game_id``.

A game watched live and the history row the server lists for it share the server's
``game_id``, so the lobby shows it once, with the moves seen live (no ``get_game`` needed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from client.records import FinishedGame, GameInfo, HistoryRow, Message, Result, xy

#: A lobby row: the game (a history row, or a game seen here that the history does not list)
#: and its moves when they are here.
LobbyGame = tuple[HistoryRow | FinishedGame, FinishedGame | None]


def parse_rows(rows: Iterable[object]) -> list[HistoryRow]:
    """The history rows of a ``games`` answer (rows without a ``game_id`` are skipped)."""
    out = (HistoryRow.from_wire(r) for r in rows if isinstance(r, dict))
    return [h for h in out if h is not None]


def extend_history(history: list[HistoryRow], page: list[HistoryRow]) -> list[HistoryRow]:
    """``history`` followed by the rows of an older ``page`` it does not list yet."""
    seen = {h.game_id for h in history}
    return history + [h for h in page if h.game_id not in seen]


def record_game(row: Message) -> FinishedGame | None:
    """A finished game from a history record with moves (``game`` or a ``games`` row)."""
    game_id = row.get("game_id")
    if not isinstance(game_id, str) or not game_id or not isinstance(row.get("moves"), list):
        return None
    game = row.get("game") if isinstance(row.get("game"), dict) else row.get("variant")
    players = [*list(row.get("players") or ["?", "?"])[:2], "?", "?"]
    result = row.get("result") if isinstance(row.get("result"), dict) else row
    return FinishedGame(
        game_id=game_id,
        room=str(row.get("room", game_id)),
        game=GameInfo.from_wire(game or {}),
        players=(str(players[0] or "?"), str(players[1] or "?")),
        moves=tuple(xy(m) for m in row["moves"]),
        result=Result.from_wire(result),
        game_no=int(row.get("game_no") or 1),
    )


def lobby_list(history: list[HistoryRow], finished: Mapping[str, FinishedGame]) -> list[LobbyGame]:
    """The lobby's finished games, newest first, each with its moves when they are here.

    The server's history when it keeps one, after any game seen here that the history does
    not list (yet); with no history, just the games seen here.
    """
    listed = {h.game_id for h in history}
    rows: list[LobbyGame] = [(g, g) for g in reversed(finished.values()) if g.game_id not in listed]
    rows += [(h, finished.get(h.game_id)) for h in history]
    return rows
