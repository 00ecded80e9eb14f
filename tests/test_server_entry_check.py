"""The entry check before a bot's first rated event, on the wire: the desk's answers while it
runs and once it failed, the examiner's ``certified`` (taken from the examiner alone), the
``entry_check`` push to the bot, and no check at all where the server has no examiner or the
event is unrated. (The server's examiner process at work: test_server_entry_check_e2e.py.)"""

from __future__ import annotations

from typing import Any

from support.clients import registered

RATED = {"clock": {"initial_s": 60, "increment_s": 1}, "rated": True}


async def event(alice: Any, rated: bool = True) -> str:
    """A new round robin of tic-tac-toe alice made (rated unless told)."""
    reply = await alice.request(
        type="create_tournament", name="Bots", game="tictactoe", format="round_robin",
        **(RATED if rated else {}),
    )  # fmt: skip
    assert reply["type"] == "tournament", reply
    return str(reply["tournament"])


def report(examinee: str, failed: tuple[str, ...] = ()) -> dict[str, Any]:
    """A ``certified`` as the examiner sends it (``failed``: the checks that did not pass)."""
    names = ("connects", "gomoku", "clock", "position")
    checks = [{"name": n, "passed": n not in failed, "detail": "seen"} for n in names]
    return {"type": "certified", "examinee": examinee, "checks": checks}


async def test_without_an_examiner_a_bot_enters_a_rated_event_unchecked(
    client_factory: Any,
) -> None:
    alice = await registered(client_factory, "alice")
    tid = await event(alice)
    bot = await client_factory("plain", "bot", games=["*"])
    reply = await bot.request(type="join_tournament", tournament=tid)
    assert reply["type"] == "tournament" and reply["entrants"][0]["name"] == "plain", reply


async def test_a_bot_waits_for_its_check_and_is_told_how_it_went(
    client_factory: Any, server: Any
) -> None:
    check = server.arena.entry_check
    check.enable("examiner")  # as the shell does when it made the examiner's key
    alice = await registered(client_factory, "alice")
    rated, unrated = await event(alice), await event(alice, rated=False)
    bot = await client_factory("shaky", "bot", games=["*"])
    await bot.error("entry_check_running", type="join_tournament", tournament=rated)
    await bot.error("entry_check_running", type="join_tournament", tournament=rated)
    assert check.due() == ["shaky"] and check.due() == []  # one run for the two joins
    stranger = await client_factory("stranger", "bot", games=["*"])
    await stranger.error("not_examiner", **report("shaky"))
    examiner = await client_factory("examiner", "bot", games=["none"], level=0)
    answer = await examiner.request(**report("shaky", failed=("gomoku", "clock")))
    assert answer["type"] == "entry_check" and answer["failed"] == ["gomoku", "clock"], answer
    told = await bot.expect("entry_check")
    assert told["status"] == "failed" and told["bot"] == "shaky", told
    assert [c["name"] for c in told["checks"] if not c["passed"]] == ["gomoku", "clock"]
    refused = await bot.error("entry_check_failed", type="join_tournament", tournament=rated)
    assert "gomoku, clock" in refused["message"], refused
    await examiner.error("not_examiner", **report("shaky"))  # no run of it now: not taken
    joined = await bot.request(type="join_tournament", tournament=unrated)
    assert joined["type"] == "tournament", joined  # an unrated event asks for no check


async def test_a_bot_that_passed_enters_at_once(client_factory: Any, server: Any) -> None:
    check = server.arena.entry_check
    check.enable("examiner")
    alice = await registered(client_factory, "alice")
    first, second = await event(alice), await event(alice)
    bot = await client_factory("steady", "bot", games=["*"])
    await bot.error("entry_check_running", type="join_tournament", tournament=first)
    assert check.due() == ["steady"]
    examiner = await client_factory("examiner", "bot", games=["none"], level=0)
    await examiner.request(**report("steady"))
    assert (await bot.expect("entry_check"))["status"] == "passed"
    for tid in (first, second):
        reply = await bot.request(type="join_tournament", tournament=tid)
        assert reply["type"] == "tournament", reply
    assert check.due() == [] and check.results["steady"].runs == 1
