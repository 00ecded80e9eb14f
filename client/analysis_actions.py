"""What the analysis buttons do: hints in a training game, a finished game's analysis, the
analysis board, and a game's export to ``.psq`` or a plain-text record.

``AnalysisActions`` is a mixin of :class:`client.app.App`. Every ``analyse`` goes through one
:class:`client.analyst.Analyst`, so at most one is in flight whatever the user clicks; a
finished game is analysed ply by ply while its analysis is on screen.
"""

from __future__ import annotations

import logging
from typing import Any

from client.actions import Actions
from client.anaboard import AnalysisBoard
from client.analysis import Analysis
from client.analyst import Analyst, GameWalk
from client.export import save, text_record
from client.values import Cell, FinishedGame, Message
from client.words import error_text
from protocol.records import PsqRecord, outcome, write_psq
from protocol.rules import Move, WinRule

log = logging.getLogger("mnk.client")

#: Errors after which a game's walk stops (asking the next position would fail the same way).
STOPS_WALK = frozenset({"analysis_refused", "no_bot_available", "unknown_type", "no_such_game"})


class AnalysisActions(Actions):
    """Hints, the analysis of finished games, the analysis board and exports."""

    replay_game: FinishedGame | None

    def init_analysis(self) -> None:
        """The analysis state (called from ``App.__init__``)."""
        self.analyst = Analyst()
        #: The finished game being analysed, position by position.
        self.walk: GameWalk | None = None
        #: The last hint and the (room, ply) it is about.
        self.hint: Analysis | None = None
        self.hint_at: tuple[str, int] | None = None
        self.hint_asked: tuple[str, int] | None = None
        #: The analysis board, and the positions its request waiting / in flight is about.
        self.study = AnalysisBoard()
        self.study_from = "lobby"
        self.study_waiting: tuple[object, ...] | None = None
        self.study_asked: tuple[object, ...] | None = None
        #: ``get_game`` requests for a ``.psq`` export, by id: the game they export.
        self.exports: dict[int, str] = {}

    # -- the one request in flight ------------------------------------------------------------

    def tick_analysis(self, now: float) -> None:
        """Send the next ``analyse`` when the slot is free (the game's walk while on screen)."""
        if self.model.connection != "online":
            return
        walk_msg = None
        walk = self.walk
        if self.scene == "analysis" and walk is not None and not self.analyst.busy_with("walk"):
            ply = walk.next_ply(self.replay_ply)
            walk_msg = walk.request(ply) if ply is not None else None
        item = self.analyst.next(now, walk_msg)
        if item is None:
            return
        purpose, msg = item
        rid = self.send(msg)
        self.analyst.sent(purpose, msg, rid, now)
        if purpose == "board":
            self.study_asked, self.study_waiting = self.study_waiting, None
        elif purpose == "hint":
            self.hint_asked = self.hint_at_now()

    def on_analysis_message(self, msg: Message, now: float) -> bool:
        """Take an ``analysis``, an error for an ``analyse`` or a ``.psq`` export's ``game``;
        True when it was one of those (the model need not see an error of ours)."""
        kind, rid = msg.get("type"), msg.get("id")
        if kind == "welcome":
            self.analyst.reset()
            self.exports.clear()
        if kind == "analysis":
            done = self.analyst.answered(rid)
            if done is not None:
                self.on_analysis(done[0], done[1], Analysis.from_wire(msg))
            return True
        if kind == "error":
            code = str(msg.get("code", ""))
            if not self.analyst.owns(rid):
                return self.export_failed(rid)
            done = self.analyst.refused(rid, code, now)  # None: asked again after a pause
            if done is not None:
                self.on_analysis_refused(done[0], done[1], code, str(msg.get("message", "")))
            return True
        if kind == "game" and isinstance(rid, int) and rid in self.exports:
            self.save_psq(self.exports.pop(rid), msg)
        return False

    def on_analysis(self, purpose: str, request: Message, analysis: Analysis) -> None:
        """An answer to our ``analyse`` for ``purpose``."""
        if purpose == "walk" and self.walk is not None:
            if request.get("game_id") == self.walk.game.game_id:
                self.walk.by_ply[int(request.get("ply", analysis.ply))] = analysis
        elif purpose == "hint" and self.hint_asked is not None:
            # about the position the server analysed (its ``ply``), whatever happened since
            self.hint, self.hint_at = analysis, (self.hint_asked[0], analysis.ply)
        elif purpose == "board":
            self.study.analysis, self.study.analysed = analysis, self.study_asked

    def on_analysis_refused(self, purpose: str, request: Message, code: str, text: str) -> None:
        """The server would not analyse: a walk skips the position (or stops), else say so."""
        if purpose == "walk" and self.walk is not None:
            if request.get("game_id") != self.walk.game.game_id:
                return
            if code in STOPS_WALK:
                self.walk.stopped = error_text(code, text)
            else:  # e.g. the final position, already won: the result ends the graph
                self.walk.failed.add(int(request.get("ply", -1)))
            return
        self.model.toast(error_text(code, text), "error")

    # -- hints --------------------------------------------------------------------------------

    def do_form_hints(self, arg: Any = None, pos: Any = None) -> None:
        """Toggle a training game against the bot (hints and takebacks; never rated)."""
        self.form.hints = not self.form.hints
        if self.form.hints:
            self.form.rated = False

    def hint_at_now(self) -> tuple[str, int] | None:
        """The (room, ply) on screen."""
        room = self.model.room
        return (room.room, room.ply) if room is not None else None

    def shown_hint(self) -> Analysis | None:
        """The hint for the position on screen, if one came."""
        return (
            self.hint if self.hint_at is not None and self.hint_at == self.hint_at_now() else None
        )

    def do_hint(self, arg: Any = None, pos: Any = None) -> None:
        """Ask the engine for the best move here (a training game: ``options.hints``)."""
        room = self.model.room
        if room is None or not room.hints or room.status != "playing" or not room.my_turn:
            return  # a hint is for our move (the bot's would be stale once it moves)
        if self.shown_hint() is not None or self.analyst.busy_with("hint"):
            return  # the answer is on screen or on its way
        self.analyst.want("hint", {"type": "analyse", "room": room.room})

    # -- a finished game --------------------------------------------------------------------

    def do_replay(self, game_id: str, pos: Any = None) -> None:
        """Open a replay (see :meth:`Actions.do_replay`), asking for its moves' times."""
        super().do_replay(game_id, pos)
        game = self.replay_game
        if self.scene == "replay" and game is not None and game.game_id == game_id:
            self.fetch_times(game)

    def do_analyse_game(self, arg: Any = None, pos: Any = None) -> None:
        """Open the replayed game's analysis (walked position by position while shown)."""
        game = self.replay_game
        if game is None:
            return
        if self.walk is None or self.walk.game.game_id != game.game_id:
            self.analyst.drop("walk")
            self.walk = GameWalk(game)
        self.scene = "analysis"

    def do_analysis_back(self, arg: Any = None, pos: Any = None) -> None:
        """Back to the plain replay (the walk pauses; its answers are kept)."""
        self.analyst.drop("walk")
        self.scene = "replay"

    def fetch_times(self, game: FinishedGame) -> None:
        """Ask for a game seen live again, quietly, for its moves' times."""
        if not game.times_ms and self.model.history_supported:
            self.model.quiet_ids.add(self.send({"type": "get_game", "game_id": game.game_id}))

    # -- exports ----------------------------------------------------------------------------

    def do_export(self, kind: str, pos: Any = None) -> None:
        """Save the replayed game: ``psq`` (the server's record) or ``txt`` (ours)."""
        game = self.replay_game
        if game is None:
            return
        if kind == "txt":
            self.saved(game.game_id, ".txt", text_record(game))
        elif self.model.history_supported:
            rid = self.send({"type": "get_game", "game_id": game.game_id, "format": "psq"})
            self.exports[rid] = game.game_id
        else:
            self.saved(game.game_id, ".psq", local_psq(game))

    def save_psq(self, game_id: str, msg: Message) -> None:
        """The server's ``.psq`` arrived: write it (our own record when it sent none)."""
        psq = msg.get("psq")
        game = self.model.finished.get(game_id)
        if isinstance(psq, str) and psq.startswith("Piskv"):
            self.saved(game_id, ".psq", psq)
        elif game is not None:
            self.saved(game_id, ".psq", local_psq(game))

    def export_failed(self, rid: object) -> bool:
        """A ``.psq`` export's ``get_game`` refused: write the record from the moves here."""
        game_id = self.exports.pop(rid, None) if isinstance(rid, int) else None
        game = self.model.finished.get(game_id or "")
        if game is None:
            return False
        self.saved(game.game_id, ".psq", local_psq(game))
        return True

    def saved(self, game_id: str, suffix: str, text: str) -> None:
        """Write an export and say where it went."""
        try:
            path = save(game_id, suffix, text)
        except OSError as exc:
            self.model.toast(f"Could not save the game: {exc}", "error")
            return
        self.model.toast(f"Saved {path}")

    # -- the analysis board -----------------------------------------------------------------

    def do_study(self, arg: Any = None, pos: Any = None) -> None:
        """Open the analysis board (from a replay: at the position shown)."""
        if self.scene in ("replay", "analysis") and self.replay_game is not None:
            game = self.replay_game
            self.study.load(game.game, list(game.moves[: self.replay_ply]))
            self.study_analyse()
        if self.scene != "study":
            self.study_from = self.scene
        self.scene, self.focus = "study", None

    def do_versus_bot(self, arg: Any = None, pos: Any = None) -> None:
        """Continue from the position on screen (the analysis board's, or the replay's) against
        the bot, at the lobby form's level; the room opens when the server answers."""
        board = self.study
        game = self.replay_game
        if self.scene in ("replay", "analysis") and game is not None:
            board = AnalysisBoard()
            board.load(game.game, list(game.moves[: self.replay_ply]))
        problem = board.problem()
        if problem is not None:
            self.model.toast(problem, "error")
            return
        self.send(board.versus_request(self.form.level))

    def do_study_back(self, arg: Any = None, pos: Any = None) -> None:
        """Leave the analysis board for where it was opened from."""
        back = self.study_from
        gone = (back in ("replay", "analysis") and self.replay_game is None) or (
            back == "room" and self.model.room is None
        )
        known = back in ("replay", "analysis", "room", "leaderboard", "profile")
        self.scene = back if known and not gone else "lobby"

    def do_study_variant(self, name: str, pos: Any = None) -> None:
        """Another variant (the board is cleared)."""
        self.study.choose(name)

    def do_study_step(self, arg: tuple[str, int], pos: Any = None) -> None:
        """A custom board's width, height or k, or the number of lines."""
        self.study.step(*arg)
        if arg[0] == "lines":
            self.study_analyse()

    def do_study_rule(self, arg: Any = None, pos: Any = None) -> None:
        """A custom board's rule: k or more, or exactly k."""
        self.study.rule = "exact" if self.study.rule == "freestyle" else "freestyle"
        self.study.clear()

    def do_study_mode(self, mode: str, pos: Any = None) -> None:
        """Set up stones, or play from the position."""
        problem = self.study.problem() if mode == "play" else None
        if problem is not None and not self.study.moves:
            self.model.toast(problem, "error")
            return
        self.study.mode = mode
        if mode == "play":
            self.study_analyse()

    def do_study_paint(self, paint: int | None, pos: Any = None) -> None:
        """What a click puts in setup mode: a black or a white stone, or nothing."""
        self.study.paint = paint

    def do_study_side(self, side: int, pos: Any = None) -> None:
        """Which colour is to move in the position set up."""
        self.study.to_move = side

    def do_study_clear(self, arg: Any = None, pos: Any = None) -> None:
        """An empty board."""
        self.study.clear()

    def do_study_undo(self, arg: Any = None, pos: Any = None) -> None:
        """Take the last move explored back."""
        self.study.back()
        self.study_analyse()

    def do_study_best(self, arg: Any = None, pos: Any = None) -> None:
        """Play the engine's best move in the position on screen."""
        best = self.study.fresh.best if self.study.fresh is not None else None
        if best is not None:
            self.study_click(best.move)

    def do_study_analyse(self, arg: Any = None, pos: Any = None) -> None:
        """Ask the engine about the position on screen."""
        self.study_analyse(loud=True)

    def study_analyse(self, loud: bool = False) -> None:
        """Queue the board's position for analysis (the latest replaces one not sent yet)."""
        problem = self.study.problem()
        if problem is not None:
            if loud:
                self.model.toast(problem, "error")
            return
        if self.study.fresh is not None or self.study_asked == self.study.key():
            return  # answered, or on its way
        self.study_waiting = self.study.key()
        self.analyst.want("board", self.study.request())

    def study_click(self, cell: Cell) -> None:
        """A click on the analysis board: set a stone up, or play and analyse anew."""
        problem = self.study.click(cell)
        if problem is not None:
            self.model.toast(problem, "info")
        elif self.study.mode == "play":
            self.study_analyse()


def local_psq(game: FinishedGame) -> str:
    """The ``.psq`` of a game the server keeps no record of, from the moves seen here."""
    times = tuple(ms or 0 for ms in game.times_ms)
    winner = game.result.winner
    rule = {"exact": WinRule.EXACT, "renju": WinRule.RENJU}.get(game.game.rule, WinRule.FREESTYLE)
    record = PsqRecord(
        width=game.game.width,
        height=game.game.height,
        moves=tuple(Move(x, y) for x, y in game.moves),
        times_ms=times,
        players=game.players,
        winner=winner,
        rule=rule,
        no_result=game.result.reason if outcome(winner, game.result.reason) == "none" else None,
    )
    return write_psq(record)
