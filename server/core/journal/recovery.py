"""Rooms to durable records and back: what the arena journals, and how a restart rebuilds it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol.rules import Move, Outcome, Termination
from protocol.variants import variant_from_description
from protocol.vocab import Status
from server.core.game.clock import Clock, ClockSpec
from server.core.game.members import Member
from server.core.game.offers import Offers
from server.core.game.room import Room
from server.core.journal.rows import (
    GameRow,
    JournalRow,
    MoveRow,
    PlayerGone,
    PlayerRow,
    RatingChange,
    RoomGone,
    RoomRow,
    played,
    tombstone,
)


def game_row(room: Room) -> GameRow:
    """The room's current game header as a record."""
    outcome = room.game.outcome
    seats = room.seats
    return GameRow(
        game_id=room.game_id,
        room=room.id,
        game_no=room.game_no,
        variant=room.variant.describe(),
        options=record_options(room),
        clock=room.clock_spec.describe() if room.clock_spec else None,
        seats=(seats[0].pid if seats[0] else None, seats[1].pid if seats[1] else None),
        names=(seats[0].name if seats[0] else None, seats[1].name if seats[1] else None),
        kinds=(seats[0].kind if seats[0] else None, seats[1].kind if seats[1] else None),
        status=room.status,
        winner=outcome.winner if outcome else None,
        reason=str(outcome.termination) if outcome else None,
        line=tuple((m.x, m.y) for m in outcome.line) if outcome else (),
        created_at=room.created_at,
        started_at=room.started_at,
        ended_at=room.ended_at,
        fault=room.fault,
    )


def record_options(room: Room) -> dict[str, Any]:
    """The options as recorded with the game: the opening's choices and the game actions'
    state (offers, the last takeback: core/game/offers.py) ride along."""
    extra: dict[str, Any] = {}
    if room.opening_rule is not None and room.opening_rule.made:
        extra["opening_made"] = [list(m) for m in room.opening_rule.made]
    actions = room.offers.record(room.game_id) if room.offers is not None else None
    if actions is not None:
        extra["actions"] = actions
    return room.options | extra if extra else room.options


def header_key(room: Room) -> tuple[object, ...]:
    """What can change in a game's header (the rest of :func:`game_row` is fixed per game).

    The status is not in it: it follows from the outcome and the start, which are."""
    return (
        tuple(room.seats),
        room.game.outcome,
        room.started_at,
        room.ended_at,
        room.fault,
        len(room.opening_rule.made) if room.opening_rule else 0,
        room.offers.version if room.offers is not None else 0,
    )


class Journal:
    """Collects what changed in touched rooms and turns it into records, each fact once."""

    def __init__(self, enabled: bool = True) -> None:
        #: A server without a store journals nothing (and pays nothing for it).
        self.enabled = enabled
        self._records: list[JournalRow] = []
        self._keys: dict[str, tuple[object, ...]] = {}
        self._touched: dict[str, Room] = {}
        self._headers: dict[str, GameRow] = {}
        self._room_game: dict[str, str] = {}
        self._saved_moves: dict[str, int] = {}

    def touch(self, room: Room) -> None:
        """The room may have changed; look at it on the next drain."""
        if self.enabled:
            self._touched[room.id] = room

    def moved(self, room: Room) -> None:
        """A move was played in ``room``: journal it now, without looking at the header again.

        Only an outcome changes a game's header during play (and it ends the game), so a move
        that leaves the game going in a room whose header, earlier moves and room row are saved,
        and that nothing else touched since the last drain, adds its move rows and nothing else.
        Any other room is looked at whole on the next drain, as :meth:`touch` does."""
        if not self.enabled:
            return
        gid = room.game_id
        game = room.game
        ply = len(game.moves)
        touched = self._touched
        if (
            self._saved_moves.get(gid) != ply - 1
            or game.outcome is not None
            or room.id in touched
            or self._room_game.get(room.id) != gid
        ):
            touched[room.id] = room
            return
        self._records.append(_move_row(gid, room, ply - 1))
        self._saved_moves[gid] = ply

    def player(
        self, pid: str, name: str, kind: str, token_hash: str, now: float, account: str | None
    ) -> None:
        """A new identity, or a new name for one."""
        if self.enabled:
            self._records.append(PlayerRow(pid, name, kind, token_hash, now, account))

    def record(self, record: JournalRow) -> None:
        """A fact that needs no look at a room (an account's, a session's): saved as it is."""
        if self.enabled:
            self._records.append(record)

    def rated(self, change: RatingChange) -> None:
        """A rated game's change, journaled before the drain that writes the game's final
        header: both go in one batch, committed in one transaction."""
        if self.enabled:
            self._records.append(change)

    def player_gone(self, pid: str) -> None:
        """A pruned identity: its row goes."""
        if self.enabled:
            self._records.append(PlayerGone(pid))

    def adopt(self, room: Room) -> None:
        """The room came from the store: everything about it is already saved."""
        self._keys[room.game_id] = header_key(room)
        self._headers[room.game_id] = game_row(room)
        self._room_game[room.id] = room.game_id
        self._saved_moves[room.game_id] = room.game.ply

    def undone(self, room: Room, ply: int, at: float) -> None:
        """A takeback at ``at`` will leave ``room``'s game ``ply`` moves: its later moves are
        saved (if they were not) and then taken back by tombstones, in that order."""
        if not self.enabled:
            return
        self._touched[room.id] = room
        self._collect()
        gid = room.game_id
        for i in range(ply, len(room.game.moves)):
            self._records.append(tombstone(gid, i, at))
        self._saved_moves[gid] = ply
        self._touched[room.id] = room

    def drop(self, room: Room) -> None:
        """The room is being removed: save its last changes, and forget a game never played
        (never started, or aborted before its first move: kept, a stranger's pairs of guests
        starting and aborting games filled the history with thousands of empty games)."""
        if not self.enabled:
            return
        self._touched[room.id] = room
        self._collect()
        unplayed = room.game_id if not room.started or never_moved(room) else None
        self._records.append(RoomGone(room.id, unplayed))
        self._headers.pop(room.game_id, None)
        self._keys.pop(room.game_id, None)
        self._room_game.pop(room.id, None)
        self._saved_moves.pop(room.game_id, None)

    def drain(self) -> list[JournalRow]:
        """Every record produced since the last drain, in the order the facts happened."""
        self._collect()
        records, self._records = self._records, []
        return records

    def _collect(self) -> None:
        records, saved_moves = self._records, self._saved_moves
        for room in self._touched.values():
            gid = room.game_id
            key = header_key(room)
            if self._keys.get(gid) != key:  # cheap test first: most requests are plain moves
                self._keys[gid] = key
                header = game_row(room)
                if self._headers.get(gid) != header:
                    records.append(header)
                    self._headers[gid] = header
            moves = room.game.moves
            ply = len(moves)
            saved = saved_moves.get(gid, 0)
            if saved < ply:
                for i in range(saved, ply):
                    records.append(_move_row(gid, room, i))
                saved_moves[gid] = ply
            if self._room_game.get(room.id) != gid:
                old = self._room_game.get(room.id)
                if old is not None:
                    self._headers.pop(old, None)
                    self._keys.pop(old, None)
                    self._saved_moves.pop(old, None)
                self._records.append(RoomRow(room.id, gid))
                self._room_game[room.id] = gid
        self._touched.clear()


def _move_row(gid: str, room: Room, i: int) -> MoveRow:
    """The row of ``room``'s move ``i``."""
    move, clock = room.game.moves[i], room.clocks[i]
    fields = (gid, i, move.x, move.y, room.times[i], tuple(clock) if clock else None)
    return _new_row(MoveRow, fields)


#: ``MoveRow(*fields)`` without the named tuple's ``__new__`` in Python (half a row's cost).
_new_row = tuple.__new__


def restore_room(
    row: RoomRow,
    game: GameRow,
    moves: list[MoveRow],
    now: Callable[[], float],
    alive_at: float | None,
) -> Room:
    """Rebuild a live room from its records; the running clock is charged up to ``alive_at``."""
    spec = ClockSpec.parse(game.clock) if game.clock else None
    moves = played(moves)  # a takeback's tombstones are not moves
    options = dict(game.options)
    made = [(seat, choice) for seat, choice in options.pop("opening_made", [])]
    offers = Offers.parse(options.pop("actions", None), game.game_id)
    room = Room(
        row.room,
        variant_from_description(game.variant),
        options,
        spec,
        now=now,
        game_id=game.game_id,
        game_no=game.game_no,
        created_at=game.created_at,
        started_at=game.started_at,
        ended_at=game.ended_at,
    )
    for seat in (0, 1):
        pid = game.seats[seat]
        if pid is not None:
            room.seats[seat] = Member(pid, game.names[seat] or "", game.kinds[seat] or "human")
    room.people_changed()
    ended = None
    if game.status == Status.OVER:
        line = tuple(Move(x, y) for x, y in game.line)
        termination = Termination(game.reason or Termination.ABANDONED)
        ended = Outcome(termination, game.winner, line)
    room.restore(
        [Move(m.x, m.y) for m in moves],
        made,
        offers=offers,
        fault=game.fault,
        times=[m.at for m in moves],
        clocks=[list(m.clocks) if m.clocks else None for m in moves],
        ended=ended,
    )
    clock = None if spec is None else _restore_clock(spec, room, moves, now(), alive_at)
    room.resume(clock, now())
    return room


def _restore_clock(
    spec: ClockSpec, room: Room, moves: list[MoveRow], now: float, alive_at: float | None
) -> Clock:
    last = moves[-1] if moves else None
    remaining = list(last.clocks) if last and last.clocks else [spec.initial_s] * 2
    clock = Clock(spec, remaining)
    if room.started and not room.game.over:
        seat = room.actor or 0
        # opening stones carry the room's creation time: the turn began at the start at earliest
        since = max(last.at if last else now, room.started_at or now)
        if room.offers is not None and room.offers.turn_at is not None:  # after a takeback
            since = max(since, room.offers.turn_at)
        used = max(0.0, (alive_at or since) - since)
        clock.remaining[seat] = max(0.0, clock.remaining[seat] - used)
        clock.start(seat, now)
    return clock


def never_moved(room: Room) -> bool:
    """Whether ``room``'s game ended ``aborted`` before any move (opening stones aside)."""
    outcome = room.game.outcome
    aborted = outcome is not None and outcome.termination == Termination.ABORTED
    return aborted and len(room.game.moves) <= len(room.opening)
