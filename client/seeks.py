"""Quick pairing as the client reads and writes it (pure, no pygame): seeks, the pools' tiles,
the open-seeks pages, this player's own seeks and the custom seek form (docs/PROTOCOL.md,
Pairing). Every parser is lenient: an odd field reads as absent, never as an exception."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from client.labels import LABELS, clock_text
from client.ratings import FormPools, pool_of
from client.values import Message

#: A clock of the custom seek form: (initial s, increment s), or None for an untimed game.
FormClock = tuple[int, int] | None
#: The custom form's "play a bot after N s" choices (0: never; the server takes 5 to 600).
BOT_AFTER = (0, 15, 30, 60, 120)
#: Seeks asked for per page of the open-seeks list.
SEEK_PAGE = 8
#: Rating bounds of a seek's range (the server refuses others).
RATING_MIN, RATING_MAX = 0, 4000
#: Seeks and pools kept at most, whatever a server sends.
MAX_ROWS = 100
#: The rating a guest or an unrated account counts as.
DEFAULT_RATING = 1500


def _int(value: object) -> int | None:
    return round(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def clock_of(raw: object) -> tuple[int, int] | None:
    """A wire clock ``{initial_s, increment_s}`` as (initial, increment) seconds, or None."""
    if not isinstance(raw, dict):
        return None
    initial, increment = _int(raw.get("initial_s")), _int(raw.get("increment_s"))
    if initial is None:
        return None
    return initial, increment or 0


def seek_games() -> list[tuple[str, str]]:
    """(wire name, button label) of the games a seek may name, as the server says them (a
    custom board is played through a room, not a seek)."""
    return LABELS.offered(custom=False)


@dataclass(frozen=True, slots=True)
class Seek:
    """One seek as the server shows it everywhere (``seeking``, ``seeks``)."""

    seek: str
    game: str
    clock: tuple[int, int] | None
    rated: bool
    range: tuple[int, int] | None
    player: str
    name: str
    account: bool
    kind: str
    rating: int | None
    provisional: bool
    pool: str
    #: The clock as the server labels it (``3+2``; ``∞``: untimed).
    clock_text: str = "\u221e"

    @classmethod
    def from_wire(cls, raw: object) -> Seek | None:
        """Parse a SEEK map (None when it names no seek)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("seek"), str):
            return None
        span = raw.get("range")
        ends = [_int(v) for v in span] if isinstance(span, list | tuple) and len(span) == 2 else []
        lo_hi = (
            (ends[0], ends[1])
            if len(ends) == 2 and ends[0] is not None and ends[1] is not None
            else None
        )
        game = str(raw.get("game", ""))[:32]
        clock = clock_of(raw.get("clock"))
        rated = raw.get("rated") is True
        return cls(
            seek=str(raw["seek"])[:64],
            game=game,
            clock=clock,
            rated=rated,
            range=lo_hi,
            player=str(raw.get("player", ""))[:64],
            name=str(raw.get("name", "?"))[:32],
            account=raw.get("account") is True,
            kind="bot" if raw.get("kind") == "bot" else "human",
            rating=_int(raw.get("rating")),
            provisional=raw.get("provisional") is True,
            pool=str(raw.get("pool") or "")[:64],  # the server's word (none: no tile's)
            clock_text=clock_text(raw.get("clock")),
        )

    @property
    def rating_label(self) -> str:
        """``1523``, ``1500?`` while provisional, ``guest`` for a guest, else a dash."""
        if self.rating is None:
            return "guest" if not self.account else "\u2013"
        return f"{self.rating}{'?' if self.provisional else ''}"

    @property
    def terms(self) -> str:
        """``Gomoku 3+2 · rated`` (with the range when it has one)."""
        words = f"{LABELS.game(self.game)} {self.clock_text} \u00b7 "
        words += "rated" if self.rated else "casual"
        if self.range is not None:
            words += f" \u00b7 {self.range[0]}\u2013{self.range[1]}"
        return words


@dataclass(frozen=True, slots=True)
class PoolTile:
    """A pairing pool (a Quick pairing tile) and how many seeks wait in it."""

    pool: str
    game: str
    clock: tuple[int, int] | None
    rated: bool
    waiting: int
    #: The clock as the server labels it (``3+2``).
    clock_text: str = "\u221e"

    @classmethod
    def from_wire(cls, raw: object) -> PoolTile | None:
        """Parse one of ``seeks.pools`` (None when it has no game or no pool)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("game"), str):
            return None
        if not isinstance(raw.get("pool"), str) or not raw["pool"]:
            return None  # a tile is its pool, as the server names it
        game, clock, rated = (
            str(raw["game"])[:32],
            clock_of(raw.get("clock")),
            raw.get("rated") is True,
        )
        return cls(
            pool=str(raw["pool"])[:64],
            game=game,
            clock=clock,
            rated=rated,
            waiting=max(0, _int(raw.get("waiting")) or 0),
            clock_text=clock_text(raw.get("clock")),
        )

    @property
    def label(self) -> str:
        """The tile's big words: its clock, as the server labels it."""
        return self.clock_text


@dataclass
class OwnSeek:
    """A seek of ours that is open, and when (monotonic) this client heard it was placed."""

    seek: Seek
    since: float


@dataclass
class SeekBook:
    """What the lobby knows of pairing: the pools, the open seeks page shown, our own seeks.

    The first page of open seeks is pushed whenever seeks change; later pages are asked for
    with the cursor of the page before, and while one of them is on screen the pushes only
    refresh the tiles. ``cursors`` holds the cursor of each page after the first.
    """

    pools: list[PoolTile] = field(default_factory=list)
    rows: list[Seek] = field(default_factory=list)
    next: Any = None
    cursors: list[Any] = field(default_factory=list)
    #: The id of the ``list_seeks`` awaited for a later page (its answer replaces ``rows``).
    page_request: int | None = None
    mine: dict[str, OwnSeek] = field(default_factory=dict)
    #: ``seek`` requests awaiting their answer: id -> pool label (the tile shows "placing").
    pending: dict[int, str] = field(default_factory=dict)
    #: ``cancel_seek`` requests: their ``no_such_seek`` (the seek ended meanwhile) is no news.
    cancels: set[int] = field(default_factory=set)
    #: Whether the server answered ``list_seeks`` at all (an older one does not know it), and
    #: the id of the subscribing ``list_seeks`` (its error says the server has no pairing).
    supported: bool | None = None
    subscribe_request: int | None = None

    @property
    def page(self) -> int:
        """The page of open seeks shown (0: the first, kept fresh by the server)."""
        return len(self.cursors)

    def on_seeks(self, msg: Message) -> None:
        """A ``seeks`` page: the tiles always; the rows when it is the page on screen."""
        self.supported = True
        pools = [PoolTile.from_wire(p) for p in (msg.get("pools") or ())[:MAX_ROWS]]
        if isinstance(msg.get("pools"), list):
            self.pools = [p for p in pools if p is not None]
        rid = msg.get("id")
        pushed_or_first = rid is None or rid != self.page_request
        if pushed_or_first and self.page:
            return  # a later page is on screen: it stays until the player pages back
        if rid is not None and rid == self.page_request:
            self.page_request = None
        rows = [Seek.from_wire(s) for s in (msg.get("seeks") or ())[:MAX_ROWS]]
        self.rows = [s for s in rows if s is not None]
        self.next = msg.get("next")
        for seek in self.rows:  # a seek of ours placed before a reconnect is still ours
            if seek.seek in self.mine:
                self.mine[seek.seek].seek = seek

    def on_seeking(self, msg: Message, now: float) -> None:
        """Our ``seek`` was placed."""
        self.failed(msg.get("id"))
        seek = Seek.from_wire(msg.get("seek"))
        if seek is not None:
            self.mine[seek.seek] = OwnSeek(seek, now)

    def ended(self, seek_id: object) -> OwnSeek | None:
        """A seek of ours ended (cancelled, expired, paired): forget it; what it was."""
        return self.mine.pop(str(seek_id), None)

    def failed(self, rid: object) -> bool:
        """A request of ours got an error: a ``seek`` placing stops, a page ask is forgotten,
        and a refused subscription means no pairing on this server. True when the error is
        no news (a cancel of a seek that had ended anyway)."""
        if isinstance(rid, int) and rid in self.cancels:
            self.cancels.discard(rid)
            return True
        if rid is not None and rid == self.subscribe_request:
            self.supported, self.subscribe_request = False, None
        if isinstance(rid, int):
            self.pending.pop(rid, None)
        if rid is not None and rid == self.page_request:
            self.page_request = None
            if self.cursors:
                self.cursors.pop()
        return False

    def seeking_in(self, pool: str) -> OwnSeek | None:
        """Our open seek in ``pool``, if any."""
        return next((s for s in self.mine.values() if s.seek.pool == pool), None)

    def pool_of(self, game: str, clock: tuple[int, int] | None, rated: bool) -> str:
        """The pool the server named for a tile of these terms (a custom seek's, to show it
        placing there), or "" when no tile has them: the client names no pool itself."""
        tile = (p for p in self.pools if (p.game, p.clock, p.rated) == (game, clock, rated))
        return next((p.pool for p in tile), "")

    def placing(self, pool: str) -> bool:
        """Whether a seek in ``pool`` was asked for and not answered yet."""
        return pool in self.pending.values()

    def tiles(self, game: str) -> list[PoolTile]:
        """The tiles of ``game``: rated pools first, each by clock (shortest first)."""
        pools = [p for p in self.pools if p.game == game]
        return sorted(pools, key=lambda p: (not p.rated, p.clock is None, p.clock or (0, 0)))

    def forget_pages(self) -> None:
        """Back to the first page (a reconnect, or a fresh subscription)."""
        self.cursors.clear()
        self.page_request = None


@dataclass
class SeekForm:
    """The custom seek form: game, clock, rated, rating range and "a bot after N s". Its
    clocks and ranges are the server's (``welcome.seek_form``): until it said them, none."""

    game: str = "gomoku"
    clock: int = 0
    rated: bool = False
    range: int = 0
    bot_after: int = 0
    clocks: tuple[FormClock, ...] = (None,)
    #: Each clock's label as the server says it (``∞`` for none).
    clock_texts: tuple[str, ...] = ("\u221e",)
    ranges: tuple[int, ...] = (0,)
    #: The clock the server starts the form at (a rated seek with no clock picks it too).
    start: int = 0

    def offer(self, raw: object) -> None:
        """Take the server's choices (``welcome.seek_form``); an odd entry is left out."""
        form = raw if isinstance(raw, dict) else {}
        said = [c for c in form.get("clocks") or () if c is None or clock_of(c)][:MAX_ROWS]
        ranges = [w for w in (_int(r) for r in form.get("ranges") or ()) if w is not None]
        clocks_now = tuple(clock_of(c) for c in said) or (None,)
        texts_now = tuple(clock_text(c) for c in said) or ("\u221e",)
        ranges_now = tuple(w for w in ranges[:MAX_ROWS] if w >= 0) or (0,)
        if (clocks_now, texts_now, ranges_now) == (self.clocks, self.clock_texts, self.ranges):
            return  # the same choices again (a reconnect): the player's picks stay
        self.clocks, self.clock_texts, self.ranges = clocks_now, texts_now, ranges_now
        start = _int(form.get("clock"))
        self.start = start if start is not None and 0 <= start < len(self.clocks) else 0
        self.clock, self.range = self.start, 0

    @property
    def chosen_clock(self) -> FormClock:
        """The clock picked now."""
        return self.clocks[self.clock % len(self.clocks)]

    @property
    def chosen_text(self) -> str:
        """The label of the clock picked now, as the server says it."""
        return self.clock_texts[self.clock % len(self.clock_texts)]

    @property
    def width(self) -> int:
        """The rating range picked now (0: any rating)."""
        return self.ranges[self.range % len(self.ranges)]

    def step(self, what: str, delta: int) -> None:
        """Step one choice (cycling through its values)."""
        if what == "clock":
            self.clock = (self.clock + delta) % len(self.clocks)
            if self.chosen_clock is None:
                self.rated = False
        elif what == "range":
            self.range = (self.range + delta) % len(self.ranges)
        elif what == "bot_after":
            self.bot_after = (self.bot_after + delta) % len(BOT_AFTER)

    def toggle_rated(self) -> None:
        """Rated or casual (a rated seek needs a clock: the form picks the server's first
        clock when it has none)."""
        self.rated = not self.rated
        if self.rated and self.chosen_clock is None:
            self.clock = self.start


def own_rating(
    ratings: dict[str, Any], pools: FormPools, game: str, clock: tuple[int, int] | None
) -> int:
    """Our rating in the rating pool the server names for ``game`` at ``clock`` (1500 when
    not rated there)."""
    pool = pool_of(pools, game, clock)
    mine = ratings.get(pool) if pool else None
    rating = getattr(mine, "rating", None)
    return rating if isinstance(rating, int) else DEFAULT_RATING


def seek_request(form: SeekForm, account: bool, rating: int = DEFAULT_RATING) -> Message:
    """The ``seek`` message for the custom form (a guest's is casual and without a range)."""
    clock = form.chosen_clock
    rated = form.rated and account and clock is not None
    msg: Message = {"type": "seek", "game": form.game, "rated": rated}
    if clock is not None:
        msg["clock"] = {"initial_s": clock[0], "increment_s": clock[1]}
    width = form.width
    if width and account:
        lo, hi = max(RATING_MIN, rating - width), min(RATING_MAX, rating + width)
        msg["range"] = [lo, hi]
    if BOT_AFTER[form.bot_after]:
        msg["bot_after_s"] = BOT_AFTER[form.bot_after]
    return msg


def tile_request(tile: PoolTile) -> Message:
    """The ``seek`` message for a Quick pairing tile."""
    msg: Message = {"type": "seek", "game": tile.game, "rated": tile.rated}
    if tile.clock is not None:
        msg["clock"] = {"initial_s": tile.clock[0], "increment_s": tile.clock[1]}
    return msg


def elapsed(seconds: float) -> str:
    """``0:07``, ``12:34``: how long a seek has waited."""
    s = max(0, int(seconds))
    return f"{s // 60}:{s % 60:02d}"


@dataclass
class PairingChoice:
    """What the lobby's pairing panel shows: its tab, the tiles' game, the custom form."""

    tab: str = "quick"  # "quick" | "seeks" | "rooms"
    game: str = "gomoku"
    form: SeekForm = field(default_factory=SeekForm)
    #: The custom seek form is open (in place of the tiles).
    custom: bool = False
