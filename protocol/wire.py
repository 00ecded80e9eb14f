"""Wire protocol v1: one msgpack map per binary WebSocket frame, and the shape of every request."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import Any

import msgpack

from protocol.errors import BadFrame, BadMessage, UnknownType
from protocol.vocab import DECLARED_FAULTS, Kind

PROTOCOL_VERSION = 1
#: Frames larger than this close the connection with 1009 (message too big).
MAX_FRAME = 64 * 1024
MAX_NAME = 32
MAX_CHAT = 500
MAX_ROOM_ID = 64
#: A bot's search report on its ``move`` (``info``): the longest principal variation, and the
#: integer fields it may carry (each within ``±MAX_INFO_INT``).
MAX_PV = 32
INFO_INTS = frozenset({"depth", "seldepth", "score", "mate", "nodes", "nps", "time_ms"})
INFO_KEYS = INFO_INTS | {"pv"}
MAX_INFO_INT = 1 << 53

Message = dict[str, Any]

_packer = msgpack.Packer(use_bin_type=True)
_BINARY = (bytes, bytearray, memoryview)


def encode(message: Mapping[str, Any]) -> bytes:
    """The frame for ``message`` (a map with a string ``type``)."""
    return _packer.pack(message)


def type_first(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """``message`` with ``type`` as its first key (copied only when it is not): the server
    tells moves and pings from lobby requests by a frame's first key (docs/PROTOCOL.md)."""
    for key in message:
        if key == "type" or "type" not in message:
            return message
        break
    return {"type": message["type"], **message}


def pack(value: Any) -> bytes:
    """Any value of lists, tuples, numbers, strings and None as msgpack bytes, with the frames'
    settings: what the server stores in msgpack (its move log) is packed here too."""
    return msgpack.packb(value, use_bin_type=True)  # a packer per call: any thread may pack


def unpack(data: bytes) -> Any:
    """The value :func:`pack` made (lists for tuples)."""
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def decode(frame: bytes | str) -> Message:
    """The map inside a frame; :class:`BadFrame` for text or undecodable bytes, else BadMessage.

    Only the outer shape is checked here (a map with a string ``type`` and an optional integer
    ``id``); :func:`validate` checks a request's fields.
    """
    if type(frame) is not bytes and not isinstance(frame, _BINARY):
        raise BadFrame("frames must be binary msgpack, not text")
    try:
        value = msgpack.unpackb(frame, raw=False, strict_map_key=False)
    except Exception as exc:  # msgpack raises several unrelated types for bad input
        raise BadFrame("frame is not valid msgpack") from exc
    if not isinstance(value, dict):
        raise BadMessage("a message must be a map")
    kind = value.get("type")
    if not isinstance(kind, str):
        raise BadMessage("a message needs a string 'type'")
    if "id" in value and type(value["id"]) is not int:
        raise BadMessage("'id' must be an integer")
    return value


# A field spec: (allowed Python types, required?). bool is never accepted where int is asked.
_STR = (str,)
_INT = (int,)
_BOOL = (bool,)
_MAP = (dict,)
_OPT_INT = (int, type(None))

#: Every request a client may send, with its fields. Unknown fields are ignored.
REQUESTS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "hello": {
        "protocol": (_INT, True),
        "name": (_STR, True),
        "kind": (_STR, True),
        "session": (_STR, False),
        "games": ((list,), False),
        "capacity": (_INT, False),
        "key": (_STR, False),
        "level": (_OPT_INT, False),
        "analyses": (_INT, False),
    },
    "ping": {},
    "list_rooms": {"subscribe": (_BOOL, False), "limit": (_INT, False), "cursor": (_STR, False)},
    "create_room": {
        "game": (_STR, True),
        "options": (_MAP, False),
        "opponent": (_STR, False),
        "seat": (_OPT_INT, False),
        "level": (_INT, False),
        "clock": ((dict, type(None)), False),
        "bots": ((list,), False),
        "bot": (_STR, False),
        "rated": (_BOOL, False),
    },
    "join_room": {"room": (_STR, True), "spectate": (_BOOL, False)},
    "leave_room": {"room": (_STR, True)},
    "move": {
        "room": (_STR, True),
        "x": (_INT, True),
        "y": (_INT, True),
        "ply": (_INT, False),
        "lag_ms": (_INT, False),
        "info": (_MAP, False),
    },
    "resign": {"room": (_STR, True), "fault": (_STR, False)},
    "rematch": {"room": (_STR, True)},
    "draw_offer": {"room": (_STR, True)},
    "draw_answer": {"room": (_STR, True), "accept": (_BOOL, True)},
    "takeback_offer": {"room": (_STR, True)},
    "takeback_answer": {"room": (_STR, True), "accept": (_BOOL, True)},
    "abort": {"room": (_STR, True)},
    "claim_victory": {"room": (_STR, True)},
    "chat": {"room": (_STR, True), "text": (_STR, True)},
    "seek": {
        "game": (_STR, True),
        "clock": ((dict, type(None)), False),
        "rated": (_BOOL, False),
        "range": ((list, type(None)), False),
        "bot_after_s": ((int, float, type(None)), False),
    },
    "cancel_seek": {"seek": (_STR, True)},
    "list_seeks": {
        "game": (_STR, False),
        "limit": (_INT, False),
        "cursor": (_STR, False),
        "subscribe": (_BOOL, False),
    },
    "accept_seek": {"seek": (_STR, True)},
    "list_games": {
        "player": (_STR, False),
        "before": ((int, float), False),
        "before_id": (_STR, False),
        "limit": (_INT, False),
    },
    "get_game": {"game_id": (_STR, True), "format": (_STR, False)},
    "list_bots": {"limit": (_INT, False), "cursor": (_STR, False)},
    "choose": {"room": (_STR, True), "choice": (_STR, True)},
    "leaderboard": {"pool": (_STR, True), "bots": (_BOOL, False), "page": (_INT, False)},
    "profile": {"name": (_STR, True), "before": ((int, float), False), "before_id": (_STR, False)},
    "register": {"name": (_STR, True), "password": (_STR, True)},
    "login": {"name": (_STR, True), "password": (_STR, True)},
    "logout": {},
    "change_password": {"old": (_STR, True), "new": (_STR, True)},
    "reset_password": {"name": (_STR, True), "code": (_STR, True), "new": (_STR, True)},
    "analyse": {
        "game": (_STR, False),
        "options": (_MAP, False),
        "moves": ((list,), False),
        "room": (_STR, False),
        "game_id": (_STR, False),
        "ply": (_INT, False),
        "lines": (_INT, False),
        "time": ((int, float), False),
    },
    "create_tournament": {
        "name": (_STR, True),
        "game": (_STR, True),
        "format": (_STR, True),
        "clock": ((dict, type(None)), False),
        "rated": (_BOOL, False),
        "options": (_MAP, False),
        "openings": ((list, int, str), False),
        "games_per_pair": (_INT, False),
        "rounds": (_INT, False),
        "duration_s": ((int, float), False),
        "starts_in_s": ((int, float), False),
        "max_players": (_INT, False),
        "seeds": (_INT, False),
        "max_games": (_INT, False),
        "sprt": (_MAP, False),
        "games_at_once": (_INT, False),
    },
    "join_tournament": {"tournament": (_STR, True)},
    "leave_tournament": {"tournament": (_STR, True)},
    "start_tournament": {"tournament": (_STR, True)},
    "list_tournaments": {"status": (_STR, False), "limit": (_INT, False), "cursor": (_STR, False)},
    "get_tournament": {"tournament": (_STR, True), "page": (_INT, False)},
    "watch_tournament": {
        "tournament": (_STR, True),
        "watch": (_BOOL, False),
        "page": (_INT, False),
    },
    "certified": {"examinee": (_STR, True), "checks": ((list,), True)},
    "analysed": {
        "job": (_STR, True),
        "lines": ((list,), False),
        "values": ((list,), False),
        "error": (_STR, False),
    },
}

_ENUMS: dict[tuple[str, str], frozenset[object]] = {
    ("hello", "kind"): frozenset(Kind),
    ("create_room", "opponent"): frozenset(Kind),
    ("create_room", "seat"): frozenset({0, 1, None}),
    ("get_game", "format"): frozenset({"json", "psq"}),
    ("resign", "fault"): DECLARED_FAULTS,
    ("choose", "choice"): frozenset({"black", "white", "place"}),
    ("list_tournaments", "status"): frozenset({"open", "running", "finished"}),
}


#: :data:`REQUESTS` and :data:`_ENUMS` as one flat tuple per type, read once per request:
#: ``(field, types, required, bool accepted, allowed values or None)``.
_CHECKS: dict[str, tuple[tuple[str, tuple[type, ...], bool, bool, frozenset[object] | None], ...]]
_CHECKS = {
    kind: tuple(
        (name, types, required, bool in types, _ENUMS.get((kind, name)))
        for name, (types, required) in spec.items()
    )
    for kind, spec in REQUESTS.items()
}


def encode_entry(sender: str, ops: list[list[Any]]) -> bytes:
    """One cluster bus entry: the sending node's name and its ops, in order."""
    return _packer.pack([sender, ops])


def decode_entry(data: bytes) -> tuple[str, list[list[Any]]]:
    """The sender and ops of a bus entry; :class:`BadFrame` when it is not one (ops are
    lists that start with a string: each op's own fields are checked where it is carried out)."""
    try:
        value = msgpack.unpackb(data, raw=False)
    except Exception as exc:  # msgpack raises several unrelated types for bad input
        raise BadFrame("bus entry is not valid msgpack") from exc
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
        raise BadFrame("a bus entry is [sender, ops]")
    sender, ops = value
    if not isinstance(ops, list) or not all(
        isinstance(op, list) and op and isinstance(op[0], str) for op in ops
    ):
        raise BadFrame("a bus entry's ops are lists that start with their kind")
    return sender, ops


def check_info(info: Message) -> None:
    """A ``move``'s ``info`` (a bot's search report): BadMessage unless every key is known,
    every number an integer within bounds, ``score`` and ``mate`` not both, and ``pv`` at most
    :data:`MAX_PV` cells ``[x, y]`` (each coordinate 0..255). Whole-list checks in C, as a bot
    may send one with every move."""
    if not INFO_KEYS.issuperset(info):
        raise BadMessage("move: info has an unknown field")
    if "score" in info and "mate" in info:
        raise BadMessage("move: info has both 'score' and 'mate'")
    numbers = [v for k, v in info.items() if k != "pv"]
    if numbers and (
        not _INT_ONLY.issuperset(map(type, numbers))
        or min(numbers) < -MAX_INFO_INT
        or max(numbers) > MAX_INFO_INT
    ):
        raise BadMessage("move: info's numbers must be integers")
    pv = info.get("pv")
    if pv is None:
        return
    if type(pv) is not list or len(pv) > MAX_PV:
        raise BadMessage(f"move: info 'pv' must be a list of at most {MAX_PV} cells")
    if pv and not (_LIST_ONLY.issuperset(map(type, pv)) and _PAIR.issuperset(map(len, pv))):
        raise BadMessage("move: info 'pv' cells are [x, y] pairs of small integers")
    flat = list(chain.from_iterable(pv))
    if flat and (not _INT_ONLY.issuperset(map(type, flat)) or min(flat) < 0 or max(flat) > 255):
        raise BadMessage("move: info 'pv' cells are [x, y] pairs of small integers")


_INT_ONLY, _LIST_ONLY, _PAIR = frozenset({int}), frozenset({list}), frozenset({2})


def _check_move(message: Message) -> None:
    if "info" in message:
        check_info(message["info"])


#: Deeper checks of a request's fields, after the generic walk (off the plain move path).
_DEEP = {"move": _check_move}


def validate(message: Message) -> Message:
    """Check a decoded request against :data:`REQUESTS`; returns it unchanged when valid."""
    kind = message["type"]
    checks = _CHECKS.get(kind)
    if checks is None:
        raise UnknownType(f"unknown message type {kind[:40]!r}")
    for name, types, required, bool_ok, allowed in checks:
        if name not in message:
            if required:
                raise BadMessage(f"{kind}: missing field {name!r}")
            continue
        value = message[name]
        if (type(value) is bool and not bool_ok) or not isinstance(value, types):
            raise BadMessage(f"{kind}: field {name!r} has the wrong type")
        if allowed is not None and value not in allowed:
            raise BadMessage(f"{kind}: field {name!r} must be one of {sorted(map(str, allowed))}")
    deep = _DEEP.get(kind)
    if deep is not None:
        deep(message)
    return message


#: How a move and a ping start, as clients send them (a map whose first key is ``type``): the
#: server handles these at once, anything else in its lobby lane (docs/PROTOCOL.md).
PLAY = (b"\xa4type\xa4move", b"\xa4type\xa4ping")


def misannounced(frame: bytes | str, kind: str) -> bool:
    """Whether ``frame`` announced a move or a ping by its first key but decoded as ``kind``
    (a later duplicate ``type`` wins in msgpack): such a frame would take the wrong lane."""
    return type(frame) is bytes and frame.startswith(PLAY, 1) and frame[7:11] != kind.encode()


def plain_move(message: Message) -> bool:
    """Whether ``message`` is a well-formed ``move`` (what :func:`validate` accepts), in one go.

    The most common request skips the generic walk over :data:`REQUESTS`; anything this does
    not accept goes through :func:`validate`, which says what is wrong with it. A move with a
    bot's ``info`` is not plain: it is checked and relayed off this path.
    """
    get = message.get
    ply = get("ply", 0)
    return (
        type(get("room")) is str
        and type(get("x")) is int
        and type(get("y")) is int
        and type(ply) is int
        and ("lag_ms" not in message or type(message["lag_ms"]) is int)  # mostly absent
        and "info" not in message
    )


def parse(frame: bytes | str) -> Message:
    """Decode and validate one request frame."""
    return validate(decode(frame))


def error(code: str, message: str, request_id: int | None = None) -> Message:
    """The ``error`` reply for a code, echoing the request's ``id`` when it had one."""
    reply: Message = {"type": "error", "code": code, "message": message}
    if request_id is not None:
        reply["id"] = request_id
    return reply
