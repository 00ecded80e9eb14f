"""The server's tournaments as the client knows them: the ``tournaments`` list and each
``tournament`` message (the server's standings and games, shown as sent: nothing computed).

No pygame here; each value is built from one decoded map, tolerating missing fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from client.labels import LABELS, clock_text
from client.values import Message

#: Events listed at once (one page of ``list_tournaments``).
LIST_LIMIT = 50
#: ``TournamentBook.game_offset`` meaning "the last screenful of the page" (a page not yet
#: come, reached going back to newer games: its length is known when it comes).
PAGE_END = -1


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class EventLine:
    """One event as ``list_tournaments`` (or the head of ``tournament``) describes it."""

    tid: str
    name: str
    game: str
    format: str
    clock: str
    rated: bool
    status: str
    players: int
    max_players: int
    starts_at: float | None
    ends_at: float | None
    round: int
    rounds: int | None
    schedule: str | None
    creator: str | None

    @classmethod
    def from_wire(cls, m: Message) -> EventLine:
        """From a SUMMARY (or a TOURNAMENT) map."""
        rounds = m.get("rounds")
        return cls(
            tid=str(m.get("tournament", "")),
            name=str(m.get("name", "?"))[:64],
            game=str(m.get("game", "")),
            format=str(m.get("format", "")),
            clock=clock_text(m.get("clock")),
            rated=bool(m.get("rated")),
            status=str(m.get("status", "open")),
            players=int(m.get("players") or 0),
            max_players=int(m.get("max_players") or 0),
            starts_at=_num(m.get("starts_at")),
            ends_at=_num(m.get("ends_at")),
            round=int(m.get("round") or 0),
            rounds=int(rounds) if isinstance(rounds, int) else None,
            schedule=str(m["schedule"]) if m.get("schedule") else None,
            creator=str(m["creator"]) if m.get("creator") else None,
        )

    @property
    def kind(self) -> str:
        """``Gomoku · Arena · 3+2 · rated``."""
        parts = [LABELS.game(self.game), LABELS.format(self.format), self.clock]
        return " · ".join(parts + (["rated"] if self.rated else []))

    def when(self, now: float) -> str:
        """Where it stands: ``starts in 4 min``, ``round 2 of 5``, ``ends in 12 min``…"""
        if self.status == "open":
            if self.starts_at is None:
                return "open: starts when its creator starts it"
            return f"open: starts in {span(self.starts_at - now)}"
        if self.status == "running" and self.ends_at is not None:
            return f"running: ends in {span(self.ends_at - now)}"
        if self.status == "running":
            return f"running: round {self.round} of {self.rounds or '?'}"
        return "finished"


def span(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3 h 05``."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d}"


@dataclass(frozen=True, slots=True)
class Standing:
    """A standings line as sent: rank, player, points and the format's other figures."""

    rank: int
    player: str
    points: float
    detail: str

    @classmethod
    def from_wire(cls, m: Message) -> Standing:
        """From a ``standings`` entry (arena's or round robin's / swiss's)."""
        if "games" in m:  # an arena's
            detail = f"{m.get('games', 0)} games, {m.get('wins', 0)} won"
            if m.get("streak"):
                detail += ", on a streak"
        else:
            detail = (
                f"+{m.get('wins', 0)} ={m.get('draws', 0)} -{m.get('losses', 0)}"
                f"  Bh {m.get('buchholz', 0):g}  SB {m.get('sonneborn_berger', 0):g}"
            )
        elo = m.get("elo") if isinstance(m.get("elo"), dict) else {}
        value, error = _num(elo.get("elo")), _num(elo.get("error"))
        if value is not None:  # a bot event's: the server's Elo ± error, shown as sent
            detail += f"  Elo {value:+.1f} ± {error or 0:.1f}"
        return cls(int(m.get("rank") or 0), str(m.get("player", "")), float(m["points"]), detail)


@dataclass(frozen=True, slots=True)
class EventGame:
    """A game of the event: its key, players (seat 0 first), room and result as sent."""

    key: str
    players: tuple[str, str]
    room: str | None
    result: str | None

    @classmethod
    def from_wire(cls, m: Message) -> EventGame:
        """From a ``games`` entry; ``result`` in words (None: being played)."""
        players = m.get("players") or ["", ""]
        result = m.get("result")
        words = None
        if isinstance(result, dict):
            winner = result.get("winner")
            words = "void" if result.get("void") else {0: "1-0", 1: "0-1"}.get(winner, "½-½")
        room = m.get("room")
        return cls(str(m.get("key", "")), (str(players[0]), str(players[1])), room, words)


@dataclass(frozen=True, slots=True)
class EventDetail:
    """A ``tournament`` message: the event's line, its entrants, standings and games."""

    line: EventLine
    #: Entrants by player id: (name, state).
    entrants: dict[str, tuple[str, str]]
    standings: tuple[Standing, ...]
    games: tuple[EventGame, ...]
    #: Which page of the event's games ``games`` is (newest first), of how many.
    page: int = 0
    pages: int = 1

    @classmethod
    def from_wire(cls, m: Message) -> EventDetail:
        """From a TOURNAMENT map."""
        entrants = {
            str(e.get("id")): (str(e.get("name", "?")), str(e.get("state", "in")))
            for e in m.get("entrants") or []
        }
        return cls(
            EventLine.from_wire(m),
            entrants,
            tuple(Standing.from_wire(s) for s in m.get("standings") or []),
            tuple(EventGame.from_wire(g) for g in m.get("games") or []),
            int(m.get("page") or 0),
            max(1, int(m.get("pages") or 1)),
        )

    def name_of(self, pid: str) -> str:
        """An entrant's name (its id when unknown)."""
        return self.entrants.get(pid, (pid, ""))[0]

    def entered(self, pid: str | None) -> bool:
        """Whether ``pid`` is an entrant playing on or paused (so "Leave" applies)."""
        return pid is not None and self.entrants.get(pid, ("", "gone"))[1] in ("in", "paused")


@dataclass
class TournamentBook:
    """The events listed, the latest ``tournament`` of each one seen, the one on screen."""

    listing: list[EventLine] = field(default_factory=list)
    events: dict[str, EventDetail] = field(default_factory=dict)
    selected: str | None = None
    #: The page of the selected event's games on screen (the server's ``page``), and the first
    #: of them shown (``PAGE_END``: the last screenful, once the page comes).
    game_page: int = 0
    game_offset: int = 0

    def pick(self, tid: str) -> None:
        """Event ``tid`` on screen, its newest games first."""
        self.selected, self.game_page, self.game_offset = tid, 0, 0

    def listed(self, msg: Message) -> None:
        """A ``tournaments`` answer: the list on screen."""
        self.listing = [EventLine.from_wire(t) for t in msg.get("tournaments") or []]

    def updated(self, msg: Message) -> None:
        """A ``tournament`` (an answer or a push): that event's latest state, and its line."""
        detail = EventDetail.from_wire(msg)
        old = self.events.get(detail.line.tid)
        if detail.line.tid == self.selected and detail.page != self.game_page:
            # a push (page 0) while an older page is read: the rest is news, the games stay
            games = old.games if old is not None and old.page == self.game_page else ()
            detail = replace(detail, games=games, page=old.page if games else -1)
        self.events[detail.line.tid] = detail
        lines = [detail.line if e.tid == detail.line.tid else e for e in self.listing]
        if detail.line.tid not in {e.tid for e in self.listing}:
            lines.append(detail.line)
        self.listing = lines

    @property
    def shown(self) -> EventDetail | None:
        """The selected event's latest state, if one came."""
        return self.events.get(self.selected) if self.selected else None


@dataclass(frozen=True, slots=True)
class GameWindow:
    """The games of an event on screen: from ``start`` of the page held, and where "Older"
    and "Newer" go (``(page, offset)``; None: nothing that way)."""

    start: int
    older: tuple[int, int] | None
    newer: tuple[int, int] | None


def game_window(book: TournamentBook, detail: EventDetail, fit: int) -> GameWindow | None:
    """The screenful of ``fit`` games the book points at in ``detail`` (None: its page has not
    come yet)."""
    if detail.page != book.game_page:
        return None
    count, page = len(detail.games), detail.page
    start = max(0, count - fit) if book.game_offset == PAGE_END else book.game_offset
    start = max(0, min(start, count - 1))
    older = (
        (page, start + fit) if start + fit < count
        else (page + 1, 0) if page + 1 < detail.pages else None
    )  # fmt: skip
    newer = (page, max(0, start - fit)) if start > 0 else (page - 1, PAGE_END) if page else None
    return GameWindow(start, older, newer)
