"""Tournaments in the real chromium against a real server process: a guest told why it cannot
create an event; an account creating a round robin from /tournaments, entering and leaving it
from its page; two accounts (raw clients) entering; the creator starting it; the page at /t/ID
following the event live (the game being played linking to its room and drawn on a small live
board, the standings and the
crosstable moving as results come in, every finished game linking to its replay and analysis);
the lobby listing the events starting soon; the results downloaded as JSON. And a person who
entered from the browser taken to its game as it is made, and back to the event from there."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.browser import WebServer, account, new_page
from support.clients import RawClient
from support.events import Background, Entrants
from websockets.asyncio.client import connect

pytestmark = pytest.mark.slow


@pytest.fixture
def entrants(web_server: WebServer) -> Iterator[Entrants]:
    """Alice and Bob, registered accounts on raw sockets to the web server."""
    made = Entrants(Background(), web_server.url.replace("http", "ws", 1), ["alice", "bob"])
    try:
        yield made
    finally:
        made.close()


def create_event(page: Any, url: str, name: str, per_pair: int = 2) -> str:
    """Create a tic-tac-toe round robin (``per_pair`` games a pair) from /tournaments; its id."""
    page.goto(url + "/tournaments")
    page.wait_for_selector("#ev-create:not([disabled])")
    page.fill("#ev-name", name)
    page.select_option("#ev-game", "tictactoe")
    page.select_option("#ev-format", "round_robin")
    page.fill("#ev-per-pair", str(per_pair))
    page.click("#ev-create")
    page.wait_for_url("**/t/*")
    page.wait_for_selector(f"#ev-title:has-text('{name}')")
    return page.url.rsplit("/", 1)[1]


def standing(page: Any, rank: int) -> tuple[str, str]:
    """The name and points on line ``rank`` of the page's standings."""
    row = page.locator(f"#standings tbody tr:nth-child({rank}) td")
    return row.nth(1).inner_text(), row.nth(2).inner_text()


def test_an_event_is_created_entered_and_followed_live_to_its_end(
    browser: Any, web_server: WebServer, entrants: Entrants, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    url = web_server.url
    guest, carol = new_page(browser), new_page(browser, accept_downloads=True)
    guest.goto(url + "/tournaments")
    guest.wait_for_selector("#ev-why:has-text('Only an account creates events')")
    assert guest.is_disabled("#ev-create")
    account(carol, url, "carol", "a fine long secret")
    tid = create_event(carol, url, "Sunday cup")
    carol.wait_for_selector("#status:has-text('Open: starts when its creator starts it')")
    carol.click("#ev-join")
    carol.wait_for_selector("#ev-you:has-text('you are in')")
    carol.click("#ev-leave")  # before the start: out of it again
    carol.wait_for_selector("#ev-join")
    guest.goto(url + "/")  # the lobby lists it among the events starting soon
    guest.click(f"#soon-events a[href='/t/{tid}']")
    guest.wait_for_url(f"**/t/{tid}")
    guest.wait_for_selector("#ev-join:not([disabled])")  # a casual event: a guest may enter
    entrants.join(tid)
    for page in (carol, guest):  # pushed to the watchers
        page.wait_for_selector("#ev-entrants li:has-text('alice')")
        page.wait_for_selector("#ev-entrants li:has-text('bob')")
    carol.click("#ev-start")
    first = entrants.live(tid)[0]
    for page in (carol, guest):
        page.wait_for_selector("#status:has-text('Running: round 1 of 2')")
        page.wait_for_selector(f"#ev-live a[href='/r/{first['room']}']")
    entrants.play(first, [(1, 1), (0, 0)])  # its small live board follows the moves
    for page in (carol, guest):
        expect(page.locator("#ev-boards .cell[data-stone]")).to_have_count(2)
    entrants.resign(first)  # seat 0 wins
    for page in (carol, guest):
        page.wait_for_selector("#ev-finished a.ev-replay")
        page.wait_for_selector("#standings tbody tr:first-child td.points:has-text('1')")
        assert standing(page, 1)[0] == entrants.names[first["players"][0]]
        assert standing(page, 2)[1] == "0" and page.locator("#ev-finished li").count() == 1
    second = entrants.live(tid)[0]
    assert second["players"] == first["players"][::-1]  # the seats swapped
    entrants.resign(second)
    for page in (carol, guest):
        page.wait_for_selector("#status:has-text('Finished')")
        page.wait_for_selector("#ev-finished li >> nth=1")
        assert [standing(page, 1)[1], standing(page, 2)[1]] == ["1", "1"]
        assert page.locator("#crosstable td.score:has-text('1')").count() == 2
        assert page.locator("#ev-live li").inner_text() == "None."
    links = guest.locator("#ev-finished a.analyse").evaluate_all("as => as.map(a => a.pathname)")
    assert len(links) == 2 and all(link.startswith("/g/") for link in links)
    guest.click("#ev-finished a.ev-replay >> nth=0")  # the replay, as the history opens it
    guest.wait_for_url("**/g/*")
    guest.wait_for_selector("#status:has-text('resigned')")
    with carol.expect_download() as saved:
        carol.click("#ev-download")
    results = json.loads(Path(saved.value.path()).read_text())
    assert results["tournament"] == tid and results["status"] == "finished"
    assert len(results["games"]) == 2 and results["crosstable"][0][1] == [1.0, 2]
    with carol.expect_download() as saved:
        carol.click("#ev-psq")  # every game as a .psq, in one .zip
    archive = zipfile.ZipFile(saved.value.path())  # built by the server: GET /t/ID/games.zip
    assert archive.testzip() is None
    assert saved.value.suggested_filename == f"tournament-{tid}-games.zip"
    names = sorted(n for n in archive.namelist() if n.endswith(".psq"))
    assert [n.split("_", 1)[0] for n in names] == ["1.1", "2.1"] and names[0].endswith(".psq")
    record = archive.read(names[0]).decode()
    assert record.startswith("Piskvorky 3x3") and "\n-1\n" in record
    assert carol.script_errors == guest.script_errors == []


def test_an_entrant_in_the_browser_is_taken_to_its_game_and_back_to_the_event(
    browser: Any, web_server: WebServer, entrants: Entrants
) -> None:
    url = web_server.url
    carol = new_page(browser)
    account(carol, url, "carol", "a fine long secret")
    tid = create_event(carol, url, "Quick duel", per_pair=1)
    carol.click("#ev-join")
    carol.wait_for_selector("#ev-you:has-text('you are in')")
    entrants.ask("alice", type="join_tournament", tournament=tid)
    carol.wait_for_selector("#ev-entrants li:has-text('alice')")
    carol.click("#ev-start")  # its game is made: the page goes to its room
    carol.wait_for_url("**/r/*")
    carol.wait_for_selector(".player .name:has-text('alice')")
    carol.wait_for_selector("#resign")
    assert not carol.is_visible("#abort")  # a tournament's game is played out
    carol.on("dialog", lambda dialog: dialog.accept())
    carol.click("#resign")
    carol.wait_for_selector("#status:has-text('resigned')")
    carol.click("#back-to-event")
    carol.wait_for_url(f"**/t/{tid}")
    carol.wait_for_selector("#ev-finished li:has-text('alice won')")
    assert carol.script_errors == []


def test_a_rated_arena_page_shows_the_servers_arena_points_and_a_guest_why_not(
    browser: Any, web_server: WebServer, entrants: Entrants
) -> None:
    event = entrants.ask(
        "alice", type="create_tournament", name="Night arena", game="tictactoe",
        format="arena", duration_s=600, rated=True, clock={"initial_s": 60, "increment_s": 0},
    )  # fmt: skip
    tid = event["tournament"]
    entrants.join(tid)
    page = new_page(browser)
    page.goto(f"{web_server.url}/t/{tid}")
    page.wait_for_selector("#ev-join-why:has-text('A rated event is for accounts')")
    assert page.is_disabled("#ev-join")  # a guest may not enter a rated event
    entrants.ask("alice", type="start_tournament", tournament=tid)
    page.wait_for_selector("#status:has-text('Running: ends at')")
    page.wait_for_selector("#ev-join")  # an arena takes entrants while it runs
    game = entrants.live(tid)[0]
    entrants.resign(game)
    page.wait_for_selector("#standings tbody tr:first-child td.points:has-text('2')")  # a win: 2
    assert standing(page, 1)[0] == entrants.names[game["players"][0]]
    assert page.locator("#standings th:has-text('Perf.')").count() == 1
    assert page.is_hidden("#crosstable")
    page.goto(f"{web_server.url}/t/nosuchevent")
    page.wait_for_selector("#status:has-text('There is no tournament nosuchevent')")
    assert page.script_errors == []


class Bots(Entrants):
    """Bots (their keys in the server's ``--keys-file``) on raw sockets, entering as entrants do."""

    def __init__(self, background: Background, ws_url: str, keys: dict[str, str]) -> None:
        self.bg = background

        async def make() -> list[RawClient]:
            made = []
            for name, key in keys.items():
                client = RawClient(await connect(ws_url, compression=None))
                await client.hello(name, "bot", key=key, games=["tictactoe"])
                made.append(client)
            return made

        clients = self.bg.run(make())
        self.clients = {str(c.player): c for c in clients}
        self.names = {str(c.player): name for c, name in zip(clients, keys, strict=True)}

    def close(self) -> None:
        """Close every bot's connection (the loop is the creator's to stop)."""

        async def close() -> None:
            for client in self.clients.values():
                await client.close()

        self.bg.run(close())


def test_a_bot_events_page_shows_each_bots_elo_as_the_server_sends_it(
    browser: Any, tmp_path: Path
) -> None:
    from server.core.players.keys import new_key

    keys = {"deep": new_key(), "shallow": new_key()}
    (tmp_path / "keys").write_text("".join(f"{n}={k}\n" for n, k in keys.items()))
    server = WebServer(tmp_path, "--keys-file", str(tmp_path / "keys"))
    server.start()
    ws_url = server.url.replace("http", "ws", 1)
    creator = Entrants(Background(), ws_url, ["carol"])
    bots = Bots(creator.bg, ws_url, keys)
    try:
        event = creator.ask(
            "carol", type="create_tournament", name="Bot cup", game="tictactoe",
            format="round_robin", games_per_pair=2,
        )  # fmt: skip
        tid = event["tournament"]
        bots.join(tid)
        page = new_page(browser)
        page.goto(f"{server.url}/t/{tid}")
        page.wait_for_selector("#standings th:has-text('Elo')")
        assert page.locator("#standings td.elo").all_inner_texts() == ["", ""]  # no game yet
        creator.ask("carol", type="start_tournament", tournament=tid)
        bots.resign(bots.live(tid)[0])  # seat 0 wins
        bots.resign(bots.live(tid)[0], seat=0)  # seat 0 of the return game resigns: 2-0
        page.wait_for_selector("#status:has-text('Finished')")
        final = creator.ask("carol", type="get_tournament", tournament=tid)
        shown = [
            f"{line['elo']['elo']:+.1f} ± {line['elo']['error']:.1f}" for line in final["standings"]
        ]
        assert page.locator("#standings td.elo").all_inner_texts() == shown
        assert shown[0].startswith("+") and shown[1].startswith("-")
        assert page.script_errors == []
    finally:
        bots.close()
        creator.close()
        server.stop()


def test_the_events_chart_draws_the_servers_points_after_each_round(
    browser: Any, web_server: WebServer
) -> None:
    from support.events import Background as Loop

    players = Entrants(Loop(), web_server.url.replace("http", "ws", 1), ["ann", "ben", "cy", "di"])
    try:
        tid = players.ask(
            "ann", type="create_tournament", name="Chart cup", game="tictactoe", format="swiss",
            rounds=2,
        )["tournament"]  # fmt: skip
        players.join(tid)
        page = new_page(browser)
        page.goto(f"{web_server.url}/t/{tid}")
        page.wait_for_selector("#ev-entrants li:has-text('di')")
        assert page.is_hidden("#ev-chart-panel")  # no point yet: no chart
        players.ask("ann", type="start_tournament", tournament=tid)
        for _ in range(2):
            for game in players.live(tid):
                players.resign(game)
        page.wait_for_selector("#status:has-text('Finished')")
        final = players.ask("ann", type="get_tournament", tournament=tid)
        lines = final["progress"]["lines"]
        assert final["progress"]["axis"] == "round" and len(lines) == 4
        page.wait_for_selector("#ev-chart-panel h2:has-text('Points after each round')")
        series = page.locator("#ev-progress g.series")  # the leader's drawn last: on top
        drawn = series.evaluate_all("gs => gs.map(g => g.dataset.player)")
        assert drawn == [line["player"] for line in lines][::-1]
        shapes = series.evaluate_all(
            "gs => gs.map(g => g.querySelector('polyline').getAttribute('points').split(' ')"
            ".map(p => p.split(',').map(Number)))"
        )[::-1]
        (bottom,) = {shape[0][1] for shape in shapes}  # every line starts at 0 points
        top = min(y for shape in shapes for _, y in shape)
        best = max(max(line["points"]) for line in lines)
        for shape, line in zip(shapes, lines, strict=True):
            assert len(shape) == len(line["at"]) + 1  # the origin, then a point a round
            heights = [(bottom - y) / (bottom - top) * best for _, y in shape[1:]]
            assert heights == pytest.approx(line["points"], abs=0.02)
        legend = page.locator("#ev-legend li").evaluate_all("ls => ls.map(l => l.textContent)")
        assert legend == [
            f"{players.names[line['player']]} {line['points'][-1]:g}" for line in lines
        ]
        assert page.script_errors == []
    finally:
        players.close()


def fetch(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """An HTTP answer's status, headers and body (an error's too)."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def finished(players: Entrants, tid: str) -> None:
    """Wait until event ``tid`` is over (asked until it says so)."""
    from support.waiting import until_answered

    asker = next(iter(players.clients.values()))

    async def over() -> bool:
        event = await asker.request(type="get_tournament", tournament=tid)
        return bool(event["status"] == "finished")

    players.bg.run(until_answered(over))


def test_the_server_builds_an_events_games_zip_with_every_game_once(
    web_server: WebServer,
) -> None:
    from support.events import Background as Loop

    from protocol.records import read_psq

    players = Entrants(Loop(), web_server.url.replace("http", "ws", 1), ["ann", "ben", "cy"])
    try:
        tid = players.ask(
            "ann", type="create_tournament", name="Zip cup", game="tictactoe",
            format="round_robin", games_per_pair=2,
        )["tournament"]  # fmt: skip
        players.join(tid)
        players.ask("ann", type="start_tournament", tournament=tid)
        game = players.live(tid)[0]
        players.play(game, [(1, 1), (0, 0), (2, 2)])  # a game with moves, then resigned
        players.resign(game)
        running = f"{web_server.url}/t/{tid}/games.zip"
        status, headers, body = fetch(running)
        assert status == 200 and headers["Content-Type"] == "application/zip"
        assert f'filename="tournament-{tid}-games.zip"' in headers["Content-Disposition"]
        early = zipfile.ZipFile(io.BytesIO(body))
        assert len([n for n in early.namelist() if n.endswith(".psq")]) == 1
        for _ in range(5):  # six rounds of one game (an odd field: one sits out each)
            players.resign(players.live(tid)[0])
        finished(players, tid)
        final = players.ask("ann", type="get_tournament", tournament=tid)
        assert final["status"] == "finished" and len(final["games"]) == 6
        status, _, body = fetch(running)
        archive = zipfile.ZipFile(io.BytesIO(body))
        assert archive.testzip() is None
        results = json.loads(archive.read("results.json"))
        assert results["tournament"] == tid and results["status"] == "finished"
        assert results["archived"] == 6 and results["left_out"] == []
        assert results["standings"] == final["standings"]
        psqs = [n for n in archive.namelist() if n.endswith(".psq")]
        assert sorted(n.split("_", 1)[0] for n in psqs) == sorted(g["key"] for g in final["games"])
        for g in final["games"]:
            (name,) = [n for n in psqs if n.startswith(g["key"] + "_")]
            first, second = (players.names[p] for p in g["players"])
            assert name == f"{g['key']}_{first}_vs_{second}.psq"
            record = players.ask("ann", type="get_game", game_id=g["game_id"], format="psq")
            assert archive.read(name).decode() == record["psq"]  # as the history exports it
            moves = [(m.x, m.y) for m in read_psq(record["psq"]).moves]
            assert moves == [(m["x"], m["y"]) for m in record["game"]["moves"]]
        status, headers, body = fetch(running, "HEAD")
        assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0
        assert fetch(f"{web_server.url}/t/nosuchevent/games.zip")[0] == 404
    finally:
        players.close()


def test_a_running_events_archive_is_rate_limited_per_address(web_server: WebServer) -> None:
    from support.events import Background as Loop

    from server.shell.archive import ARCHIVE_BURST

    players = Entrants(Loop(), web_server.url.replace("http", "ws", 1), ["ann", "ben"])
    try:
        tid = players.ask(
            "ann", type="create_tournament", name="Busy cup", game="tictactoe",
            format="round_robin",
        )["tournament"]  # fmt: skip
        players.join(tid)
        players.ask("ann", type="start_tournament", tournament=tid)
        url = f"{web_server.url}/t/{tid}/games.zip"
        statuses = [fetch(url)[0] for _ in range(int(ARCHIVE_BURST) + 1)]
        assert statuses == [200] * int(ARCHIVE_BURST) + [429]
        assert fetch(f"{web_server.url}/t/{tid}")[0] == 200  # the page itself is not limited
    finally:
        players.close()


#: The server process names two formats in other words.
REFORMAT = """
from server.core.tournament import values
values.FORMAT_LABELS["swiss"] = "Swiss system"
values.FORMAT_LABELS["gauntlet"] = "Gauntlet (seeds)"
"""


def test_the_pages_name_formats_as_the_server_says(browser: Any, tmp_path: Path) -> None:
    server = WebServer(tmp_path, prelude=REFORMAT)
    server.start()
    made = Entrants(Background(), server.url.replace("http", "ws", 1), ["alice", "bob"])
    try:
        event = made.ask(
            "alice", type="create_tournament", name="Seeded", game="tictactoe",
            format="gauntlet",
        )  # fmt: skip
        page = new_page(browser)
        page.goto(f"{server.url}/t/{event['tournament']}")
        page.wait_for_selector("#ev-kind:has-text('Gauntlet (seeds) · Tic-tac-toe')")
        page.goto(server.url + "/tournaments")
        page.wait_for_selector(
            "#ev-format option[value='swiss']:has-text('Swiss system')", state="attached"
        )
        assert page.script_errors == []
    finally:
        made.close()
        server.stop()


def test_a_matchs_page_shows_its_sprt_as_the_server_says_it(
    browser: Any, web_server: WebServer, entrants: Entrants
) -> None:
    test = {"elo0": 0, "elo1": 300, "alpha": 0.1, "beta": 0.1}
    event = entrants.ask(
        "alice", type="create_tournament", name="Duel", game="tictactoe", format="match",
        max_games=10, sprt=test,
    )  # fmt: skip
    tid = event["tournament"]
    entrants.join(tid)
    page = new_page(browser)
    page.goto(f"{web_server.url}/t/{tid}")
    page.wait_for_selector("#ev-sprt:has-text('no verdict yet')")
    entrants.ask("alice", type="start_tournament", tournament=tid)
    for _ in range(2):  # one colour-swapped pair, both won by alice
        game = entrants.live(tid)[0]
        entrants.resign(game, seat=1 - [entrants.names[p] for p in game["players"]].index("alice"))
    page.wait_for_selector("#ev-sprt:has-text('alice against bob +2 =0 \u22120')")
    shown = page.text_content("#ev-sprt") or ""
    said = entrants.ask("bob", type="get_tournament", tournament=tid)["sprt"]
    assert f"LLR {said['llr']:.2f} in [{said['lower']:.2f}, {said['upper']:.2f}]" in shown
    assert page.script_errors == []


def test_the_form_makes_a_swiss_of_two_games_a_pairing(browser: Any, web_server: WebServer) -> None:
    page = new_page(browser)
    account(page, web_server.url, "sven", "a fine long secret")
    page.goto(web_server.url + "/tournaments")
    page.wait_for_selector("#ev-create:not([disabled])")
    page.fill("#ev-name", "Pairs")
    page.select_option("#ev-format", "swiss")
    assert page.is_hidden("#ev-per-pair") and page.is_visible("#ev-pair-games")
    page.fill("#ev-pair-games", "2")
    page.click("#ev-create")
    page.wait_for_url("**/t/*")
    tid = page.url.rsplit("/", 1)[1]
    said = page.evaluate(
        "(tid) => window.mnk.net.request({type: 'get_tournament', tournament: tid})", tid
    )
    assert said["format"] == "swiss" and said["games_per_pair"] == 2
    assert page.script_errors == []
