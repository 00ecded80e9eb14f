"""The client's analysis requests, bounded: one ``analyse`` in flight per connection (as the
server allows), the others waiting their turn, and a finished game analysed ply by ply.

Pure (no pygame, no I/O): the App asks :meth:`Analyst.next` for the one request it may send
now, sends it, and hands the answer or error back. ``rate_limited`` and ``busy`` make the
analyst wait a little before it asks again (the same request); any other error ends it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.analysis import Analysis, Mark, final_eval, graph_points
from client.values import FinishedGame, Message

#: Seconds of engine time a walk through a whole game asks per position (a hint or the
#: analysis board asks the server's default, 1 s).
WALK_TIME = 0.5
#: How long to wait before asking again after ``rate_limited`` / ``busy`` / no bot free (the
#: server's bots each analyse a few positions at once), and how many times in a row at most.
BACKOFF_S = {"rate_limited": 2.0, "busy": 3.0, "no_bot_available": 3.0}
MAX_RETRIES = 5
#: An answer not back after this long is taken as lost (its slot is freed).
LOST_S = 30.0
#: Which waiting request goes first when the slot frees: what the user just asked for.
PRIORITY = ("hint", "board", "walk")


@dataclass
class GameWalk:
    """A finished game's analysis, position by position (0 to the end), as answers arrive."""

    game: FinishedGame
    by_ply: dict[int, Analysis] = field(default_factory=dict)
    #: Positions the server would not analyse (e.g. the final, won position): never asked again.
    failed: set[int] = field(default_factory=set)
    #: Why the walk stopped (e.g. the server analyses nothing for us), in words.
    stopped: str | None = None

    @property
    def total(self) -> int:
        """How many moves the game has (positions 0..total)."""
        return len(self.game.moves)

    def next_ply(self, shown: int) -> int | None:
        """The position to ask for next: the one on screen first, then the first not done."""
        if self.stopped is not None:
            return None
        todo = [p for p in range(self.total + 1) if p not in self.by_ply and p not in self.failed]
        if not todo:
            return None
        return shown if shown in todo else todo[0]

    def request(self, ply: int) -> Message:
        """The ``analyse`` request for the position after ``ply`` moves."""
        return {"type": "analyse", "game_id": self.game.game_id, "ply": ply, "time": WALK_TIME}

    @property
    def done(self) -> int:
        """How many positions are answered (or could not be)."""
        return len(self.by_ply) + len(self.failed)

    def points(self) -> list[float | None]:
        """The graph's points (black's view) for positions 0..total."""
        evals = {p: a.black_eval() for p, a in self.by_ply.items()}
        result = self.game.result
        return graph_points(evals, self.total, final_eval(result.winner, result.reason))

    def exact(self) -> dict[int, str]:
        """The proven value (side to move's view) of every position that has one."""
        out = {}
        for ply, a in self.by_ply.items():
            value = a.exact()
            if value is not None:
                out[ply] = value[0]
        return out

    def marks(self) -> list[Mark]:
        """Every move the server judged so far (the ``marks`` of its answers), in order."""
        by_ply = {m.ply: m for a in self.by_ply.values() for m in a.marks}
        return [by_ply[ply] for ply in sorted(by_ply)]

    def blunders(self) -> list[Mark]:
        """The moves marked as blunders, in order."""
        return [m for m in self.marks() if m.blunder]


@dataclass
class Analyst:
    """At most one ``analyse`` in flight; the latest request of each purpose waiting."""

    #: The request in flight: its id, purpose, when it was sent, and the message itself.
    inflight: tuple[int, str, float, Message] | None = None
    wanted: dict[str, Message] = field(default_factory=dict)
    retry_at: float = 0.0
    #: Requests put back for a pause in a row (an answer resets it).
    retries: int = 0

    def want(self, purpose: str, msg: Message) -> None:
        """Queue ``msg`` for ``purpose`` (replacing one of the same purpose not sent yet)."""
        self.wanted[purpose] = msg

    def drop(self, purpose: str) -> None:
        """Forget a waiting request of ``purpose`` and stop waiting for its answer."""
        self.wanted.pop(purpose, None)
        if self.inflight is not None and self.inflight[1] == purpose:
            self.inflight = None

    def busy_with(self, purpose: str) -> bool:
        """Whether a request of ``purpose`` waits or is in flight."""
        flying = self.inflight is not None and self.inflight[1] == purpose
        return flying or purpose in self.wanted

    def free(self, now: float) -> bool:
        """Whether a request may be sent now (nothing in flight, no backoff running)."""
        if self.inflight is not None and now - self.inflight[2] > LOST_S:
            self.inflight = None  # its answer was lost: do not block the rest for ever
        return self.inflight is None and now >= self.retry_at

    def next(self, now: float, walk: Message | None = None) -> tuple[str, Message] | None:
        """The request to send now (taken off the queue), or None: the slot is taken, the
        backoff runs, or nothing waits. ``walk`` is the game walk's next request, if any."""
        if not self.free(now):
            return None
        for purpose in PRIORITY:
            if purpose in self.wanted:
                return purpose, self.wanted.pop(purpose)
        return ("walk", walk) if walk is not None else None

    def sent(self, purpose: str, msg: Message, rid: int, now: float) -> None:
        """``msg`` went out as request ``rid``."""
        self.inflight = (rid, purpose, now, msg)

    def owns(self, rid: object) -> bool:
        """Whether ``rid`` is the request in flight."""
        return self.inflight is not None and self.inflight[0] == rid

    def answered(self, rid: object) -> tuple[str, Message] | None:
        """The purpose and request an ``analysis`` with ``rid`` answers (None: not ours)."""
        if self.inflight is None or self.inflight[0] != rid:
            return None
        _, purpose, _, msg = self.inflight
        self.inflight = None
        self.retries = 0
        return purpose, msg

    def refused(self, rid: object, code: str, now: float) -> tuple[str, Message] | None:
        """An ``error`` for request ``rid``: the purpose and request it ends (None: not ours,
        or put back). A ``rate_limited``, ``busy`` or ``no_bot_available`` request is queued
        again after a pause, :data:`MAX_RETRIES` times in a row at most."""
        retries = self.retries
        answered = self.answered(rid)
        if answered is None:
            return None
        if code in BACKOFF_S and retries < MAX_RETRIES:
            purpose, msg = answered
            self.retry_at = now + BACKOFF_S[code]
            self.wanted.setdefault(purpose, msg)
            self.retries = retries + 1
            return None
        return answered

    def reset(self) -> None:
        """A new connection: whatever was in flight will never be answered."""
        if self.inflight is not None:
            _, purpose, _, msg = self.inflight
            self.wanted.setdefault(purpose, msg)
        self.inflight = None
        self.retry_at = 0.0
