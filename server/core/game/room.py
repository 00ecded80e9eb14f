"""A game room as a sans-I/O state machine: requests in, messages to send out, never an await."""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.errors import (
    BadMessage,
    GameOverError,
    NotAPlayer,
    NotInRoom,
    NotYourTurn,
    RematchUnavailable,
    RoomFull,
    StalePly,
    WrongPhase,
)
from protocol.rules import Game, Move, Outcome, Termination, Variant, WinRule
from protocol.vocab import Status
from protocol.wire import MAX_CHAT, Message
from server.core.game import messages
from server.core.game.clock import Clock, ClockSpec
from server.core.game.forbidden import Forbidden
from server.core.game.members import CHAT_HISTORY, Member, Send, new_game_id
from server.core.game.offers import Offers, first_move_note
from server.core.game.opening import Opening
from server.core.game.position import (
    Position,
    base_game,
    check_setup,
    opening_moves,
    start_position,
)

log = logging.getLogger("mnk.room")


@dataclass(slots=True)
class Room:
    """Two seats, any number of spectators, one game at a time (rematches swap colours)."""

    id: str
    variant: Variant
    options: dict[str, Any] = field(default_factory=dict)
    clock_spec: ClockSpec | None = None
    now: Callable[[], float] = time.time
    seats: list[Member | None] = field(default_factory=lambda: [None, None])
    spectators: dict[str, Member] = field(default_factory=dict)
    online: set[str] = field(default_factory=set)
    offline_since: dict[str, float] = field(default_factory=dict)
    game_id: str = field(default_factory=new_game_id)
    game_no: int = 1
    created_at: float = 0.0
    started_at: float | None = None
    ended_at: float | None = None
    game: Game = field(init=False)
    clock: Clock | None = field(init=False, default=None)
    #: Stones on the board before play (tournament openings), and the adjudication length.
    opening: tuple[Move, ...] = field(init=False, default=())
    max_moves: int | None = field(init=False, default=None)
    #: What went wrong with a bot's engine when it forfeited (crash, hang, illegal_move, error).
    fault: str | None = field(init=False, default=None)
    #: Wall time of every move, and both clocks right after it (None when untimed).
    times: list[float] = field(init=False, default_factory=list)
    clocks: list[list[float] | None] = field(init=False, default_factory=list)
    rematch: list[bool] = field(default_factory=lambda: [False, False])
    #: When the side to move got the turn (a restart resets it: downtime is nobody's).
    turn_since: float | None = None
    #: Seated players who left a finished game: they keep the seat in the record, not the news.
    gone: set[str] = field(default_factory=set)
    #: Draw and takeback offers, the last takeback, the first-move deadline (core/round/actions.py).
    offers: Offers | None = None
    #: The last chat lines (in memory only), sent in ``state`` so a late spectator can read them.
    chat_log: deque[Message] = field(default_factory=lambda: deque(maxlen=CHAT_HISTORY))
    #: The set-up position (``options.position``), the opening rule's phase, each seat's colour.
    position: Position | None = field(init=False, default=None)
    opening_rule: Opening | None = field(init=False, default=None)
    colours: tuple[int, int] | None = field(init=False, default=(0, 1))
    #: A rated room's pool (None: casual) and the ratings that show its seats and rate its games.
    pool: str | None = field(init=False, default=None)
    rater: messages.Rater | None = field(init=False, default=None)
    _forbidden: Forbidden = field(init=False, repr=False, compare=False)
    #: Fixed with the room, so worked out once, not per move: whether its moves carry renju's
    #: forbidden cells, and the stones from which its games may not be aborted (abort_until).
    _renju: bool = field(init=False, default=False, repr=False, compare=False)
    _abort_until: int = field(init=False, default=0, repr=False, compare=False)
    #: :attr:`audience` (every move goes to it) until a member comes or goes; None: work it out.
    _audience: tuple[str, ...] | None = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.created_at = self.created_at or self.now()
        self.position = start_position(self.variant, self.options.get("position"))
        base = base_game(self.variant, self.position)
        self.opening = opening_moves(base, self.options.get("opening"))
        self.max_moves = check_setup(self.variant, self.options, self.position, self.opening)
        self._renju = self.variant.rule is WinRule.RENJU
        self._abort_until = messages.abort_until(len(self.opening), self.options)
        self._new_game()

    def _new_game(self) -> None:
        """A fresh game with the opening stones already on the board."""
        self.game = base_game(self.variant, self.position)
        self._forbidden = Forbidden(self.game)
        rule = self.options.get("opening_rule")
        self.opening_rule = Opening(rule) if rule else None
        self.colours = None if rule else (0, 1)
        for move in self.opening:
            self.game.push(move)
        self.times = [self.created_at] * len(self.opening)
        self.clocks = [None] * len(self.opening)
        self.clock = Clock(self.clock_spec) if self.clock_spec else None
        self.fault = None

    @property
    def actor(self) -> int | None:
        """The seat that must act now (place, choose or move), or None."""
        game = self.game
        if self.started_at is None or game.outcome is not None:  # not started, or over
            return None
        rule = self.opening_rule
        if rule is not None and not rule.done:
            return rule.actor
        assert self.colours is not None
        return self.colours.index(game.board.to_move)

    def forbidden(self) -> list[list[int]]:
        """The cells black may not play now (renju), worked out once per position."""
        return self._forbidden.at(self.game_id, self.game)

    @property
    def started(self) -> bool:
        """Whether both seats were taken and the game began."""
        return self.started_at is not None

    # -- views -------------------------------------------------------------------------------

    @property
    def status(self) -> Status:
        """``waiting`` until both seats are taken, then ``playing``, then ``over``."""
        if self.game.over:
            return Status.OVER
        return Status.PLAYING if self.started else Status.WAITING

    @property
    def members(self) -> tuple[str, ...]:
        """Everyone in the room (seated players who have not left first, then spectators)."""
        seated = tuple(m.pid for m in self.seats if m is not None and m.pid not in self.gone)
        return seated + tuple(p for p in self.spectators if p not in seated)

    @property
    def audience(self) -> tuple[str, ...]:
        """The members who are online: broadcasts go to them only (the others get a ``state``
        when they come back), so a room's costs do not grow with dead weight."""
        audience = self._audience
        if audience is None:
            online = self.online
            audience = self._audience = tuple(p for p in self.members if p in online)
        return audience

    def people_changed(self) -> None:
        """Seats, spectators or who is online changed: the audience is worked out again."""
        self._audience = None

    def seat_of(self, pid: str) -> int | None:
        """The seat ``pid`` holds here, or None."""
        first, second = self.seats  # always two seats, either may be empty
        if first is not None and first.pid == pid:
            return 0
        if second is not None and second.pid == pid:
            return 1
        return None

    def is_empty(self) -> bool:
        """Whether nobody in the room is connected."""
        return not any(p in self.online for p in self.members)

    def summary(self) -> Message:
        """The room's line in the lobby's ``rooms`` list."""
        return messages.lobby_line(self)

    def result(self) -> Message | None:
        """The outcome as the wire's ``result`` map, or None while the game goes on."""
        outcome = self.game.outcome
        return None if outcome is None else messages.result(outcome, self.fault)

    def state_for(self, pid: str | None) -> Message:
        """Everything a client needs to redraw the room from scratch, as seen by ``pid``."""
        return messages.state(self, pid)

    def states(self) -> list[Send]:
        """A fresh ``state`` for everyone online in the room (each sees their own seat): built
        once, then copied with each one's ``seat`` (the only field that differs)."""
        audience = self.audience
        if len(audience) < 2:
            return [Send((pid,), self.state_for(pid)) for pid in audience]
        base = self.state_for(None)
        return [Send((pid,), {**base, "seat": self.seat_of(pid)}) for pid in audience]

    # -- requests ----------------------------------------------------------------------------

    def join(
        self, member: Member, *, spectate: bool = False, seat: int | None = None
    ) -> list[Send]:
        """Seat ``member`` (the free seat, or ``seat``), or add them as a spectator."""
        pid = member.pid
        existing = self.seat_of(pid)
        free = [s for s in (0, 1) if self.seats[s] is None]
        if existing is None and not spectate and (not free or self.started):
            raise RoomFull(f"room {self.id} is full")
        was_online = pid in self.online
        self.online.add(pid)
        self.offline_since.pop(pid, None)
        self.gone.discard(pid)
        seated = existing is None and not spectate
        if seated:
            chosen = seat if seat in free else free[0]
            self.seats[chosen] = member
            self.spectators.pop(pid, None)
            existing = chosen
            if all(self.seats):
                self._start()
        elif existing is None:
            self.spectators[pid] = member
        self._audience = None
        joined = {"type": "joined", "room": self.id, "seat": existing}
        out = [Send((pid,), joined, reply=True)]
        if seated:  # the seats changed: everyone redraws
            return out + self.states()
        # a re-join or a new spectator is cheap: the state goes to the joiner only
        out.append(Send((pid,), self.state_for(pid)))
        if existing is not None and not was_online:
            out += self._presence(pid, existing, True)
        return out

    def leave(self, pid: str) -> list[Send]:
        """Take ``pid`` out of the room; a player leaving a game in progress resigns it."""
        if pid not in self.members:
            raise NotInRoom(f"you are not in room {self.id}")
        out: list[Send] = [Send((pid,), {"type": "left", "room": self.id}, reply=True)]
        seat = self.seat_of(pid)
        if seat is None:
            self.spectators.pop(pid, None)
        elif self.status == Status.PLAYING:
            out += self._finish(self.game.end(Termination.RESIGN, 1 - seat))
        if seat is not None and not self.started:
            self.seats[seat] = None
        elif seat is not None:
            self.gone.add(pid)
        self.online.discard(pid)
        self._audience = None
        if seat is None:  # a spectator leaving changes nothing the others see but a count
            return out
        self.rematch = [False, False]
        return out + self.states()

    def drop_spectator(self, pid: str) -> None:
        """A spectator's connection dropped: it leaves quietly (the count shows in the lobby)."""
        self._audience = None
        self.spectators.pop(pid, None)
        self.online.discard(pid)

    def set_online(self, pid: str, online: bool, now: float = 0.0) -> list[Send]:
        """Note that ``pid`` connected or dropped; seated players' presence is broadcast."""
        if online:
            self.online.add(pid)
            self.offline_since.pop(pid, None)
        else:
            self.online.discard(pid)
            self.offline_since[pid] = now
        self._audience = None
        seat = self.seat_of(pid)
        return [] if seat is None else self._presence(pid, seat, online)

    def _presence(self, pid: str, seat: int, online: bool) -> list[Send]:
        note = {"type": "presence", "room": self.id, "seat": seat, "online": online}
        others = tuple(p for p in self.audience if p != pid)
        return [Send(others, note)] if others else []

    def move(
        self, pid: str, x: object, y: object, ply: int | None = None, lag: float = 0.0
    ) -> list[Send]:
        """Play ``pid``'s stone, sent ``lag`` s before it came (game/lag.py); all get ``moved``."""
        seat = self._seat_or_raise(pid)
        game = self.game
        if game.outcome is not None:
            raise GameOverError("the game is over")
        rule = self.opening_rule
        if rule is not None and rule.done:
            rule = None
        if self.started_at is None:
            raise NotYourTurn("waiting for an opponent")
        if rule is not None:
            rule.check_place(seat)
            actor = rule.actor
        else:  # as :attr:`actor` says, without asking again what was just checked
            assert self.colours is not None
            actor = self.colours.index(game.board.to_move)
        if actor != seat:
            raise NotYourTurn("it is not your turn")
        before = len(game.moves)  # the ply
        if ply is not None and ply != before:
            raise StalePly(f"ply {ply} is stale: the board has {before} stones")
        move = Game.parse(x, y)
        now = self.now()
        clock = self.clock
        if clock is not None and clock.flagged(now, lag):
            return self._finish(game.end(Termination.TIMEOUT, 1 - seat), reply=True)
        outcome = game.push(move)
        self.times.append(now)
        self.turn_since = now
        if rule is not None:
            rule.placed()
        if clock is not None and rule is not None:
            clock.hand(rule.actor, now, lag)
        elif clock is not None:
            clock.press(now, lag)
        self.clocks.append(list(clock.remaining) if clock else None)
        snapshot = clock.snapshot(now) if clock is not None else None
        forbidden = self.forbidden() if self._renju and game.to_move == 0 else None
        moved = messages.moved(self.id, before, seat, x, y, snapshot, forbidden)
        if outcome is None and before <= len(self.opening):  # the note's own test first
            moved |= first_move_note(self.offers, self)  # a bot keeps it
        if outcome is None and self.offers is not None:  # clients show Abort by it
            moved["abort"] = before + 1 < self._abort_until  # messages.abort_note's, said once
        out = [Send(self.audience, moved, reply=True)]
        if rule is not None and not outcome:
            out += self.states()  # the phase moved on: everyone redraws the opening
        if outcome is None and self.max_moves is not None and game.ply >= self.max_moves:
            outcome = game.end(Termination.ADJUDICATED, None)
        if outcome is not None:
            out += self._finish(outcome)
        return out

    def expire(self, bot_move_s: float | None = None) -> list[Send]:
        """End the game on time: the clock fell, or (untimed) a bot sat past ``bot_move_s``."""
        if self.game.over or not self.started:
            return []
        now = self.now()
        if self.clock is not None and self.clock.flagged(now):
            seat = self.clock.running
        elif self.clock is None and bot_move_s is not None and self._bot_overdue(now, bot_move_s):
            seat = self.actor
        else:
            return []
        assert seat is not None
        return self._finish(self.game.end(Termination.TIMEOUT, 1 - seat))

    def _bot_overdue(self, now: float, limit: float) -> bool:
        first, second = self.seats
        if (first is None or first.kind != "bot") and (second is None or second.kind != "bot"):
            return False  # the common case, looked at every second in every room: no bot
        seat = self.actor
        member = self.seats[seat] if seat is not None else None
        if member is None or member.kind != "bot":
            return False
        return now - (self.turn_since or now) >= limit

    def resign(self, pid: str, fault: str | None = None) -> list[Send]:
        """End the game with the other seat winning; a bot's engine ``fault`` makes it a forfeit."""
        seat = self._seat_or_raise(pid)
        if self.game.over:
            raise GameOverError("the game is over")
        if not self.started:
            raise NotYourTurn("the game has not started")
        termination = Termination.RESIGN if fault is None else Termination.FORFEIT
        self.fault = fault
        return self._finish(self.game.end(termination, 1 - seat), reply=True)

    def end(
        self, termination: Termination, winner: int | None, *, reply: bool = False
    ) -> list[Send]:
        """End the game from outside (timeout, disconnect, adjudication; ``reply``: a request's
        answer, an agreed draw or an abort)."""
        return self._finish(self.game.end(termination, winner), reply=reply)

    def ask_rematch(self, pid: str) -> list[Send]:
        """Note a rematch request; once both seats asked, a new game starts with colours swapped."""
        seat = self._seat_or_raise(pid)
        if not self.game.over or not all(self.seats) or self.gone:
            raise RematchUnavailable("a rematch needs a finished game and both players")
        if any(m.pid not in self.online for m in self.seats if m is not None):
            raise RematchUnavailable("a rematch needs both players online")
        self.rematch[seat] = True
        offered = {"type": "rematch_offered", "room": self.id, "seat": seat}
        out = [Send(self.audience, offered, reply=True)]
        if all(self.rematch):
            self.seats.reverse()
            self._audience = None
            self.game_id = new_game_id()
            self.game_no += 1
            self.rematch = [False, False]
            self.created_at, self.ended_at = self.now(), None
            self._new_game()
            self._start()
            out += self.states()
        return out

    def choose(self, pid: str, choice: object) -> list[Send]:
        """An opening choice: a colour (the opening ends) or swap2's ``place`` (two more stones)."""
        seat = self._seat_or_raise(pid)
        if self.game.over:
            raise GameOverError("the game is over")
        if self.opening_rule is None:
            raise WrongPhase("this room has no opening rule")
        if not self.started:
            raise NotYourTurn("waiting for an opponent")
        now = self.now()
        if self.clock is not None and self.clock.flagged(now, 0.0):
            return self._finish(self.game.end(Termination.TIMEOUT, 1 - seat), reply=True)
        self.opening_rule.choose(seat, choice)
        if self.opening_rule.colours:
            self.colours = self.opening_rule.colours
        self.turn_since = now
        if self.clock is not None and self.actor is not None:
            self.clock.hand(self.actor, now)
        chosen = {"type": "chosen", "room": self.id, "seat": seat, "choice": choice}
        return [Send(self.audience, chosen, reply=True), *self.states()]

    def chat(self, pid: str, text: str) -> list[Send]:
        """Relay a chat line to everyone in the room."""
        if pid not in self.members:
            raise NotInRoom(f"you are not in room {self.id}")
        text = text.strip()[:MAX_CHAT]
        if not text:
            raise BadMessage("chat text is empty")
        seat = self.seat_of(pid)
        member = self.spectators[pid] if seat is None else self.seats[seat]
        name, account = (member.name, member.account) if member else ("", False)
        said = {"from": name, "seat": seat, "text": text, "account": account}  # guests marked
        self.chat_log.append(said)
        return [Send(self.audience, {"type": "chat", "room": self.id, **said}, reply=True)]

    # -- changes from the arena's parts ------------------------------------------------------

    def set_deadlines(self, first_move_s: float | None, claim_s: float) -> None:
        """The first moves' deadline (None: none, or a restored one kept) and the claim's
        (core/round/actions.py); a restored room keeps its offers."""
        offers = self.offers if self.offers is not None else Offers()
        offers.set_deadlines(first_move_s, claim_s)
        self.offers = offers

    def rate(self, pool: str | None, rater: messages.Rater) -> None:
        """Make the room rated in ``pool``: ``state`` shows its seats' ratings and ``rater``
        rates each game as it ends (core/rating/desk.py)."""
        self.pool, self.rater = pool, rater

    def take_back(self, plies: int, asker: int, now: float) -> None:
        """Take the last ``plies`` moves off (a takeback granted to ``asker``, who moves again
        at ``now``): the clocks as they stood then, the offers cleared, the undone stones noted
        for ``state`` and the record."""
        game, clock = self.game, self.clock
        keep = game.ply - plies
        undone = tuple((i, m.x, m.y) for i, m in enumerate(game.moves) if i >= keep)
        for _ in range(plies):
            game.pop()
        del self.times[keep:]
        del self.clocks[keep:]
        if clock is not None:
            clock.rewind(self.clocks[keep - 1] if keep else None, asker, now)
        self.turn_since = now
        if self.offers is not None:
            self.offers.taken_back(undone, now)
        self._forbidden.forget()  # stones came off: the forbidden cells are looked at again

    def abort_late(self, seat: int | None) -> list[Send]:
        """End the game ``aborted``: ``seat``'s first move did not come in time, so its
        opponent is not at fault (core/round/deadlines.py, core/pairing/desk.py)."""
        if self.offers is not None:
            self.offers.mark_late(seat)
        return self.end(Termination.ABORTED, None)

    def restore(
        self,
        moves: list[Move],
        made: list[tuple[int, str]],
        *,
        offers: Offers | None,
        fault: str | None,
        times: list[float],
        clocks: list[list[float] | None],
        ended: Outcome | None,
    ) -> None:
        """Rebuild the game from its records (a restart, an adopting node): the moves and the
        opening's choices replayed, then what the record says of the rest (a recorded ending
        the board does not show, as a resignation, included)."""
        self.offers = offers
        self.game = base_game(self.variant, self.position)
        choices = list(made)
        rule = self.opening_rule
        for move in moves:
            while rule is not None and rule.choices() and choices:
                rule.choose(*choices.pop(0))
            self.game.push(move)
            if rule is not None and not rule.done:
                rule.placed()
        while rule is not None and rule.choices() and choices:
            rule.choose(*choices.pop(0))
        if rule is not None and rule.colours:
            self.colours = rule.colours
        self.fault, self.times, self.clocks = fault, times, clocks
        if ended is not None and self.game.outcome is None:
            self.game.end(ended.termination, ended.winner, ended.line)

    def resume(self, clock: Clock | None, now: float) -> None:
        """Play goes on from ``now`` after a restore, with ``clock`` (its running seat charged
        for the downtime the record allows): downtime is nobody's turn."""
        self.clock = clock
        self.turn_since = now if self.started and not self.game.over else None

    # -- internals ---------------------------------------------------------------------------

    def _seat_or_raise(self, pid: str) -> int:
        seat = self.seat_of(pid)
        if seat is None:
            raise NotAPlayer(f"you hold no seat in room {self.id}")
        return seat

    def _start(self) -> None:
        self.started_at = self.turn_since = self.now()
        if self.clock is not None:
            self.clock.start(self.actor or 0, self.started_at)

    def _finish(self, outcome: Outcome, *, reply: bool = False) -> list[Send]:
        self.ended_at = self.now()
        log.info(
            "room %s: game %s over after %d moves, %s, winner %s",
            self.id, self.game_id, self.game.ply, outcome.termination, outcome.winner,
        )  # fmt: skip
        if self.clock is not None:
            self.clock.stop(self.ended_at)
        clocks = self.clock.snapshot(self.ended_at) if self.clock is not None else None
        over = messages.game_over(self.id, self.game_id, outcome, self.fault, clocks)
        if self.rater is not None:  # a rated game: rated once, as it ends, never per move
            self.rater.settle(self, over)
        return [Send(self.audience, over, reply=reply)]
