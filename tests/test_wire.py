"""Oracle tests for wire v1: the msgpack codec, request validation and the documented error
codes (parsed from docs/PROTOCOL.md so the docs and the code cannot drift)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import errors, wire
from protocol.errors import ArenaError, BadFrame, BadMessage, UnknownType, all_codes
from protocol.wire import PROTOCOL_VERSION, REQUESTS, decode, encode, error, parse, validate

DOCS = Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md"

# --------------------------------------------------------------------------------------------
# Codec round trip
# --------------------------------------------------------------------------------------------

INT64 = st.integers(-(2**63), 2**64 - 1)
SCALARS = (
    st.none()
    | st.booleans()
    | INT64
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=20)
)
KEYS = st.text(max_size=10) | st.integers(-(2**63), 2**63 - 1) | st.binary(max_size=10)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(KEYS, children, max_size=5),
    max_leaves=8,
)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """A msgpack-able map with a string ``type`` and, maybe, an integer ``id``."""
    extra = st.dictionaries(st.text(max_size=10).filter(lambda k: k != "id"), VALUES, max_size=5)
    message = draw(extra)
    message["type"] = draw(st.text(max_size=20))
    if draw(st.booleans()):
        message["id"] = draw(INT64)
    return message


def same(a: object, b: object) -> bool:
    """Deep equality that also requires equal types (so True != 1 and b'' != '')."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)  # type: ignore[attr-defined]
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=False))  # type: ignore[arg-type]
    if isinstance(a, float):
        return repr(a) == repr(b)
    return a == b


def test_same_is_strict() -> None:
    assert same({"a": [1, b"x", None]}, {"a": [1, b"x", None]})
    assert not same(True, 1)
    assert not same([0.0], [-0.0])
    assert not same({"a": "x"}, {"a": b"x"})
    assert not same([1, 2], [1, 2, 3])


@settings(max_examples=200, deadline=None)
@given(messages())
def test_encode_decode_round_trip(message: dict[str, Any]) -> None:
    frame = encode(message)
    assert isinstance(frame, bytes)
    for wrapped in (frame, bytearray(frame), memoryview(frame)):
        assert same(decode(wrapped), message)


@given(
    st.dictionaries(st.text(max_size=8), st.integers(-(2**63), 2**63 - 1), max_size=6),
    st.sampled_from(["move", "ping", "create_room"]),
    st.integers(min_value=0, max_value=6),
)
def test_type_first_moves_the_type_to_the_front_and_changes_nothing_else(
    rest: dict[str, int], kind: str, where: int
) -> None:
    rest.pop("type", None)
    items = list(rest.items())
    message = dict([*items[:where], ("type", kind), *items[where:]])
    front = wire.type_first(message)
    assert front == message and next(iter(front)) == "type"
    assert (front is message) == (next(iter(message)) == "type")  # copied only when needed
    assert encode(front)[1:6] == b"\xa4type" or len(front) > 15  # what the server looks at
    assert wire.type_first({"x": 1}) == {"x": 1}  # no type: left for the server to refuse


def test_encode_is_plain_msgpack() -> None:
    message = {"type": "move", "room": "r1", "x": 2, "y": 0, "id": 7, "raw": b"\x00"}
    frame = encode(message)
    assert msgpack.unpackb(frame, raw=False) == message
    assert decode(msgpack.packb(message, use_bin_type=True)) == message


# --------------------------------------------------------------------------------------------
# Bad frames and bad messages
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("frame", ['{"type": "ping"}', "", "\x81\xa4type\xa4ping", None, 5, [1]])
def test_non_bytes_frames_are_bad_frames(frame: object) -> None:
    with pytest.raises(BadFrame) as info:
        decode(frame)  # type: ignore[arg-type]
    assert info.value.code == "bad_frame"
    assert not isinstance(info.value, BadMessage)


PING = encode({"type": "ping"})


@pytest.mark.parametrize(
    "frame",
    [b"", b"\xc1", PING[:-1], PING + b"\x00", PING + PING, b"\x81", b"\xdd\xff\xff\xff\xff"],
)
def test_undecodable_bytes_are_bad_frames(frame: bytes) -> None:
    with pytest.raises(BadFrame) as info:
        decode(frame)
    assert info.value.code == "bad_frame"


@pytest.mark.parametrize(
    "frame",
    [b"\x81\x80\x01", b"\x81\x90\x01", b"\x82\xa4type\xa4ping\x80\x01"],
    ids=["map-key", "array-key", "map-key-after-type"],
)
def test_unhashable_map_keys_are_bad_frames(frame: bytes) -> None:
    # Valid msgpack that Python cannot hold as a dict: msgpack raises TypeError, which must not
    # escape as an internal error.
    with pytest.raises(BadFrame):
        decode(frame)


@pytest.mark.parametrize("frame", [b"\xd4\x05\x00", b"\xd6\xff\x00\x00\x00\x00"])
def test_ext_types_are_bad_messages(frame: bytes) -> None:
    with pytest.raises(BadMessage):
        decode(frame)


@pytest.mark.parametrize(
    "value", [[1, 2], ["type", "ping"], 5, -1, "ping", b"ping", None, True, 1.5, [{"type": "ping"}]]
)
def test_non_map_frames_are_bad_messages(value: object) -> None:
    with pytest.raises(BadMessage) as info:
        decode(msgpack.packb(value, use_bin_type=True))
    assert info.value.code == "bad_message"


@pytest.mark.parametrize(
    "message",
    [
        {},
        {"id": 1},
        {"type": None},
        {"type": 1},
        {"type": b"ping"},
        {"type": ["ping"]},
        {"Type": "x"},
    ],
)
def test_missing_or_non_string_type_is_bad_message(message: dict[Any, Any]) -> None:
    with pytest.raises(BadMessage):
        decode(msgpack.packb(message, use_bin_type=True))


@pytest.mark.parametrize("request_id", ["1", 1.0, 1.5, True, False, None, [1], {"n": 1}, b"1"])
def test_non_int_id_is_bad_message(request_id: object) -> None:
    with pytest.raises(BadMessage):
        decode(encode({"type": "ping", "id": request_id}))


@pytest.mark.parametrize("request_id", [0, 1, -1, 2**63 - 1, -(2**63), 2**64 - 1])
def test_int_id_is_accepted(request_id: int) -> None:
    assert decode(encode({"type": "ping", "id": request_id})) == {"type": "ping", "id": request_id}


def decode_or_known_error(frame: bytes) -> None:
    """Decode ``frame``; BadFrame/BadMessage are fine, any other exception escapes."""
    try:
        message = decode(frame)
    except (BadFrame, BadMessage):
        return
    assert isinstance(message, dict)
    assert isinstance(message["type"], str)
    assert "id" not in message or type(message["id"]) is int


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=64))
def test_garbage_bytes_never_raise_anything_else(frame: bytes) -> None:
    decode_or_known_error(frame)


@settings(max_examples=150, deadline=None)
@given(messages(), st.data())
def test_corrupted_frames_never_raise_anything_else(
    message: dict[str, Any], data: st.DataObject
) -> None:
    frame = bytearray(encode(message))
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(frame) - 1))
        frame[at] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(frame)))
    decode_or_known_error(bytes(frame[:cut]))
    decode_or_known_error(bytes(frame))


# --------------------------------------------------------------------------------------------
# Request validation
# --------------------------------------------------------------------------------------------

#: The required fields of every request, as docs/PROTOCOL.md describes them.
DOC_REQUIRED = {
    "hello": {"protocol", "name", "kind"},
    "ping": set(),
    "list_rooms": set(),
    "create_room": {"game"},
    "join_room": {"room"},
    "leave_room": {"room"},
    "move": {"room", "x", "y"},
    "resign": {"room"},
    "rematch": {"room"},
    "chat": {"room", "text"},
}

#: The enumerated fields docs/PROTOCOL.md describes, with their allowed values.
DOC_ENUMS: dict[tuple[str, str], frozenset[object]] = {
    ("hello", "kind"): frozenset({"human", "bot"}),
    ("create_room", "opponent"): frozenset({"human", "bot"}),
    ("create_room", "seat"): frozenset({0, 1, None}),
}
EXAMPLE_BY_TYPE: dict[type, object] = {
    str: "r1",
    int: 1,
    bool: True,
    dict: {"width": 7},
    list: ["tictactoe"],
    type(None): None,
}
WRONG_BY_TYPE: dict[type, list[object]] = {
    str: [1, b"r1", None, ["r1"], True, 1.5],
    int: ["1", 1.0, True, False, None, [1], b"\x01"],
    bool: [1, 0, "true", None, 1.0],
    dict: [[], "x", None, 1, [["a", 1]]],
    list: [{}, "x", None, 1, b"ab"],
}


def enum_of(kind: str, name: str) -> frozenset[object] | None:
    """The allowed values of an enumerated field: the documented ones, else the codec's own
    (for fields added after the docs' list)."""
    key = (kind, name)
    return DOC_ENUMS[key] if key in DOC_ENUMS else wire._ENUMS.get(key)


#: Fields whose values are checked deeper than their type (a move's search report).
EXAMPLE_BY_FIELD: dict[tuple[str, str], object] = {("move", "info"): {"depth": 1, "pv": [[7, 7]]}}


def example_value(kind: str, name: str, types: tuple[type, ...]) -> object:
    """A value that satisfies one field's spec (an enum member where there is an enum)."""
    if (kind, name) in EXAMPLE_BY_FIELD:
        return EXAMPLE_BY_FIELD[kind, name]
    allowed = enum_of(kind, name)
    if allowed is not None:
        return sorted(allowed, key=repr)[0]
    return EXAMPLE_BY_TYPE[types[0]]


def minimal(kind: str) -> dict[str, Any]:
    """A valid request of ``kind`` with only its required fields."""
    spec = REQUESTS[kind]
    message: dict[str, Any] = {"type": kind}
    for name, (types, required) in spec.items():
        if required:
            message[name] = example_value(kind, name, types)
    return message


def full(kind: str) -> dict[str, Any]:
    """A valid request of ``kind`` with every field it knows."""
    spec = REQUESTS[kind]
    return {"type": kind} | {n: example_value(kind, n, t) for n, (t, _) in spec.items()}


FIELDS = [(kind, name) for kind, spec in REQUESTS.items() for name in spec]
REQUIRED_FIELDS = [(kind, name) for kind, name in FIELDS if REQUESTS[kind][name][1]]


def test_documented_requests_have_their_required_fields() -> None:
    for kind, required in DOC_REQUIRED.items():
        assert kind in REQUESTS
        assert {n for n, (_, req) in REQUESTS[kind].items() if req} == required, kind


def documented_messages() -> set[str]:
    """Every message name in a '###' heading of docs/PROTOCOL.md."""
    text = DOCS.read_text(encoding="utf-8")
    headings = re.findall(r"^### (.*)$", text, flags=re.MULTILINE)
    return {name for h in headings for name in re.findall(r"`([a-z_]+)`", h)}


def test_every_request_is_documented() -> None:
    assert set(DOC_REQUIRED) <= documented_messages()
    assert set(REQUESTS) - documented_messages() == set()


@pytest.mark.parametrize("kind", sorted(REQUESTS))
def test_valid_requests_pass(kind: str) -> None:
    for message in (minimal(kind), full(kind), minimal(kind) | {"id": 3}):
        assert validate(message) is message
        assert parse(encode(message)) == message


@pytest.mark.parametrize(("kind", "name"), REQUIRED_FIELDS)
def test_missing_required_field(kind: str, name: str) -> None:
    message = full(kind)
    del message[name]
    with pytest.raises(BadMessage) as info:
        validate(message)
    assert info.value.code == "bad_message"
    assert name in info.value.message


@pytest.mark.parametrize(("kind", "name"), FIELDS)
def test_wrong_field_type(kind: str, name: str) -> None:
    types = REQUESTS[kind][name][0]
    wrong = [v for t in types for v in WRONG_BY_TYPE.get(t, []) if type(v) not in types]
    assert wrong
    for value in wrong:
        for base in (minimal(kind), full(kind)):
            message = base | {name: value}
            with pytest.raises(BadMessage):
                validate(message)
            with pytest.raises(BadMessage):
                parse(encode(message))


@pytest.mark.parametrize("kind", ["welcome", "pong", "error", "frobnicate", "", "PING", "Hello"])
def test_unknown_type(kind: str) -> None:
    with pytest.raises(UnknownType) as info:
        validate({"type": kind})
    assert info.value.code == "unknown_type"
    with pytest.raises(UnknownType):
        parse(encode({"type": kind, "room": "r1"}))


@pytest.mark.parametrize(
    ("kind", "name", "good", "bad"),
    [
        ("hello", "kind", ["human", "bot"], ["robot", "", "Human", "BOT", "spectator"]),
        ("create_room", "opponent", ["human", "bot"], ["ai", "Bot", "", "computer"]),
        ("create_room", "seat", [0, 1, None], [2, -1, 100, True, False]),
    ],
)
def test_enum_fields(kind: str, name: str, good: list[object], bad: list[object]) -> None:
    for value in good:
        message = minimal(kind) | {name: value}
        assert validate(message) is message
    for value in bad:
        with pytest.raises(BadMessage):
            validate(minimal(kind) | {name: value})


@pytest.mark.parametrize("kind", sorted(REQUESTS))
def test_unknown_extra_fields_are_accepted(kind: str) -> None:
    message = full(kind) | {"zz_extra": [1, {"a": None}], "future": True, "x2": b"\x00"}
    assert validate(message) is message
    assert parse(encode(message)) == message


DOC_EXAMPLES = [
    {"type": "hello", "protocol": 1, "name": "alice", "kind": "human", "session": "abc"},
    {"type": "hello", "protocol": 1, "name": "bot1", "kind": "bot", "games": ["tictactoe"]},
    {"type": "ping", "id": 7},
    {"type": "list_rooms", "subscribe": True},
    {"type": "list_rooms", "subscribe": False},
    {
        "type": "create_room",
        "game": "mnk",
        "options": {"width": 7, "height": 6, "k": 4},
        "opponent": "human",
        "seat": 0,
    },
    {"type": "create_room", "game": "tictactoe", "seat": None, "opponent": "bot", "level": 3},
    {"type": "join_room", "room": "r7k2"},
    {
        "type": "move",
        "room": "k7m2qx",
        "x": 7,
        "y": 7,
        "ply": 8,
        "info": {
            "depth": 12,
            "seldepth": 18,
            "score": 124,
            "nodes": 426000,
            "nps": 492000,
            "time_ms": 867,
            "pv": [[7, 7], [8, 8], [8, 6]],
        },
    },
    {"type": "join_room", "room": "r7k2", "spectate": True},
    {"type": "leave_room", "room": "r7k2"},
    {"type": "move", "room": "r7k2", "x": 2, "y": 0, "ply": 2},
    {"type": "move", "room": "r1", "x": 1, "y": 1},
    {"type": "resign", "room": "r1"},
    {"type": "rematch", "room": "r1"},
    {"type": "chat", "room": "r1", "text": "gg"},
]


@pytest.mark.parametrize("message", DOC_EXAMPLES, ids=lambda m: m["type"])
def test_docs_examples_validate(message: dict[str, Any]) -> None:
    assert parse(encode(message)) == message


def field_ok(kind: str, name: str, value: object) -> bool:
    """Independent oracle for one field: exact type match (bool is not int) and enum."""
    types = REQUESTS[kind][name][0]
    if type(value) not in types:
        return False
    allowed = enum_of(kind, name)
    return allowed is None or any(same(value, a) for a in allowed)


FIELD_VALUES = st.sampled_from(["human", "bot", "r1", 0, 1, 2, None]) | SCALARS | VALUES


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(REQUESTS)), st.data())
def test_validate_matches_an_independent_oracle(kind: str, data: st.DataObject) -> None:
    spec = REQUESTS[kind]
    message: dict[str, Any] = {"type": kind}
    for name in spec:
        if data.draw(st.booleans()):
            message[name] = data.draw(FIELD_VALUES)
    expected = all(
        (name in message and field_ok(kind, name, message[name]))
        or (name not in message and not required)
        for name, (_, required) in spec.items()
    )
    if expected:
        assert validate(message) is message
    else:
        with pytest.raises(BadMessage):
            validate(message)


def test_error_reply() -> None:
    assert error("illegal_move", "2,0 is occupied", 12) == {
        "type": "error",
        "code": "illegal_move",
        "message": "2,0 is occupied",
        "id": 12,
    }
    assert error("rate_limited", "slow down") == {
        "type": "error",
        "code": "rate_limited",
        "message": "slow down",
    }
    assert error("game_over", "over", 0)["id"] == 0
    assert decode(encode(error("bad_frame", "x", 5)))["id"] == 5


def test_protocol_version_is_one() -> None:
    assert PROTOCOL_VERSION == 1


# --------------------------------------------------------------------------------------------
# Error codes versus the docs
# --------------------------------------------------------------------------------------------


def documented_codes() -> list[str]:
    """The codes in the table under '## Errors' in docs/PROTOCOL.md."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("\n## Errors", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)


def test_documented_codes_parse() -> None:
    codes = documented_codes()
    assert len(codes) >= 15
    assert len(codes) == len(set(codes))
    assert {"bad_frame", "bad_message", "illegal_move", "internal_error"} <= set(codes)


def test_every_documented_code_exists() -> None:
    codes = all_codes()
    missing = [c for c in documented_codes() if c not in codes]
    assert missing == []
    for code, cls in codes.items():
        assert cls.code == code
        assert issubclass(cls, ArenaError)


def test_every_protocol_error_code_is_documented() -> None:
    defined = {
        obj.code
        for obj in vars(errors).values()
        if isinstance(obj, type) and issubclass(obj, ArenaError)
    }
    assert defined - set(documented_codes()) == set()


def test_error_default_message() -> None:
    assert BadFrame().message == "bad frame"
    assert BadMessage("nope").message == "nope"
    assert str(UnknownType()) == "unknown type"


#: Values a ``move`` field may take in the exhaustive check below (ABSENT: the field is left out).
ABSENT = object()
MOVE_FIELD_VALUES = (ABSENT, 0, 7, True, False, None, "r1", 1.5, [1], b"x")


def test_the_fast_move_check_accepts_exactly_what_validate_accepts() -> None:
    """``plain_move`` sends a decoded move past :func:`validate`: never more, nor less."""
    names = ("room", "x", "y", "ply")
    for values in itertools.product(MOVE_FIELD_VALUES, repeat=len(names)):
        message = {"type": "move", "extra": None}
        message |= {n: v for n, v in zip(names, values, strict=True) if v is not ABSENT}
        decoded = decode(encode(message))
        try:
            valid = validate(decoded) is decoded
        except BadMessage:
            valid = False
        assert wire.plain_move(decoded) == valid, message


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=20),
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=4),
            st.lists(st.integers(-(2**63), 2**64 - 1) | st.binary() | st.text()),
        )
    ),
)
def test_a_bus_entry_decodes_to_what_was_encoded(sender: str, ops: list[Any]) -> None:
    as_lists = [[kind, *rest] for kind, rest in ops]
    assert wire.decode_entry(wire.encode_entry(sender, as_lists)) == (sender, as_lists)


@pytest.mark.parametrize(
    "data",
    [
        b"\xc1",
        msgpack.packb({"type": "ping"}),
        msgpack.packb(["a"]),
        msgpack.packb([1, []]),
        msgpack.packb(["a", "ops"]),
        msgpack.packb(["a", [[]]]),
        msgpack.packb(["a", [[1, 2]]]),
        msgpack.packb(["a", ["out"]]),
    ],
)
def test_anything_but_a_bus_entry_is_a_bad_frame(data: bytes) -> None:
    with pytest.raises(errors.BadFrame):
        wire.decode_entry(data)


_stored = st.recursive(
    st.none() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner),
    max_leaves=20,
)


def _as_lists(value: object) -> object:
    return [_as_lists(v) for v in value] if isinstance(value, list | tuple) else value


@given(_stored)
def test_pack_and_unpack_give_back_any_stored_value(value: object) -> None:
    """The store's msgpack (move log rows): exact floats and big ints back, tuples as lists."""
    assert wire.unpack(wire.pack(value)) == _as_lists(value)
