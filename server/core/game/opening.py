"""Opening rules swap1 and swap2 as a small sans-I/O phase machine that a room delegates to.

Seats and colours are separate here: seat 0 opens by placing stones of both colours (black,
white, black: the board's turn decides each stone's colour), and a choice fixes which seat
holds which colour. The room keeps the board and the clocks; this only says who acts next and
what they may send.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from protocol.errors import NotYourTurn, WrongPhase

#: The room option values (``options.opening_rule``).
RULES = ("swap1", "swap2")
#: Colour names on the wire, by colour index (0 moves first).
COLOURS = ("black", "white")


class Phase(StrEnum):
    """What the acting seat must do now."""

    PLACE = "place"  # put ``left`` more stones with ``move``
    CHOOSE = "choose"  # send ``choose`` with one of ``choices``
    DONE = "done"  # the opening is over: colours are fixed, normal play


@dataclass(slots=True)
class Opening:
    """Where a room's opening stands: the phase, who acts, and the choices made so far."""

    rule: str
    phase: Phase = Phase.PLACE
    actor: int = 0
    left: int = 3
    #: Every choice made, in order, as (seat, choice): enough to replay the phase after a restart.
    made: list[tuple[int, str]] = field(default_factory=list)
    #: The colour of each seat once chosen.
    colours: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"unknown opening rule {self.rule!r}")

    @property
    def done(self) -> bool:
        """Whether colours are fixed and normal play goes on."""
        return self.phase is Phase.DONE

    def choices(self) -> list[str]:
        """What the actor may send in ``choose`` now (empty outside the choosing phase)."""
        if self.phase is not Phase.CHOOSE:
            return []
        if self.rule == "swap2" and not self.made:
            return ["black", "white", "place"]
        return ["black", "white"]

    def check_place(self, seat: int) -> None:
        """Raise unless ``seat`` may place a stone now."""
        if self.phase is Phase.CHOOSE:
            raise WrongPhase("choose first: this is the opening's choosing phase")
        if seat != self.actor:
            raise NotYourTurn("the other player is placing the opening stones")

    def placed(self) -> None:
        """One opening stone went down; after the last, the other seat (or the opener) chooses."""
        self.left -= 1
        if self.left == 0:
            self.phase = Phase.CHOOSE
            self.actor = 1 - self.actor

    def choose(self, seat: int, choice: object) -> None:
        """Apply ``seat``'s choice: a colour ends the opening, swap2's ``place`` asks two stones."""
        if self.phase is not Phase.CHOOSE:
            raise WrongPhase(f"nothing to choose in the {self.phase} phase")
        if seat != self.actor:
            raise NotYourTurn("the other player is choosing")
        if choice not in self.choices():
            raise WrongPhase(f"choice must be one of {', '.join(self.choices())}")
        assert isinstance(choice, str)
        self.made.append((seat, choice))
        if choice == "place":
            self.phase, self.left = Phase.PLACE, 2
            return
        mine = COLOURS.index(choice)
        self.colours = (mine, 1 - mine) if seat == 0 else (1 - mine, mine)
        self.phase = Phase.DONE

    def describe(self) -> dict[str, object]:
        """The opening as the wire's ``state.opening`` map."""
        return {
            "rule": self.rule,
            "phase": str(self.phase),
            "actor": None if self.done else self.actor,
            "left": self.left if self.phase is Phase.PLACE else 0,
            "choices": self.choices(),
            "made": [[s, c] for s, c in self.made],
        }
