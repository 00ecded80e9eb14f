"""One room's game-action state: the standing draw and takeback offers, each seat's last draw
offer, the last takeback, and the room's first-move and claim deadlines.

Plain data, read by the room's ``state`` and recorded with the game's header (``options``'
``actions``), so a restart or an adopting cluster node gets the offers back. Whether an offer
still stands is worked out from the ply it was made at, so a move costs nothing here: a draw
offer made at ply ``p`` (on the offerer's turn) stands until the offerer's opponent moves
(the ply passes ``p + 1``); a takeback offer stands until any move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Plies a seat must wait between two draw offers.
DRAW_EVERY = 20


@dataclass(slots=True)
class Offers:
    """A room's offers for its current game (``game_id``; another game's are none) and the
    deadlines the arena set for the room."""

    #: Seconds the side to move has for each seat's first move (None: no deadline), and
    #: seconds an opponent must be gone before a win may be claimed.
    first_move_s: float | None = None
    claim_s: float | None = None
    game_id: str = ""
    #: (seat, ply) of the standing draw offer and takeback offer, if any.
    draw: tuple[int, int] | None = None
    takeback: tuple[int, int] | None = None
    #: Each seat's last draw offer's ply, and the ply of its last takeback offer.
    drew: list[int | None] = field(default_factory=lambda: [None, None])
    asked: list[int | None] = field(default_factory=lambda: [None, None])
    #: The last takeback: when the turn began again, and the stones it took off (ply, x, y).
    turn_at: float | None = None
    undone: tuple[tuple[int, int, int], ...] = ()
    #: The seat whose first move did not come in time, when the deadline aborted the game
    #: (the pairing puts its opponent's seek back; not recorded: read as the game ends).
    late: int | None = None
    #: Bumped on every change: the journal writes the header again when it moved.
    version: int = 0

    def of(self, game_id: str) -> Offers:
        """This state for the game ``game_id``: a new game (a rematch) starts with none."""
        if self.game_id != game_id:
            self.game_id, self.draw, self.takeback = game_id, None, None
            self.drew, self.asked, self.turn_at, self.undone = [None, None], [None, None], None, ()
            self.version += 1
        return self

    def set_deadlines(self, first_move_s: float | None, claim_s: float) -> None:
        """The room's deadlines: the first moves' (None: keep what it was) and the claim's."""
        if first_move_s is not None:
            self.first_move_s = first_move_s
        self.claim_s = claim_s

    def offer_draw(self, seat: int, ply: int) -> None:
        """``seat`` offers a draw at ``ply`` (it stands through its move)."""
        self.draw, self.drew[seat] = (seat, ply), ply
        self.version += 1

    def ask_takeback(self, seat: int, ply: int) -> None:
        """``seat`` asks to take back its last move at ``ply``."""
        self.takeback, self.asked[seat] = (seat, ply), ply
        self.version += 1

    def decline(self, kind: str) -> None:
        """The standing offer of ``kind`` (``draw`` or ``takeback``) was declined."""
        if kind == "draw":
            self.draw = None
        else:
            self.takeback = None
        self.version += 1

    def taken_back(self, undone: tuple[tuple[int, int, int], ...], now: float) -> None:
        """A takeback took ``undone`` off at ``now``: no offer stands, and each seat may ask
        again (plies repeat after a takeback)."""
        self.undone, self.turn_at = undone, now
        self.draw = self.takeback = None
        self.asked = [None, None]
        self.version += 1

    def mark_late(self, seat: int | None) -> None:
        """The first-move deadline aborted the game, ``seat``'s move not come (read as it ends)."""
        self.late = seat

    def draw_by(self, ply: int) -> int | None:
        """The seat whose draw offer stands at ``ply``, or None."""
        draw = self.draw
        return draw[0] if draw is not None and ply <= draw[1] + 1 else None

    def takeback_by(self, ply: int) -> int | None:
        """The seat whose takeback offer stands at ``ply``, or None."""
        takeback = self.takeback
        return takeback[0] if takeback is not None and ply == takeback[1] else None

    def view(self, game_id: str, ply: int) -> list[dict[str, Any]]:
        """The offers standing now, as the wire's ``[{kind, by}]``."""
        if game_id != self.game_id:
            return []
        found = []
        for kind, by in (("draw", self.draw_by(ply)), ("takeback", self.takeback_by(ply))):
            if by is not None:
                found.append({"kind": kind, "by": by})
        return found

    def describe(
        self, game_id: str, ply: int, first: int, turn_since: float | None, now: float
    ) -> dict[str, Any]:
        """The ``state``'s ``actions``: standing offers, the deadlines, and the seconds left
        for the first move awaited now (None once both seats moved, ``first`` being the ply
        play began at) for a game in play (``turn_since`` set)."""
        left = None
        if self.first_move_s is not None and turn_since is not None and ply - first < 2:
            left = round(max(0.0, self.first_move_s - (now - turn_since)), 3)
        return {
            "offers": self.view(game_id, ply),
            "start_ply": first,
            "first_move_s": self.first_move_s,
            "first_move_left": left,
            "claim_s": self.claim_s,
        }

    def record(self, game_id: str) -> dict[str, Any] | None:
        """What a restart needs of this game's state (None: nothing), for the header."""
        if game_id != self.game_id or self.version == 0:
            return None
        return {
            "draw": self.draw,
            "takeback": self.takeback,
            "drew": self.drew,
            "asked": self.asked,
            "turn_at": self.turn_at,
            "undone": self.undone,
        }

    @classmethod
    def parse(cls, raw: Any, game_id: str) -> Offers | None:
        """The state :meth:`record` wrote (None when it is missing or malformed)."""
        if not isinstance(raw, dict):
            return None
        try:
            draw, takeback = raw.get("draw"), raw.get("takeback")
            return cls(
                game_id=game_id,
                draw=(int(draw[0]), int(draw[1])) if draw else None,
                takeback=(int(takeback[0]), int(takeback[1])) if takeback else None,
                drew=list(raw.get("drew") or [None, None]),
                asked=list(raw.get("asked") or [None, None]),
                turn_at=raw.get("turn_at"),
                undone=tuple((int(p), int(x), int(y)) for p, x, y in raw.get("undone") or ()),
                version=1,
            )
        except (TypeError, ValueError, IndexError):
            return None


def first_move_note(offers: Offers | None, room: Any) -> dict[str, Any]:
    """What a ``moved`` in ``room`` adds when the next move is a first move under the
    first-move deadline (core/round/deadlines.py): ``first_move_left``, the seconds it has from now
    (a bot must answer inside it); nothing otherwise."""
    if offers is None or offers.first_move_s is None:
        return {}
    if len(room.game.moves) - len(room.opening) >= 2:
        return {}
    if room.clock is None:  # untimed: only a human's first move against a bot is timed
        seat = room.actor
        member = room.seats[seat] if seat is not None else None
        if member is None or member.kind == "bot":
            return {}
    return {"first_move_left": offers.first_move_s}
