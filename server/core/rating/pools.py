"""Rating pools: one per rated game and speed (``gomoku-blitz``); other games are casual."""

from __future__ import annotations

from protocol.rules import Variant, WinRule
from protocol.variants import FIXED
from protocol.wire import Message
from server.core.game.clock import ClockSpec
from server.core.game.labels import GAME_LABELS, GAME_SHORT

#: The rated games by board, line and rule: every other m,n,k game has no pool.
GAMES: dict[tuple[int, int, int, WinRule], str] = {
    (3, 3, 3, WinRule.FREESTYLE): "tictactoe",
    (15, 15, 5, WinRule.FREESTYLE): "gomoku",
    (15, 15, 5, WinRule.EXACT): "exact",
    (15, 15, 5, WinRule.RENJU): "renju",
}
#: Speeds by a game's estimated length in seconds (as Lichess: bullet under 3 minutes, …).
SPEEDS: tuple[tuple[float, str], ...] = ((180.0, "bullet"), (480.0, "blitz"), (1500.0, "rapid"))
SLOWEST = "classical"
#: Every pool's name, the rated games' order first, then speed.
POOLS: tuple[str, ...] = tuple(
    f"{game}-{speed}"
    for game in GAMES.values()
    for speed in (*(name for _, name in SPEEDS), SLOWEST)
)


def estimate(clock: ClockSpec) -> float:
    """A game's estimated length per side: base plus 40 increments (40 moves' caps at most)."""
    length = clock.initial_s + 40.0 * clock.increment_s
    if clock.move_s is not None:
        length = min(length, 40.0 * clock.move_s)
    return length


def speed(clock: ClockSpec) -> str:
    """The speed of a clock: bullet, blitz, rapid or classical."""
    length = estimate(clock)
    return next((name for limit, name in SPEEDS if length < limit), SLOWEST)


def pool_of(variant: Variant, clock: ClockSpec | None) -> str | None:
    """The pool a game of ``variant`` on ``clock`` is rated in, or None (untimed or casual)."""
    game = GAMES.get((variant.width, variant.height, variant.k, variant.rule))
    if game is None or clock is None:
        return None
    return f"{game}-{speed(clock)}"


def game_pool(game: str, clock: ClockSpec | None) -> str | None:
    """The rating pool of the named game ``game`` (a seek's) on ``clock``, or None."""
    variant = FIXED.get(game)
    return None if variant is None else pool_of(variant, clock)


#: The clocks the clients' forms offer, (initial s, increment s): ``welcome`` names the pool
#: of each for every named game, so a form's preview shows the server's pool, not its own.
FORM_CLOCKS: tuple[tuple[int, int], ...] = (
    (60, 0),
    (180, 0),
    (180, 2),
    (300, 3),
    (600, 5),
    (900, 10),
    (1800, 0),
)


def form_pools() -> dict[str, dict[str, str]]:
    """``{"initial+increment": {game: pool}}`` for every form clock (``welcome.rating_pools``)."""
    out: dict[str, dict[str, str]] = {}
    for initial, increment in FORM_CLOCKS:
        clock = ClockSpec(float(initial), float(increment))
        pools = {game: game_pool(game, clock) for game in FIXED}
        out[f"{initial}+{increment}"] = {g: p for g, p in pools.items() if p is not None}
    return out


#: The ``welcome`` field, built once.
FORM_POOLS = form_pools()


def _pool_game(variant: Variant) -> str | None:
    """The game part of ``variant``'s pools' names (``exact``), or None: it is never rated."""
    return GAMES.get((variant.width, variant.height, variant.k, variant.rule))


def labels() -> Message:
    """``welcome.labels``: each game's name for people (``games``) and for a button
    (``short``), each pool's (``pools``: ``Gomoku blitz``, in the order of :data:`POOLS`), and
    the pools' games (short) and speeds in order, which the leaderboard's tabs show."""
    rated = {g: name for name, v in FIXED.items() if (g := _pool_game(v)) is not None}
    pools = {}
    for pool in POOLS:
        game, _, speed = pool.rpartition("-")
        pools[pool] = f"{GAME_LABELS[rated[game]]} {speed}"
    return {
        "games": GAME_LABELS,
        "short": GAME_SHORT,
        "pools": pools,
        "pool_games": {game: GAME_SHORT[name] for game, name in rated.items()},
        "speeds": [*(name for _, name in SPEEDS), SLOWEST],
    }


#: ``welcome.labels``, built once.
LABELS = labels()
