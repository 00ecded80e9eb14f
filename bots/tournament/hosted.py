"""Round robin, swiss, gauntlet and SPRT match through the server's own tournaments:
``mnk-tournament`` creates the event (``create_tournament``), its bots enter it by connecting
(``mnk-bot --tournament ID``), it starts it and follows it (``watch_tournament``), and writes
the results folder from what the server says. The pairings are the server's
(``server/core/tournament/``), not ours; so is an SPRT match's test (``protocol/sprt.py``).

The event id is kept in ``--out`` (``event.json``): a rerun after a kill follows the same
event instead of creating a second one. The name the event is created under is written there
before it is asked for, so even a kill between the request and its answer is found again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from pathlib import Path
from typing import Any

from bots.tournament.director import JOURNAL, RESULTS, Reporter
from bots.tournament.openings import balanced_count
from bots.tournament.referee import Played
from bots.tournament.results import (
    GameResult,
    Standing,
    append_journal,
    crosstable,
    fault_of,
    head_to_head,
    neighbour_los,
    read_journal,
    standings,
    write_json_atomic,
)
from bots.tournament.schedule import default_swiss_rounds
from protocol.connection import Connection, ServerError
from protocol.session import Session
from protocol.sprt import Sprt
from protocol.variants import FIXED

log = logging.getLogger("mnk.tournament")

#: Seconds between two reads of a running event's later pages of games (a game there that
#: ended is recorded that much later; the first page, the newest 100, at every update).
PAGES_EVERY_S = 10.0
#: Where the run remembers its event: ``{"name": …, "tournament": ID | null}``.
EVENT_FILE = "event.json"
#: The server's bounds that an old-path run may exceed (docs/PROTOCOL.md, create_tournament).
MAX_GAMES_PER_PAIR = 200
MAX_EVENT_GAMES = 20_160
MAX_OPENINGS = 64
MAX_SWISS_ROUNDS = 20
MAX_PLAYERS = 64
MAX_MATCH_GAMES = 1000
MAX_GAMES_AT_ONCE = 16
#: Our formats and the server's names for them.
SERVER_FORMATS = {"round-robin": "round_robin", "swiss": "swiss", "gauntlet": "gauntlet"}


def hosted_reason(config: dict[str, Any], own_schedule: bool) -> str | None:
    """Why this run stays on the director's own schedule (None: the server runs the event)."""
    if own_schedule:
        return "--own-schedule"
    if config["format"] not in SERVER_FORMATS:
        return f"the server has no {config['format']} format"
    if config["game"] not in FIXED:
        return f"the server's events play {', '.join(FIXED)}, not {config['game']}"
    if len(config["bots"]) > MAX_PLAYERS:
        return f"more than {MAX_PLAYERS} bots"
    if len(config["opening_list"]) > MAX_OPENINGS:
        return f"more than {MAX_OPENINGS} openings"
    if config["sprt"]:
        if match_games(config) > MAX_MATCH_GAMES:
            return f"an SPRT of more than {MAX_MATCH_GAMES} games"
    elif config["format"] == "swiss" and (config["rounds"] or 0) > MAX_SWISS_ROUNDS:
        return f"more than {MAX_SWISS_ROUNDS} swiss rounds"
    elif games_per_pair(config) > MAX_GAMES_PER_PAIR:
        return f"more than {MAX_GAMES_PER_PAIR} games a pairing"
    elif games_per_pair(config) * pairings(config) > MAX_EVENT_GAMES:
        return f"more than {MAX_EVENT_GAMES} games"
    return None


def pairings(config: dict[str, Any]) -> int:
    """A round robin's or gauntlet's pairings; a swiss's over all its rounds."""
    n = len(config["bots"])
    if config["format"] == "swiss":
        return (config["rounds"] or default_swiss_rounds(n)) * (n // 2)
    return n - 1 if config["format"] == "gauntlet" else n * (n - 1) // 2


def games_per_pair(config: dict[str, Any]) -> int:
    """A round robin's games a pair: both colours of each opening, --games times --rounds; a
    swiss pairing's in its round: both colours of each opening, --games times (--rounds
    counts a swiss's rounds)."""
    repeats = 1 if config["format"] == "swiss" else config["rounds"] or 1
    return 2 * config["games"] * repeats * len(config["opening_list"])


def match_games(config: dict[str, Any]) -> int:
    """An SPRT match's most games: whole colour-swapped pairs (as the old schedule caps it)."""
    return 2 * max(1, int(config.get("sprt_max_games") or 1000) // 2)


def server_openings(config: dict[str, Any]) -> list[list[list[int]]]:
    """The event's ``openings``: the list itself. A round robin or gauntlet plays opening
    (c // 2) mod n in cycle c of ``games_per_pair`` = 2 · ``--games`` · ``--rounds`` · n
    cycles, so each opening comes ``--games`` · ``--rounds`` times, both colours to each pair
    each time; a swiss pairing's 2 · ``--games`` · n games of a round play each opening
    ``--games`` times, both colours each time; an SPRT match's pair k plays opening k mod n."""
    openings = config["opening_list"]
    return [] if openings == [[]] else list(openings)


def event_request(config: dict[str, Any], name: str, rated: bool) -> dict[str, Any]:
    """The ``create_tournament`` of this run."""
    msg: dict[str, Any] = {
        "type": "create_tournament",
        "name": name,
        "game": config["game"],
        "format": SERVER_FORMATS[config["format"]],
        "clock": config["clock"],
        "rated": rated,
        "max_players": max(2, len(config["bots"])),
    }
    options = {k: v for k, v in config["options"].items() if k == "opening_rule"}
    if config["max_moves"]:
        options["max_moves"] = config["max_moves"]
    if options:
        msg["options"] = options
    if config["sprt"]:
        msg["format"], msg["max_players"] = "match", 2
        msg["max_games"] = match_games(config)
        msg["sprt"] = Sprt.parse(config["sprt"]).describe()
        msg["games_at_once"] = bot_capacity(config)
    else:
        if config["format"] == "gauntlet":
            msg["seeds"] = 1  # the first --bot, who enters first (leading_entrants)
        if config["format"] == "swiss" and config["rounds"]:
            msg["rounds"] = config["rounds"]
        msg["games_per_pair"] = games_per_pair(config)
    count = balanced_count(config["openings"])
    if count is not None:
        msg["openings"] = count  # the server's own balanced list: the same openings
    elif openings := server_openings(config):
        msg["openings"] = openings
    return msg


def bot_capacity(config: dict[str, Any]) -> int:
    """Games a bot plays at once: an SPRT match's ``--concurrency`` (the server's
    ``games_at_once``, at most 16), one in the other formats (a round's one game each)."""
    return (
        max(1, min(MAX_GAMES_AT_ONCE, int(config.get("concurrency") or 1))) if config["sprt"] else 1
    )


def leading_entrants(config: dict[str, Any]) -> list[str]:
    """The bots that must enter the event before the others: a gauntlet's seed and an SPRT
    match's first bot (the first ``--bot``: the server's seeds are the first entrants, and its
    match tests the first entrant)."""
    first = config["format"] == "gauntlet" or config["sprt"]
    return [config["bots"][0][0]] if first else []


def remembered(out: Path) -> dict[str, Any]:
    """The run's event as ``event.json`` keeps it (a fresh name when there is none yet)."""
    path = out / EVENT_FILE
    if path.exists():
        return dict(json.loads(path.read_text()))
    doc = {"name": f"{out.resolve().name[:40]} {secrets.token_hex(4)}", "tournament": None}
    write_json_atomic(path, doc)
    return doc


class HostedEvent:
    """One event on a server, created (or found again) and followed to its end."""

    def __init__(
        self,
        url: str | list[str],
        key: str,
        config: dict[str, Any],
        out: Path,
        reporter: Reporter,
        restarts: dict[str, int] | None = None,
        rated: bool = False,
    ) -> None:
        self.config, self.out, self.reporter, self.rated = config, out, reporter, rated
        self.state = Session("director", "bot", key=key, games=[config["game"]], level=0)
        self.conn = Connection(url, self.state, rate=50.0, ping_interval=20)
        self.updates: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.done: dict[str, GameResult] = read_journal(out / JOURNAL)
        self.names = [n for n, _ in config["bots"]]
        self.restarts = restarts if restarts is not None else {}
        self.event: dict[str, Any] = {}
        #: Games the server finished, as of the last state absorbed.
        self.ended = 0
        #: When the later pages of the event's games were last asked for (loop time).
        self.paged_at = float("-inf")
        self._task: asyncio.Task[str] | None = None

    async def open(self, timeout: float = 30.0) -> None:
        """Connect and wait for the ``welcome``."""
        self._task = asyncio.create_task(self.conn.run(self._on))
        await asyncio.wait_for(self.conn.online.wait(), timeout)

    async def close(self) -> None:
        """Close the connection."""
        await self.conn.close()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    def _on(self, msg: dict[str, Any]) -> None:
        if msg["type"] == "tournament" and msg.get("tournament") == self.event.get("tournament"):
            self.updates.put_nowait(msg)

    async def ensure(self) -> str:
        """The run's event id: the one remembered in ``--out``, else created now (once)."""
        doc = remembered(self.out)
        tid = doc.get("tournament") or await self._find(doc["name"])
        if tid is None:
            reply = await self.conn.request(event_request(self.config, doc["name"], self.rated))
            tid = str(reply["tournament"])
            log.info("created tournament %s", tid)
        else:
            log.info("following tournament %s", tid)
        write_json_atomic(self.out / EVENT_FILE, {**doc, "tournament": tid})
        self.event = {"tournament": tid}
        return tid

    async def _find(self, name: str) -> str | None:
        """An event of ours by ``name``: made by a run killed before it noted the answer."""
        ask: dict[str, Any] = {"type": "list_tournaments", "limit": 100}
        while True:
            reply = await self.conn.request(ask)
            for event in reply["tournaments"]:
                if event.get("name") == name:
                    return str(event["tournament"])
            if not reply.get("next"):
                return None
            ask = {**ask, "cursor": reply["next"]}

    async def entered(self, names: list[str], timeout: float | None = 120.0) -> None:
        """Wait until every one of ``names`` is in the event (nothing to wait for once it runs;
        ``timeout`` None: as long as it takes, for bots that enter by themselves)."""
        tid = self.event["tournament"]
        self.event = await self.conn.request({"type": "watch_tournament", "tournament": tid})
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        while self.event["status"] == "open" and not set(names) <= self._inside():
            if deadline is not None and asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"{', '.join(names)} did not enter {tid}: see logs/")
            await self._next_update(tid)

    async def follow(self, start_timeout: float | None = 120.0) -> dict[str, Any]:
        """Start the event once every bot entered (``start_timeout`` None: however long that
        takes), record every game; results.json's doc."""
        tid = self.event["tournament"]
        self.event = await self.conn.request({"type": "watch_tournament", "tournament": tid})
        (self.out / "games").mkdir(parents=True, exist_ok=True)
        self.reporter.start(self._total(), len(self.done), self.table())
        loop = asyncio.get_running_loop()
        deadline = float("inf") if start_timeout is None else loop.time() + start_timeout
        try:
            while True:
                await self._absorb()
                if self.event["status"] == "open":
                    if self._all_in():
                        await self._start(tid)
                    elif loop.time() > deadline:
                        raise TimeoutError(f"the bots did not all enter {tid}: see logs/")
                elif self.event["status"] == "finished" and self._recorded_all():
                    break
                await self._next_update(tid)
        finally:
            self.reporter.finish()
        summary = self.summary()
        write_json_atomic(self.out / RESULTS, summary)
        return summary

    async def _next_update(self, tid: str) -> None:
        """The next pushed state, or (after a quiet second, or a reconnect that lost the
        watch) the state asked for again."""
        try:
            self.event = await asyncio.wait_for(self.updates.get(), 1.0)
        except TimeoutError:
            ask = {"type": "watch_tournament", "tournament": tid}
            self.event = await self.conn.request(ask)

    def _inside(self) -> set[str]:
        return {e["name"] for e in self.event.get("entrants", []) if e["state"] == "in"}

    def _all_in(self) -> bool:
        return set(self.names) <= self._inside()

    async def _start(self, tid: str) -> None:
        try:
            self.event = await self.conn.request({"type": "start_tournament", "tournament": tid})
        except ServerError as exc:
            if exc.code != "tournament_closed":  # started already (a rerun's race)
                raise

    def _total(self) -> int:
        if self.config["sprt"]:
            return match_games(self.config)
        return games_per_pair(self.config) * pairings(self.config)  # as the server counts

    async def _all_games(self) -> list[dict[str, Any]]:
        """The event's games: the first page (the newest 100, where games end) at every
        update, the later pages at most every ``PAGES_EVERY_S`` and once it finished (each is
        the whole event again: asked at every push, they were most of the server's work)."""
        games = list(self.event.get("games", []))
        tid = self.event["tournament"]
        now = asyncio.get_running_loop().time()
        if self.event.get("status") != "finished" and now - self.paged_at < PAGES_EVERY_S:
            return games
        self.paged_at = now
        for page in range(1, int(self.event.get("pages") or 1)):
            reply = await self.conn.request(
                {"type": "get_tournament", "tournament": tid, "page": page}
            )
            games += reply.get("games", [])
        return games

    def _recorded_all(self) -> bool:
        return self.ended <= len(self.done)

    async def _absorb(self) -> None:
        """Record every game the server finished that is not in the journal yet."""
        games = await self._all_games()
        ended = [g for g in games if g.get("result") is not None]
        self.ended = len(ended)
        names = {e["id"]: e["name"] for e in self.event.get("entrants", [])}
        for game in sorted(ended, key=lambda g: (g["round"], g["key"])):
            if game["key"] not in self.done:
                self._record(await self._played(game, names))

    async def _played(self, game: dict[str, Any], names: dict[str, str]) -> Played:
        """A finished game of the event with its record from the history."""
        players = (names.get(game["players"][0], "?"), names.get(game["players"][1], "?"))
        opening = self._opening(game.get("opening"))
        if game.get("game_id") is None:  # lost without a room (a withdrawn entrant's)
            winner = game["result"]["winner"]
            result = GameResult(game["key"], game["round"], players, [], [], winner, "withdrawn")
            return Played(result)
        ask = {"type": "get_game", "game_id": game["game_id"], "format": "psq"}
        try:
            reply = await self.conn.request(ask)
        except ServerError as exc:  # a server without a database keeps no history
            log.warning("no record of game %s (%s)", game["game_id"], exc)
            reply = {"game": {}}
        record = reply["game"]
        reason = str(record.get("reason") or "")
        winner = None if game["result"].get("void") else game["result"]["winner"]
        moves = [[m["x"], m["y"]] for m in record.get("moves", [])]
        if moves and record.get("opening") is not None:  # the record's own opening stones
            opening = moves[: record["opening"]]
        result = GameResult(
            key=game["key"],
            round=game["round"],
            players=players,
            opening=opening,
            moves=moves,
            winner=winner,
            reason=reason,
            fault=fault_of(reason, record.get("fault")),
            game_id=game["game_id"],
            room=game.get("room"),
        )
        return Played(result, reply.get("psq"))

    def _opening(self, at: int | None) -> list[list[int]]:
        """Opening ``at`` of the event as this run sent it (none if it has no such opening:
        an event made by an older run, which sent each opening repeated)."""
        openings = server_openings(self.config)
        return [list(m) for m in openings[at]] if at is not None and at < len(openings) else []

    def _record(self, played: Played) -> None:
        """Journal the game (fsync), write its .psq, refresh results.json (each game once)."""
        result = played.result
        append_journal(self.out / JOURNAL, result)
        self.done[result.key] = result
        if played.psq:
            name = f"{result.key}_{result.players[0]}-vs-{result.players[1]}".replace("/", "_")
            (self.out / "games" / f"{name}.psq").write_text(played.psq, encoding="utf-8")
        write_json_atomic(self.out / RESULTS, self.summary())
        self.reporter.game(played, self.table(), len(self.done), self._sprt_line())

    def _sprt_line(self) -> str:
        """An SPRT match's LLR after the games recorded so far, as the old schedule printed it
        (``protocol/sprt.py``: the server's computation)."""
        if not self.config["sprt"]:
            return ""
        test = Sprt.parse(self.config["sprt"])
        llr = test.llr(*head_to_head(self.done.values(), *self.names))
        return f"LLR {llr:+.2f} [{test.lower:+.2f}, {test.upper:+.2f}]"

    def table(self) -> list[Standing]:
        """Every bot's record in the server's order (its points and tie-breaks rank)."""
        mine = {s.name: s for s in standings(self.names, self.done.values())}
        names = {e["id"]: e["name"] for e in self.event.get("entrants", [])}
        order = [
            names[s["player"]] for s in self.event.get("standings", []) if s["player"] in names
        ]
        order += [n for n in mine if n not in order]
        return [mine[n] for n in order if n in mine]

    def _row(self, standing: Standing) -> dict[str, Any]:
        """A bot's results.json line, its ``score`` the server's points (a swiss bye's too)."""
        row = standing.to_json()
        ids = {e["name"]: e["id"] for e in self.event.get("entrants", [])}
        ranked = {s["player"]: s for s in self.event.get("standings", [])}
        line = ranked.get(ids.get(standing.name, ""))
        if line is not None:
            row["score"], row["byes"] = line["points"], line.get("byes", 0)
        return row

    def summary(self) -> dict[str, Any]:
        """The results.json document (``server``: the event as the server ranks it)."""
        games = sorted(self.done.values(), key=lambda g: (g.round, g.key))
        table = self.table()
        names = {e["id"]: e["name"] for e in self.event.get("entrants", [])}
        ranked = [
            {**s, "player": names.get(s["player"], s["player"])}
            for s in self.event.get("standings", [])
        ]
        return {
            "tournament": self.config,
            "complete": self.event.get("status") == "finished" and self._recorded_all(),
            "server": {
                "tournament": self.event.get("tournament"),
                "status": self.event.get("status"),
                "standings": ranked,
                "byes": [
                    {**b, "player": names.get(b["player"], b["player"])}
                    for b in self.event.get("byes") or []
                ],
            },
            "standings": [self._row(s) for s in table],
            "los": [
                {"above": a.name, "below": b.name, "los": None if v is None else round(v, 4)}
                for a, b, v in zip(table, table[1:], neighbour_los(table, games), strict=False)
            ],
            "crosstable": crosstable(self.names, games),
            "restarts": dict(self.restarts),
            "unplayed": [],
            "games": [g.to_json() for g in games],
            **self._sprt_doc(),
        }

    def _sprt_doc(self) -> dict[str, Any]:
        """An SPRT match's ``sprt``: the server's figures (its verdict, else inconclusive)."""
        state = self.event.get("sprt")
        if not self.config["sprt"] or not state:
            return {}
        return {"sprt": {**state, "verdict": state["verdict"] or "inconclusive"}}
