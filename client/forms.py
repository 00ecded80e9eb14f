"""The lobby's "new game" form and the ``create_room`` request it builds (pure, no pygame)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: (wire name, button label) of every game the form offers.
GAMES: tuple[tuple[str, str], ...] = (
    ("tictactoe", "Tic-tac-toe"),
    ("gomoku", "Gomoku"),
    ("gomoku-standard", "Exact five"),
    ("renju", "Renju"),
    ("mnk", "Custom"),
)
#: The 15x15 games, which may open with a swap rule, and the rules offered.
SWAP_GAMES = ("gomoku", "gomoku-standard", "renju")
OPENING_RULES: tuple[tuple[str | None, str], ...] = (
    (None, "No swap"),
    ("swap1", "Swap1"),
    ("swap2", "Swap2"),
)
#: (initial seconds, increment seconds) or None, and the label of each clock preset.
CLOCKS: tuple[tuple[tuple[int, int] | None, str], ...] = (
    (None, "No clock"),
    ((60, 0), "1+0"),
    ((180, 2), "3+2"),
    ((300, 3), "5+3"),
    ((900, 10), "15+10"),
)
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
            self.clock = (self.clock + delta) % len(CLOCKS)
        self.k = max(3, min(max(self.width, self.height), self.k))


def create_request(form: LobbyForm) -> dict[str, Any]:
    """The ``create_room`` message for the form as it stands."""
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
    preset = CLOCKS[form.clock][0]
    if preset is not None:
        msg["clock"] = {"initial_s": preset[0], "increment_s": preset[1]}
    return msg
