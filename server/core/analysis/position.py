"""The position an ``analyse`` asks about (an analysis board, a room, a game of the history),
checked and keyed; and the fair-play rule that says whose live game may be analysed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from protocol.errors import AnalysisRefused, ArenaError, BadOptions, BadPosition
from protocol.rules import Game, Move, Termination, Variant
from protocol.variants import MNK_OPTIONS, make_variant, variant_from_description
from protocol.vocab import Status
from protocol.wire import Message
from server.core.game.options import canonical
from server.core.game.room import Room

#: The options an analysis board takes besides the ``mnk`` ones: a set-up position.
BOARD_OPTIONS = ("position",)


@dataclass(frozen=True, slots=True)
class Target:
    """A position to analyse: the variant and the moves from the empty board that reach it
    (a bot is given moves), with its key (the rules and the stones, whatever the order)."""

    variant: Variant
    moves: tuple[Move, ...]
    key: bytes
    to_move: int
    #: The moves of the game (beyond a set-up position) the position comes after.
    ply: int

    def wire_moves(self) -> list[list[int]]:
        """The moves as the wire writes them."""
        return [[m.x, m.y] for m in self.moves]


def target_of(variant: Variant, moves: list[Move], ply: int | None = None) -> Target:
    """The position after ``moves`` (``ply`` of them a game's, the rest a set-up; None: all);
    BadPosition if one is illegal or the game is over there."""
    if len(moves) > variant.cells:
        raise BadPosition(f"more moves than the {variant.width}x{variant.height} board holds")
    try:
        game = Game.from_moves(variant, moves)
    except ArenaError as exc:  # off the board, occupied, a renju foul, after the end
        raise BadPosition(f"not a legal position: {exc.message}") from None
    if game.over:
        raise BadPosition("the game is over in that position: nothing to analyse")
    board = game.board
    key = position_key(variant, board.cells, board.to_move)
    return Target(variant, tuple(moves), key, board.to_move, len(moves) if ply is None else ply)


def position_key(variant: Variant, stones: list[int], to_move: int) -> bytes:
    """The cache's key of a position: the rules (not the game's name: ``gomoku`` is ``mnk``
    15x15 k=5 freestyle), every cell and the side to move; exact, so never a collision."""
    rules = f"{variant.width}x{variant.height}:{variant.k}:{variant.rule}:{to_move}|"
    return rules.encode() + bytes(stones)


def board_target(msg: Message) -> Target:
    """An analysis board: ``game``, ``options`` (the ``mnk`` rules, a set-up ``position``) and
    ``moves`` (BadOptions for bad rules, BadMessage-like shapes as BadPosition)."""
    options = msg.get("options") or {}
    allowed = (*BOARD_OPTIONS, *MNK_OPTIONS) if msg["game"] == "mnk" else BOARD_OPTIONS
    unknown = [k for k in options if k not in allowed]
    if unknown:
        raise BadOptions(f"unknown option {str(unknown[0])[:40]!r}; analyse takes {allowed}")
    variant = make_variant(msg["game"], options)
    setup: list[Move] = []
    if "position" in options:
        setup = interleaved(canonical(msg["game"], {"position": options["position"]})["position"])
    moves = cells(msg.get("moves", []), "moves")
    return target_of(variant, setup + moves, len(moves))


def cells(raw: object, what: str) -> list[Move]:
    """``[[x, y], …]`` as moves; BadPosition for anything else."""
    if not isinstance(raw, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(type(c) is int for c in p) for p in raw
    ):
        raise BadPosition(f"{what} must be a list of [x, y] pairs")
    return [Move(x, y) for x, y in raw]


def interleaved(position: dict[str, Any] | None) -> list[Move]:
    """A set-up position (``{"black", "white", "to_move"}``) as alternate moves from the empty
    board, black first (bots are given moves); BadPosition when no such order reaches it."""
    if not position:
        return []
    black, white = cells(position["black"], "black"), cells(position["white"], "white")
    to_move = position.get("to_move", 0)
    if len(black) - len(white) != to_move or to_move not in (0, 1):
        raise BadPosition("only set-up positions that alternate moves (black first) are analysed")
    out: list[Move] = []
    for i, stone in enumerate(black):
        out.append(stone)
        if i < len(white):
            out.append(white[i])
    return out


@dataclass(frozen=True, slots=True)
class GameLine:
    """The game a position comes from: its rules, set-up stones (as alternate moves), its moves
    and how it ended (``line`` or ``draw`` when its last move ended it, else None)."""

    variant: Variant
    setup: tuple[Move, ...]
    moves: tuple[Move, ...]
    end: str | None

    @classmethod
    def of(cls, variant: Variant, setup: list[Move], moves: list[Move], reason: object) -> GameLine:
        """The line of a game whose end is ``reason`` (a Termination or the record's string)."""
        end = str(reason) if reason in (Termination.LINE, Termination.DRAW) else None
        return cls(variant, tuple(setup), tuple(moves), end)

    def key(self, ply: int) -> bytes:
        """The cache key (without ``lines``) of the position after ``ply`` moves."""
        board = Game.from_moves(self.variant, [*self.setup, *self.moves[:ply]]).board
        return position_key(self.variant, board.cells, board.to_move)


def room_line(room: Room) -> GameLine:
    """``room``'s game as a :class:`GameLine`."""
    setup: dict[str, Any] | None = None
    if room.position is not None:
        black, white, to_move = room.position
        setup = {"black": [[m.x, m.y] for m in black], "white": [[m.x, m.y] for m in white]}
        setup["to_move"] = to_move
    outcome = room.game.outcome
    reason = None if outcome is None else outcome.termination
    return GameLine.of(room.variant, interleaved(setup), list(room.game.moves), reason)


def record_line(record: Message) -> GameLine:
    """A game of the history (``get_game``'s record) as a :class:`GameLine`."""
    variant = variant_from_description(record["game"])
    setup = interleaved((record.get("options") or {}).get("position"))
    moves = [Move(m["x"], m["y"]) for m in record["moves"]]
    return GameLine.of(variant, setup, moves, record.get("reason"))


def line_target(line: GameLine, ply: int | None) -> Target:
    """The position of ``line`` after ``ply`` of its moves (see :func:`at_ply`)."""
    return at_ply(line.variant, list(line.setup), list(line.moves), ply, line.end is not None)


def at_ply(
    variant: Variant, setup: list[Move], moves: list[Move], ply: int | None, ended: bool
) -> Target:
    """The position after ``ply`` of ``moves`` (after ``setup``); by default the end, or the
    position before the last move when that move ended the game (a line, a full board)."""
    if ply is None:
        ply = len(moves) - 1 if ended and moves else len(moves)
    if not 0 <= ply <= len(moves):
        raise BadPosition(f"ply must be 0..{len(moves)} for that game")
    return target_of(variant, setup + moves[:ply], ply)


def may_analyse(room: Room) -> None:
    """Fair play: a live game (waiting or playing) is analysed only when it is a training game
    (``options.hints``: casual, against a bot), by its player or its spectators alike."""
    if room.status != Status.OVER and not room.options.get("hints"):
        raise AnalysisRefused(
            "a live game is analysed only in a training game (against a bot, with hints on)"
        )


def live_copy(target: Target, rooms: list[Room]) -> bool:
    """Whether ``target`` is the position now on the board of one of ``rooms`` that may not be
    analysed (an analysis board is no way round the fair-play rule)."""
    for room in rooms:
        if room.status == Status.OVER or room.options.get("hints"):
            continue
        board = room.game.board
        if position_key(room.variant, board.cells, board.to_move) == target.key:
            return True
    return False
