"""The cluster bus's messages between nodes, as typed values, and their codec.

A bus entry (``protocol.wire.encode_entry``) carries a list of ops, each a list that starts with
its tag: ``encode`` makes one from a value and ``decode`` checks one back into a value (a
malformed op raises :class:`BadFrame`, and only that op is lost). Forwarding's ops are carried
out by ``server.cluster.forward``, the bot seats' by ``server.cluster.bots``, failover's by
``server.cluster.failover``, pairing's by ``server.cluster.pairing``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from protocol.errors import BadFrame


@dataclass(frozen=True, slots=True)
class Request:
    """A request of a player connected to the sender, for a room the reader owns (``retry``:
    sent again because the room's owner changed), acknowledged by :class:`Ack` (unless its
    ``seq`` is None)."""

    TAG: ClassVar[str] = "req"
    pid: str
    name: str
    kind: str
    frame: bytes
    seq: int | None
    retry: bool
    #: The account the player is logged in as on its node (the owner seats it as that
    #: account: a rated room or event takes accounts only).
    account: str | None = None


@dataclass(frozen=True, slots=True)
class Ack:
    """Request ``seq`` was handled (``ok``: not with an error), behind its outputs."""

    TAG: ClassVar[str] = "ack"
    seq: int
    ok: bool


@dataclass(frozen=True, slots=True)
class Attach:
    """The player (re)connected to the sender: it is online in its rooms on the reader."""

    TAG: ClassVar[str] = "att"
    pid: str
    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class Offline:
    """The player's socket on the sender closed: offline in the reader's rooms."""

    TAG: ClassVar[str] = "off"
    pid: str


@dataclass(frozen=True, slots=True)
class Deliver:
    """A frame for players connected to the reader."""

    TAG: ClassVar[str] = "out"
    pids: list[str]
    frame: bytes


@dataclass(frozen=True, slots=True)
class Watch:
    """The player (connected to the sender) watched ``room``, which the reader adopted."""

    TAG: ClassVar[str] = "sp"
    pid: str
    name: str
    kind: str
    room: str


@dataclass(frozen=True, slots=True)
class Adopted:
    """The sender adopted ``dead``'s rooms, where the players ``pids`` sit."""

    TAG: ClassVar[str] = "who"
    dead: str
    pids: list[str]


@dataclass(frozen=True, slots=True)
class SeatAsk:
    """Lend a seat of the reader's bot ``name`` for ``game`` to a room ``asker`` makes."""

    TAG: ClassVar[str] = "seat"
    token: int
    name: str
    game: str
    asker: str


@dataclass(frozen=True, slots=True)
class Grant:
    """A lent bot seat: the bot as the borrowing node seats it."""

    pid: str
    name: str
    level: int | None
    capacity: int
    games: list[str]


@dataclass(frozen=True, slots=True)
class Lent:
    """The answer to :class:`SeatAsk` ``token``: the seat lent, or None (refused)."""

    TAG: ClassVar[str] = "lent"
    token: int
    grant: Grant | None


@dataclass(frozen=True, slots=True)
class Free:
    """The room the seat ``token`` was lent for is over (or was never made)."""

    TAG: ClassVar[str] = "free"
    token: int


@dataclass(frozen=True, slots=True)
class Propose:
    """The wave's node pairs the reader's seek ``seek`` with the seek ``other_seek`` of the node
    ``other`` (its record, as the pool holds it): claim both and make the room, if the reader's
    seeker is still there."""

    TAG: ClassVar[str] = "prop"
    seek: str
    other: str
    other_seek: str
    record: str


@dataclass(frozen=True, slots=True)
class Taken:
    """The reader's seek ``seek`` was claimed by the sender: ``paired``, the sender seats its
    player in a room there (its outputs come as :class:`Deliver`); else its player cancelled
    it there. The reader forgets the seek."""

    TAG: ClassVar[str] = "took"
    seek: str
    pid: str
    paired: bool


Op = (
    Request | Ack | Attach | Offline | Deliver | Watch | Adopted | SeatAsk | Lent | Free
    | Propose | Taken
)  # fmt: skip

_ALL = (Request, Ack, Attach, Offline, Deliver, Watch, Adopted, SeatAsk, Lent, Free, Propose, Taken)
_KINDS: dict[str, Any] = {cls.TAG: cls for cls in _ALL}
#: The Python types of each op's fields on the wire, in order (``Lent`` is special-cased).
_TYPES: dict[str, tuple[type | tuple[type, ...], ...]] = {
    "req": (str, str, str, bytes, (int, type(None)), bool, (str, type(None))),
    "ack": (int, bool),
    "att": (str, str, str),
    "off": (str,),
    "out": (list, bytes),
    "sp": (str, str, str, str),
    "who": (str, list),
    "seat": (int, str, str, str),
    "free": (int,),
    "prop": (str, str, str, str),
    "took": (str, str, bool),
}
_GRANT: tuple[type | tuple[type, ...], ...] = (str, str, (int, type(None)), int, list)


def encode(op: Op) -> list[Any]:
    """The op as the list a bus entry carries: its tag, then its fields in order."""
    if isinstance(op, Lent):
        grant = op.grant
        if grant is None:
            return [Lent.TAG, op.token, False]
        return [Lent.TAG, op.token, True, grant.pid, grant.name, grant.level, grant.capacity,
                list(grant.games)]  # fmt: skip
    values = [getattr(op, f.name) for f in fields(op)]
    if isinstance(op, Request) and op.account is None:
        values.pop()  # a guest's request: as before accounts were named
    return [op.TAG, *values]


def decode(raw: list[Any]) -> Op:
    """The op a bus entry's list stands for; :class:`BadFrame` unless its fields fit."""
    tag, values = raw[0], raw[1:]
    if tag == Lent.TAG:
        return _decode_lent(values)
    kinds = _TYPES.get(tag)
    if tag == Request.TAG and len(values) == len(kinds or ()) - 1:
        values = [*values, None]  # a request from a node that names no account
    if kinds is None:
        raise BadFrame(f"unknown bus op {str(tag)[:20]!r}")
    _check(tag, values, kinds)
    op: Op = _KINDS[tag](*values)
    return op


def _decode_lent(values: list[Any]) -> Lent:
    if len(values) == 2 and values[1] is False:
        _check("lent", values, (int, bool))
        return Lent(values[0], None)
    _check("lent", values[:2], (int, bool))
    _check("lent", values[2:], _GRANT)
    return Lent(values[0], Grant(*values[2:]))


def _check(tag: str, values: list[Any], kinds: tuple[type | tuple[type, ...], ...]) -> None:
    if len(values) != len(kinds) or not all(
        isinstance(v, k) for v, k in zip(values, kinds, strict=True)
    ):
        raise BadFrame(f"a malformed {tag!r} bus op")
