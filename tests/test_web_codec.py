"""The browser's msgpack codec (server/web/msgpack.js), run in the real chromium, against the
Python codec (protocol/wire.py) on the same generated messages, both ways, byte for byte."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import msgpack
import pytest
from support.browser import new_page

from protocol import wire

pytestmark = pytest.mark.slow

#: Lengths at the edges of each msgpack size class (fix, 8-, 16- and 32-bit).
EDGES = [0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536]
INTS = [0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**53 - 1]
INTS += [-n for n in INTS[1:]] + [-32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1]


def text(rng: random.Random, size: int) -> str:
    """A string of ``size`` characters from several scripts (multi-byte UTF-8 included)."""
    return "".join(rng.choice("ab7 _éßжか😀") for _ in range(size))


def value(rng: random.Random, depth: int = 0, binary: bool = True) -> Any:
    """A random value of the kinds the protocol carries."""
    kinds = ["nil", "bool", "int", "float", "str"] + (["bin"] if binary else [])
    if depth < 3:
        kinds += ["list", "map"]
    kind = rng.choice(kinds)
    if kind == "nil":
        return None
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "int":
        return rng.choice(INTS) if rng.random() < 0.5 else rng.randint(-(2**40), 2**40)
    if kind == "float":
        return rng.choice([0.5, -1.25, 1e-9, 1795341572.7, 291.53]) + rng.randint(0, 99)
    if kind == "str":
        return text(rng, rng.choice(EDGES[:8]))
    if kind == "bin":
        return bytes(rng.randrange(256) for _ in range(rng.choice(EDGES[:8])))
    size = rng.choice([0, 1, 3, 15, 16, 17])
    if kind == "list":
        return [value(rng, depth + 1, binary) for _ in range(size)]
    return {"k" + text(rng, rng.randint(0, 8)): value(rng, depth + 1, binary) for _ in range(size)}


def messages(binary: bool = True) -> list[Any]:
    """The protocol's own shapes, then generated ones and the size classes' edges."""
    rng = random.Random(30)
    game = {"name": "renju", "width": 15, "height": 15, "k": 5, "rule": "renju"}
    out: list[Any] = [
        {"type": "hello", "protocol": 1, "name": "alice", "kind": "human", "session": "Zx9"},
        {"type": "move", "room": "k7m2qx", "x": 7, "y": 7, "ply": 0, "id": 3},
        {"type": "moved", "room": "k7m2qx", "ply": 12, "seat": 0, "x": 14, "y": 0,
         "clocks": [291.5, 297.25], "forbidden": [[8, 7], [6, 6]]},
        {"type": "state", "room": "k7m2qx", "game": game, "players": ["alice", None],
         "online": [True, False], "seat": None, "moves": [[7, 7]], "result": None,
         "clock": {"initial_s": 300.5, "increment_s": 2.5, "move_s": None}, "chat": []},
        {"type": "game_over", "room": "r", "winner": None, "reason": "draw", "line": []},
    ]  # fmt: skip
    out += [value(rng, binary=binary) for _ in range(300)]
    out += [text(rng, n) for n in EDGES] + [[1] * n for n in EDGES[:9]]
    out += [{str(i): i for i in range(n)} for n in (15, 16, 65536)] + INTS
    if binary:
        out += [bytes(n) for n in EDGES]
    return out


def test_the_browser_codec_reads_and_writes_what_python_does(browser: Any, web_server: Any) -> None:
    page = new_page(browser)
    page.goto(web_server.url + "/")
    frames = [base64.b64encode(wire.pack(m)).decode() for m in messages()]
    # Python's bytes → the browser decodes and encodes them again → the same bytes.
    again = page.evaluate(
        """async (frames) => {
            const codec = await import("/assets/msgpack.js");
            const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const b64 = (data) => btoa(Array.from(data, (b) => String.fromCharCode(b)).join(""));
            return frames.map((f) => b64(codec.encode(codec.decode(bytes(f)))));
        }""",
        frames,
    )
    assert len(again) == len(frames)
    for original, echoed, message in zip(frames, again, messages(), strict=True):
        assert echoed == original, message
    # The browser's own values (from JSON, no bytes) → its bytes → Python reads the same value.
    plain = messages(binary=False)
    written = page.evaluate(
        """async (values) => {
            const codec = await import("/assets/msgpack.js");
            const b64 = (data) => btoa(Array.from(data, (b) => String.fromCharCode(b)).join(""));
            return values.map((v) => b64(codec.encode(v)));
        }""",
        json.loads(json.dumps(plain)),
    )
    for data, expected in zip(written, plain, strict=True):
        raw = base64.b64decode(data)
        assert msgpack.unpackb(raw, raw=False, strict_map_key=False) == expected
        assert raw == wire.pack(expected)
    # What the protocol never uses is refused, not misread.
    refused = page.evaluate(
        """async () => {
            const codec = await import("/assets/msgpack.js");
            const tries = [[0xd4, 1, 2], [0xc1], [0x92, 1], [0x01, 0x02], [0xa3, 0xff, 0xfe, 0xfd]];
            return tries.map((t) => { try { codec.decode(new Uint8Array(t)); return "read"; }
                                      catch (e) { return "refused"; } });
        }"""
    )
    assert refused == ["refused"] * 5
    assert page.script_errors == []
