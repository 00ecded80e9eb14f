"""The pygame client's tournaments view, fed the messages a real (in-process) arena sends: the
list (a scheduled event marked), an event's standings and games as sent, Enter / Leave, a
live game to watch, and a seat in an event's game opening its room. Drawn to a PNG
(MNK_SCREENSHOTS=1 copies it into docs/ as screenshot-tournaments.png)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pygame
import pytest
from support.app import Driver, running_server
from support.client_accounts import ONLINE, welcome
from support.client_shots import shoot
from support.clock import FakeClock
from support.fakenet import FakeNet
from support.pairing import Hub

from client.app import App
from client.settings import Settings
from client.tournaments import EventDetail, EventLine, Standing
from server.core.tournament.schedule import parse_spec, schedules_of

HOURLY = "name=Hourly blitz,game=gomoku,format=arena,clock=3+2,every=1h,opens=1h,duration=30m"


def server_with_events() -> tuple[Hub, Any, str, str]:
    """An arena holding a running swiss (alice and three others, round one played, round two
    on the boards) and the operator's hourly arena, open; (hub, alice, swiss id, arena id)."""
    hub = Hub(FakeClock(time.time()))
    hub.arena.plan_events(schedules_of([parse_spec(HOURLY)]))
    hub.tick(0)
    [hourly] = [e.id for e in hub.arena.tournaments.events.values()]
    alice = hub.peer("alice", account=True)
    made = hub.do(
        alice, type="create_tournament", name="Friday swiss", game="tictactoe", format="swiss"
    )
    tid = made[0]["tournament"]
    for name in ("alice", "bob", "carol", "dave"):
        peer = alice if name == "alice" else hub.peer(name, account=True)
        hub.do(peer, type="join_tournament", tournament=tid)
    hub.do(alice, type="start_tournament", tournament=tid)
    for slot in hub.arena.tournaments.events[tid].live():
        hub.do(hub.peers[slot.game.players[1]], type="resign", room=slot.room)
    hub.tick(0.05)  # round two paired
    return hub, alice, tid, hourly


def answer(hub: Hub, peer: Any, app: App, net: FakeNet) -> dict[str, Any]:
    """The server's answer to the client's last request, delivered to the client."""
    request = dict(net.sent[-1])
    reply = hub.do(peer, **request)[0]
    net.inbox.append(reply)
    app.step(now=1000.0)
    return reply


def test_the_wire_shapes_read_leniently() -> None:
    clock = {"initial_s": 30, "label": "½+0"}  # the server's label shows, never one computed
    line = EventLine.from_wire({"tournament": "t1", "clock": clock, "rounds": "x"})
    assert line.name == "?" and line.clock == "½+0" and line.rounds is None
    assert line.when(0.0) == "open: starts when its creator starts it"
    detail = EventDetail.from_wire({"tournament": "t1", "games": [{"key": "a1"}]})
    assert detail.games[0].result is None and detail.name_of("p_x") == "p_x"


def test_a_bot_events_line_shows_the_servers_elo_and_error() -> None:
    line = {"rank": 1, "player": "p_a", "points": 2.0, "wins": 2, "draws": 0, "losses": 0}
    bot = Standing.from_wire(line | {"elo": {"elo": 279.6, "error": 512.3}})
    assert bot.detail.endswith("Elo +279.6 ± 512.3")
    assert "Elo" not in Standing.from_wire(line | {"elo": None}).detail  # no game yet
    assert "Elo" not in Standing.from_wire(line).detail  # not a bot event


def test_the_tournaments_view_lists_enters_watches_and_plays(tmp_path: Path) -> None:
    pygame.font.init()
    hub, alice, swiss, hourly = server_with_events()
    me = welcome("alice", account=True) | {"player": alice.pid}
    net = FakeNet([ONLINE, me])
    app = App(net, name="alice", size=(1200, 680), settings=Settings())
    app.step(now=1000.0)
    assert app.hotspot("tournaments") is not None, "the lobby's header opens the view"
    app.act("tournaments", None)
    assert app.scene == "tournaments" and net.sent[-1]["type"] == "list_tournaments"
    answer(hub, alice, app, net)
    assert net.sent[-1] == {"type": "watch_tournament", "tournament": swiss, "id": len(net.sent)}
    answer(hub, alice, app, net)
    shot = shoot(app, tmp_path / "tournaments.png", "screenshot-tournaments.png")
    seen = ("Friday swiss", "Hourly blitz  (scheduled)", "Gomoku · Arena · 3+2", "STANDINGS")
    for words in (*seen, "running: round 2 of 3", "GAMES", "carol", "Leave", "1-0"):
        assert shot.shows(words), words
    assert not shot.clipped, shot.clipped
    standings = hub.arena.tournaments.events[swiss].standings()
    assert shot.shows(f"{standings[0]['points']:g}")  # the server's points, as sent
    live = [
        s for s in hub.arena.tournaments.events[swiss].live() if alice.pid not in s.game.players
    ]
    app.act("tournament_game", live[0].room)
    assert net.sent[-1] == {"type": "join_room", "room": live[0].room, "spectate": True,
                            "id": len(net.sent)}  # fmt: skip
    app.act("tournament_pick", hourly)  # alice is in the swiss: she keeps watching it
    assert [m["type"] for m in net.sent[-1:]] == ["watch_tournament"]
    answer(hub, alice, app, net)
    shot = shoot(app, tmp_path / "hourly.png")
    assert shot.shows("open: starts in") and shot.shows("by the server's schedule")
    enter = app.hotspot("tournament_join", hourly)
    assert enter is not None
    app.click(enter.rect.center)
    assert net.sent[-1]["type"] == "join_tournament"
    answer(hub, alice, app, net)
    assert app.hotspot("tournament_leave", hourly) is not None
    assert shoot(app, tmp_path / "entered.png").shows("alice")
    mine = [m for m in alice.inbox if m.get("type") in ("joined", "state")]
    net.inbox.extend(mine[-2:])  # seated in round two's game: the room opens
    app.step(now=1000.0)
    assert app.scene == "room" and app.model.room is not None


def test_escape_leaves_the_view_for_the_lobby(tmp_path: Path) -> None:
    pygame.font.init()
    net = FakeNet([ONLINE, welcome("bob")])
    app = App(net, name="bob", size=(1200, 680), settings=Settings())
    app.step(now=1000.0)
    app.act("tournaments", None)
    net.inbox.append({"type": "tournaments", "tournaments": [], "next": None})
    app.step(now=1000.0)
    assert shoot(app, tmp_path / "empty.png").shows("No tournaments on this server yet.")
    app.step([pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE)], now=1000.0)
    assert app.scene == "lobby"


def shown_or_refreshed(d: Driver, book: Any) -> None:
    """Wait for the view to show an event, asking for the list again every few seconds: at a
    minute's turn the occurrence that just started with nobody in it is gone from the list for a
    moment before the next one opens, and a list asked for then is empty."""
    for _ in range(12):
        try:
            d.pump(lambda: book.shown is not None, 5.0, "the event shown")
            return
        except AssertionError:
            d.click("tournaments_refresh")
    d.pump(lambda: book.shown is not None, 5.0, "the event shown")


@pytest.mark.slow
def test_two_clients_enter_a_scheduled_event_and_play_its_game(tmp_path: Path) -> None:
    """A real server with ``--event`` (an arena every minute): two clients enter it from the
    view, the server seats them at the minute, and the first to move plays by clicking."""
    spec = "name=Minute arena,game=tictactoe,format=arena,clock=none,every=1m,opens=1m"
    with running_server(
        tmp_path, "--memory", "--no-bots", "--event", spec + ",duration=50s"
    ) as url:
        ann, bob = Driver(url, "ann"), Driver(url, "bob")
        try:
            for d in (ann, bob):
                d.pump(lambda d=d: d.app.model.connection == "online", what="online")
                d.click("tournaments")
                book = d.app.model.tournaments
                shown_or_refreshed(d, book)
                assert book.shown is not None and book.shown.line.schedule == "Minute arena"
                d.click("tournament_join", book.shown.line.tid)
                d.pump(lambda d=d: d.app.hotspot("tournament_leave") is not None, what="entered")
            for d in (ann, bob):  # the minute comes: both seated, each client in its room
                d.pump(  # ``joined`` shows the room's scene; its ``state`` may come a frame later
                    lambda d=d: d.app.scene == "room" and d.app.model.room is not None,
                    90,
                    "the event's start",
                )
            first = ann if ann.room.seat == 0 else bob
            first.pump(lambda: first.room.my_turn, what="our turn")
            pos = first.app.cell_pixel(1, 1)
            assert pos is not None
            first.click_at(pos)
            other = bob if first is ann else ann
            other.pump(lambda: other.room.ply == 1, what="the move seen by the other")
            assert other.room.moves[0] == (1, 1)
        finally:
            ann.close()
            bob.close()


def test_a_reconnect_watches_the_event_on_screen_again() -> None:
    pygame.font.init()
    net = FakeNet([ONLINE, welcome("bob")])
    app = App(net, name="bob", size=(1200, 680), settings=Settings())
    app.step(now=1000.0)
    app.act("tournaments", None)
    net.inbox.append({"type": "tournaments", "tournaments": [{"tournament": "t1", "name": "Cup"}]})
    app.step(now=1000.0)
    assert net.sent[-1]["type"] == "watch_tournament"
    net.inbox += [{"type": "_net", "status": "offline"}, ONLINE, welcome("bob")]
    app.step(now=1001.0)
    watches = [m for m in net.sent if m["type"] == "watch_tournament"]
    assert [m["tournament"] for m in watches] == ["t1", "t1"]


def test_the_game_window_pages_a_screenful_then_the_servers_next_page() -> None:
    from client.tournaments import PAGE_END, TournamentBook, game_window

    games = [{"key": f"{n}.1", "players": ["a", "b"]} for n in range(100, 0, -1)]
    book = TournamentBook()
    book.pick("t1")
    book.updated({"tournament": "t1", "games": games, "page": 0, "pages": 2})
    detail = book.shown
    assert detail is not None
    window = game_window(book, detail, 30)
    assert window is not None and window.start == 0
    assert window.newer is None and window.older == (0, 30)
    book.game_offset = 90
    window = game_window(book, detail, 30)
    assert window is not None and window.older == (1, 0) and window.newer == (0, 60)
    book.game_page, book.game_offset = 1, 0  # asked for: not here yet
    assert game_window(book, detail, 30) is None
    book.updated({"tournament": "t1", "games": games[:5], "page": 1, "pages": 2})
    book.updated({"tournament": "t1", "games": games, "page": 0, "pages": 2})  # a push
    detail = book.shown
    assert detail is not None and detail.page == 1 and len(detail.games) == 5  # kept
    window = game_window(book, detail, 30)
    assert window is not None and window.older is None and window.newer == (0, PAGE_END)


@pytest.mark.slow
def test_the_view_pages_through_an_events_games_on_a_real_server(tmp_path: Path) -> None:
    """A real server: fifteen entrants play a round robin of 105 games (two of the server's
    pages); the client's view shows the newest, then pages to the oldest (asking the server
    for its second page) and back."""
    from support.clients import connected, registered
    from support.events import Background
    from support.waiting import until_answered

    from client.tournaments import PAGE_END, game_window

    db = str(tmp_path / "a.sqlite3")
    with running_server(tmp_path, "--db", db, "--no-bots") as url:
        bg = Background()

        async def entrants() -> list[Any]:
            async def make(name: str) -> Any:
                return await connected(url, name)

            made = [await registered(make, "ann")]
            made += [await connected(url, f"guest{n}") for n in range(14)]
            return made

        clients = bg.run(entrants())
        by_pid = {str(c.player): c for c in clients}
        ann = clients[0]

        async def play() -> str:
            made = await ann.request(
                type="create_tournament", name="Long cup", game="tictactoe",
                format="round_robin", games_per_pair=1,
            )  # fmt: skip
            tid = made["tournament"]
            for c in clients:  # each enters, then stops watching (no pushes piling up)
                assert (await c.request(type="join_tournament", tournament=tid))["type"] == (
                    "tournament"
                )
                await c.request(type="watch_tournament", tournament=tid, watch=False)
            await ann.request(type="start_tournament", tournament=tid)

            async def over() -> bool:
                event = await ann.request(type="get_tournament", tournament=tid)
                for g in event["games"]:
                    if g["result"] is None and g["room"]:
                        await by_pid[g["players"][1]].request(type="resign", room=g["room"])
                return bool(event["status"] == "finished")

            await until_answered(over, timeout=120)
            return str(tid)

        tid = bg.run(play(), timeout=180)
        zed = Driver(url, "zed")
        try:
            zed.pump(lambda: zed.app.model.connection == "online", what="online")
            zed.click("tournaments")
            book = zed.app.model.tournaments
            zed.pump(lambda: book.shown is not None and book.shown.games, what="the event")
            shown = book.shown
            assert shown is not None and shown.line.tid == tid and shown.pages == 2
            assert shown.page == 0 and len(shown.games) == 100
            shot = shoot(zed.app, tmp_path / "page0.png", now=time.time())
            assert shot.shows(shown.games[0].key) and shot.shows("page 1 of 2")
            for _ in range(40):  # "Older" down to the oldest game
                older = zed.app.hotspot("tournament_older")
                if older is None:
                    break
                zed.click("tournament_older", older.arg)
                zed.pump(lambda: game_window(book, book.shown, 1) is not None, what="games")
            asked = [m for m in zed.net.sent if m["type"] == "get_tournament" and m.get("page")]
            assert [m["page"] for m in asked] == [1]  # the server's second page, asked once
            last = book.shown
            assert last is not None and last.page == 1 and len(last.games) == 5
            shot = shoot(zed.app, tmp_path / "page1.png", now=time.time())
            assert shot.shows(last.games[-1].key) and shot.shows("page 2 of 2")  # the oldest
            newer = zed.app.hotspot("tournament_newer")
            assert newer is not None and newer.arg == (0, PAGE_END)  # back to the first page
            zed.click("tournament_newer", newer.arg)
            zed.pump(lambda: game_window(book, book.shown, 1) is not None, what="page 1")
            shot = shoot(zed.app, tmp_path / "back.png", now=time.time())
            assert book.shown is not None and shot.shows(book.shown.games[-1].key)  # its end
            assert book.shown is not None and book.shown.page == 0
        finally:
            zed.close()

            async def close() -> None:  # dropped: their games' messages were never read
                for client in clients:
                    client.ws.transport.abort()

            bg.run(close())
            bg.close()
