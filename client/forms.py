"""The lobby's "new game" form and the ``create_room`` request it builds (pure, no pygame)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from client.ratings import FormPools

#: The 15x15 games, which may open with a swap rule, and the rules offered.
SWAP_GAMES = ("gomoku", "gomoku-standard", "renju")
OPENING_RULES: tuple[tuple[str | None, str], ...] = (
    (None, "No swap"),
    ("swap1", "Swap1"),
    ("swap2", "Swap2"),
)
#: A form clock: (initial seconds, increment seconds), or None for none.
FormClock = tuple[int, int] | None
SIDE_RANGE = (3, 25)


@dataclass
class LobbyForm:
    """The choices in the "new game" panel; ``seat`` None means a random colour."""

    game: str = "gomoku"
    width: int = 7
    height: int = 6
    k: int = 4
    exact: bool = False
    opponent: str = "bot"
    level: int = 5
    seat: int | None = 0
    clock: int = 0
    opening_rule: str | None = None
    #: A bot picked by name (None: the server picks one that plays ``level``).
    bot: str | None = None
    #: Which page of the bots online the form shows (:data:`BOTS_PER_PAGE` a page).
    bot_page: int = 0
    #: A rated game (needs an account, a clock and a rated game type: see :func:`rated_block`).
    rated: bool = False
    #: A training game against the bot: Hint and Takeback buttons (casual games only).
    hints: bool = False
    #: The bot uses its whole clock (``options.full_strength``), not a human's pace.
    full_strength: bool = False
    #: The clocks offered and each one's label, as the server says them (``welcome.seek_form``,
    #: which the seek form takes: :meth:`offer_clocks`); until it said them, none.
    clocks: tuple[FormClock, ...] = (None,)
    clock_texts: tuple[str, ...] = ("\u221e",)
    #: The clock a rated game gets when "Rated" is picked with no clock (the server's start).
    rated_clock: int = 0

    def offer_clocks(
        self, clocks: tuple[FormClock, ...], texts: tuple[str, ...], start: int
    ) -> None:
        """Take the server's clocks and their labels (``∞``: none) as the seek form took them;
        the pick stays if the same clock is offered again, else no clock."""
        if (clocks, texts) == (self.clocks, self.clock_texts):
            return
        picked = self.chosen_clock
        self.clocks, self.clock_texts, self.rated_clock = (
            clocks or (None,),
            texts or ("\u221e",),
            start,
        )
        self.clock = self.clocks.index(picked) if picked in self.clocks else 0

    @property
    def chosen_clock(self) -> FormClock:
        """The clock picked now."""
        return self.clocks[self.clock % len(self.clocks)]

    def step(self, field: str, delta: int) -> None:
        """Change a numeric field by ``delta``, keeping every value legal for the server."""
        lo, hi = SIDE_RANGE
        if field == "width":
            self.width = max(lo, min(hi, self.width + delta))
        elif field == "height":
            self.height = max(lo, min(hi, self.height + delta))
        elif field == "k":
            self.k += delta
        elif field == "level":
            self.level = max(1, min(10, self.level + delta))
        elif field == "clock":
            self.clock = (self.clock + delta) % len(self.clocks)
        self.k = max(3, min(max(self.width, self.height), self.k))


def rated_block(form: LobbyForm, account: bool, pools: FormPools) -> str | None:
    """Why this form cannot make a rated game (None: it can). The clock is not one of the
    reasons: picking "Rated" picks a clock too, and no clock (``∞``) makes the game casual. Which
    games are rated is the server's word: those ``welcome.rating_pools`` names a pool for."""
    if not account:
        return "Rated games need an account: log in."
    if not any(form.game in by_game for by_game in pools.values()):
        return "Custom boards are casual only."
    return None


def rated(form: LobbyForm, account: bool, pools: FormPools) -> bool:
    """Whether the game the form makes now is rated."""
    timed = form.chosen_clock is not None
    return form.rated and timed and rated_block(form, account, pools) is None


def create_request(
    form: LobbyForm, account: bool = False, pools: FormPools | None = None
) -> dict[str, Any]:
    """The ``create_room`` message for the form as it stands (rated when it may be: an account,
    a clock, a game the server rates, as ``pools`` (``welcome.rating_pools``) says)."""
    msg: dict[str, Any] = {
        "type": "create_room",
        "game": form.game,
        "opponent": form.opponent,
        "seat": form.seat,
    }
    if form.game == "mnk":
        msg["options"] = {
            "width": form.width,
            "height": form.height,
            "k": form.k,
            "rule": "exact" if form.exact else "freestyle",
        }
    if form.opening_rule and form.game in SWAP_GAMES:
        msg["options"] = {"opening_rule": form.opening_rule}
    if form.opponent == "bot":
        msg["level"] = form.level
        if form.bot is not None:
            msg["bot"] = form.bot
    preset = form.chosen_clock
    if preset is not None:
        msg["clock"] = {"initial_s": preset[0], "increment_s": preset[1]}
    if rated(form, account, pools or {}):
        msg["rated"] = True
    elif training(form):
        msg["options"] = {**msg.get("options", {}), "hints": True}
    if form.opponent == "bot" and form.full_strength:
        msg["options"] = {**msg.get("options", {}), "full_strength": True}
    return msg


def training(form: LobbyForm) -> bool:
    """Whether the form makes a training game: against a bot, with hints asked, casual."""
    return form.hints and form.opponent == "bot"
