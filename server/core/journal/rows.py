"""The durable facts the arena hands to its store: players, game headers, moves, live rooms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """An identity; the session token is kept only as its hash."""

    pid: str
    name: str
    kind: str
    token_hash: str
    created_at: float
    #: The account this player is (a registered human's or a bot's name), None for a guest.
    account: str | None = None


@dataclass(frozen=True, slots=True)
class GameRow:
    """Everything about one game but its moves; written again whenever any of it changes."""

    game_id: str
    room: str
    game_no: int
    variant: dict[str, Any]
    options: dict[str, Any]
    clock: dict[str, Any] | None
    seats: tuple[str | None, str | None]
    names: tuple[str | None, str | None]
    kinds: tuple[str | None, str | None]
    status: str
    winner: int | None
    reason: str | None
    line: tuple[tuple[int, int], ...]
    created_at: float
    started_at: float | None
    ended_at: float | None
    #: What broke when a bot forfeited (crash, hang, illegal_move, error), else None.
    fault: str | None = None


class MoveRow(NamedTuple):
    """One accepted move, when it was played and both clocks right after it.

    A named tuple, not a frozen dataclass: one is made per move, and a frozen dataclass's
    ``__init__`` costs several times a tuple's."""

    game_id: str
    ply: int
    x: int
    y: int
    at: float
    clocks: tuple[float, float] | None


@dataclass(frozen=True, slots=True)
class RoomRow:
    """A live room and the game it is playing now."""

    room: str
    game_id: str


@dataclass(frozen=True, slots=True)
class RoomGone:
    """A room was cleaned up; its games stay in the history."""

    room: str
    discard_game: str | None = None


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """The server was alive at ``at``: after a crash, clocks are charged up to here, not beyond."""

    at: float


@dataclass(frozen=True, slots=True)
class PlayerGone:
    """An identity with no seat and no game in the history was pruned."""

    pid: str


@dataclass(frozen=True, slots=True)
class KeyRow:
    """A bot key as stored: only its hash, the name it fixes, and when it was made or revoked."""

    name: str
    key_hash: str
    created_at: float
    revoked_at: float | None = None


@dataclass(frozen=True, slots=True)
class RatingRow:
    """An account's rating in one pool as stored: Glicko-2's three numbers, its games and
    results there, and when it last played (idle time grows its RD from then)."""

    account: str
    pool: str
    rating: float
    rd: float
    vol: float
    games: int
    at: float
    bot: bool = False


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A rated game's update of one account in its pool, journaled with the game's final
    header: saved at most once per (game, account), so a batch written again rates nobody
    twice. ``score`` is 1, 0.5 or 0; ``before`` the rating it had; the rest the new rating."""

    game_id: str
    account: str
    pid: str
    name: str
    bot: bool
    pool: str
    score: float
    before: float
    rating: float
    rd: float
    vol: float
    at: float


@dataclass(frozen=True, slots=True)
class AccountRow:
    """An account: a human with a password hash (Argon2id), or a bot (no password) by its key's
    name; ``name_key`` is the name's look-alike form, unique among accounts."""

    name: str
    name_key: str
    pid: str
    kind: str
    password_hash: str | None
    created_at: float
    disabled_at: float | None = None


@dataclass(frozen=True, slots=True)
class PasswordRow:
    """An account's new password hash (``change_password``)."""

    name: str
    password_hash: str


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One device's session of an account: only the token's hash is kept."""

    token_hash: str
    name: str
    created_at: float


@dataclass(frozen=True, slots=True)
class SessionGone:
    """Revoke the session ``token_hash`` (logout), or when it is None every session of the
    account ``name`` but ``keep`` (a password changed)."""

    name: str
    token_hash: str | None = None
    keep: str | None = None


@dataclass(frozen=True, slots=True)
class TournamentRow:
    """A tournament's header: what it is (``settings``, as ``create_tournament`` was read),
    who made it and where it stands; written again whenever its status changes."""

    tournament: str
    name: str
    creator: str | None
    settings: dict[str, Any]
    status: str
    created_at: float
    starts_at: float | None = None
    started_at: float | None = None
    ended_at: float | None = None


@dataclass(frozen=True, slots=True)
class EntrantRow:
    """A tournament's entrant: its place in the order of entry, its rating at entry and its
    state (``in``, ``paused``: an arena's player who left, ``out``: withdrawn); written again
    when the state changes."""

    tournament: str
    pid: str
    name: str
    kind: str
    seq: int
    rating: float
    state: str


@dataclass(frozen=True, slots=True)
class PairingRow:
    """A game a tournament's format made (``second`` None: a bye), and the room and game it
    is played as: saved once, in the batch that makes the room."""

    tournament: str
    key: str
    round: int
    first: str
    second: str | None
    opening: int | None
    room: str | None
    game_id: str | None
    at: float


@dataclass(frozen=True, slots=True)
class ResultRow:
    """A tournament game's result, saved once per (tournament, key): in the batch of the
    game's final header, so a result is counted exactly when its game ended. ``winner`` is
    the winning seat (None: a draw, or ``void``: both lose)."""

    tournament: str
    key: str
    game_id: str | None
    winner: int | None
    void: bool
    at: float


@dataclass(frozen=True, slots=True)
class EntryCheckRow:
    """A bot account's latest entry check (the one rated events ask for): whether it passed,
    the checks it failed, when, and how many times the server ran it; one row per account."""

    account: str
    passed: bool
    failed: tuple[str, ...]
    at: float
    runs: int


TournamentJournalRow = TournamentRow | EntrantRow | PairingRow | ResultRow
AccountJournalRow = AccountRow | PasswordRow | SessionRow | SessionGone
JournalRow = (
    PlayerRow
    | GameRow
    | MoveRow
    | RoomRow
    | RoomGone
    | Heartbeat
    | PlayerGone
    | AccountJournalRow
    | RatingChange
    | TournamentJournalRow
    | EntryCheckRow
)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a restarting server reads back: identities, live rooms with their games and moves."""

    players: list[PlayerRow]
    rooms: list[tuple[RoomRow, GameRow, list[MoveRow]]]
    alive_at: float | None
    #: The players with a game in the history (never pruned).
    played: frozenset[str] = frozenset()
    #: Every account's rating in every pool it played in.
    ratings: tuple[RatingRow, ...] = ()
    #: The tournaments kept (every open or running one, the latest finished), each event's
    #: rows: its header, entrants, pairings and results.
    tournaments: tuple[TournamentJournalRow, ...] = ()
    #: Every bot account's latest entry check.
    entry_checks: tuple[EntryCheckRow, ...] = ()


#: A takeback's tombstone in the move log: a stored move at ply ``p`` with this ``x`` says ply
#: ``p`` was taken back (the later row for a ply wins in both stores, so a move played there
#: again replaces it). Tombstones are never moves: readers keep the moves before the first.
UNDONE = -1


def tombstone(game_id: str, ply: int, at: float) -> MoveRow:
    """The row that takes back the stored move at ``ply`` (at ``at``, the takeback's time)."""
    return MoveRow(game_id, ply, UNDONE, UNDONE, at, None)


def played(moves: list[MoveRow]) -> list[MoveRow]:
    """The moves of a stored list, tombstones left out (they follow the last move kept)."""
    for i, move in enumerate(moves):
        if move.x == UNDONE:
            return moves[:i]
    return moves
