"""Analysis (docs/PROTOCOL.md, "Analysis"): an ``analyse`` is checked, refused, answered from
the cache, joined to the same position's job in flight, or sent to a bot as an ``analyse_job``;
the bot's ``analysed`` answers everyone waiting for it.

Bounded as the protocol promises: each request weighs as a history lookup in the rate, one per
player waits at a time, at most ``max_analyses_per_address`` jobs are in flight per client
address and ``max_analyses`` in all (``busy``), at most what each bot announced per bot (the
rest wait for a slot, and a free slot goes to the waiting job of the address with the fewest
searched, so a few flooding addresses cannot keep another's analysis out), every job has a
deadline (its time plus a slack), and answers are kept per position (rules, stones, lines) so
ten spectators of a replay cost one search.
Nothing here runs on the per-move path.
"""

from __future__ import annotations

import itertools
import logging
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from protocol import wire
from protocol.errors import (
    AnalysisFailed,
    AnalysisRefused,
    ArenaError,
    BadMessage,
    Busy,
    NoBotAvailable,
    NoSuchRoom,
    RateLimited,
)
from protocol.wire import MAX_ROOM_ID, Message
from server.core.analysis.marks import marks
from server.core.analysis.position import (
    GameLine,
    Target,
    board_target,
    line_target,
    live_copy,
    may_analyse,
    record_line,
    room_line,
)
from server.core.analysis.reply import MAX_TIME_S, answer_body, budget
from server.core.game.members import Send
from server.core.limits import Limits
from server.core.lobby.registry import RoomRegistry
from server.core.outputs import Lookup, Out, Reply
from server.core.players.admission import Admission
from server.core.players.botdesk import BotDesk, plays
from server.core.players.players import Conn, Player
from server.core.players.roster import Roster, rooms_of

log = logging.getLogger("mnk.analysis")
#: The requests handled here: a client's ``analyse``, a bot's answer to an ``analyse_job``.
ANALYSIS = frozenset({"analyse", "analysed"})

#: Seconds past its time budget a job may take before its askers get ``analysis_failed`` (the
#: network both ways, a bot starting its analysis worker with its first job).
JOB_SLACK_S = 5.0
#: Seconds a job may wait here for a slot of a busy bot before it is sent (else it fails).
QUEUE_WAIT_S = 5.0
#: Seconds a player's ``analyse`` of a game of the history may wait for the store.
LOOKUP_WAIT_S = 30.0


@dataclass(frozen=True, slots=True)
class Asker:
    """Who waits for a job's answer: the player, its request's id, what the answer echoes."""

    pid: str
    request_id: int | None
    echo: Message
    #: The game the position comes from (None: an analysis board): its moves get marked.
    line: GameLine | None = None


@dataclass(slots=True)
class Job:
    """One search a bot does for one position (any number of askers share it)."""

    id: str
    key: bytes
    target: Target
    lines: int
    time_s: float
    #: The bot searching it ("" while it waits for a slot), and who asked first (never the bot).
    bot: str
    first: str
    deadline: float
    #: The client address of who asked first: its share of the jobs (None: unknown).
    address: str | None = None
    #: Its place in the order jobs were made: the oldest of an address's waiting jobs goes first.
    order: int = 0
    askers: list[Asker] = field(default_factory=list)

    def hand_to(self, bot: str) -> None:
        """The bot ``bot`` searches it now."""
        self.bot = bot


class Analysis:
    """The ``analyse`` requests and ``analysed`` answers of an arena."""

    def __init__(
        self,
        roster: Roster,
        rooms: RoomRegistry,
        bots: BotDesk,
        *,
        admission: Admission,
        clock: Callable[[], float],
    ) -> None:
        self.roster, self.rooms, self.bots, self.admission = roster, rooms, bots, admission
        self.limits: Limits = admission.limits
        self.clock = clock
        self.jobs: dict[str, Job] = {}
        self._by_key: dict[bytes, str] = {}
        #: Answers by key: (the time the search had, the body packed: a few hundred bytes
        #: instead of a tree of lists), least recently used first.
        self._cache: OrderedDict[bytes, tuple[float, bytes]] = OrderedDict()
        #: Players with an ``analyse`` waiting (a job's id, or "" for a store lookup) and since.
        self._waiting: dict[str, tuple[str, float]] = {}
        #: What each player's lookup of a game asked for: (lines, time, request id, ply).
        self._looking: dict[str, tuple[int, float, int | None, int | None]] = {}
        self._ids = itertools.count(1)
        #: Jobs sent to bots so far, and answers served from the cache (tests, the log).
        self.sent = self.hits = 0

    # -- requests ----------------------------------------------------------------------------

    def request(self, conn: Conn, player: Player, msg: Message) -> list[Out]:
        """An ``analyse`` (refused, answered now, or waiting for a job or the store), or a
        bot's ``analysed``."""
        if msg["type"] == "analysed":
            return self.answered(player, msg)
        now = self.clock()
        lines, time_s = budget(msg)
        sources = [k for k in ("room", "game_id", "moves") if k in msg]
        if len(sources) != 1 or (sources == ["moves"]) != ("game" in msg):
            raise BadMessage("analyse takes game and moves, or room, or game_id")
        waiting = self._waiting.get(player.pid)
        if waiting is not None and now - waiting[1] < LOOKUP_WAIT_S + MAX_JOB_S:
            self.admission.note(conn, "analyses", now)
            raise RateLimited("one analyse at a time: wait for the answer to the last one")
        rid, ply = msg.get("id"), msg.get("ply")
        if "game_id" in msg:
            self.admission.check_lookup(conn, now)  # charged and counted as a history lookup
            self._waiting[player.pid] = ("", now)
            self._looking[player.pid] = (lines, time_s, rid, ply)
            self.admission.started(conn)
            params = {"game_id": msg["game_id"], "fmt": "json"}
            return [Lookup("get_game", params, rid, then="analyse")]
        self.admission.charge(conn, now)
        if "room" in msg:
            room_id = msg["room"][:MAX_ROOM_ID]
            room = self.rooms.get(room_id)
            if room is None:
                raise NoSuchRoom(f"no room {room_id!r}")
            may_analyse(room)
            line: GameLine | None = room_line(room)
            target = line_target(line, ply)
            echo: Message = {"room": room.id}
        else:
            target, line = board_target(msg), None
            if live_copy(target, rooms_of(self.rooms, player)):
                raise AnalysisRefused("that is the position of a live game you are in")
            echo = {}
        asker = Asker(player.pid, rid, echo, line)
        return self._start(player, target, lines, time_s, asker, conn.address_key)

    def found(self, conn: Conn, reply: Message) -> list[Out]:
        """The store's answer to a player's lookup of a game (``get_game``'s reply, or an
        error): go on with the analysis of its position."""
        pid = conn.pid
        asked = self._looking.pop(pid, None) if pid is not None else None
        if pid is None or asked is None:
            return []
        self._waiting.pop(pid, None)
        lines, time_s, rid, ply = asked
        player = self.roster.players.get(pid)
        try:
            if reply.get("type") == "error" or player is None:
                code, text = reply.get("code", "internal_error"), reply.get("message", "")
                return [Reply(wire.error(code, text, rid))]
            record = reply["game"]
            echo: Message = {"game_id": record["game_id"]}
            if record.get("status") != "over":  # live: only a training game, from its room
                room = next((r for r in self.rooms if r.game_id == record["game_id"]), None)
                if room is None or not room.options.get("hints"):
                    raise AnalysisRefused("that game is live: it is analysed once it is over")
                line = room_line(room)
            else:
                line = record_line(record)
            target = line_target(line, ply)
            asker = Asker(pid, rid, echo, line)
            return self._start(player, target, lines, time_s, asker, conn.address_key)
        except ArenaError as exc:
            return [Reply(wire.error(exc.code, exc.message, rid))]

    def _start(
        self,
        player: Player,
        target: Target,
        lines: int,
        time_s: float,
        asker: Asker,
        address: str | None,
    ) -> list[Out]:
        key = target.key + bytes([lines])
        cached = self._cache.get(key)
        if cached is not None and cached[0] >= time_s:
            self._cache.move_to_end(key)
            self.hits += 1
            return [Reply(self._message(wire.unpack(cached[1]), target, asker, lines))]
        now = self.clock()
        running = self.jobs.get(self._by_key.get(key, ""))
        if running is not None:  # the same position is being searched: wait for that
            running.askers.append(asker)
            self._waiting[player.pid] = (running.id, now)
            return []
        self._check_share(address)
        bot = self._analyser(target, player.pid)  # None: every analyser is busy, wait a little
        number = next(self._ids)
        deadline = now + time_s + JOB_SLACK_S + (QUEUE_WAIT_S if bot is None else 0.0)
        job = Job(
            f"j_{number}", key, target, lines, time_s, "", player.pid, deadline, address, number
        )
        job.askers.append(asker)
        self.jobs[job.id] = job
        self._by_key[key] = job.id
        self._waiting[player.pid] = (job.id, now)
        return [] if bot is None else [self._send(job, bot)]

    def _check_share(self, address: str | None) -> None:
        """Refuse a new job past its address's share or past the bound in all (``busy``)."""
        lim = self.limits
        if sum(job.address == address for job in self.jobs.values()) >= (
            lim.max_analyses_per_address
        ):
            raise Busy("your address has as many analyses under way as it may: wait for one")
        if len(self.jobs) >= lim.max_analyses:
            raise Busy("the server is analysing as much as it may: try again in a moment")

    def _send(self, job: Job, bot: Player) -> Send:
        """Hand ``job`` to ``bot``."""
        job.hand_to(bot.pid)
        self.sent += 1
        order = {"type": "analyse_job", "job": job.id, "game": job.target.variant.describe()}
        order |= {"moves": job.target.wire_moves(), "lines": job.lines, "time": job.time_s}
        return Send((bot.pid,), order)

    def _queued(self) -> list[Out]:
        """Send the jobs waiting for a slot that one is free for now: round robin between
        addresses (the waiting job of the address with the fewest searched now goes first, the
        oldest of that address's)."""
        waiting = [j for j in self.jobs.values() if not j.bot]
        if not waiting:
            return []
        searched = Counter(j.address for j in self.jobs.values() if j.bot)
        out: list[Out] = []
        while waiting:
            job = min(waiting, key=lambda j: (searched[j.address], j.order))
            waiting.remove(job)
            try:
                bot = self._analyser(job.target, job.first)
            except NoBotAvailable:  # its analysers left meanwhile
                out += self._fail(job, "no bot is left to analyse that game")
                continue
            if bot is None:
                break
            searched[job.address] += 1
            out.append(self._send(job, bot))
        return out

    def _analyser(self, target: Target, asker: str) -> Player | None:
        """The least busy bot here that analyses this game (the built-in pool's, which plays
        any level, first); None when each has its slots taken, NoBotAvailable when none
        analyses it at all."""
        load: dict[str, int] = {}
        for job in self.jobs.values():
            load[job.bot] = load.get(job.bot, 0) + 1
        able = [
            p
            for p in self.bots.local_bots()
            if p.analyses > 0 and p.pid != asker and plays(p.games, target.variant.name)
        ]
        if not able:
            raise NoBotAvailable("no bot analyses that game right now")
        free = [p for p in able if p.analyses > load.get(p.pid, 0)]
        if not free:
            return None
        return min(free, key=lambda p: (p.level is not None, load.get(p.pid, 0), p.pid))

    # -- answers -----------------------------------------------------------------------------

    def answered(self, bot: Player, msg: Message) -> list[Out]:
        """A bot's ``analysed``: checked, kept, and sent to everyone waiting for it."""
        if bot.kind != "bot":
            raise BadMessage("only bots answer analyse jobs")
        job = self.jobs.get(msg["job"])
        if job is None or job.bot != bot.pid:
            return []  # too late (the askers were told), or not this bot's: nothing to do
        if "error" in msg:
            log.info("bot %s failed analysis %s: %.200s", bot.name, job.id, msg["error"])
            return self._fail(job, "the analysing bot failed on that position") + self._queued()
        try:
            body = answer_body(msg, job.target, job.lines)
        except BadMessage as exc:
            log.warning("bot %s answered analysis %s badly: %s", bot.name, job.id, exc.message)
            out = self._fail(job, "the analysing bot answered nonsense")
            return [*out, Reply(wire.error(exc.code, exc.message)), *self._queued()]
        self._close(job)
        self._cache[job.key] = (job.time_s, wire.pack(body))
        self._cache.move_to_end(job.key)
        while len(self._cache) > self.limits.analysis_cache:
            self._cache.popitem(last=False)
        out: list[Out] = [
            Send((a.pid,), self._message(body, job.target, a, job.lines)) for a in job.askers
        ]
        return out + self._queued()

    def sweep(self, now: float) -> list[Out]:
        """Fail jobs past their deadline or whose bot went away; forget stale waits."""
        if not self.jobs and not self._waiting:
            return []
        out: list[Out] = []
        for job in list(self.jobs.values()):
            bot = self.roster.players.get(job.bot) if job.bot else None
            if now > job.deadline or (job.bot and (bot is None or not bot.online)):
                out += self._fail(job, "the analysing bot ran out of time or left; try again")
        if out:
            out += self._queued()
        for pid, (job_id, since) in list(self._waiting.items()):
            if job_id not in self.jobs and now - since > LOOKUP_WAIT_S + MAX_JOB_S:
                del self._waiting[pid]  # a lookup whose asker left (its answer never came)
                self._looking.pop(pid, None)
        return out

    def _fail(self, job: Job, why: str) -> list[Out]:
        self._close(job)
        exc = AnalysisFailed(why)
        return [Send((a.pid,), wire.error(exc.code, exc.message, a.request_id)) for a in job.askers]

    def _close(self, job: Job) -> None:
        self.jobs.pop(job.id, None)
        if self._by_key.get(job.key) == job.id:
            del self._by_key[job.key]
        for asker in job.askers:
            if self._waiting.get(asker.pid, ("", 0.0))[0] == job.id:
                del self._waiting[asker.pid]

    def _message(self, body: Message, target: Target, asker: Asker, lines: int) -> Message:
        msg: Message = {"type": "analysis", **body, **asker.echo}
        msg |= {"ply": target.ply, "to_move": target.to_move}
        if asker.line is not None:
            msg["marks"] = marks(asker.line, target.ply, body, lambda key: self._kept(key, lines))
        if asker.request_id is not None:
            msg["id"] = asker.request_id
        return msg

    def _kept(self, key: bytes, lines: int) -> Message | None:
        """The kept answer of the position ``key`` asked with ``lines`` (None: not kept)."""
        cached = self._cache.get(key + bytes([lines]))
        return None if cached is None else wire.unpack(cached[1])


#: The longest a job may wait for its bot (the most time a request may ask, the slack, the queue).
MAX_JOB_S = MAX_TIME_S + JOB_SLACK_S + QUEUE_WAIT_S
