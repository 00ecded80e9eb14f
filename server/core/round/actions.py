"""Game actions, as on Lichess: draw offers, takebacks, aborts and claiming a win over a player
who is gone (docs/PROTOCOL.md, "Game actions").

Each request is answered (the room's broadcast is the reply), broadcast to the room, and
journaled: the offers ride with the game's header (core/game/offers.py), a takeback's undone moves
are tombstones in the move log, so a restart or an adopting cluster node has them all. Nothing
here runs per move: a standing offer is worked out from the ply it was made at.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.errors import (
    CannotClaim,
    GameOverError,
    NoOffer,
    NotAPlayer,
    NotYourTurn,
    OfferTooSoon,
    RatedGame,
    TooEarly,
    TooLate,
    WrongPhase,
)
from protocol.rules import Termination
from protocol.vocab import Status
from protocol.wire import Message
from server.core.game.clock import ClockSpec
from server.core.game.members import Send
from server.core.game.messages import abortable
from server.core.game.offers import DRAW_EVERY, Offers
from server.core.game.room import Room
from server.core.journal.recovery import Journal
from server.core.limits import Limits
from server.core.outputs import Out
from server.core.players.players import Player

#: Lichess's first-move deadlines (casual games) by speed, for ``first_move_timeout`` 30 s:
#: (the estimated game length below which the speed applies, seconds for a first move).
FIRST_MOVE_BY_SPEED = ((30.0, 15.0), (180.0, 20.0), (480.0, 25.0), (1500.0, 30.0))
FIRST_MOVE_CLASSICAL = 35.0
FIRST_MOVE_BASE = 30.0


def first_move_s(spec: ClockSpec, limits: Limits) -> float:
    """Seconds each seat has for its first move in a game with the clock ``spec``: Lichess's
    15-35 s by speed (the estimate ``initial + 40 * increment``, a move cap bounding it), scaled
    by the server's ``first_move_timeout`` (30 s: Lichess's own numbers)."""
    estimate = spec.initial_s + 40 * spec.increment_s
    if spec.move_s is not None:
        estimate = min(estimate, 40 * spec.move_s)
    seconds = next((s for below, s in FIRST_MOVE_BY_SPEED if estimate < below), None)
    return (seconds or FIRST_MOVE_CLASSICAL) * limits.first_move_timeout / FIRST_MOVE_BASE


def rated(room: Room) -> bool:
    """Whether ``room`` plays rated games (its ``rated`` option: takebacks are refused)."""
    return bool(room.options.get("rated"))


def training(room: Room, seat: int) -> bool:
    """Whether ``seat`` is the human of a training game (``options.hints``, against a bot)."""
    me, other = room.seats[seat], room.seats[1 - seat]
    return (
        bool(room.options.get("hints"))
        and me is not None
        and me.kind != "bot"
        and (other is not None and other.kind == "bot")
    )


def moved_each(room: Room) -> bool:
    """Whether each seat has made a move (beyond any opening stones and opening phase)."""
    rule = room.opening_rule
    return len(room.game.moves) - len(room.opening) >= 2 and (rule is None or rule.done)


class Actions:
    """The game-action requests of an arena's rooms, and the deadlines each room gets."""

    def __init__(
        self,
        journal: Journal,
        limits: Limits,
        clock: Callable[[], float],
        *,
        find: Callable[[str], Room],
        changed: Callable[[], None],
    ) -> None:
        self.journal, self.limits, self.clock = journal, limits, clock
        #: The arena's room lookup (errors for a missing room, the journal told), and the
        #: lobby's "something changed".
        self.find, self.changed = find, changed

    def handlers(self) -> dict[str, Callable[[Player, Message], list[Out]]]:
        """The requests handled here, by type."""
        return {
            "draw_offer": self.draw_offer,
            "draw_answer": self.draw_answer,
            "takeback_offer": self.takeback_offer,
            "takeback_answer": self.takeback_answer,
            "abort": self.abort,
            "claim_victory": self.claim_victory,
        }

    def attach(self, room: Room) -> None:
        """Give ``room`` (new, restored or adopted) its deadlines: a timed game's first moves
        (by speed), an untimed bot game's or tournament game's (``first_move_timeout``), the
        claim after half the reconnect grace. A restored room keeps its offers."""
        first: float | None = None
        if room.clock_spec is not None:
            first = first_move_s(room.clock_spec, self.limits)
        elif room.options.get("opponent") == "bot" or "tournament" in room.options:
            first = self.limits.first_move_timeout
        room.set_deadlines(first, self.limits.reconnect_grace / 2)

    # -- requests ----------------------------------------------------------------------------

    def draw_offer(self, player: Player, msg: Message) -> list[Out]:
        """Offer a draw on your turn; with your opponent's offer standing, that accepts it."""
        room, seat, offers = self._playing(player, msg)
        ply = room.game.ply
        if offers.draw_by(ply) == 1 - seat:
            return self._end(room, Termination.DRAW_AGREED, None)
        if not moved_each(room):
            raise TooEarly("a draw may be offered once each side has moved")
        if room.actor != seat:
            raise NotYourTurn("offer a draw on your own turn (it stands through your move)")
        last = offers.drew[seat]
        if last is not None and ply - last < DRAW_EVERY:
            raise OfferTooSoon(f"one draw offer every {DRAW_EVERY} plies: wait")
        offers.offer_draw(seat, ply)
        return self._offered(room, "draw", seat)

    def draw_answer(self, player: Player, msg: Message) -> list[Out]:
        """Accept or decline the opponent's standing draw offer."""
        room, seat, offers = self._playing(player, msg)
        if offers.draw_by(room.game.ply) != 1 - seat:
            raise NoOffer("no draw offer of your opponent's stands")
        if msg["accept"]:
            return self._end(room, Termination.DRAW_AGREED, None)
        offers.decline("draw")
        return self._declined(room, "draw", 1 - seat)

    def takeback_offer(self, player: Player, msg: Message) -> list[Out]:
        """Ask to take back your last move (and the opponent's after it): casual games only."""
        room, seat, offers = self._playing(player, msg)
        if rated(room):
            raise RatedGame("takebacks are for casual games only")
        if room.opening_rule is not None:
            raise WrongPhase("takebacks are not offered in rooms with an opening rule")
        ply = room.game.ply
        if ply - len(room.opening) < _undo(room, seat):
            raise TooEarly("you have no move to take back")
        if offers.takeback_by(ply) == 1 - seat:  # both asked: as if the opponent accepted
            return self._take_back(room, 1 - seat)
        if training(room, seat):  # the server grants the human's takeback at any bot level
            return self._take_back(room, seat)
        if offers.asked[seat] == ply:
            raise OfferTooSoon("you asked for a takeback here already: wait for a move")
        offers.ask_takeback(seat, ply)
        return self._offered(room, "takeback", seat)

    def takeback_answer(self, player: Player, msg: Message) -> list[Out]:
        """Accept (the moves go back) or decline the opponent's standing takeback offer."""
        room, seat, offers = self._playing(player, msg)
        if offers.takeback_by(room.game.ply) != 1 - seat:
            raise NoOffer("no takeback offer of your opponent's stands")
        if msg["accept"]:
            return self._take_back(room, 1 - seat)
        offers.decline("takeback")
        return self._declined(room, "takeback", 1 - seat)

    def abort(self, player: Player, msg: Message) -> list[Out]:
        """End a game before both have moved: no result (``aborted``)."""
        room, _seat, _offers = self._playing(player, msg)
        if not abortable(room):  # the rule ``state.actions.abort`` says (core/game/messages.py)
            raise TooLate("both sides have moved: resign or offer a draw")
        return self._end(room, Termination.ABORTED, None)

    def claim_victory(self, player: Player, msg: Message) -> list[Out]:
        """Win over an opponent disconnected past half the reconnect grace (``opponent_gone``)."""
        room, seat, offers = self._playing(player, msg)
        opponent = room.seats[1 - seat]
        gone = room.offline_since.get(opponent.pid) if opponent is not None else None
        wait = offers.claim_s if offers.claim_s is not None else self.limits.reconnect_grace / 2
        if opponent is None or opponent.pid in room.online or gone is None:
            raise CannotClaim("your opponent is connected")
        left = wait - (self.clock() - gone)
        if left > 0:
            raise CannotClaim(f"your opponent may come back: claim in {left:.0f} s")
        return self._end(room, Termination.OPPONENT_GONE, seat)

    # -- helpers -----------------------------------------------------------------------------

    def _playing(self, player: Player, msg: Message) -> tuple[Room, int, Offers]:
        """The room of ``msg``, the sender's seat in it and its offers, for a game in play."""
        room = self.find(msg["room"])
        seat = room.seat_of(player.pid)
        if seat is None:
            raise NotAPlayer(f"you hold no seat in room {room.id}")
        if room.status == Status.OVER:
            raise GameOverError("the game is over")
        if room.status != Status.PLAYING:
            raise NotYourTurn("the game has not started")
        if room.offers is None:
            self.attach(room)
        assert room.offers is not None
        return room, seat, room.offers.of(room.game_id)

    def _offered(self, room: Room, kind: str, seat: int) -> list[Out]:
        note = {"type": "offer", "room": room.id, "kind": kind, "by": seat}
        return [Send(room.audience, note, reply=True)]

    def _declined(self, room: Room, kind: str, seat: int) -> list[Out]:
        note = {"type": "offer_declined", "room": room.id, "kind": kind, "by": seat}
        return [Send(room.audience, note, reply=True)]

    def _end(self, room: Room, termination: Termination, winner: int | None) -> list[Out]:
        self.changed()
        return list(room.end(termination, winner, reply=True))

    def _take_back(self, room: Room, asker: int) -> list[Out]:
        """Undo the asker's last move (and the opponent's after it): the asker moves again,
        the clocks as they stood then; the move log gets tombstones (core/game/offers.py)."""
        now, clock = self.clock(), room.clock
        if clock is not None and clock.running is not None and clock.flagged(now):
            return self._end(room, Termination.TIMEOUT, 1 - clock.running)  # a flag fell first
        plies = _undo(room, asker)
        keep = room.game.ply - plies
        self.journal.undone(room, keep, now)
        room.take_back(plies, asker, now)
        self.changed()
        note: Message = {"type": "taken_back", "room": room.id, "by": asker, "ply": keep}
        note["clocks"] = clock.snapshot(now) if clock is not None else None
        return [Send(room.audience, note, reply=True), *room.states()]


def _undo(room: Room, seat: int) -> int:
    """Plies a takeback for ``seat`` undoes: its own last move, and the opponent's after it
    when the opponent has moved since (so that ``seat`` is to move again)."""
    return 2 if room.actor == seat else 1
