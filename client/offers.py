"""A room's game actions as the client knows them: standing draw and takeback offers, the
first-move countdown and when a gone opponent's game may be claimed (``state.actions``,
``offer``, ``offer_declined``, ``moved`` and ``presence``; docs/PROTOCOL.md, Game actions)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: What each kind of offer is called on screen.
KIND_WORDS = {"draw": "a draw", "takeback": "a takeback"}


@dataclass(slots=True)
class RoomActions:
    """Offers standing (kind, seat) with when this client heard of them, and the deadlines."""

    offers: dict[tuple[str, int], float] = field(default_factory=dict)
    start_ply: int = 0
    first_move_s: float | None = None
    #: When (monotonic) the first move awaited now is due; None once each seat has moved.
    first_move_due: float | None = None
    claim_s: float | None = None
    #: Whether the game may be aborted now (``state.actions.abort``, ``moved``'s ``abort``).
    abort: bool = False
    #: When (monotonic) this client saw each seat go offline.
    gone_since: dict[int, float] = field(default_factory=dict)

    def standing(self, kind: str, by: int) -> bool:
        """Whether ``by``'s offer of ``kind`` stands."""
        return (kind, by) in self.offers

    def offered(self, kind: str, by: int, now: float) -> None:
        """An ``offer`` was heard."""
        self.offers.setdefault((kind, by), now)

    def answered(self, kind: str, by: int) -> None:
        """An ``offer_declined`` (or an answer of ours) ends ``by``'s offer of ``kind``."""
        self.offers.pop((kind, by), None)

    def moved(self, seat: int, ply: int, now: float, abort: object = False) -> None:
        """A stone by ``seat`` made the board ``ply`` stones: takeback offers lapse, and so
        does a draw offer of the mover's opponent; the next first move's countdown starts;
        the game may still be aborted only if the ``moved`` says so (``abort``)."""
        self.abort = abort is True
        for kind, by in list(self.offers):
            if kind == "takeback" or by != seat:
                del self.offers[(kind, by)]
        made = ply - self.start_ply
        due = made < 2 and self.first_move_s is not None
        self.first_move_due = now + self.first_move_s if due and self.first_move_s else None

    def first_move_left(self, now: float) -> float | None:
        """Seconds left for the first move awaited now, or None."""
        return None if self.first_move_due is None else max(0.0, self.first_move_due - now)

    def claim_in(self, seat: int, online: bool, now: float) -> float | None:
        """Seconds until a win over ``seat`` may be claimed (0: now), None while it is here."""
        since = self.gone_since.get(seat)
        if online or since is None or self.claim_s is None:
            return None
        return max(0.0, self.claim_s - (now - since))


def actions_from_state(raw: Any, online: list[bool], now: float) -> RoomActions:
    """The ``state``'s ``actions`` (an older server's none: empty)."""
    acts = RoomActions()
    if not isinstance(raw, dict):
        return acts
    for offer in raw.get("offers") or ():
        if isinstance(offer, dict) and offer.get("by") in (0, 1):
            acts.offered(str(offer.get("kind")), int(offer["by"]), now)
    start = raw.get("start_ply")
    acts.start_ply = start if type(start) is int else 0
    acts.first_move_s = _seconds(raw.get("first_move_s"))
    left = _seconds(raw.get("first_move_left"))
    acts.first_move_due = None if left is None else now + left
    acts.claim_s = _seconds(raw.get("claim_s"))
    acts.abort = raw.get("abort") is True
    acts.gone_since = {seat: now for seat, here in enumerate(online) if not here}
    return acts


def _seconds(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) and value >= 0 else None
