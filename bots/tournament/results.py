"""Results bookkeeping: finished games, the append-only journal that makes runs resumable,
standings, crosstable and fault counts. Pure except for the small file helpers at the end."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bots.tournament.stats import EloEstimate, elo_estimate, los, los_from_ratings
from protocol.vocab import Fault

#: Fault kinds counted per bot. ``crash``/``hang``/``illegal_move``/``error`` come from a bot's
#: forfeit (``reason: forfeit``); ``timeout`` and ``disconnect`` are the server's own reasons.
FAULTS = tuple(map(str, Fault))


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game as the director saw it (seat 0 is ``players[0]``)."""

    key: str
    round: int
    players: tuple[str, str]
    opening: list[list[int]]
    moves: list[list[int]]
    winner: int | None
    reason: str
    fault: str | None = None
    game_id: str | None = None
    room: str | None = None

    @property
    def at_fault(self) -> str | None:
        """The bot that lost through a fault (None if the game ended on the board)."""
        if self.fault is None or self.winner is None:
            return None
        return self.players[1 - self.winner]

    def score(self, name: str) -> float:
        """``name``'s points from this game: 1, ½ or 0."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.players[self.winner] == name else 0.0

    def to_json(self) -> dict[str, Any]:
        """The game as results.json lists it."""
        return {**asdict(self), "players": list(self.players)}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> GameResult:
        """Read one back."""
        return cls(
            key=raw["key"],
            round=raw.get("round", 1),
            players=(raw["players"][0], raw["players"][1]),
            opening=raw.get("opening", []),
            moves=raw.get("moves", []),
            winner=raw.get("winner"),
            reason=raw.get("reason", ""),
            fault=raw.get("fault"),
            game_id=raw.get("game_id"),
            room=raw.get("room"),
        )


def fault_of(reason: str, fault: str | None) -> str | None:
    """The fault charged to the loser for a game_over ``reason`` (and its ``fault`` field)."""
    if reason == "forfeit":
        return fault if fault in FAULTS else "error"
    if reason in ("timeout", "disconnect"):
        return reason
    if reason in ("abandoned", "aborted"):
        return "disconnect"
    return None


@dataclass(slots=True)
class Standing:
    """One bot's line in the standings."""

    name: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULTS, 0))

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points: a win 1, a draw ½."""
        return self.wins + self.draws / 2

    @property
    def rating(self) -> EloEstimate:
        """Elo ± 95 % error against the field (as if against one opponent, like cutechess)."""
        return elo_estimate(self.wins, self.draws, self.losses)

    def to_json(self) -> dict[str, Any]:
        """The bot's line as results.json lists it."""
        r = self.rating
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "elo": round(r.elo, 1),
            "elo_error": round(r.error, 1),
            "faults": dict(self.faults),
        }


def standings(names: Sequence[str], games: Iterable[GameResult]) -> list[Standing]:
    """Every bot's record, best first (score, then wins, then entry order)."""
    table = {n: Standing(n) for n in names}
    for g in games:
        for seat, name in enumerate(g.players):
            s = table.setdefault(name, Standing(name))
            if g.winner is None:
                s.draws += 1
            elif g.winner == seat:
                s.wins += 1
            else:
                s.losses += 1
        if g.fault is not None:
            culprits = g.players if g.winner is None else (g.at_fault,)
            for name in culprits:
                if name is not None:
                    table[name].faults[g.fault] = table[name].faults.get(g.fault, 0) + 1
    order = {n: i for i, n in enumerate(table)}
    return sorted(table.values(), key=lambda s: (-s.score, -s.wins, order[s.name]))


def head_to_head(games: Iterable[GameResult], a: str, b: str) -> tuple[int, int, int]:
    """``a``'s wins, draws and losses against ``b``."""
    w = d = l = 0  # noqa: E741
    for g in games:
        if set(g.players) != {a, b}:
            continue
        score = g.score(a)
        w, d, l = w + (score == 1), d + (score == 0.5), l + (score == 0)  # noqa: E741
    return w, d, l


def crosstable(names: Sequence[str], games: Sequence[GameResult]) -> dict[str, dict[str, Any]]:
    """For each bot, its W/D/L against each other bot it met."""
    table: dict[str, dict[str, Any]] = {}
    for a in names:
        row = {}
        for b in names:
            if a != b:
                w, d, l = head_to_head(games, a, b)  # noqa: E741
                if w + d + l:
                    row[b] = {"wins": w, "draws": d, "losses": l}
        table[a] = row
    return table


def neighbour_los(table: Sequence[Standing], games: Sequence[GameResult]) -> list[float | None]:
    """LOS of each bot over the next one down: head-to-head when they met, else by ratings."""
    out: list[float | None] = []
    for upper, lower in itertools.pairwise(table):
        w, _, l = head_to_head(games, upper.name, lower.name)  # noqa: E741
        if w + l:
            out.append(los(w, l))
        elif upper.games and lower.games:
            out.append(los_from_ratings(upper.rating, lower.rating))
        else:
            out.append(None)
    return out


# -- files -----------------------------------------------------------------------------------


def append_journal(path: Path, result: GameResult) -> None:
    """Append one finished game as a JSON line, flushed to disk before returning.

    A torn last line (a run killed mid-write) has no newline: the game goes on a line of its
    own after it, so the fragment stays one unreadable line instead of swallowing this game.
    """
    line = json.dumps(result.to_json(), separators=(",", ":")).encode() + b"\n"
    with open(path, "ab+") as f:
        if f.seek(0, os.SEEK_END) > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                line = b"\n" + line
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def read_journal(path: Path) -> dict[str, GameResult]:
    """Finished games by key; a torn last line (killed mid-write) is ignored."""
    done: dict[str, GameResult] = {}
    if not path.exists():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            result = GameResult.from_json(json.loads(line))
        except (ValueError, KeyError, TypeError, IndexError):
            continue
        done[result.key] = result
    return done


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON through a temporary file and a rename, so readers never see half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
