"""Room codes: six letters of the readable alphabet, each place uniform, never a live room's."""

from __future__ import annotations

import collections

import pytest

from server.core.lobby.registry import CODE_ALPHABET, CODE_LENGTH, MemoryRegistry, random_code


def test_codes_use_every_letter_in_every_place_about_equally() -> None:
    draws = [random_code() for _ in range(31_000)]
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in draws)
    for place in range(CODE_LENGTH):
        counts = collections.Counter(c[place] for c in draws)
        assert set(counts) == set(CODE_ALPHABET)
        # 1,000 expected per letter: 6 standard deviations either way fail one run in ~10^8
        assert all(810 < n < 1_190 for n in counts.values()), counts
    assert len(set(draws)) > 30_900  # 887 million codes: a handful of repeats at most


def test_a_new_code_is_never_a_live_rooms(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = MemoryRegistry()
    taken = iter(["aaaaaa", "aaaaaa", "bbbbbb"])
    monkeypatch.setattr("server.core.lobby.registry.random_code", lambda: next(taken))
    registry._rooms["aaaaaa"] = object()  # type: ignore[assignment]
    assert registry.new_id() == "bbbbbb"
