"""The pygame client's Quick pairing: the pools as tiles, a seek waiting with its time and a
Cancel, the open seeks (paged) with Accept, the custom seek form, and the rules that keep a
seek only while the lobby is on screen. Drawn to PNGs (MNK_SCREENSHOTS=1 copies the pairing
and the open seeks pictures into docs/) and checked for what they must show and send."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame
import pytest
from support.client_accounts import ONLINE, rating, welcome
from support.client_shots import shoot
from support.fakenet import FakeNet
from support.samples import state_message
from support.seek_samples import OTHERS, label, seek, seeks_page, wire_clock

from client.app import App
from client.labels import clock_text
from client.seeks import Seek, SeekForm, seek_request
from client.settings import Settings
from server.core.pairing.seeks import seek_form
from server.core.rating.pools import LABELS

NOW = 1000.0
RATED_32 = label("gomoku", (180, 2), True)
WAITING = {RATED_32: 3, label("gomoku", (60, 0), False): 1, label("gomoku", (600, 5), True): 2}


def lobby(account: bool = True, size: tuple[int, int] = (1200, 680)) -> tuple[App, FakeNet]:
    """Alice in the lobby with the pools and a page of others' seeks (a next page too)."""
    pygame.font.init()
    hello = welcome(account=account, gomoku_blitz=rating(1540, games=30))
    net = FakeNet([ONLINE, hello, seeks_page(next_="c_2", waiting=WAITING)])
    app = App(net, name="alice", size=size, settings=Settings())
    app.step(now=NOW)
    return app, net


def sent(net: FakeNet, kind: str) -> list[dict[str, Any]]:
    """The requests of ``kind`` sent so far."""
    return [m for m in net.sent if m["type"] == kind]


def place(app: App, net: FakeNet, pool: str, sid: str, now: float = NOW) -> None:
    """Click ``pool``'s tile and answer the ``seek`` with ``seeking``."""
    app.act("seek_tile", pool)
    request = net.sent[-1]
    assert request["type"] == "seek"
    game, clock, rated = request["game"], request.get("clock"), request["rated"]
    pair = (clock["initial_s"], clock["increment_s"]) if clock else None
    mine = seek(sid, "alice", game, pair, rated, 1540 if rated else None)
    net.inbox.append({"type": "seeking", "id": request["id"], "seek": mine})
    app.step(now=now)


def test_the_wire_shapes_read_leniently() -> None:
    said = {"initial_s": 180, "increment_s": 2, "label": "3+2"}
    assert clock_text(said) == "3+2" and clock_text(None) == "\u221e"
    assert clock_text({"initial_s": 180}) == "?"  # no label said: nothing worked out here
    s = Seek.from_wire(seek("s_1", "bob", rated=True, rating=1523, span=[1400, 1700]))
    assert s is not None and s.terms == "Gomoku 3+2 \u00b7 rated \u00b7 1400\u20131700"
    odd = Seek.from_wire({"seek": "s_2", "range": ["a", 3], "clock": "fast", "rating": "x"})
    assert odd is not None and odd.range is None and odd.clock is None and odd.rating is None
    assert odd.rating_label == "guest"
    assert Seek.from_wire({"seek": 5}) is None and Seek.from_wire([]) is None


def test_the_custom_form_builds_the_seek() -> None:
    form = SeekForm(game="renju")
    form.offer(seek_form())  # the server's clocks and ranges
    form.clock = 0
    assert seek_request(form, account=False) == {"type": "seek", "game": "renju", "rated": False}
    form.toggle_rated()  # rated needs a clock: 3+2 is picked
    form.step("range", 2)
    form.step("bot_after", 2)
    assert seek_request(form, account=True, rating=1540) == {
        "type": "seek",
        "game": "renju",
        "rated": True,
        "clock": {"initial_s": 180, "increment_s": 2},
        "range": [1340, 1740],
        "bot_after_s": 30,
    }
    guest = seek_request(form, account=False, rating=1540)  # a guest: casual, no range
    assert guest["rated"] is False and "range" not in guest and guest["bot_after_s"] == 30
    form.step("range", 2)  # ±500 near the bottom of the scale stays in 0..4000
    assert seek_request(form, True, 200)["range"] == [0, 700]


def test_the_tiles_a_seek_waiting_and_its_cancel(tmp_path: Path) -> None:
    app, net = lobby()
    subscribe = sent(net, "list_seeks")
    assert subscribe and subscribe[0]["subscribe"] is True
    shot = shoot(app, tmp_path / "tiles.png")
    for words in ("Quick pairing", "3+2", "10+5", "30+0", "3 waiting", "1 waiting", "Rated"):
        assert shot.shows(words), words
    assert not shot.clipped, shot.clipped
    app.act("seek_tile", RATED_32)
    assert net.sent[-1] == {
        "type": "seek",
        "game": "gomoku",
        "rated": True,
        "clock": {"initial_s": 180, "increment_s": 2},
        "id": net.sent[-1]["id"],
    }
    assert shoot(app, tmp_path / "placing.png").shows("placing\u2026")
    app.act("seek_tile", RATED_32)  # an unanswered seek is not sent twice
    assert len(sent(net, "seek")) == 1
    net.inbox.append(
        {"type": "seeking", "id": net.sent[-1]["id"], "seek": seek("s_me", "alice", rated=True)}
    )
    app.step(now=NOW)
    assert app.redraw_interval() == 0.5  # the waiting time counts up on an idle screen
    shot = shoot(app, tmp_path / "pairing.png", "screenshot-pairing.png", now=NOW + 12)
    assert shot.shows("Seeking Gomoku 3+2 \u00b7 rated \u00b7 0:12") and shot.shows("seeking 0:12")
    assert not shot.clipped, shot.clipped
    cancel = app.hotspot("cancel_seek", "s_me")
    assert cancel is not None
    app.click(cancel.rect.center)
    assert net.sent[-1] == {"type": "cancel_seek", "seek": "s_me", "id": net.sent[-1]["id"]}
    shot = shoot(app, tmp_path / "cancelled.png")
    assert not shot.shows("Seeking Gomoku")
    place(app, net, RATED_32, "s_me2")
    app.act("seek_tile", RATED_32)  # a second click on the tile cancels too
    assert net.sent[-1]["type"] == "cancel_seek" and net.sent[-1]["seek"] == "s_me2"


def test_a_guest_gets_no_rated_tiles(tmp_path: Path) -> None:
    app, net = lobby(account=False)
    shot = shoot(app, tmp_path / "guest.png")
    assert shot.shows("log in to play")
    assert app.hotspot("seek_tile", RATED_32) is None
    app.act("seek_tile", RATED_32)
    assert not sent(net, "seek")
    app.act("seek_tile", label("gomoku", (180, 2), False))
    assert sent(net, "seek")[-1]["rated"] is False


def test_the_open_seeks_accept_and_pages(tmp_path: Path) -> None:
    app, net = lobby()
    place(app, net, RATED_32, "s_me")
    mine = seek("s_me", "alice", rated=True, rating=1540)
    net.inbox.append(seeks_page([*OTHERS, mine], next_="c_2", waiting=WAITING))
    app.step(now=NOW)
    app.act("lobby_tab", "seeks")
    shot = shoot(app, tmp_path / "seeks.png", "screenshot-pairing-seeks.png", now=NOW + 5)
    for words in ("bob", "1523", "rated 1400\u20131700", "minimax (bot)", "guest", "page 1"):
        assert shot.shows(words), words
    assert not shot.clipped, shot.clipped
    assert app.hotspot("accept_seek", "s_bob") is not None
    assert app.hotspot("accept_seek", "s_me") is None  # ours: Cancel instead
    assert app.hotspot("cancel_seek", "s_me") is not None
    app.act("accept_seek", "s_bob")
    assert net.sent[-1] == {"type": "accept_seek", "seek": "s_bob", "id": net.sent[-1]["id"]}
    app.act("seeks_page", 1)
    ask = net.sent[-1]
    assert ask["type"] == "list_seeks" and ask["cursor"] == "c_2" and "subscribe" not in ask
    net.inbox.append(seeks_page([seek("s_zed", "zed")], waiting=WAITING))  # a push: page 1
    app.step(now=NOW)
    assert next(s.seek for s in app.model.seeks.rows) == "s_bob"  # page 2 not answered yet
    net.inbox.append(seeks_page([seek("s_zoe", "zoe")], rid=ask["id"]))
    app.step(now=NOW)
    net.inbox.append(seeks_page([seek("s_zed", "zed")], waiting=WAITING))  # pushes wait
    shot = shoot(app, tmp_path / "seeks-2.png")
    assert shot.shows("zoe") and shot.shows("page 2") and not shot.shows("zed")
    assert app.hotspot("seeks_page", 1) is None  # no next page
    app.act("seeks_page", -1)
    back = net.sent[-1]
    assert back["type"] == "list_seeks" and "cursor" not in back
    net.inbox.append(seeks_page([seek("s_zed", "zed")], rid=back["id"]))
    assert shoot(app, tmp_path / "seeks-1.png").shows("zed")


def test_a_pairing_opens_the_room_and_ends_the_other_seeks(tmp_path: Path) -> None:
    app, net = lobby()
    place(app, net, RATED_32, "s_me")
    place(app, net, label("gomoku", (60, 0), False), "s_me2")
    state = state_message("gomoku", room="k7m2qx", players=["bob", "alice"], status="playing")
    net.inbox += [{"type": "joined", "room": "k7m2qx", "seat": 1, "seek": "s_me"}, state]
    app.step(now=NOW)
    assert app.scene == "room" and app.model.room is not None
    cancels = [m["seek"] for m in sent(net, "cancel_seek")]
    assert cancels == ["s_me2"]  # the paired one is over; the other is withdrawn
    assert not app.model.seeks.mine


def test_leaving_the_lobby_or_quitting_cancels_seeks() -> None:
    app, net = lobby()
    place(app, net, RATED_32, "s_me")
    app.act("leaderboard", None)
    app.step(now=NOW)
    assert [m["seek"] for m in sent(net, "cancel_seek")] == ["s_me"]
    app.act("back", None)
    app.step(now=NOW)
    app.act("seek_tile", RATED_32)
    request = net.sent[-1]
    app.act("leaderboard", None)  # left before the answer came: cancelled when it comes
    app.step(now=NOW)
    net.inbox.append({"type": "seeking", "id": request["id"], "seek": seek("s_late", "alice")})
    app.step(now=NOW)
    assert sent(net, "cancel_seek")[-1]["seek"] == "s_late"
    app.act("back", None)
    app.step(now=NOW)
    place(app, net, RATED_32, "s_last")
    app.step([pygame.event.Event(pygame.QUIT)], now=NOW)
    assert sent(net, "cancel_seek")[-1]["seek"] == "s_last"


def test_the_end_of_a_seek_and_its_errors() -> None:
    app, net = lobby()
    place(app, net, RATED_32, "s_me")
    net.inbox.append({"type": "seek_ended", "seek": "s_me", "reason": "expired"})
    app.step(now=NOW)
    assert not app.model.seeks.mine
    assert "30 minutes" in app.model.toasts[-1].text
    place(app, net, RATED_32, "s_quota")
    why = "you have started enough games for this hour"
    net.inbox.append(
        {"type": "seek_ended", "seek": "s_quota", "reason": "cancelled", "message": why}
    )
    app.step(now=NOW)
    assert app.model.toasts[-1].text.endswith(why) and not app.model.seeks.mine
    app.act("seek_tile", RATED_32)
    rid = net.sent[-1]["id"]
    net.inbox.append({"type": "error", "id": rid, "code": "too_many_seeks", "message": "x"})
    app.step(now=NOW)
    assert not app.model.seeks.pending  # the tile may be clicked again
    assert "3 at most" in app.model.toasts[-1].text


def test_a_server_without_pairing_says_so(tmp_path: Path) -> None:
    pygame.font.init()
    net = FakeNet([ONLINE, welcome()])
    app = App(net, name="alice", size=(1200, 680), settings=Settings())
    app.step(now=NOW)
    rid = sent(net, "list_seeks")[0]["id"]
    net.inbox.append({"type": "error", "id": rid, "code": "unknown_type", "message": "?"})
    app.step(now=NOW)
    shot = shoot(app, tmp_path / "no-pairing.png")  # the lobby as it was: the rooms, no tabs
    assert shot.shows("OPEN ROOMS (0)  \u00b7  \u2191\u2193 SELECT, J JOIN, W WATCH")
    assert not shot.shows("Quick pairing")
    assert not app.model.toasts and app.model.history_supported is not False


@pytest.mark.parametrize("account", [True, False])
def test_the_custom_seek_form(tmp_path: Path, account: bool) -> None:
    app, net = lobby(account=account, size=(900, 600))
    app.act("custom_open", True)
    app.act("seek_game", "renju")
    app.act("custom_step", ("range", 1))
    app.act("custom_step", ("bot_after", 2))
    if account:
        app.act("custom_rated", None)
    shot = shoot(app, tmp_path / f"custom-{account}.png")
    assert shot.shows("Seek this game") and shot.shows("after 30 s")
    # not rated in renju yet: the range is around 1500
    assert shot.shows("\u00b1100 (1400\u20131600)") if account else shot.shows("any rating")
    assert not shot.clipped, shot.clipped
    app.act("custom_seek", None)
    request = net.sent[-1]
    assert request["type"] == "seek" and request["game"] == "renju"
    assert request["bot_after_s"] == 30 and request["rated"] is account
    assert ("range" in request) is account
    assert not app.pairing.custom


def test_the_servers_own_endings_are_no_news() -> None:
    app, net = lobby()
    place(app, net, RATED_32, "s_me")
    place(app, net, label("gomoku", (60, 0), False), "s_me2")
    state = state_message("gomoku", room="k7m2qx", players=["bob", "alice"], status="playing")
    net.inbox += [  # the server ends our other seek itself, in the same breath
        {"type": "joined", "room": "k7m2qx", "seat": 1, "seek": "s_me"},
        state,
        {"type": "seek_ended", "seek": "s_me2", "reason": "cancelled"},
    ]
    app.step(now=NOW)
    assert app.scene == "room" and not sent(net, "cancel_seek")
    app.act("leave", None)  # (the game: a confirm first)
    app.act("leave", None)
    app.step(now=NOW)
    place(app, net, RATED_32, "s_me3")
    app.act("cancel_seek", "s_me3")
    rid = net.sent[-1]["id"]  # taken meanwhile: the server says it is gone
    net.inbox.append({"type": "error", "id": rid, "code": "no_such_seek", "message": "gone"})
    app.step(now=NOW)
    assert not app.model.toasts


def test_a_seek_put_back_after_an_abort_stays(tmp_path: Path) -> None:
    app, net = lobby()
    place(app, net, RATED_32, "s_me")
    state = state_message("gomoku", room="k7m2qx", players=["bob", "alice"], status="playing")
    net.inbox += [{"type": "joined", "room": "k7m2qx", "seat": 1, "seek": "s_me"}, state]
    app.step(now=NOW)
    back = seek("s_me", "alice", rated=True, rating=1540)
    net.inbox.append({"type": "seeking", "seek": back})  # no id: the server put it back
    app.step(now=NOW + 30)
    assert not sent(net, "cancel_seek") and "s_me" in app.model.seeks.mine
    assert "seeking a Gomoku 3+2 \u00b7 rated again" in app.model.toasts[-1].text


def test_the_custom_form_offers_the_clocks_and_ranges_the_server_says(tmp_path: Path) -> None:
    app, net = lobby(account=True, size=(900, 600))
    assert app.pairing.form.chosen_clock == (180, 2)  # where the server starts it
    two = {"initial_s": 120, "increment_s": 1, "label": "2+1"}
    said = {"clocks": [two, None], "clock": 0, "ranges": [0, 50]}
    net.inbox.append(
        welcome(account=True, gomoku_blitz=rating(1540, games=30)) | {"seek_form": said}
    )
    app.step(now=NOW)
    app.act("custom_open", True)
    app.act("custom_step", ("range", 1))
    shot = shoot(app, tmp_path / "custom-said.png")
    # the server named no rating pool for 2+1: the range is around 1500
    assert shot.shows("2+1") and shot.shows("\u00b150 (1450\u20131550)"), shot.texts
    app.act("custom_step", ("clock", 1))
    app.act("custom_step", ("clock", 1))  # two clocks: round to the first again
    assert app.pairing.form.chosen_clock == (120, 1)
    app.act("custom_seek", None)
    request = net.sent[-1]
    assert request["clock"] == {"initial_s": 120, "increment_s": 1}
    assert request["range"] == [1450, 1550]


def test_the_lobby_shows_the_labels_the_server_says(tmp_path: Path) -> None:
    pygame.font.init()
    said = {**LABELS, "short": {**LABELS["short"], "renju": "RIF renju"}}
    hello = welcome(account=True, gomoku_blitz=rating(1540, games=30)) | {"labels": said}
    page = seeks_page(waiting=WAITING)
    for pool in page["pools"]:  # the server labels its clocks its own way now
        if pool["clock"] == wire_clock((180, 2)):
            pool["clock"]["label"] = "3 min + 2 s"
    net = FakeNet([ONLINE, hello, page])
    app = App(net, name="alice", size=(1200, 680), settings=Settings())
    app.step(now=NOW)
    shot = shoot(app, tmp_path / "labels.png")
    assert shot.shows("RIF renju") and shot.shows("3 min + 2 s"), shot.texts
    assert not shot.shows("Renju")  # no name of its own


def test_the_new_game_form_offers_the_clocks_the_server_says(tmp_path: Path) -> None:
    pygame.font.init()
    said = seek_form()
    assert said["clocks"][4]["initial_s"] == 300  # 5+3
    said["clocks"][4]["label"] = "five+three"  # the server labels it its own way now
    said["clocks"].append({"initial_s": 2700, "increment_s": 15, "label": "45+15"})
    hello = welcome(account=True, gomoku_blitz=rating(1540, games=30)) | {"seek_form": said}
    net = FakeNet([ONLINE, hello, seeks_page(waiting=WAITING)])
    app = App(net, name="alice", size=(1200, 680), settings=Settings())
    app.step(now=NOW)
    shot = shoot(app, tmp_path / "new-game-clocks.png")
    assert shot.shows("five+three") and shot.shows("45+15"), shot.texts
    app.act("form_rated", None)  # rated with no clock: the clock the server starts at
    assert app.form.chosen_clock == (180, 2)
    app.act("form_clock", len(said["clocks"]) - 1)
    app.act("create", None)
    assert net.sent[-1]["clock"] == {"initial_s": 2700, "increment_s": 15}


def test_a_custom_seek_waits_on_the_tile_of_the_pool_the_server_names(tmp_path: Path) -> None:
    """The tile a custom seek shows placing on is the one whose terms the server said, by the
    pool name it gave (the client works out no pool name of its own)."""
    pygame.font.init()
    page = seeks_page(waiting=WAITING)
    for pool in page["pools"]:  # the server names its pools its own way now
        pool["pool"] = (
            f"P{len(pool['pool'])}-{pool['game']}-{pool['rated']}-{pool['clock']['label']}"
        )
    net = FakeNet([ONLINE, welcome(account=True, gomoku_blitz=rating(1540, games=30)), page])
    app = App(net, name="alice", size=(1200, 680), settings=Settings())
    app.step(now=NOW)
    app.act("custom_open", True)
    app.act("seek_game", "gomoku")
    assert app.pairing.form.chosen_clock == (180, 2)
    app.act("custom_seek", None)
    placing = list(app.model.seeks.pending.values())
    assert len(placing) == 1 and placing[0].endswith("-gomoku-False-3+2"), placing
    assert app.model.seeks.placing(placing[0])
