"""The words the server says for games, rating pools and clocks (``welcome.labels``, a pairing
clock's ``label``; docs/PROTOCOL.md): the client shows them and keeps no list of its own. Until
a server said them, and for a name it did not, the wire name shows (pure, no pygame)."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Entries kept at most per map, whatever a server sends, and a label's length.
MAX_LABELS = 64
MAX_LABEL = 40


def _names(raw: object) -> dict[str, str]:
    """A ``{wire name: label}`` map as the server says it (an odd entry is left out)."""
    out: dict[str, str] = {}
    for key, value in raw.items() if isinstance(raw, dict) else ():
        if isinstance(key, str) and isinstance(value, str) and len(out) < MAX_LABELS:
            out[key[:MAX_LABEL]] = value[:MAX_LABEL]
    return out


@dataclass
class Labels:
    """``welcome.labels``: games (in the order the forms offer them), pools, pool tabs."""

    games: dict[str, str] = field(default_factory=dict)
    short: dict[str, str] = field(default_factory=dict)
    pools: dict[str, str] = field(default_factory=dict)
    pool_games: dict[str, str] = field(default_factory=dict)
    speeds: tuple[str, ...] = ()
    formats: dict[str, str] = field(default_factory=dict)

    def take(self, raw: object) -> None:
        """Take a ``welcome``'s ``labels`` (a server without them: wire names show)."""
        labels = raw if isinstance(raw, dict) else {}
        self.games, self.short = _names(labels.get("games")), _names(labels.get("short"))
        self.pools, self.pool_games = _names(labels.get("pools")), _names(labels.get("pool_games"))
        self.formats = _names(labels.get("formats"))
        speeds = labels.get("speeds")
        said = speeds if isinstance(speeds, list) else []
        self.speeds = tuple(s[:MAX_LABEL] for s in said[:MAX_LABELS] if isinstance(s, str))

    def game(self, name: str) -> str:
        """A game's name for people: ``Gomoku (exact five)``."""
        return self.games.get(name, name)

    def button(self, name: str) -> str:
        """A game's name on a button: ``Exact five``."""
        return self.short.get(name) or self.game(name)

    def pool(self, pool: str) -> str:
        """A rating pool's name: ``Gomoku blitz``."""
        return self.pools.get(pool, pool)

    def format(self, name: str) -> str:
        """A tournament format's name for people: ``Round robin``."""
        return self.formats.get(name, name)

    def offered(self, custom: bool = True) -> list[tuple[str, str]]:
        """(wire name, button label) of every game the server names, in its order (without
        ``mnk``, a custom board, unless ``custom``)."""
        return [(g, self.button(g)) for g in self.games if custom or g != "mnk"]


#: The labels of the server this client talks to (taken at every ``welcome``).
LABELS = Labels()


def clock_text(raw: object) -> str:
    """A wire clock's ``label`` as the server says it (``3+2``); ``∞`` for none."""
    if not isinstance(raw, dict):
        return "\u221e"
    label = raw.get("label")
    return label[:MAX_LABEL] if isinstance(label, str) else "?"
