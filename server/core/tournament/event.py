"""One tournament as the desk keeps it: its settings (checked from ``create_tournament``), its
entrants, the games its format made with their rooms and results, and the ``tournament``
message that shows it. It changes only through its own methods; the desk journals each change
(``server/core/journal/rows.py``) and a restart rebuilds it from those rows (:func:`rebuild`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from protocol.elo import elo_view
from protocol.errors import ArenaError, BadOptions, RatedNeedsClock
from protocol.openings import BALANCED_BOARD, balanced_openings
from protocol.sprt import Sprt
from protocol.variants import FIXED
from protocol.wire import Message
from server.core.game.clock import ClockSpec
from server.core.game.labels import clock_label
from server.core.game.options import canonical, read_clock
from server.core.game.room import Room
from server.core.journal.rows import EntrantRow, PairingRow, ResultRow, TournamentRow
from server.core.rating.pools import pool_of
from server.core.tournament.arena_format import ranking
from server.core.tournament.gauntlet import gauntlet_round, gauntlet_rounds
from server.core.tournament.match_format import decided, match_round, match_rounds, sprt_state
from server.core.tournament.progress import progress
from server.core.tournament.roundrobin import total_rounds
from server.core.tournament.standings import standings
from server.core.tournament.swiss import default_rounds
from server.core.tournament.values import (
    ARENA,
    FORMATS,
    GAUNTLET,
    MATCH,
    ROUND_ROBIN,
    SWISS,
    Bye,
    Finished,
    Game,
    Round,
)

OPEN, RUNNING, FINISHED = "open", "running", "finished"
#: An entrant's states: playing on, paused (an arena's player who left), withdrawn, and gone
#: (left before the start: no part of the event).
IN, PAUSED, OUT, GONE = "in", "paused", "out", "gone"

#: Bounds of a ``create_tournament`` (docs/PROTOCOL.md, "Limits").
MAX_NAME = 64
MAX_ENTRANTS = 64
MAX_OPENINGS = 64
MAX_GAMES_PER_PAIR = 200
#: A round robin's or gauntlet's games at most, counted for ``max_players`` entrants (the
#: 10 games a pair of 64 entrants the first bound allowed: a few kilobytes a game in memory).
MAX_EVENT_GAMES = 20_160
MAX_SWISS_ROUNDS = 20
#: A match's games at most (``max_games``, even: whole colour-swapped pairs), and by default;
#: its games played at once (``games_at_once``: each player in that many rooms of the event).
MAX_MATCH_GAMES, MATCH_GAMES = 1000, 100
MAX_GAMES_AT_ONCE = 16
MIN_ARENA_S, MAX_ARENA_S = 10.0, 6 * 3600.0
MAX_STARTS_IN_S = 7 * 86400.0
#: Options a tournament's rooms may take (the rest of ``create_room``'s are not for events).
EVENT_OPTIONS = ("opening_rule", "max_moves")
#: Games listed in one ``tournament`` message (``page`` reads the others, newest first).
GAMES_PAGE = 100
#: The most entrants an event's ``crosstable`` is sent for (24 by 24 cells: under 8 KB).
CROSSTABLE_MAX = 24


@dataclass(frozen=True, slots=True)
class Settings:
    """What an event is, checked: it never changes after ``create_tournament``."""

    name: str
    game: str
    format: str
    clock: ClockSpec | None
    rated: bool
    options: dict[str, Any]
    openings: tuple[tuple[tuple[int, int], ...], ...] = ()
    games_per_pair: int = 2
    rounds: int | None = None
    duration_s: float = 0.0
    max_players: int = MAX_ENTRANTS
    #: The operator's schedule that made the event (None: made by ``create_tournament``).
    schedule: str | None = None
    #: A gauntlet's seeds: its first entrants, who meet every other.
    seeds: int = 1
    #: A match's most games, its SPRT (None: it plays them all), its games played at once.
    max_games: int = MATCH_GAMES
    sprt: Sprt | None = None
    games_at_once: int = 1

    def describe(self) -> dict[str, Any]:
        """The settings as stored (``TournamentRow.settings``) and as sent."""
        return {
            "name": self.name,
            "game": self.game,
            "format": self.format,
            "clock": self.clock.describe() if self.clock is not None else None,
            "rated": self.rated,
            "options": self.options,
            "openings": [[list(m) for m in o] for o in self.openings],
            "games_per_pair": self.games_per_pair,
            "rounds": self.rounds,
            "duration_s": self.duration_s,
            "max_players": self.max_players,
            "schedule": self.schedule,
            "seeds": self.seeds,
            "max_games": self.max_games,
            "sprt": self.sprt.describe() if self.sprt is not None else None,
            "games_at_once": self.games_at_once,
        } | ({"swiss_games_per_pair": self.games_per_pair} if self.format == SWISS else {})

    @classmethod
    def from_description(cls, d: dict[str, Any]) -> Settings:
        """The settings a stored description says (checked when they were made). A swiss's
        games a pairing are ``swiss_games_per_pair`` (an older server's swiss stored none: it
        played one game a pairing from the empty board, whatever its ``games_per_pair``)."""
        per_pair = d.get("games_per_pair", 2)
        clock = ClockSpec.parse(d["clock"]) if d.get("clock") is not None else None
        openings = tuple(tuple((x, y) for x, y in o) for o in d.get("openings", ()))
        if d["format"] == SWISS:
            per_pair = d.get("swiss_games_per_pair", 1)
            openings = openings if "swiss_games_per_pair" in d else ()
        return cls(
            d["name"], d["game"], d["format"], clock, d["rated"], dict(d.get("options", {})),
            openings, per_pair, d.get("rounds"),
            float(d.get("duration_s", 0.0)), d.get("max_players", MAX_ENTRANTS),
            d.get("schedule"), d.get("seeds", 1), d.get("max_games", MATCH_GAMES),
            Sprt(**d["sprt"]) if d.get("sprt") else None, d.get("games_at_once", 1),
        )  # fmt: skip

    def room_options(self, tid: str, opening: int | None) -> dict[str, Any]:
        """The options of a room of event ``tid`` playing opening ``opening`` (None: none):
        the event's id rides along (recorded with the game; such a room has no rematch)."""
        options: dict[str, Any] = {"opponent": "human", **self.options, "tournament": tid}
        if self.rated:
            options["rated"] = True
        if opening is not None and self.openings:
            options["opening"] = [list(m) for m in self.openings[opening]]
        return options


def bounded(msg: Message, key: str, low: float, high: float, default: Any) -> Any:
    """``msg[key]`` (``default`` when absent) within ``low..high``, else BadOptions."""
    value = msg.get(key, default)
    if value is not None and not low <= value <= high:
        raise BadOptions(f"{key} must be between {low:g} and {high:g}")
    return value


def read_settings(msg: Message) -> Settings:
    """A ``create_tournament`` (validated) checked into :class:`Settings`, or BadOptions (an
    unknown game, a clock out of range, an opening the board cannot take …)."""
    name = " ".join(str(msg["name"]).split())
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        raise BadOptions(f"a tournament's name is 1..{MAX_NAME} printable characters")
    game, fmt = msg["game"], msg["format"]
    if game not in FIXED or fmt not in FORMATS:
        raise BadOptions(f"game must be one of {', '.join(FIXED)}; format one of {FORMATS}")
    raw = msg.get("options") or {}
    if any(k not in EVENT_OPTIONS for k in raw):
        raise BadOptions(f"a tournament's options are {', '.join(EVENT_OPTIONS)}")
    options = canonical(game, raw)
    clock = read_clock(msg.get("clock"))
    rated = bool(msg.get("rated", False))
    if rated and pool_of(FIXED[game], clock) is None:
        raise RatedNeedsClock("a rated tournament needs a clock (and a rated game)")
    openings = read_openings(game, options, listed_openings(game, msg.get("openings")))
    settings = Settings(
        name, game, fmt, clock, rated, options, openings,
        bounded(msg, "games_per_pair", 1, MAX_GAMES_PER_PAIR, 1 if fmt == SWISS else 2),
        bounded(msg, "rounds", 1, MAX_SWISS_ROUNDS, None),
        float(bounded(msg, "duration_s", MIN_ARENA_S, MAX_ARENA_S, 3600.0) if fmt == ARENA else 0),
        bounded(msg, "max_players", 2, MAX_ENTRANTS, 2 if fmt == MATCH else MAX_ENTRANTS),
        seeds=bounded(msg, "seeds", 1, MAX_ENTRANTS - 1, 1),
        max_games=bounded(msg, "max_games", 2, MAX_MATCH_GAMES, MATCH_GAMES),
        sprt=read_sprt(msg.get("sprt")),
        games_at_once=bounded(msg, "games_at_once", 1, MAX_GAMES_AT_ONCE, 1),
    )  # fmt: skip
    if fmt == MATCH and (settings.max_players != 2 or settings.max_games % 2):
        raise BadOptions("a match is two players (max_players 2) and an even max_games")
    if most_games(settings) > MAX_EVENT_GAMES:
        raise BadOptions(
            f"games_per_pair times the pairings of max_players (a swiss's: each round's) is at"
            f" most {MAX_EVENT_GAMES}"
        )
    bounded(msg, "starts_in_s", 0, MAX_STARTS_IN_S, None)
    return settings


def most_games(settings: Settings) -> int:
    """The most games a round robin, gauntlet or swiss of ``max_players`` entrants plays (0:
    another format, bounded otherwise)."""
    size, per_pair = settings.max_players, settings.games_per_pair
    if settings.format == SWISS:
        return per_pair * (settings.rounds or default_rounds(size)) * (size // 2)
    if settings.format == ROUND_ROBIN:
        return per_pair * size * (size - 1) // 2
    if settings.format == GAUNTLET:
        seeds = max(1, min(settings.seeds, size - 1))
        return per_pair * seeds * (size - seeds)
    return 0


def read_sprt(raw: dict[str, Any] | None) -> Sprt | None:
    """A match's ``sprt`` (``elo0``, ``elo1``, optional ``alpha``, ``beta``), or BadOptions."""
    if raw is None:
        return None
    if set(raw) - {"elo0", "elo1", "alpha", "beta"} or not {"elo0", "elo1"} <= set(raw):
        raise BadOptions("sprt: elo0, elo1 and optionally alpha and beta")
    if not all(type(v) in (int, float) and math.isfinite(v) for v in raw.values()):
        raise BadOptions("sprt: numbers")
    try:
        return Sprt.checked(**raw)
    except ValueError as exc:
        raise BadOptions(str(exc)) from None


def listed_openings(game: str, raw: Any) -> list[Any]:
    """A ``create_tournament``'s ``openings`` as a list: a list as it is; ``K`` the first K of
    the balanced openings (``protocol/openings.py``), ``"balanced"`` all of them (15x15 games
    only); anything else BadOptions."""
    if raw is None or isinstance(raw, list):
        return raw or []
    balanced = balanced_openings()
    if raw == "balanced":
        raw = len(balanced)
    if type(raw) is not int or not 1 <= raw <= len(balanced):
        raise BadOptions(f'openings: a list, "balanced" or a count 1..{len(balanced)}')
    variant = FIXED[game]
    if (variant.width, variant.height) != BALANCED_BOARD:
        raise BadOptions("the balanced openings are for 15x15 games")
    return [[list(m) for m in o] for o in balanced[:raw]]


def read_openings(
    game: str, options: dict[str, Any], raw: list[Any]
) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The event's openings, each one a room of the game accepts (BadOptions if not)."""
    if len(raw) > MAX_OPENINGS:
        raise BadOptions(f"at most {MAX_OPENINGS} openings")
    found = []
    for opening in raw:
        kept = canonical(game, {"opening": opening})["opening"]
        try:
            Room("check", FIXED[game], options | {"opening": kept}, None)
        except ArenaError as exc:
            raise BadOptions(f"opening {len(found) + 1}: {exc.message}") from None
        found.append(tuple((x, y) for x, y in kept))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player in an event: its order of entry, its rating at entry, its state."""

    pid: str
    name: str
    kind: str
    seq: int
    rating: float
    state: str = IN

    def view(self) -> Message:
        """The entrant as the ``tournament`` message lists it."""
        return {
            "id": self.pid,
            "name": self.name,
            "kind": self.kind,
            "rating": round(self.rating),
            "state": self.state,
        }


@dataclass(slots=True)
class Slot:
    """A game of the event: the format's game, its room and game id, its result."""

    game: Game
    room: str | None
    game_id: str | None
    at: float
    result: Finished | None = None

    def finish(self, winner: int | None, void: bool) -> Finished:
        """The game's result (set once: the event checks it has none)."""
        self.result = Finished(self.game, winner, void)
        return self.result

    def view(self) -> Message:
        """The game as the ``tournament`` message lists it."""
        result = self.result
        return {
            "key": self.game.key,
            "round": self.game.round,
            "players": list(self.game.players),
            "opening": self.game.opening,
            "room": self.room,
            "game_id": self.game_id,
            "result": None if result is None else {"winner": result.winner, "void": result.void},
        }


@dataclass(slots=True)
class Event:
    """A tournament: settings, entrants, games and results; changed through its methods."""

    id: str
    settings: Settings
    creator: str | None
    created_at: float
    starts_at: float | None = None
    status: str = OPEN
    started_at: float | None = None
    ended_at: float | None = None
    entrants: dict[str, Entrant] = field(default_factory=dict)
    slots: dict[str, Slot] = field(default_factory=dict)
    byes: list[Bye] = field(default_factory=list)
    #: The results in the order they came (an arena's streaks read them so).
    results: list[Finished] = field(default_factory=list)
    #: Each player's opponent in its latest game (an arena pairs no rematch while it can).
    last_opponent: dict[str, str] = field(default_factory=dict)
    #: Bumped on every change: a watcher is sent the event again when it moved.
    version: int = 0
    #: A fixed schedule's rounds whose every game is made, from the first (a hint for the
    #: next scan, not stored: a restart scans from round 1 again).
    made_through: int = 0

    # -- changes -----------------------------------------------------------------------------

    def enter(self, entrant: Entrant) -> None:
        """Add (or update) an entrant."""
        self.entrants[entrant.pid] = entrant
        self.version += 1

    def set_state(self, pid: str, state: str) -> Entrant:
        """``pid``'s new state; its entrant as it is now."""
        entrant = self.entrants[pid]
        self.entrants[pid] = Entrant(
            entrant.pid, entrant.name, entrant.kind, entrant.seq, entrant.rating, state
        )
        self.version += 1
        return self.entrants[pid]

    def start(self, now: float) -> None:
        """The event starts now."""
        self.status, self.started_at = RUNNING, now
        self.version += 1

    def finish(self, now: float) -> None:
        """The event is over."""
        self.status, self.ended_at = FINISHED, now
        self.version += 1

    def paired(self, slot: Slot) -> None:
        """A game the format made."""
        self.slots[slot.game.key] = slot
        first, second = slot.game.players
        self.last_opponent[first], self.last_opponent[second] = second, first
        self.version += 1

    def bye(self, bye: Bye) -> None:
        """A round a player sits out."""
        self.byes.append(bye)
        self.version += 1

    def made_up_to(self, number: int) -> None:
        """Every game of rounds 1..``number`` of a fixed schedule is made."""
        self.made_through = max(self.made_through, number)

    def record(self, key: str, winner: int | None, void: bool) -> Finished | None:
        """The result of game ``key``; None when it has one already (counted once)."""
        slot = self.slots.get(key)
        if slot is None or slot.result is not None:
            return None
        result = slot.finish(winner, void)
        self.results.append(result)
        self.version += 1
        return result

    # -- reading -----------------------------------------------------------------------------

    @property
    def round(self) -> int:
        """The last round made (an arena's: its games so far)."""
        return max((s.game.round for s in self.slots.values()), default=0)

    @property
    def rounds(self) -> int | None:
        """The rounds the event plays (None: an arena, played by the clock)."""
        fmt, size = self.settings.format, len(self.players_at_start())
        if fmt == ROUND_ROBIN:
            return total_rounds(size, self.settings.games_per_pair)
        if fmt == GAUNTLET:
            return gauntlet_rounds(size, self.settings.seeds, self.settings.games_per_pair)
        if fmt == MATCH:
            return match_rounds(self.settings.max_games, self.settings.games_at_once)
        if fmt == SWISS:
            return self.settings.rounds or default_rounds(size)
        return None

    def planned_round(self, number: int) -> Round:
        """Round ``number`` of a format whose rounds the results do not change (a gauntlet,
        a match)."""
        s = self.settings
        if s.format == MATCH:
            players, openings = self.players_at_start(), len(s.openings)
            return match_round(players, openings, number, s.games_at_once, s.max_games)
        return gauntlet_round(self.players_at_start(), s.seeds, len(s.openings), number)

    def decided(self, number: int) -> bool:
        """Whether a match's SPRT ended it before game ``number``."""
        s, players = self.settings, self.players_at_start()
        return s.format == MATCH and decided(s.sprt, players, self.results, number, s.games_at_once)

    def sprt(self) -> Message | None:
        """A match's SPRT as the ``tournament`` message says it (None: no test)."""
        if self.settings.format != MATCH or self.settings.sprt is None:
            return None
        return sprt_state(self.settings.sprt, self.players_at_start(), self.results)

    @property
    def bye_points(self) -> float:
        """What a bye scores: a win for each game of a pairing in a swiss (its round's games,
        as if won), nothing in a round robin (each sits out once)."""
        return float(self.settings.games_per_pair) if self.settings.format == SWISS else 0.0

    @property
    def ends_at(self) -> float | None:
        """When an arena stops pairing (None: not an arena, or not started)."""
        if self.settings.format != ARENA or self.started_at is None:
            return None
        return self.started_at + self.settings.duration_s

    def players_at_start(self) -> list[str]:
        """The entrants who are part of the event, in order of entry."""
        ordered = sorted(self.entrants.values(), key=lambda e: e.seq)
        return [e.pid for e in ordered if e.state != GONE]

    def active(self) -> list[str]:
        """The entrants still playing on (not paused, not withdrawn), in order of entry."""
        ordered = sorted(self.entrants.values(), key=lambda e: e.seq)
        return [e.pid for e in ordered if e.state == IN]

    def sat_out(self, bye: Bye) -> bool:
        """Whether ``bye`` is recorded already."""
        return bye in self.byes

    def live(self) -> list[Slot]:
        """The games being played (no result yet)."""
        return [s for s in self.slots.values() if s.result is None and s.room is not None]

    def busy(self) -> set[str]:
        """The players in a game of the event now."""
        return {p for s in self.live() for p in s.game.players}

    def ratings(self) -> dict[str, float]:
        """Each entrant's rating at entry."""
        return {pid: e.rating for pid, e in self.entrants.items()}

    def order(self) -> list[str]:
        """The standings' order, best first."""
        return [line["player"] for line in self.format_standings()]

    def standings(self) -> list[Message]:
        """The standings lines (the format's points and tie-breaks); a bot event's lines carry
        each bot's Elo ± error too (:meth:`elo`)."""
        lines = self.format_standings()
        if self.bots_only():
            elo = self.elo()
            for line in lines:
                line["elo"] = elo.get(line["player"])
        return lines

    def bots_only(self) -> bool:
        """Whether every entrant of the event is a bot (its standings then show Elo)."""
        players = self.players_at_start()
        return bool(players) and all(self.entrants[p].kind == "bot" for p in players)

    def elo(self) -> dict[str, dict[str, float] | None]:
        """Each player's Elo against the field ± 95 % error from its finished games (void ones
        left out: nobody played them), as ``mnk-tournament`` prints it; None with no game."""
        tally = {player: [0, 0, 0] for player in self.players_at_start()}
        for item in self.results:
            if item.void:
                continue
            for player in item.game.players:
                score = item.score(player)
                tally.setdefault(player, [0, 0, 0])[0 if score == 1 else 1 if score else 2] += 1
        return {player: elo_view(*wdl) for player, wdl in tally.items()}

    def format_standings(self) -> list[Message]:
        """The standings lines as the format ranks them (points and tie-breaks)."""
        players = self.players_at_start()
        if self.settings.format == ARENA:
            lines = ranking(players, self.results, self.ratings())
            return [
                {
                    "rank": a.rank, "player": a.player, "points": a.points, "games": a.games,
                    "wins": a.wins, "streak": a.streak, "performance": round(a.performance),
                    "sheet": list(a.sheet[-30:]),
                }
                for a in lines
            ]  # fmt: skip
        table = standings(players, self.results, self.byes, self.bye_points)
        return [
            {
                "rank": s.rank, "player": s.player, "points": s.points, "buchholz": s.buchholz,
                "sonneborn_berger": s.sonneborn_berger, "wins": s.wins, "draws": s.draws,
                "losses": s.losses, "byes": s.byes,
            }
            for s in table
        ]  # fmt: skip

    def crosstable(self, order: list[str]) -> list[list[list[float] | None]] | None:
        """Round robin and swiss: row i, column j (both in ``order``, the standings') the
        points row i's player scored against column j's and their games finished, ``[points,
        games]``, or None when they finished none (the page shows it, computes nothing).
        An arena has none (None): its players meet by chance, not in a table; nor has a field
        wider than ``CROSSTABLE_MAX`` (unreadable as a table, and it would crowd the frame)."""
        if self.settings.format == ARENA or len(order) > CROSSTABLE_MAX:
            return None
        at = {player: i for i, player in enumerate(order)}
        table: list[list[list[float] | None]] = [[None] * len(order) for _ in order]
        for item in self.results:
            first, second = item.game.players
            if first not in at or second not in at:
                continue
            for me, other in ((first, second), (second, first)):
                cell = table[at[me]][at[other]]
                if cell is None:
                    cell = table[at[me]][at[other]] = [0.0, 0]
                cell[0] += item.score(me)
                cell[1] += 1
        return table

    def progress(self, order: list[str]) -> Message:
        """The chart's numbers: the leading entrants' points after each round played out (a
        round being played is not there yet; an arena's: after each of their games),
        bounded (``server/core/tournament/progress.py``)."""
        if self.settings.format == ARENA:
            return progress(order, self.results, arena=True)
        done = self.round - 1 if self.live() else self.round
        return progress(
            order, self.results, arena=False, rounds=done, byes=self.byes,
            bye_points=self.bye_points,
        )  # fmt: skip

    def summary(self) -> Message:
        """The event's line in ``tournaments``."""
        s = self.settings
        clock = None if s.clock is None else s.clock.describe() | {"label": clock_label(s.clock)}
        return {
            "tournament": self.id, "name": s.name, "game": s.game, "format": s.format,
            "clock": clock, "rated": s.rated, "rating_pool": pool_of(FIXED[s.game], s.clock),
            "status": self.status, "creator": self.creator, "players": len(self.active()),
            "max_players": s.max_players, "created_at": self.created_at,
            "starts_at": self.starts_at, "started_at": self.started_at,
            "ends_at": self.ends_at, "ended_at": self.ended_at, "round": self.round,
            "rounds": self.rounds, "schedule": s.schedule,
        }  # fmt: skip

    def message(self, page: int = 0) -> Message:
        """The ``tournament`` message: the whole state, its games a page at a time (newest
        first)."""
        games = sorted(self.slots.values(), key=lambda s: (s.at, s.game.round), reverse=True)
        pages = max(1, -(-len(games) // GAMES_PAGE))
        page = min(max(page, 0), pages - 1)
        s = self.settings
        table = self.standings()
        return {
            "type": "tournament",
            **self.summary(),
            "rules": FIXED[s.game].describe(),
            "options": s.options,
            "openings": len(s.openings),
            "games_per_pair": s.games_per_pair
            if s.format in (ROUND_ROBIN, GAUNTLET, SWISS)
            else None,
            "seeds": s.seeds if s.format == GAUNTLET else None,
            "max_games": s.max_games if s.format == MATCH else None,
            "games_at_once": s.games_at_once if s.format == MATCH else None,
            "sprt": self.sprt(),
            "duration_s": s.duration_s if s.format == ARENA else None,
            "entrants": [e.view() for e in sorted(self.entrants.values(), key=lambda e: e.seq)],
            "standings": table,
            "crosstable": self.crosstable([line["player"] for line in table]),
            "progress": self.progress([line["player"] for line in table]),
            "byes": [{"round": b.round, "player": b.player} for b in self.byes],
            "games": [g.view() for g in games[page * GAMES_PAGE : (page + 1) * GAMES_PAGE]],
            "page": page,
            "pages": pages,
        }

    def export(self) -> Message:
        """The event's results as a file (``/t/ID/games.zip``'s ``results.json``): the
        ``tournament`` message with every game, in the order they were made."""
        games = sorted(self.slots.values(), key=lambda s: (s.at, s.game.round))
        return {**self.message(), "games": [g.view() for g in games], "page": 0, "pages": 1}

    # -- records -----------------------------------------------------------------------------

    def row(self) -> TournamentRow:
        """The event's header as a record."""
        return TournamentRow(
            self.id, self.settings.name, self.creator, self.settings.describe(), self.status,
            self.created_at, self.starts_at, self.started_at, self.ended_at,
        )  # fmt: skip

    def entrant_row(self, pid: str) -> EntrantRow:
        """``pid``'s entry as a record."""
        e = self.entrants[pid]
        return EntrantRow(self.id, e.pid, e.name, e.kind, e.seq, e.rating, e.state)


def rebuild(rows: Iterable[Any]) -> dict[str, Event]:
    """The events their journal rows describe (rows of one kind in the order written)."""
    events: dict[str, Event] = {}
    later: list[Any] = []
    for row in rows:
        if isinstance(row, TournamentRow):
            settings = Settings.from_description(row.settings)
            events[row.tournament] = Event(
                row.tournament, settings, row.creator, row.created_at, row.starts_at,
                row.status, row.started_at, row.ended_at,
            )  # fmt: skip
        else:
            later.append(row)
    rank = {EntrantRow: 0, PairingRow: 1, ResultRow: 2}
    later.sort(key=lambda r: rank.get(type(r), 3))  # stable: each kind in the order written
    for row in later:
        event = events.get(row.tournament)
        if event is None:
            continue
        if isinstance(row, EntrantRow):
            event.enter(Entrant(row.pid, row.name, row.kind, row.seq, row.rating, row.state))
        elif isinstance(row, PairingRow) and row.second is None:
            event.bye(Bye(row.round, row.first))
        elif isinstance(row, PairingRow):
            game = Game(row.key, row.round, row.first, row.second, row.opening)
            event.paired(Slot(game, row.room, row.game_id, row.at))
        elif isinstance(row, ResultRow):
            event.record(row.key, row.winner, row.void)
    return events
