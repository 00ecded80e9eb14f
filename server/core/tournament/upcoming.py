"""What an event plays next, decided from the event alone (the desk opens the rooms).

- An arena pairs its free players at once (lichess's).
- A round robin's or a gauntlet's schedule is fixed before the first game (the results do not
  change it), so a game starts as soon as both its players are free, the earliest rounds'
  first: a round's fast games do not wait for its slowest one, and a player held up in a long
  game plays its other games after it. Each player is in one game at a time; the games keep
  their keys, seats and openings, only when they are played changes (cutechess-cli too plays
  a schedule as its engines free up).
- A swiss's and a match's next round waits for the last: a swiss pairs by the results, and a
  match's SPRT is judged between rounds. A swiss pairing of several games plays them one
  after another within its round, the next as soon as the last ended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from server.core.tournament.arena_format import arena_pairs
from server.core.tournament.event import IN, Event
from server.core.tournament.roundrobin import rr_round
from server.core.tournament.swiss import follow_ups, swiss_round
from server.core.tournament.values import ARENA, GAUNTLET, ROUND_ROBIN, SWISS, Bye, Game, Round


@dataclass(frozen=True, slots=True)
class Next:
    """The games to open now, the byes to record, and whether the event is over."""

    games: tuple[Game, ...] = ()
    byes: tuple[Bye, ...] = ()
    over: bool = False


def upcoming(event: Event, now: float, online: Callable[[str], bool]) -> Next:
    """The event's next games (``online``: whether a player could be seated now)."""
    fmt = event.settings.format
    if fmt == ARENA:
        ends_at = event.ends_at
        if ends_at is not None and now >= ends_at:
            return Next(over=True)
        return Next(arena_games(event, online))
    if fmt in (ROUND_ROBIN, GAUNTLET):
        return flowing(event)
    return next_round(event)


def arena_games(event: Event, online: Callable[[str], bool]) -> tuple[Game, ...]:
    """An arena's free players (in, online, not playing) paired with ranking neighbours."""
    busy = event.busy()
    free = [
        pid
        for pid in event.order()
        if pid not in busy and event.entrants[pid].state == IN and online(pid)
    ]
    played = [s.game for s in event.slots.values()]
    return tuple(arena_pairs(free, event.last_opponent, played, len(event.slots) + 1))


def fixed_round(event: Event, number: int) -> Round:
    """Round ``number`` of a schedule the results do not change."""
    if event.settings.format == ROUND_ROBIN:
        return rr_round(event.players_at_start(), len(event.settings.openings), number)
    return event.planned_round(number)


def flowing(event: Event) -> Next:
    """A fixed schedule's games whose two players are free, the earliest rounds' first (see
    the module); a round's byes with its first game.

    The scan starts at the first round with a game not made yet (the event's ``made_through``,
    moved on here as rounds fill) and reads two fields' worth of rounds past it at most (two
    cycles: every game a player could be free for soon), so a big event's scan stays short."""
    rounds = event.rounds or 0
    field = len(event.players_at_start())
    blocked = event.busy()
    games: list[Game] = []
    byes: list[Bye] = []
    number = event.made_through + 1
    while number <= min(rounds, event.made_through + 2 * field) and len(blocked) < field:
        planned = fixed_round(event, number)
        waiting = [g for g in planned.games if g.key not in event.slots]
        ready: list[Game] = []
        for game in waiting:
            if blocked.isdisjoint(game.players):
                ready.append(game)
                blocked.update(game.players)
        if ready or len(waiting) < len(planned.games):
            byes += [b for b in planned.byes if not event.sat_out(b)]
        games += ready
        if not waiting and number == event.made_through + 1:
            event.made_up_to(number)
        number += 1
    over = event.made_through >= rounds and not event.live() and not games
    return Next(tuple(games), tuple(byes), over)


def next_round(event: Event) -> Next:
    """A swiss's or a match's next round once every game of the last has its result (a
    swiss's pairings first play their round's games, :func:`swiss_rest`)."""
    if event.settings.format == SWISS and (rest := swiss_rest(event)):
        return Next(rest)
    if event.live():
        return Next()
    number = event.round + 1
    if number > (event.rounds or 0) or event.decided(number):
        return Next(over=True)
    if event.settings.format == SWISS:
        history = [s.result for s in event.slots.values() if s.result is not None]
        active = set(event.active())
        order = [p for p in event.order() if p in active]
        s = event.settings
        made = swiss_round(order, history, event.byes, number, s.games_per_pair, len(s.openings))
    else:
        made = event.planned_round(number)
    return Next(made.games, made.byes)


def swiss_rest(event: Event) -> tuple[Game, ...]:
    """The next game of each pairing of the swiss's last round whose last game ended."""
    s, number = event.settings, event.round
    if s.games_per_pair == 1 or number == 0:
        return ()
    slots = [slot for slot in event.slots.values() if slot.game.round == number]
    done = {slot.game.key for slot in slots if slot.result is not None}
    made = [slot.game for slot in slots]
    return tuple(follow_ups(made, done, s.games_per_pair, len(s.openings)))
